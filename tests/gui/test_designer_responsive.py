"""The window stays responsive while an analysis runs, by mechanism rather than by timing luck: the charts are drawn
in a helper process (never on the GUI thread, never holding the window's GIL), progress is coalesced, the worker
processes run below the window's priority, the warm-up's objects are frozen out of the cyclic collector; and two
GUI findings: the dark theme's check box outline and the verdict naming its strength level.

Nothing here is timed: ``python tests/gui/designer_probe.py`` measures the event loop's gaps (see its docstring).
"""

from __future__ import annotations

import dataclasses
import gc
import multiprocessing
import os
import pickle
import threading
import time
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from core.analysis.config import AnalysisConfig, AnalysisProgress
from core.analysis.results import AnalysisReport, ChartData, ProgressFn
from core.board.model import Board
from designer.main_window import MainWindow
from designer.panels import analysis_charts, chart_process
from designer.panels.analysis_charts import CHART_PROCESS
from designer.panels.analysis_text import describe_agent, strength_level, summarise
from designer.workers import HELPER_NICE, Control, Worker
from tests.gui.reports import BALANCED, LOPSIDED, REFINED, SMALL, saved_report
from tests.gui.windows import open_window

needs_priorities = pytest.mark.skipif(not hasattr(os, "getpriority"), reason="no process priorities here")


def lowered(nice: int) -> int:
    """The priority a process gets ``nice`` levels below this one (19 is the floor)."""
    return min(19, os.getpriority(os.PRIO_PROCESS, 0) + nice)


@pytest.fixture
def window(qtbot: QtBot) -> MainWindow:
    return open_window(qtbot)


# -- charts ------------------------------------------------------------------------------------------------
def test_charts_are_drawn_in_the_chart_process_never_on_the_gui_thread(window: MainWindow, qtbot: QtBot,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    requested_on: list[threading.Thread] = []
    render = analysis_charts.render_charts

    def recording(*args: Any) -> Any:
        requested_on.append(threading.current_thread())
        return render(*args)

    def not_here(*_args: Any) -> Any:
        raise AssertionError("a chart was drawn in the window's process")

    monkeypatch.setattr(analysis_charts, "render_charts", recording)
    monkeypatch.setattr(chart_process, "draw_figures", not_here)  # the chart process has its own, unpatched
    panel = window.analysis
    panel.show_report(saved_report(BALANCED), 12, 1.0, window.document.snapshot())
    qtbot.waitUntil(panel.charts_ready, timeout=60_000)
    assert requested_on and all(t is not threading.main_thread() for t in requested_on)
    charts = panel.charts
    assert charts.pid != os.getpid() and charts.pid in CHART_PROCESS.pids()
    assert len(charts.images) == 3
    for image in charts.images:
        assert not image.isNull()
        assert round(image.width() / image.devicePixelRatio()) == charts.width
    if hasattr(os, "getpriority"):
        assert os.getpriority(os.PRIO_PROCESS, charts.pid) == lowered(HELPER_NICE)


@pytest.mark.parametrize("name", [BALANCED, LOPSIDED, REFINED])
def test_the_chart_process_draws_exactly_what_this_process_draws(name: str) -> None:
    """The chart process gets only the report's small picklable ``ChartData``; its pixels are the ones this process
    draws from the same data."""
    data = ChartData.of(saved_report(name))
    assert pickle.loads(pickle.dumps(data)) == data
    for dark in (False, True):
        there = CHART_PROCESS.draw(data, 300, 1.0, dark)
        here = chart_process.draw(data, 300, 1.0, dark)
        assert there.pid != here.pid == os.getpid()
        assert there.images == here.images


def test_a_dead_chart_process_is_reported_and_replaced(window: MainWindow, qtbot: QtBot) -> None:
    panel = window.analysis
    panel.show_report(saved_report(BALANCED), 12, 1.0, window.document.snapshot())
    qtbot.waitUntil(panel.charts_ready, timeout=60_000)
    first = panel.charts.pid
    for process in multiprocessing.active_children():
        if process.pid == first:
            process.kill()
            process.join(10)
    try:  # the death may be noticed by this request (it says so) or before it (a new process draws it)
        again = analysis_charts.render_charts(saved_report(BALANCED), 300, 1.0, False)
    except RuntimeError as exc:
        assert "chart drawing process stopped" in str(exc)
        again = analysis_charts.render_charts(saved_report(BALANCED), 300, 1.0, False)
    assert again.pid not in (0, first, os.getpid()) and len(again.images) == 3
    panel.show_report(saved_report(LOPSIDED), 12, 1.0, window.document.snapshot())  # and the panel too
    qtbot.waitUntil(panel.charts_ready, timeout=60_000)
    assert panel.charts.pid == again.pid


# -- progress ----------------------------------------------------------------------------------------------
def test_a_burst_of_progress_is_coalesced_and_its_last_value_arrives(qtbot: QtBot) -> None:
    runner: Worker[int, int] = Worker(progress_interval=0.1)
    seen: list[int] = []
    posted: list[object] = []
    lock = threading.Lock()

    def count(_token: int, _value: object) -> None:
        with lock:
            posted.append(_value)

    runner.on_progress(seen.append)
    # counted where the worker emits it: how many signals cross into the GUI thread's queue
    from PySide6.QtCore import Qt

    runner._relay.progressed.connect(count, Qt.ConnectionType.DirectConnection)
    burst_s = 0.5

    def burst(job: Control[int]) -> int:
        end, i = time.monotonic() + burst_s, 0
        while time.monotonic() < end:
            job.progress(i)
            i += 1
            time.sleep(0.0002)
        job.progress(i)  # the last value of the burst
        time.sleep(0.4)  # the window has time to show it before the result
        return i

    with qtbot.waitSignal(runner.finished, timeout=10_000) as done:
        runner.request(burst)
    last = done.args[0]
    assert last > 500, "a burst of hundreds of reports"
    assert seen and seen[-1] == last, "the newest value always arrives"
    assert seen == sorted(seen) and len(set(seen)) == len(seen)
    limit = int((burst_s + 0.4) / 0.1) + 2
    assert len(seen) <= limit, (len(seen), limit)
    assert len(posted) <= limit + 1, "at most one signal waits in the queue per delivery"


def test_panel_progress_is_coalesced(window: MainWindow, qtbot: QtBot) -> None:
    """The engine reports every game; the panel handles at most ten of them a second."""
    panel = window.analysis
    reports: list[int] = []
    delivered: list[object] = []
    panel.runner.on_progress(delivered.append)

    def chatty(board: Board, config: AnalysisConfig, *, progress: ProgressFn | None = None,
               cancel: threading.Event | None = None, **_cluster: Any) -> AnalysisReport:
        end, i = time.monotonic() + 0.6, 0
        while time.monotonic() < end and progress is not None:
            progress(AnalysisProgress("pie", i, 10**6, f"greedy: opening 1 of 12, A1 B1 C1 D1 (fair so far: {i})"))
            i += 1
        reports.append(i)
        return saved_report(BALANCED)

    panel.analyzer = chatty
    assert panel.start()
    qtbot.waitUntil(lambda: not panel.running, timeout=10_000)
    assert reports and reports[0] > 1000
    assert 1 <= len(delivered) <= 0.6 / 0.1 + 3, len(delivered)


def test_cancel_drops_coalesced_progress_and_the_result(qtbot: QtBot) -> None:
    runner: Worker[str, int] = Worker(progress_interval=0.1)
    seen: list[int] = []
    results: list[str] = []
    runner.on_progress(seen.append)
    runner.on_done(results.append)
    saw_cancel = threading.Event()

    def endless(job: Control[int]) -> str:
        i = 0
        while not job.cancelled.is_set():
            job.progress(i)
            i += 1
            time.sleep(0.001)
        saw_cancel.set()
        return "late"

    runner.request(endless)
    qtbot.waitUntil(lambda: len(seen) >= 2, timeout=5000)
    runner.cancel()
    count = len(seen)
    assert saw_cancel.wait(5) and runner.wait(5000)
    qtbot.wait(300)
    assert len(seen) == count and results == [] and not runner.busy


# -- priorities and the collector --------------------------------------------------------------------------
@needs_priorities
def test_runner_workers_get_the_lower_priority_only_when_asked() -> None:
    import functools

    from core.selfplay.runner import Runner

    read = functools.partial(os.getpriority, os.PRIO_PROCESS)
    with Runner(workers=1) as runner:  # the command line's pool: the parent's priority
        runner.start()
        assert runner.run(read, [0]) == [os.getpriority(os.PRIO_PROCESS, 0)]
    with Runner(workers=1) as runner:
        runner.start(nice=3)
        assert runner.run(read, [0]) == [lowered(3)]


def test_lowering_the_priority_is_quiet_where_it_cannot_be_done(monkeypatch: pytest.MonkeyPatch) -> None:
    from core.selfplay import worker

    calls: list[int] = []

    def refuse(steps: int) -> int:
        calls.append(steps)
        raise PermissionError("not allowed here")

    monkeypatch.setattr(os, "nice", refuse)
    worker.lower_priority(5)
    worker.lower_priority(0)
    assert calls == [5]
    monkeypatch.delattr(os, "nice")  # no nice levels at all (Windows)
    worker.lower_priority(5)


@needs_priorities
def test_the_designers_analysis_workers_run_below_the_window(window: MainWindow, qtbot: QtBot) -> None:
    panel = window.analysis
    window.document.new_board(6)
    window.random_fill(6)
    panel.agent.setCurrentText("random")
    panel.time_limit.setValue(10)
    panel.quick.setChecked(True)
    priorities: list[int] = []

    def note(progress: AnalysisProgress) -> None:
        if progress.phase in ("screen", "raw", "mirror", "pie") and not priorities:
            charts = CHART_PROCESS.pids()
            for process in multiprocessing.active_children():
                if process.pid is not None and process.pid not in charts:
                    priorities.append(os.getpriority(os.PRIO_PROCESS, process.pid))

    panel.runner.on_progress(note)
    assert panel.start()
    qtbot.waitUntil(lambda: not panel.running, timeout=300_000)
    assert panel.report is not None, panel.verdict.text()
    assert priorities and set(priorities) == {lowered(HELPER_NICE)}
    assert os.getpriority(os.PRIO_PROCESS, 0) == lowered(0), "the window itself keeps its priority"


def test_warm_up_imports_pause_the_collector_and_freeze_what_they_load() -> None:
    from designer import warmup

    before = gc.get_freeze_count()
    assert gc.isenabled()
    try:
        with warmup.imports():
            assert not gc.isenabled()
            loaded: list[list[int]] = [[] for _ in range(10)]  # lists: objects the collector tracks
            gc.collect(0)  # allowed by hand; what matters is that no pass starts by itself
        assert gc.isenabled()
        assert gc.get_freeze_count() >= before + len(loaded)
    finally:
        gc.unfreeze()  # leave the test process as it was


# -- the dark theme's check boxes --------------------------------------------------------------------------
def luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG 2.1 relative luminance (written here independently of designer.app's)."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def indicator_contrast(box: Any) -> float:
    """The strongest contrast between the drawn check box indicator and the window behind it."""
    from PySide6.QtWidgets import QStyle, QStyleOptionButton

    image = box.grab().toImage()
    option = QStyleOptionButton()
    box.initStyleOption(option)
    rect = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box)
    behind = box.palette().window().color()
    background = (behind.redF(), behind.greenF(), behind.blueF())
    best = 0.0
    for y in range(rect.top(), rect.bottom() + 1):
        for x in range(rect.left(), rect.right() + 1):
            c = image.pixelColor(x, y)
            best = max(best, contrast((c.redF(), c.greenF(), c.blueF()), background))
    return best


def test_check_box_indicator_stands_out_in_both_themes(window: MainWindow, qtbot: QtBot) -> None:
    box = window.analysis.quick
    box.setChecked(False)
    window.analysis_dock.raise_()
    try:
        for theme in ("dark", "light", "dark"):  # also after switching back and forth
            window.set_theme(theme)
            qtbot.wait(10)
            assert indicator_contrast(box) >= 3.0, theme  # Fusion's own outline: 1.2:1 dark, 2.2:1 light
    finally:
        window.set_theme("light")


# -- the verdict names its strength level ------------------------------------------------------------------
@pytest.mark.parametrize("name, word", [(BALANCED, "Balanced"), (LOPSIDED, "Lopsided"), (SMALL, "Not decided yet")])
@pytest.mark.parametrize("agent, level", [("mcts:1000", "mcts:1000"), ("expert", "expert"), ("club", "club")])
def test_verdict_names_the_strength_it_holds_for(window: MainWindow, name: str, word: str, agent: str,
                                                 level: str) -> None:
    saved = saved_report(name)
    report = dataclasses.replace(saved, agent=agent, pie=dataclasses.replace(saved.pie, agent=agent))
    assert summarise(report).headline == f"{word} for {level} play"
    panel = window.analysis
    panel.show_report(report, report.size, 1.0, window.document.snapshot())
    assert f"{word} for {level} play" in panel.verdict.text()


def test_strength_levels_in_words() -> None:
    from core.agents.levels import LEVELS

    assert strength_level(LEVELS["expert"].spec) == "expert" and strength_level(" Club ") == "club"
    assert strength_level("greedy") == "greedy"
    assert describe_agent("expert").startswith("expert level (a deep guided search")
    assert describe_agent("puct:500") == "a guided searching computer player (500 simulations a move)"
