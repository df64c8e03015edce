"""The board holds still under the host's hand: it keeps its size while a mouse button is down (a heatmap
caption or legend that goes away with the first painted cell used to grow the board under the pointer), and
locked cells stay what and where they are through Random fill, rotations and mirrors."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from core.board.geometry import parse_cell
from core.board.model import Symbol
from designer.main_window import MainWindow
from tests.gui.reports import BALANCED, saved_report
from tests.gui.windows import open_window


@pytest.fixture
def window(qtbot: QtBot) -> MainWindow:
    return open_window(qtbot, 1000, 700)


def test_the_board_keeps_its_size_while_a_drag_hides_the_heatmap(window: MainWindow, qtbot: QtBot) -> None:
    doc, view, panel = window.document, window.view, window.analysis
    doc.new_board(12)
    panel.show_report(saved_report(BALANCED), 12, 1.0, doc.snapshot())
    window.openings_action.setChecked(False)  # the heatmap's caption alone (the legend has its own test below)
    qtbot.waitUntil(lambda: view.heat is not None, timeout=2000)
    view.grab()
    before = view.geometry_
    assert before is not None
    targets = [view.cell_center(parse_cell(name, 12)).toPoint() for name in ("G6", "H6", "I6", "J6")]
    QTest.mousePress(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, targets[0])
    qtbot.wait(30)  # the first cell made the board differ from the analysed one: the heatmap and caption go
    assert view.heat is None
    for point in targets[1:]:
        QTest.mouseMove(view, point)
        qtbot.wait(30)  # repaints in between, as under a real hand
        after = view.geometry_
        assert after is not None and (after.left, after.top, after.cell) == (before.left, before.top, before.cell)
    QTest.mouseRelease(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, targets[-1])
    painted = {i for i, s in enumerate(doc.board.cells) if s is not Symbol.EMPTY}
    row = {parse_cell(name, 12) for name in ("G6", "H6", "I6", "J6")}
    assert painted == row | {doc.board.partner(cell) for cell in row}
    qtbot.waitUntil(lambda: view.grab() is not None and view.geometry_ is not None
                    and view.geometry_.cell > before.cell, timeout=2000)  # the board grows once the button is up


def test_the_board_keeps_its_size_while_a_drag_hides_the_openings_legend(window: MainWindow,
                                                                         qtbot: QtBot) -> None:
    doc, view, panel = window.document, window.view, window.analysis
    doc.new_board(12)
    panel.show_report(saved_report(BALANCED), 12, 1.0, doc.snapshot())
    panel.reportReady.emit(panel.report)
    qtbot.waitUntil(lambda: view.visible_openings() is not None, timeout=2000)
    view.grab()
    before = view.geometry_
    assert before is not None
    start = QPoint(view.cell_center(parse_cell("A1", 12)).toPoint())
    QTest.mousePress(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    qtbot.wait(30)
    assert view.visible_openings() is None  # hidden with the first painted cell
    view.grab()
    assert view.geometry_ is not None and view.geometry_.cell == before.cell
    QTest.mouseRelease(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)


def test_random_fill_keeps_locked_cells(window: MainWindow) -> None:
    doc = window.document
    doc.new_board(12)
    doc.paint(parse_cell("B6", 12), Symbol.O)  # K7, its partner, gets the X
    locked = {parse_cell(name, 12) for name in ("B6", "C3")}  # a symbol and an empty cell, each with its partner
    doc.set_locks(locked)
    held = {cell: doc.board[cell] for cell in doc.locks}
    assert len(held) == 4
    for seed in range(20):
        assert doc.random_fill(30, seed)
        assert {cell: doc.board[cell] for cell in doc.locks} == held, f"seed {seed} changed a locked cell"
        assert doc.board.is_antisymmetric()
        assert doc.board.count(Symbol.O) == 30 + sum(1 for s in held.values() if s is Symbol.O)
    free = doc.free_pairs()
    assert free == 72 - 2
    with pytest.raises(ValueError, match="2 locked"):
        doc.random_fill(free + 1)


@pytest.mark.parametrize("action", [0, 1, 2])
def test_rotate_and_mirror_move_the_locks_with_the_symbols(window: MainWindow, action: int) -> None:
    doc = window.document
    doc.new_board(12)
    window.random_fill(25)
    doc.set_locks({parse_cell("B6", 12), parse_cell("D2", 12)})
    before = {cell: doc.board[cell] for cell in doc.locks}
    steps = doc.undo_stack.count()
    old_cells, old_locks = list(doc.board.cells), doc.locks
    window.transform_actions[action].trigger()
    assert doc.board.cells != old_cells and doc.locks != old_locks
    assert len(doc.locks) == len(old_locks)
    # every symbol a lock held is still under a lock, and the picture of locks turned with the board
    marked = [Symbol.O if cell in old_locks else Symbol.EMPTY for cell in range(144)]
    from core.board.model import Board, Transform

    kind = (Transform.ROT90, Transform.ROT270, Transform.FLIP_H)[action]
    turned = Board(12, cells=marked).transformed(kind).cells
    assert doc.locks == {cell for cell, s in enumerate(turned) if s is not Symbol.EMPTY}
    assert sorted(doc.board[c].value for c in doc.locks) == sorted(s.value for s in before.values())
    assert doc.undo_stack.count() == steps + 1  # one undo step for the symbols and the locks
    doc.undo_stack.undo()
    assert doc.board.cells == old_cells and doc.locks == old_locks
