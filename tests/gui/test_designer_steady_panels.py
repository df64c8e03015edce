"""The side panels hold still for a host who scrolls them: the wheel scrolls past a drop-down or number box
instead of changing it (a field clicked into still takes the wheel)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QScrollArea, QWidget
from pytestqt.qtbot import QtBot

from tests.gui.windows import open_window


def wheel(widget: QWidget, notches: int = -3) -> None:
    """Turn the wheel over the middle of ``widget`` (negative: towards the host, scrolling down)."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                        QPoint(0, 120 * notches), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def test_the_wheel_scrolls_the_panels_past_their_fields(qtbot: QtBot) -> None:
    win = open_window(qtbot, 1000, 360)  # short: the Analysis and Properties panels scroll
    fields: list[QWidget] = []
    for dock in (win.analysis_dock, win.properties_dock):
        dock.show()
        dock.raise_()
        area = dock.widget()
        assert isinstance(area, QScrollArea)
        qtbot.waitUntil(lambda area=area: area.verticalScrollBar().maximum() > 0, timeout=3000)
        boxes: list[QWidget] = [*area.findChildren(QComboBox), *area.findChildren(QAbstractSpinBox)]
        assert boxes
        for box in boxes:
            before = box.currentText() if isinstance(box, QComboBox) else box.text()
            bar = area.verticalScrollBar()
            bar.setValue(0)
            box.setEnabled(True)
            wheel(box)
            after = box.currentText() if isinstance(box, QComboBox) else box.text()
            assert after == before, f"the wheel changed {box.objectName() or type(box).__name__}"
            assert bar.value() > 0, "the wheel over a field should scroll the panel"
        fields.extend(boxes)
    # A field the host clicked into still takes the wheel.
    limit = win.analysis.time_limit
    limit.setFocus()
    qtbot.waitUntil(limit.hasFocus, timeout=2000)
    wheel(limit, 1)
    assert limit.value() == limit.singleStep()


def test_progress_only_moves_forward_over_a_run(qtbot: QtBot) -> None:
    """The figures a host saw: 7, 13, 18, 16, 51, 24, 31, 20, 34, 39, 21% and the time left rising from 2 to 4
    minutes.  The bar never shows less than it showed in the same run, and the time left counts down."""
    from core.analysis.config import AnalysisProgress
    from tests.gui.reports import analyzer

    win = open_window(qtbot)
    panel = win.analysis
    panel.analyzer = analyzer(forever=True)
    assert panel.start()
    shown: list[int] = []
    lefts: list[str] = []
    message = "club: 3 openings started (at most 28), playing C7 C8 D8 D9 (fair so far: 1 of 3 needed)"
    for percent, eta in ((7, None), (13, 120.0), (18, 110.0), (16, 240.0), (51, 100.0), (24, 230.0), (31, 90.0),
                         (20, 200.0), (34, 80.0), (39, 75.0), (21, 190.0)):
        panel._on_progress(AnalysisProgress("pie", percent, 100, message, eta))
        shown.append(panel.progress_bar.value() * 100 // panel.progress_bar.maximum())
        lefts.append(panel.progress_label.text().rpartition(" - ")[2])
    assert shown == [7, 13, 18, 18, 51, 51, 51, 51, 51, 51, 51]
    assert all("4 min" not in left and "3 min" not in left for left in lefts), lefts
    assert lefts[1] == "about 2 min left"
    panel.cancel()
    assert panel.start()  # a new run starts from nothing
    panel._on_progress(AnalysisProgress("pie", 5, 100, message, 60.0))
    assert panel.progress_bar.value() * 100 // panel.progress_bar.maximum() == 5
    panel.cancel()
    qtbot.waitUntil(lambda: not panel.runner.busy, timeout=10_000)


def test_the_panel_speaks_plain_words(qtbot: QtBot) -> None:
    """No "Cluster", no "greedy + club", no "Save report JSON" among the panel's visible words."""
    from PySide6.QtWidgets import QFormLayout, QLabel, QPushButton

    panel = open_window(qtbot).analysis
    form = panel.findChild(QFormLayout)
    labels = [label.text() for label in panel.findChildren(QLabel)]
    shown = [panel.agent.itemText(i) for i in range(panel.agent.count())] + [panel.agent.currentText()] + labels \
        + [button.text() for button in panel.findChildren(QPushButton)]
    for word in ("Cluster", "greedy + club", "JSON", "mcts:", "Agent"):
        assert not any(word in text for text in shown), (word, shown)
    assert form is not None and panel.agent_spec() == "greedy + club"  # what runs is still the command line's
    panel.agent.setCurrentIndex(panel.agent.findData("expert"))
    assert panel.agent_spec() == "expert"
    panel.agent.setCurrentText("greedy + mcts:300")  # typed agents still work
    assert panel.agent_spec() == "greedy + mcts:300"


def test_the_seed_is_remembered_passed_on_and_shown(qtbot: QtBot) -> None:
    from tests.gui.reports import BALANCED, analyzer

    win = open_window(qtbot)
    panel = win.analysis
    assert panel.seed.value() == 0
    seen: dict[str, object] = {}
    panel.analyzer = analyzer(BALANCED, 0.05, seen)
    panel.seed.setValue(7)
    assert panel.start()
    qtbot.waitUntil(lambda: not panel.running, timeout=10_000)
    config = seen["config"]
    assert getattr(config, "seed", None) == 7
    assert "Seed 0:" in panel.verdict.text()  # the saved report was made with seed 0: the verdict says its own
    again = open_window(qtbot).analysis
    assert again.seed.value() == 7  # remembered


def test_the_verdict_names_the_seed_of_its_report() -> None:
    import dataclasses

    from designer.panels.analysis_panel import verdict_html
    from designer.panels.analysis_text import summarise
    from tests.gui.reports import BALANCED, saved_report

    report = saved_report(BALANCED)
    report = dataclasses.replace(report, config=dataclasses.replace(report.config, seed=12))
    assert "Seed 12:" in verdict_html(summarise(report), 3.0, report.config.seed)


def test_the_time_taken_leaves_out_the_wait_for_the_compile(qtbot: QtBot) -> None:
    """A first start's run said "The analysis took 172.4 s" of which about 155 s waited for the compile: the wait is
    said apart, so the host knows what the next run costs."""
    import threading
    import time

    from core.analysis.config import AnalysisProgress
    from tests.gui.reports import BALANCED, saved_report

    compiling = threading.Event()
    compiling.set()

    def analyze(board: object, config: object, *, progress: object = None, cancel: object = None,
                executor: object = None, executor_workers: int = 0) -> object:
        assert callable(progress)
        while compiling.is_set():  # the engine's workers queue behind the compile
            progress(AnalysisProgress("start", 0, 0, "starting"))
            time.sleep(0.02)
        for step in range(1, 6):
            progress(AnalysisProgress("raw", step, 5, "club: raw seat advantage (same agent both seats)"))
            time.sleep(0.05)
        return saved_report(BALANCED)

    panel = open_window(qtbot).analysis
    panel.analyzer = analyze  # type: ignore[assignment]
    panel.engine_compiling = compiling.is_set
    assert panel.start()
    try:
        qtbot.waitUntil(lambda: "Waiting for the game engine" in panel.progress_label.text(), timeout=20_000)
        qtbot.wait(1200)  # a wait the verdict names (one under a second is not worth a word)
    finally:
        # a failed wait must not leave the fake engine waiting for ever: the window's thread pool waits for its
        # job when the window is deleted, which hung the rest of the test run
        compiling.clear()
    qtbot.waitUntil(lambda: not panel.running, timeout=10_000)
    text = panel.verdict.text()
    assert "s compiling the engine (once after installing; later runs skip it)" in text, text
    waited = panel.compile_wait()
    assert waited >= 1.0
    panel.engine_compiling = lambda: False
    assert panel.start()  # the next run waits for nothing and says so
    qtbot.waitUntil(lambda: not panel.running, timeout=10_000)
    assert "compiling the engine" not in panel.verdict.text() and panel.compile_wait() == 0.0
