"""Editing through real mouse events: mirrored partners, drags as one undo step, hover, repairs."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from core.board.geometry import cell_name, parse_cell
from core.board.model import Board, Symbol
from designer.app import create_window
from designer.canvas.board_view import line_cells
from designer.main_window import MainWindow
from tests.gui.windows import open_playtest, open_window


@pytest.fixture
def window(qtbot: QtBot) -> MainWindow:
    return open_window(qtbot, new_board=12)


def at(win: MainWindow, name: str) -> QPoint:
    cell = parse_cell(name, win.document.board.size)
    return win.view.cell_center(cell).toPoint()


def cell(win: MainWindow, name: str) -> Symbol:
    return win.document.board[parse_cell(name, win.document.board.size)]


def test_left_click_paints_cell_and_mirrored_partner(window: MainWindow) -> None:
    window.set_brush(Symbol.O)
    QTest.mouseClick(window.view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "C3"))
    assert cell(window, "C3") is Symbol.O
    assert cell(window, "J10") is Symbol.X  # 180 degrees on 12x12
    window.set_brush(Symbol.X)
    QTest.mouseClick(window.view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "A12"))
    assert cell(window, "A12") is Symbol.X
    assert cell(window, "L1") is Symbol.O
    assert window.document.board.is_antisymmetric()


def test_right_click_erases_both_cells(window: MainWindow) -> None:
    window.document.paint(parse_cell("D5", 12), Symbol.O)
    QTest.mouseClick(window.view, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, at(window, "I8"))
    assert cell(window, "D5") is Symbol.EMPTY
    assert cell(window, "I8") is Symbol.EMPTY


def test_fast_drag_is_interpolated_and_one_undo_step(window: MainWindow) -> None:
    view = window.view
    window.set_brush(Symbol.X)
    QTest.mousePress(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "A2"))
    # One move event jumps five cells: the cells in between must still be painted.
    QTest.mouseMove(view, at(window, "F2"))
    QTest.mouseMove(view, at(window, "F5"))
    QTest.mouseRelease(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "F5"))
    painted = ["A2", "B2", "C2", "D2", "E2", "F2", "F3", "F4", "F5"]
    for name in painted:
        assert cell(window, name) is Symbol.X, name
    assert window.document.board.count(Symbol.X) == len(painted)
    assert window.document.board.count(Symbol.O) == len(painted)
    stack = window.document.undo_stack
    assert stack.count() == 1
    stack.undo()
    assert window.document.board.count(Symbol.EMPTY) == 144
    stack.redo()
    assert all(cell(window, name) is Symbol.X for name in painted)
    assert window.document.board.is_antisymmetric()


def test_a_drag_across_its_own_mirror_cells_keeps_what_it_painted(window: MainWindow) -> None:
    """F6 and G7 are partners, as are G6 and F7: the drag painted F6 and G6 with O, then reached their
    partners and flipped them to X (the second half of the drag overwrote the first)."""
    window.set_brush(Symbol.O)
    view = window.view
    QTest.mousePress(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "F6"))
    for name in ("G6", "G7", "F7"):
        QTest.mouseMove(view, at(window, name))
    QTest.mouseRelease(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "F7"))
    assert [cell(window, n) for n in ("F6", "G6", "G7", "F7")] == [Symbol.O, Symbol.O, Symbol.X, Symbol.X]
    assert window.document.board.is_antisymmetric()
    assert window.document.undo_stack.count() == 1
    # The next drag is a new stroke: it may paint those cells again.
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "G7"))
    assert cell(window, "G7") is Symbol.O and cell(window, "F6") is Symbol.X


def test_first_cell_decides_erase_for_the_whole_drag(window: MainWindow) -> None:
    for name in ("B1", "C1", "D1"):
        window.document.paint(parse_cell(name, 12), Symbol.O)
    window.set_brush(Symbol.O)
    view = window.view
    QTest.mousePress(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "B1"))
    QTest.mouseMove(view, at(window, "E1"))
    QTest.mouseRelease(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "E1"))
    # Starting on a cell that already held the brush symbol erases; E1 (empty) stays empty.
    assert window.document.board.count(Symbol.EMPTY) == 144
    window.document.undo_stack.undo()
    assert [cell(window, n) for n in ("B1", "C1", "D1", "E1")] == [Symbol.O] * 3 + [Symbol.EMPTY]


def test_undo_redo_shortcuts_and_brush_keys(window: MainWindow, qtbot: QtBot) -> None:
    window.view.setFocus()
    QTest.keyClick(window.view, Qt.Key.Key_2)
    assert window.view.brush is Symbol.X
    QTest.mouseClick(window.view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "E6"))
    assert cell(window, "E6") is Symbol.X
    QTest.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert cell(window, "E6") is Symbol.EMPTY
    QTest.keyClick(window, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert cell(window, "E6") is Symbol.X
    QTest.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert cell(window, "E6") is Symbol.X
    QTest.keyClick(window.view, Qt.Key.Key_E)
    assert window.view.brush is Symbol.EMPTY
    QTest.keyClick(window.view, Qt.Key.Key_O)
    assert window.view.brush is Symbol.O


def test_hover_shows_cell_and_partner_in_status_bar(window: MainWindow) -> None:
    window.document.paint(parse_cell("C3", 12), Symbol.O)
    QTest.mouseMove(window.view, at(window, "C3"))
    assert window.hover_label.text().startswith("C3: O")
    assert "J10: X" in window.hover_label.text()
    assert window.view.hover == parse_cell("C3", 12)
    assert window.view.overlay().partner == parse_cell("J10", 12)
    QTest.mouseMove(window.view, at(window, "L12"))
    assert window.hover_label.text().startswith("L12: empty")


def test_hover_status_follows_paint_and_undo_under_the_mouse(window: MainWindow) -> None:
    """Painting the hovered cell left the status bar saying it was empty until the mouse moved."""
    QTest.mouseMove(window.view, at(window, "A1"))
    assert window.hover_label.text() == "A1: empty   partner L12: empty"
    QTest.mouseClick(window.view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "A1"))
    assert cell(window, "A1") is Symbol.O
    assert window.hover_label.text() == "A1: O   partner L12: X"
    window.document.undo_stack.undo()
    assert window.hover_label.text() == "A1: empty   partner L12: empty"
    window.document.new_board(8)  # another board: the old cell under the mouse means nothing now
    assert window.hover_label.text() == ""


def test_line_cells_has_no_gaps() -> None:
    for end in [(0, 7), (7, 0), (5, 3), (-4, 6), (3, -3)]:
        cells = list(line_cells((0, 0), end))
        assert cells[0] == (0, 0) and cells[-1] == end
        for (r0, c0), (r1, c1) in itertools.pairwise(cells):
            assert max(abs(r1 - r0), abs(c1 - c0)) == 1


def test_tools_are_undoable_and_keep_antisymmetry(window: MainWindow, dialogs: Any) -> None:
    doc = window.document
    assert window.random_fill(20)
    assert doc.board.count(Symbol.O) + doc.board.count(Symbol.X) == 40
    before = list(doc.board.cells)
    for kind in ("rot90", "flip_h", "flip_v", "transpose", "swap"):
        doc.transform(kind)
        assert doc.board.is_antisymmetric(), kind
    doc.clear()
    assert doc.board.count(Symbol.EMPTY) == 144
    for _ in range(6):
        doc.undo_stack.undo()
    assert doc.board.cells == before
    assert not window.random_fill(10_000)  # too many pairs: explained, nothing changes
    assert dialogs.kinds() == ["warning"] and "0..72" in dialogs.calls[0][2]
    assert window.document.board.cells == before


BROKEN = """version: 1
name: Hand edited
grid:
  - "O....."
  - "......"
  - "..X..."
  - "......"
  - "......"
  - "...O.O"
"""


def test_broken_board_opens_shows_pairs_and_repairs(window: MainWindow, tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN)
    assert window.load_path(str(path))
    doc = window.document
    pairs = doc.board.broken_pairs()
    assert len(pairs) == 3  # A1/F6 both O, C3 alone, D6 alone
    panel = window.validation
    errors = [p for p in panel.problems if p.severity.value == "error"]
    assert len(errors) == 3
    assert set(window.view.overlay().problems) == {c for pair in pairs for c in pair}
    # Clicking a problem selects its cells on the canvas and offers both fixes.
    window.validation_dock.raise_()
    item_rect = panel.list.visualItemRect(panel.list.item(0))
    QTest.mouseClick(panel.list.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     item_rect.center())
    first = panel.problems[0]
    assert window.view.selected == first.cells
    assert panel.keep_this.isEnabled() and panel.keep_partner.isEnabled()
    a, b = first.cells
    panel.keep_partner.click()  # make this cell mirror its partner
    assert doc.board[a] is doc.board[b].other
    assert len(doc.board.broken_pairs()) == 2
    # The row now holds the next problem: the canvas highlights its cells, which the buttons name
    # (it kept highlighting the repaired pair).
    now = panel.selected_problem()
    assert now is not None and now != first
    assert window.view.selected == now.cells
    assert cell_name(now.cells[1], 6) in panel.keep_this.text()
    for button in (panel.keep_this, panel.keep_partner):  # a host's words, never the file's "."
        assert re.fullmatch(r"(Set [A-L]\d+ to [OX]|Empty [A-L]\d+)", button.text()), button.text()
    doc.undo_stack.undo()
    assert len(doc.board.broken_pairs()) == 3
    panel.select_problem(0)
    panel.keep_this.click()  # make the partner mirror this cell
    assert doc.board[b] is doc.board[a].other
    panel.repair_all_button.click()
    assert doc.board.is_antisymmetric()
    assert not panel.repair_all_button.isEnabled()
    assert "valid" in panel.status.text()
    # Repair-all keeps the symbol side: C3's X stays and its partner D4 becomes O.
    assert doc.board[parse_cell("C3", 6)] is Symbol.X
    assert doc.board[parse_cell("D4", 6)] is Symbol.O


def test_bad_board_on_command_line_shows_message_and_default(qtbot: QtBot, tmp_path: Path,
                                                              dialogs: Any) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("grid: [\"OX\", 12\n")
    win = create_window(str(bad))
    assert isinstance(win, MainWindow)
    qtbot.addWidget(win)
    assert dialogs.kinds() == ["warning"]
    assert "bad.yaml" in dialogs.calls[0][2]
    assert win.document.board.name == "Crossroads"
    assert win.document.path is None


def test_status_message_at_start_does_not_overprint_the_hover_text(qtbot: QtBot, tmp_path: Path) -> None:
    """A broken board on the command line: its status message was drawn on top of the hover label."""
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN)
    win = create_window(str(path))  # the message is posted before the window is shown
    assert isinstance(win, MainWindow)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    bar = win.statusBar()
    assert "broken pair" in bar.currentMessage()
    QTest.mouseMove(win.view, win.view.cell_center(0).toPoint())
    assert win.hover_label.text().startswith("A1")
    assert not win.hover_label.isVisible()  # the message has the status bar to itself while it lasts
    bar.clearMessage()
    assert win.hover_label.isVisible()
    assert win.hover_label.text().startswith("A1")


def test_properties_edits_are_undoable(window: MainWindow) -> None:
    props = window.properties
    doc = window.document
    props.supply["I"].setValue(3)
    props.supply["I"].setValue(2)
    assert doc.board.params.supply_of("I") == 2
    props.pie.setChecked(False)
    props.first.setCurrentText("X")
    props.name.setText("Spring final")
    props.name.editingFinished.emit()
    assert (doc.board.params.pie, doc.board.params.first, doc.board.name) == (False, Symbol.X, "Spring final")
    doc.undo_stack.undo()
    assert doc.board.name == ""
    doc.undo_stack.undo()
    assert doc.board.params.first is Symbol.O
    assert props.first.currentText() == "O"
    doc.undo_stack.undo()
    assert doc.board.params.pie
    doc.undo_stack.undo()  # both supply clicks merged into one step
    assert doc.board.params.supply_of("I") == 5
    assert props.supply["I"].value() == 5


def test_typed_name_is_saved_without_leaving_the_field(window: MainWindow, tmp_path: Path) -> None:
    """Typing a name and pressing Ctrl+S at once saved the file without the name (it waited for focus-out)."""
    from core.board.boardfile import load_board

    path = tmp_path / "named.yaml"
    assert window.save_as(str(path))
    props = window.properties
    props.name.setFocus()
    props.name.selectAll()
    QTest.keyClicks(props.name, "Spring final")
    QTest.keyClicks(props.author, "Host")
    assert window.document.board.name == "Spring final"
    assert window.isWindowModified() and "Spring final" in window.windowTitle()
    window.save_action.trigger()  # Ctrl+S: the shortcut does not move the focus out of the field
    saved = load_board(path)
    assert (saved.name, saved.author) == ("Spring final", "Host")
    window.document.undo_stack.undo()  # typing one field is one undo step
    assert window.document.board.author == "" and window.document.board.name == "Spring final"
    assert props.author.text() == ""


def test_new_board_of_size_from_properties(window: MainWindow) -> None:
    window.properties.new_size.setValue(8)
    window.properties.new_button.click()
    assert window.document.board.size == 8
    assert window.document.board == Board(size=8)


def test_zoom_keys_and_ctrl_wheel(window: MainWindow) -> None:
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QWheelEvent

    view = window.view
    assert view.zoom == 1.0
    QTest.keyClick(window, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom == pytest.approx(1.25)
    QTest.keyClick(window, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom == pytest.approx(1.0)
    centre = QPointF(view.width() / 2, view.height() / 2)
    wheel = QWheelEvent(centre, view.mapToGlobal(centre), QPoint(0, 0), QPoint(0, 240), Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.ControlModifier, Qt.ScrollPhase.NoScrollPhase, False)
    view.wheelEvent(wheel)
    assert view.zoom == pytest.approx(1.15 ** 2)
    assert view.minimumWidth() > 240  # the canvas grew inside its scroll area
    QTest.keyClick(window, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom == 1.0


def test_zoom_refits_when_the_window_is_resized(window: MainWindow, qtbot: QtBot) -> None:
    view = window.view
    viewport = window.scroll_area.viewport()

    def expected() -> int:
        return int(min(viewport.width(), viewport.height()) * view.zoom)

    window.zoom_in_action.trigger()
    assert view.zoom == pytest.approx(1.25)
    assert view.minimumWidth() == expected()
    before = view.minimumWidth()
    window.resize(1500, 1100)
    qtbot.waitUntil(lambda: viewport.height() > 900)
    # The zoom is relative to the window: a bigger window gives a bigger zoomed board (it kept the old size).
    assert view.minimumWidth() == expected() > before
    window.zoom_reset_action.trigger()
    assert view.minimumWidth() == 240


def test_playtest_opens_on_a_copy(window: MainWindow, qtbot: QtBot) -> None:
    window.random_fill(12)
    playtest = open_playtest(window, qtbot)
    assert playtest.isVisible()
    shown = playtest.board  # type: ignore[attr-defined]
    assert shown.cells == window.document.board.cells
    window.document.clear()
    assert shown.count(Symbol.EMPTY) < 144


def test_playtest_follows_the_designers_theme_and_view_options(window: MainWindow, qtbot: QtBot) -> None:
    from designer.canvas.render import THEMES

    window.set_theme("dark")
    playtest = open_playtest(window, qtbot)
    canvas = playtest.canvas  # type: ignore[attr-defined]
    assert canvas.options.theme == "dark"
    # The canvas background is drawn dark, like the window around it (it was the light theme's cream).
    corner = canvas.grab().toImage().pixelColor(2, 2)
    assert corner.lightness() < 100
    window.coords_action.trigger()  # coordinates off in the designer: the open play-test follows
    assert not canvas.options.coordinates
    window.set_theme("light")
    assert canvas.options.theme == "light" and "light" in THEMES
    assert canvas.grab().toImage().pixelColor(2, 2).lightness() > 150
    playtest.close()


def test_save_failure_is_explained(window: MainWindow, tmp_path: Path, dialogs: Any) -> None:
    window.document.paint(0, Symbol.O)
    assert not window.save_as(str(tmp_path / "no-such-folder" / "b.yaml"))
    assert dialogs.kinds() == ["warning"] and "no-such-folder" in dialogs.calls[0][2]
    assert window.document.dirty


def test_letter_shortcuts_do_not_steal_typing(window: MainWindow) -> None:
    window.properties_dock.raise_()
    field = window.properties.name
    field.setFocus()
    QTest.keyClicks(field, "XOE 10")
    assert field.text() == "XOE 10"
    assert window.view.brush is Symbol.O


def test_main_entry_point_opens_board_and_exits(tmp_path: Path, qtbot: QtBot,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QApplication

    from core.board.boardfile import save_board
    from designer.app import main

    path = tmp_path / "mine.yaml"
    save_board(Board.random(size=10, pairs=8, seed=5), path)
    seen: list[MainWindow] = []

    def fake_exec(_app: object = None) -> int:
        # Stands in for the event loop: a nested exec()/quit() would leave the test's own loop unusable.
        seen.extend(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible())
        for w in seen:
            qtbot.addWidget(w)
        return 0

    monkeypatch.setattr(QApplication, "exec", fake_exec)
    assert main([str(path)]) == 0
    assert any(w.document.path == str(path) and w.document.board.size == 10 for w in seen)
