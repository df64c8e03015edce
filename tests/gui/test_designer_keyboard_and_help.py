"""Discoverability: keyboard editing on the board, shortcuts in tooltips, tooltips on the settings, feedback
from Copy buttons, a Help page with the workflow, and no command-line flags in the window's messages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QToolBar
from pytestqt.qtbot import QtBot

from core.board.geometry import parse_cell
from core.board.model import Symbol
from designer.dialogs.export import COPIED_MS, SealDialog, TextGridDialog
from designer.dialogs.wording import for_gui
from designer.main_window import MainWindow
from tests.gui.windows import open_window


@pytest.fixture
def window(qtbot: QtBot) -> MainWindow:
    return open_window(qtbot, new_board=12)


def focus_board(window: MainWindow, qtbot: QtBot) -> None:
    window.activateWindow()
    window.view.setFocus()
    qtbot.waitUntil(window.view.hasFocus, timeout=2000)


def test_arrow_keys_move_a_cursor_drawn_on_the_board(window: MainWindow, qtbot: QtBot) -> None:
    view = window.view
    focus_board(window, qtbot)
    assert view.overlay().cursor == 0  # A1 when nothing was hovered
    for key in (Qt.Key.Key_Right, Qt.Key.Key_Right, Qt.Key.Key_Down):
        QTest.keyClick(view, key)
    assert view.cursor_cell == parse_cell("C2", 12)
    assert window.hover_label.text().startswith("C2: empty")  # the status bar follows the cursor
    for _ in range(20):  # stops at the edge
        QTest.keyClick(view, Qt.Key.Key_Left)
    assert view.cursor_cell == parse_cell("A2", 12)
    # The cursor is drawn: the picture differs from the same board without the cursor.
    with_cursor = view.grab().toImage()
    view.clearFocus()
    assert view.overlay().cursor is None
    assert view.grab().toImage() != with_cursor


def test_brush_keys_only_choose_the_brush_and_space_paints(window: MainWindow, qtbot: QtBot) -> None:
    view, doc = window.view, window.document
    focus_board(window, qtbot)
    QTest.keyClick(view, Qt.Key.Key_Right)
    QTest.keyClick(view, Qt.Key.Key_Down)  # B2
    for key, brush in ((Qt.Key.Key_1, Symbol.O), (Qt.Key.Key_X, Symbol.X), (Qt.Key.Key_0, Symbol.EMPTY),
                       (Qt.Key.Key_O, Symbol.O), (Qt.Key.Key_E, Symbol.EMPTY), (Qt.Key.Key_2, Symbol.X)):
        QTest.keyClick(view, key)
        assert view.brush is brush and window.brush_actions[brush].isChecked()  # the brush follows
    assert doc.board.count(Symbol.EMPTY) == 144 and doc.undo_stack.count() == 0  # and nothing was painted
    QTest.keyClick(view, Qt.Key.Key_Space)
    assert doc.board[parse_cell("B2", 12)] is Symbol.X and doc.board[parse_cell("K11", 12)] is Symbol.O
    QTest.keyClick(view, Qt.Key.Key_Right)
    QTest.keyClick(view, Qt.Key.Key_1)
    QTest.keyClick(view, Qt.Key.Key_Return)  # C2
    assert doc.board[parse_cell("C2", 12)] is Symbol.O and doc.board[parse_cell("J11", 12)] is Symbol.X
    QTest.keyClick(view, Qt.Key.Key_Delete)
    assert doc.board[parse_cell("C2", 12)] is Symbol.EMPTY
    QTest.keyClick(view, Qt.Key.Key_Backspace)  # already empty: no step
    assert doc.undo_stack.count() == 3
    doc.undo_stack.undo()
    assert doc.board[parse_cell("C2", 12)] is Symbol.O


def test_a_click_moves_the_keyboard_cursor_too(window: MainWindow, qtbot: QtBot) -> None:
    view = window.view
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     view.cell_center(parse_cell("E6", 12)).toPoint())
    focus_board(window, qtbot)
    QTest.keyClick(view, Qt.Key.Key_Down)
    QTest.keyClick(view, Qt.Key.Key_2)
    QTest.keyClick(view, Qt.Key.Key_Space)
    assert window.document.board[parse_cell("E7", 12)] is Symbol.X


def test_toolbar_tooltips_name_the_shortcuts(window: MainWindow) -> None:
    toolbar = window.findChild(QToolBar)
    assert toolbar is not None
    tips = {a.text().replace("&", ""): a.toolTip() for a in toolbar.actions() if not a.isSeparator()}
    assert "(Ctrl+S)" in tips["Save"]
    assert "(Ctrl+Shift+A)" in tips["Analyse balance"] and "(Ctrl+T)" in tips["Play-test"]
    assert "(1, O)" in tips["Brush O"] and "(0, E)" in tips["Eraser"]
    assert "(Ctrl+R)" in tips["Random fill…"] or "(Ctrl+R)" in tips.get("Random fill", "")
    for text, tip in tips.items():
        action = next(a for a in toolbar.actions() if a.text().replace("&", "") == text)
        if action.shortcuts():
            assert re.search(r"\(.+\)", tip), (text, tip)
    window.document.paint(0, Symbol.O)
    assert window.undo_action.toolTip().startswith("Undo Paint O from A1 (Ctrl+Z")


def test_settings_that_hosts_asked_about_have_tooltips(window: MainWindow) -> None:
    props, panel = window.properties, window.analysis
    for widget in (props.turn_time, props.bank, props.pie, panel.quick, panel.heat_select, panel.agent,
                   panel.time_limit, panel.effort):
        assert len(widget.toolTip()) > 30, widget
    assert "bank" in props.turn_time.toolTip().lower() or "turn" in props.turn_time.toolTip().lower()
    assert "No limit" in panel.time_limit.toolTip() and "reproduce" in panel.time_limit.toolTip()
    assert "expert" in panel.effort.toolTip() and "same verdict" in panel.effort.toolTip()
    assert "loses" in props.bank.toolTip()
    assert "swap" in props.pie.toolTip()


def test_copy_buttons_say_copied(window: MainWindow, qtbot: QtBot) -> None:
    dialog = TextGridDialog(window.document.snapshot(), window)
    qtbot.addWidget(dialog)
    from PySide6.QtWidgets import QPushButton

    copy = next(b for b in dialog.findChildren(QPushButton) if b.text() == "Copy to clipboard")
    copy.click()
    assert QGuiApplication.clipboard().text().startswith("LITS board") or QGuiApplication.clipboard().text()
    assert copy.text().startswith("Copied")
    qtbot.waitUntil(lambda: copy.text() == "Copy to clipboard", timeout=COPIED_MS + 3000)


def test_help_explains_the_workflow(window: MainWindow, qtbot: QtBot) -> None:
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "Help")
    assert window.help_action in help_menu.actions()
    assert window.help_action.shortcut().toString() == "F1"
    dialog = window.show_help()
    qtbot.addWidget(dialog)
    text = dialog.text.toPlainText()
    order = [text.index(step) for step in ("Design", "Validate", "Analyse", "Play-test", "Seal", "Reveal")]
    assert order == sorted(order)
    assert "design → validate → analyse → play-test → seal → reveal" in text
    assert "arrow keys" in text


def test_flags_never_reach_a_dialog(window: MainWindow, qtbot: QtBot, tmp_path: Path, dialogs: Any) -> None:
    def dialog() -> SealDialog:
        made = SealDialog(window.document.snapshot(), None, window)
        qtbot.addWidget(made)
        made.folder.setText(str(tmp_path / "sealed"))
        made.folder.editingFinished.emit()
        return made

    assert dialog().seal()
    again = dialog()
    assert again.table.item(0, 1).text() == "dm2"  # the next neutral slot in that folder
    assert not again.seal()  # the folder's SHA256SUMS may be published: refused, explained without "--append"
    again.append.setChecked(True)
    again.table.item(0, 1).setText("dm1")
    assert not again.seal()  # dm1's sealed file exists: refused, explained without "--force"
    assert dialogs.kinds() == ["warning", "warning"]
    for _kind, _title, message in dialogs.calls:
        assert not re.search(r"--[a-z]", message), message
    assert '"Add to the season already in this folder"' in dialogs.calls[0][2]
    assert '"Replace existing sealed files"' in dialogs.calls[1][2]


def test_sealing_uses_neutral_slots_and_keeps_a_private_map(window: MainWindow, qtbot: QtBot,
                                                            tmp_path: Path) -> None:
    """Slot ids named after the files leaked board names such as "dense" into the public SHA256SUMS."""
    boards = Path(__file__).resolve().parents[2] / "boards"
    made = SealDialog(window.document.snapshot(), None, window)
    qtbot.addWidget(made)
    made.folder.setText(str(tmp_path / "season"))
    made.folder.editingFinished.emit()
    assert made.add_board_files([str(boards / "dense.yaml")]) == []
    assert [made.table.item(r, 1).text() for r in range(2)] == ["dm1", "dm2"]
    assert made.seal()
    sums = (tmp_path / "season" / "SHA256SUMS").read_text()
    assert "dense" not in sums and "dm1" in sums and "dm2" in sums
    private = [p for p in (tmp_path / "season").iterdir() if "private" in p.name.lower() or "slot" in p.name.lower()]
    assert private and "dense.yaml" in private[0].read_text()
    assert "back up" in made.output.toPlainText().lower() and "never publish" in made.output.toPlainText()


def test_for_gui_rewrites_every_flag() -> None:
    assert for_gui("x: already exists (use --force to replace it)") == \
        'x: already exists (tick "Replace existing sealed files" to replace it)'
    assert "--" not in for_gui("needs --force; see --append and --some-new-flag")


def test_sealing_an_edited_board_asks_to_save_first(window: MainWindow, qtbot: QtBot, tmp_path: Path,
                                                    dialogs: Any) -> None:
    """The seal dialog showed the file's path while sealing unsaved edits."""
    path = tmp_path / "mine.yaml"
    assert window.save_as(str(path))
    window.document.paint(parse_cell("B3", 12), Symbol.O)
    dialogs.answer = QMessageBox.StandardButton.Cancel
    assert window.export_sealed() is None
    assert dialogs.kinds() == ["question"] and "not saved" in dialogs.calls[0][2]
    dialogs.answer = QMessageBox.StandardButton.No  # seal the shown board without saving
    dialog = window.export_sealed()
    assert dialog is not None
    qtbot.addWidget(dialog)
    assert dialog.entries[0][0].cells == window.document.board.cells  # what is shown
    assert "NOT saved" in dialog.table.item(0, 0).text() and "differ" in dialog.state.text()
    dialog.close()
    dialogs.answer = QMessageBox.StandardButton.Save
    dialog = window.export_sealed()
    assert dialog is not None
    qtbot.addWidget(dialog)
    assert not window.document.dirty
    from core.board.boardfile import load_board

    assert load_board(path).cells == dialog.entries[0][0].cells
    assert "saved in mine.yaml" in dialog.table.item(0, 0).text() and str(path) in dialog.state.text()
    dialog.close()
    QApplication.processEvents()
