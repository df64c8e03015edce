"""Generate boards... and Improve this board: background runs with progress, Cancel, the gallery, locks, and
applying a proposal as one undo step.  The engine is a scoring function of known optimum, so runs take
milliseconds and their results are known."""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot

from core.analysis.hostwords import eta_words
from core.board.geometry import partner
from core.board.model import Board, Symbol
from core.generate.figures import Figures
from core.generate.layout import Layout, distance, layout_of, pairs_of
from core.generate.pool import RunnerPool
from designer.dialogs.generate import Engine, GenerateDialog
from designer.dialogs.improve import ImproveDialog
from designer.document.document import Document


@dataclass
class Target:
    """Score 1 at a known layout; a verdict that calls boards with an even pair count balanced."""

    target: Layout
    delay: float = 0.0
    calls: list[int] = field(default_factory=list)
    gate: threading.Event | None = None

    def __call__(self, board: Board) -> Figures:
        if self.gate is not None:
            self.gate.wait(5)
        if self.delay:
            time.sleep(self.delay)
        self.calls.append(1)
        layout = layout_of(board)
        p = pairs_of(layout)
        return Figures(score=1.0 - distance(layout, self.target) / 40, pairs=p,
                       verdict="balanced" if p % 2 == 0 else "inconclusive", level="test",
                       fair_openings=[["A1", "B1", "C1", "D1"]] * 3, tested=4)


def engine_for(target: Layout, delay: float = 0.0, gate: threading.Event | None = None) -> Engine:
    screen = Target(target, delay, gate=gate)
    return Engine(screen=lambda _seed: screen, judge=lambda _level, _seed: Target(target),
                  pool=lambda: RunnerPool(inline=True))


def improve_with_proposals(qtbot: QtBot, doc: Document) -> ImproveDialog:
    """An Improve dialog on ``doc`` whose search (towards a fixed 6x6 layout) has finished with proposals."""
    dialog = ImproveDialog(doc, engine=engine_for(layout_of(Board.random(6, 8, seed=5))))
    qtbot.addWidget(dialog)
    dialog.time_box.setValue(10)
    with qtbot.waitSignal(dialog.runner.finished, timeout=30_000):
        dialog.start()
    assert dialog.proposals
    return dialog


def test_eta_words() -> None:
    assert eta_words(None) == ""
    assert eta_words(float("nan")) == ""
    assert eta_words(42.4) == "about 40 s left"
    assert eta_words(1.0) == "about 5 s left"
    assert eta_words(130) == "about 2 min left"


def test_generate_dialog_gallery_and_open(qtbot: QtBot) -> None:
    target = layout_of(Board.random(6, 6, seed=3))
    dialog = GenerateDialog(engine=engine_for(target))
    qtbot.addWidget(dialog)
    dialog.size_box.setValue(6)
    dialog.min_pairs.setValue(4)
    dialog.max_pairs.setValue(8)
    dialog.count_box.setValue(2)
    dialog.time_box.setValue(10)
    progress: list[object] = []
    dialog.runner.progress.connect(progress.append)
    with qtbot.waitSignal(dialog.runner.finished, timeout=30_000):
        assert dialog.start()
        assert dialog.running and not dialog.start_button.isEnabled() and dialog.cancel_button.isEnabled()
    assert not dialog.running and dialog.start_button.isEnabled()
    assert progress and any("left" in eta_words(getattr(p, "eta", None)) for p in progress)
    assert 1 <= dialog.gallery.count() <= 2
    item = dialog.gallery.item(0)
    assert not item.icon().isNull()
    assert "balanced" in item.text() and "of 100" in item.text()
    assert "screened" in dialog.progress.label.text()
    opened: list[Board] = []
    dialog.openBoard.connect(opened.append)
    dialog.open_button.click()
    assert len(opened) == 1
    board = opened[0]
    assert board.size == 6 and board.is_antisymmetric()
    assert 4 <= pairs_of(layout_of(board)) <= 8
    assert board.name == "Generated s0-1" and "Verdict at test: balanced" in board.notes
    assert board.cells == dialog.shown[0].board.cells


def test_generate_dialog_cancel(qtbot: QtBot) -> None:
    gate = threading.Event()
    dialog = GenerateDialog(engine=engine_for(layout_of(Board.random(6, 6, seed=1)), gate=gate))
    qtbot.addWidget(dialog)
    dialog.size_box.setValue(6)
    dialog.start()
    assert dialog.cancel_button.isEnabled()
    dialog.cancel_button.click()
    gate.set()
    assert dialog.runner.wait(10_000)
    qtbot.wait(50)
    assert dialog.start_button.isEnabled() and not dialog.cancel_button.isEnabled()
    assert dialog.progress.label.text() == "Cancelled."
    assert dialog.gallery.count() == 0 and dialog.result is None


def test_generate_dialog_refuses_an_empty_range(qtbot: QtBot) -> None:
    dialog = GenerateDialog(engine=engine_for(layout_of(Board.random(6, 6, seed=1))))
    qtbot.addWidget(dialog)
    dialog.min_pairs.setValue(20)
    dialog.max_pairs.setValue(10)
    assert not dialog.start()
    assert "20 is above the largest 10" in dialog.progress.label.text()


def _host() -> Board:
    return Board.random(6, 6, seed=21)


def test_improve_dialog_locks_proposals_and_one_undo_step(qtbot: QtBot) -> None:
    host = _host()
    doc = Document(host.copy())
    target = list(layout_of(host))
    free = [s for s in range(len(target)) if target[s] == 0]
    target[free[0]], target[free[1]] = 1, 2
    symbols = [c for c in range(36) if host[c] is not Symbol.EMPTY]
    dialog = ImproveDialog(doc, locked=[symbols[0]], engine=engine_for(tuple(target)))
    qtbot.addWidget(dialog)
    dialog.resize(900, 700)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: dialog.lock_board.geometry_ is not None)
    assert dialog.locked == {symbols[0], partner(symbols[0], 6)}
    # lock one more cell by clicking it on the board
    geo = dialog.lock_board.geometry_
    assert geo is not None
    cell = symbols[1]
    centre = geo.cell_rect(cell).center()
    qtbot.mouseClick(dialog.lock_board, Qt.MouseButton.LeftButton, pos=QPoint(int(centre.x()), int(centre.y())))
    assert {cell, partner(cell, 6)} <= dialog.locked
    assert "Locked:" in dialog.lock_label.text()
    dialog.time_box.setValue(10)
    with qtbot.waitSignal(dialog.runner.finished, timeout=30_000):
        assert dialog.start()
    assert 1 <= len(dialog.proposals) <= 3
    assert "Your board:" in dialog.original_label.text()
    for c in dialog.proposals:
        assert c.changed and not set(c.changed) & dialog.locked
        assert c.board.is_antisymmetric()
    visible = [b for _p, _t, b in dialog.proposal_widgets if b.isVisibleTo(dialog)]
    assert len(visible) == len(dialog.proposals)

    chosen = dialog.proposals[0]
    steps = doc.undo_stack.count()
    dialog.proposal_widgets[0][2].click()
    assert doc.board.cells == chosen.board.cells
    assert doc.undo_stack.count() == steps + 1
    assert doc.undo_stack.undoText().startswith("Improve: proposal 1")
    doc.undo_stack.undo()
    assert doc.board.cells == host.cells
    doc.undo_stack.redo()
    assert doc.board.cells == chosen.board.cells
    for cell in dialog.locked:
        assert doc.board[cell] is host[cell]


def test_improve_dialog_refuses_stale_proposals(qtbot: QtBot, dialogs) -> None:  # type: ignore[no-untyped-def]
    host = _host()
    doc = Document(host.copy())
    dialog = improve_with_proposals(qtbot, doc)
    empty = next(c for c in range(36) if doc.board[c] is Symbol.EMPTY)
    doc.paint(empty, Symbol.O)  # the host edits while the proposals are shown
    before = list(doc.board.cells)
    assert not dialog.apply(0)
    assert doc.board.cells == before
    assert dialogs.calls and dialogs.calls[-1][0] == "warning" and "changed since" in dialogs.calls[-1][2]


def test_improve_dialog_needs_an_antisymmetric_board(qtbot: QtBot) -> None:
    board = _host()
    board.set_raw(0, Symbol.O)
    board.set_raw(35, Symbol.O)
    dialog = ImproveDialog(Document(board), engine=engine_for(layout_of(_host())))
    qtbot.addWidget(dialog)
    assert not dialog.start()
    assert "broken pairs" in dialog.progress.label.text()


@pytest.mark.parametrize("kind", ["generate", "improve"])
def test_closing_stops_the_run(qtbot: QtBot, kind: str) -> None:
    target = layout_of(Board.random(6, 6, seed=2))
    engine = engine_for(target, delay=0.05)
    dialog = GenerateDialog(engine=engine) if kind == "generate" else ImproveDialog(Document(_host()), engine=engine)
    qtbot.addWidget(dialog)
    if isinstance(dialog, GenerateDialog):
        dialog.size_box.setValue(6)
    dialog.start()
    qtbot.wait(100)
    dialog.reject()
    assert not dialog.runner.busy
    assert dialog.runner.wait(10_000)


def test_main_window_tools_menu_opens_both_dialogs(qtbot: QtBot) -> None:
    from designer.main_window import MainWindow

    window = MainWindow(Document(_host()))
    qtbot.addWidget(window)
    tools = next(m for m in window.menuBar().findChildren(QMenu) if m.title() == "&Tools")
    assert {window.generate_action, window.improve_action} <= set(tools.actions())
    generate = window.generate_boards()
    assert isinstance(generate, GenerateDialog) and generate.size_box.value() == 6
    new = Board.random(6, 4, seed=8)
    generate.openBoard.emit(new)
    assert window.document.board is new and window.document.path is None
    improve = window.improve_board()
    assert isinstance(improve, ImproveDialog) and improve.document is window.document
    generate.reject()
    improve.reject()


def test_every_phase_the_generator_reports_has_words_for_the_host(qtbot: QtBot) -> None:
    """The progress line showed a raw phase id ("measure") when the timed planner added it: read every phase
    the search can report from its source and require a translation for each."""
    import inspect
    import re

    import core.generate.search as search
    from designer.dialogs.generate import PHASES, ProgressRow

    reported = set(re.findall(r'report\(\s*"(\w+)"', inspect.getsource(search)))
    assert {"measure", "screen", "finals"} <= reported
    assert reported <= set(PHASES), reported - set(PHASES)
    row = ProgressRow()
    qtbot.addWidget(row)
    row.show_progress(search.GenerateProgress("measure", 1, 2, "timing club", None))
    assert row.label.text().startswith("Timing the level - timing club")


def test_a_time_too_short_is_said_in_a_plain_sentence(qtbot: QtBot) -> None:
    """Not "Generation failed: BudgetTooSmall: ...", which reads like a crash: what to give instead."""
    from tests.generate.timing import FakeClock, Judge

    judge = Judge(FakeClock(), need=3000.0, game=6.0, overhead=4.0)
    engine = Engine(screen=lambda _seed: Target(layout_of(Board.random(6, 6, seed=1))),
                    judge=lambda _level, _seed: judge, pool=lambda: RunnerPool(inline=True))
    dialog = GenerateDialog(engine=engine)
    qtbot.addWidget(dialog)
    dialog.size_box.setValue(6)
    dialog.time_box.setValue(60)
    with qtbot.waitSignal(dialog.runner.finished, timeout=30_000):
        assert dialog.start()
    text = dialog.progress.label.text()
    assert text.startswith("The time is too short to judge a board")
    assert re.search(r"Give at least \d+ s, or choose a weaker level\.$", text)
    assert "failed" not in text and "BudgetTooSmall" not in text
    assert dialog.start_button.isEnabled() and dialog.gallery.count() == 0 and dialog.result is None
