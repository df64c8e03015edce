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
