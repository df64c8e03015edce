"""Files and export: save/load round trip, the unsaved-changes prompt, recent files, every export format."""

from __future__ import annotations

import hashlib
import random
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QMessageBox, QPlainTextEdit
from pytestqt.qtbot import QtBot

from core.board.boardfile import load_board, save_board
from core.board.geometry import parse_cell
from core.board.model import Board, Symbol
from designer.app import create_window
from designer.canvas.render import RenderOptions
from designer.dialogs.export import SealDialog, TextGridDialog, text_grid
from designer.main_window import MainWindow
from tests.gui.windows import open_window


@pytest.fixture
def window(qtbot: QtBot) -> MainWindow:
    return open_window(qtbot, 1000, 760)


def test_default_board_opens_untitled(window: MainWindow) -> None:
    assert window.document.board.name == "Crossroads"
    assert window.document.path is None
    assert not window.document.dirty
    assert window.document.board.is_antisymmetric()


def test_save_load_round_trip_and_modified_title(window: MainWindow, tmp_path: Path, dialogs: Any) -> None:
    doc = window.document
    doc.paint(parse_cell("F6", 12), Symbol.X)
    doc.set_param("supply_T", 3)
    doc.set_param("pie", False)
    doc.set_meta("author", "Test host")
    assert window.isWindowModified()
    path = tmp_path / "round.yaml"
    assert window.save_as(str(path))
    assert not window.isWindowModified()
    assert "round.yaml" in window.windowTitle()
    saved = Board(size=doc.board.size, params=doc.board.params, name=doc.board.name, author=doc.board.author,
                  notes=doc.board.notes, cells=list(doc.board.cells))
    assert load_board(path) == saved
    doc.clear()
    assert window.isWindowModified()
    assert window.open_file(str(path))  # the unsaved clear is discarded by the fake user
    assert dialogs.kinds() == ["question"]
    assert doc.board == saved
    assert doc.path == str(path)
    assert not doc.dirty
    assert window.recent.paths()[0] == str(path)


def test_unsaved_changes_prompt(window: MainWindow, tmp_path: Path, dialogs: Any) -> None:
    doc = window.document
    doc.paint(parse_cell("B2", 12), Symbol.O)
    edited = list(doc.board.cells)
    dialogs.answer = QMessageBox.StandardButton.Cancel
    assert not window.new_board(8)
    assert dialogs.kinds() == ["question"]
    assert doc.board.cells == edited  # cancelled: nothing lost
    window.close()
    assert window.isVisible()  # closing was cancelled too
    dialogs.answer = QMessageBox.StandardButton.Discard
    assert window.new_board(8)
    assert doc.board.size == 8
    assert not doc.dirty
    # Save answers write the file before going on.
    target = tmp_path / "kept.yaml"
    assert window.save_as(str(target))
    doc.paint(parse_cell("A1", 8), Symbol.X)
    dialogs.answer = QMessageBox.StandardButton.Save
    assert window.new_board(10)
    assert load_board(target)[0] is Symbol.X
    calls_before = len(dialogs.calls)
    assert window.new_board(12)  # nothing unsaved: no question
    assert len(dialogs.calls) == calls_before


def test_bad_file_open_is_explained_and_document_kept(window: MainWindow, tmp_path: Path, dialogs: Any) -> None:
    bad = tmp_path / "odd.yaml"
    bad.write_text('grid:\n  - "O.."\n  - "..."\n  - "..X"\n')
    before = list(window.document.board.cells)
    assert not window.open_file(str(bad))
    assert dialogs.kinds() == ["warning"]
    assert "odd" in dialogs.calls[0][2] and "odd.yaml" in dialogs.calls[0][2]
    assert window.document.board.cells == before


def test_recent_files_keep_ten_newest_first(window: MainWindow, tmp_path: Path) -> None:
    for i in range(12):
        path = tmp_path / f"b{i}.yaml"
        window.document.new_board(4)
        assert window.save_as(str(path))
    recent = window.recent.paths()
    assert len(recent) == 10
    assert recent[0].endswith("b11.yaml") and recent[-1].endswith("b2.yaml")
    assert window.recent_menu.actions()[0].text().startswith("&1 b11.yaml")


def test_recent_file_names_with_ampersands_are_shown_as_they_are(window: MainWindow, tmp_path: Path) -> None:
    """'R&D.yaml' was shown as 'RD.yaml' with an underlined D: '&' marks a menu mnemonic."""
    folder = tmp_path / "Q&A"
    folder.mkdir()
    path = folder / "R&D.yaml"
    assert window.save_as(str(path))
    action = window.recent_menu.actions()[0]
    # The text after the '&1 ' mnemonic, with Qt's '&&' escapes turned back into what the menu displays.
    shown = action.text().removeprefix("&1 ").replace("&&", "&")
    assert "&" not in action.text().removeprefix("&1 ").replace("&&", "")
    assert shown == f"R&D.yaml   ({folder})"
    window.document.new_board(4)
    action.trigger()  # the action still opens the real path
    assert window.document.path == str(path)


def test_names_without_extension_get_one_and_ask_before_replacing(window: MainWindow, tmp_path: Path,
                                                                  dialogs: Any,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Typing 'final' in Save As wrote 'final.yaml'; the dialog had only confirmed 'final', so an existing
    final.yaml was replaced without a question."""
    from PySide6.QtWidgets import QFileDialog

    existing = tmp_path / "final.yaml"
    existing.write_text("keep me\n")
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(tmp_path / "final"), "")))
    dialogs.answer = QMessageBox.StandardButton.No
    assert not window.save_as(None)
    assert existing.read_text() == "keep me\n"
    assert dialogs.kinds() == ["question"] and "final.yaml" in dialogs.calls[0][2]
    dialogs.answer = QMessageBox.StandardButton.Yes
    assert window.save_as(None)
    assert load_board(existing).cells == window.document.board.cells
    # The same for pictures: 'final' -> final.png
    picture = tmp_path / "final.png"
    picture.write_bytes(b"old")
    dialogs.answer = QMessageBox.StandardButton.No
    assert not window.export_picture("png", None, RenderOptions(), 100)
    assert picture.read_bytes() == b"old"
    # The board-file copy gets .yaml like Save As (it was written as 'final', with no extension).
    assert not window.export_board_copy(None)  # the user said No to replacing final.yaml
    assert not (tmp_path / "final").exists()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(tmp_path / "co"), "")))
    assert window.export_board_copy(None)
    assert load_board(tmp_path / "co.yaml").cells == window.document.board.cells
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(tmp_path / "final"), "")))
    # A new name needs no question.
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(tmp_path / "new"), "")))
    count = len(dialogs.calls)
    assert window.save_as(None) and (tmp_path / "new.yaml").exists()
    assert len(dialogs.calls) == count


def test_a_sealed_file_opens_as_an_untitled_copy(window: MainWindow, tmp_path: Path, dialogs: Any,
                                                 qtbot: QtBot) -> None:
    """A revealed .lits-sealed file opens as its board (read as YAML it would be only "not a board file")."""
    from core.seal.sealing import seal_board, write_sealed

    board = Board.random(size=10, pairs=12, seed=5)
    paths, _sums, _fp = write_sealed(str(tmp_path / "season"), [seal_board(board, "s1", "m03")])
    sealed = str(paths[0])
    before = Path(sealed).read_bytes()
    assert window.load_path(sealed)
    assert dialogs.kinds() == []
    doc = window.document
    assert doc.board.size == 10 and doc.board.cells == board.cells and doc.board.params == board.params
    assert doc.path is None and not doc.dirty  # untitled: Save asks for a new file ...
    doc.paint(doc.board.cells.index(Symbol.EMPTY), Symbol.O)
    assert not window.save()  # ... (the fake file dialog is cancelled) and never writes the sealed file
    assert Path(sealed).read_bytes() == before
    assert window.recent.paths()[0] == sealed
    # A damaged sealed file is explained in words, and the document is kept.
    damaged = tmp_path / "damaged.lits-sealed"
    damaged.write_bytes(before[: len(before) // 2])
    cells = list(doc.board.cells)
    assert not window.load_path(str(damaged))
    assert dialogs.kinds()[-1] == "warning" and "damaged.lits-sealed" in dialogs.calls[-1][2]
    assert doc.board.cells == cells
    # From the command line too.
    win = create_window(sealed)
    assert isinstance(win, MainWindow)
    qtbot.addWidget(win)
    assert win.document.board.cells == board.cells and win.document.path is None


def test_geometry_and_theme_kept_in_settings(qtbot: QtBot, isolated_settings: Path) -> None:
    win = create_window(None)
    assert isinstance(win, MainWindow)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    screen = win.screen().availableGeometry()  # restoreGeometry keeps windows on screen
    win.resize(screen.width() - 37, screen.height() - 53)
    qtbot.wait(20)
    expected = win.size()
    win.set_theme("dark")
    win.close()
    again = create_window(None)
    assert isinstance(again, MainWindow)
    qtbot.addWidget(again)
    assert again.theme == "dark"
    assert again.view.options.theme == "dark"
    assert again.size() == expected
    assert list(isolated_settings.rglob("*.ini"))


@pytest.mark.parametrize("px", [300, 1024])
def test_export_png_has_requested_size(window: MainWindow, tmp_path: Path, px: int) -> None:
    path = tmp_path / "board.png"
    assert window.export_picture("png", str(path), RenderOptions(grid=False, coordinates=False), px)
    image = QImage(str(path))
    assert not image.isNull()
    assert (image.width(), image.height()) == (px, px)
    # The board's own colours are there: the light theme's background in the corner.
    assert image.pixelColor(1, 1).name() == "#f4f1ea"


def test_export_svg_is_valid_svg(window: MainWindow, tmp_path: Path) -> None:
    path = tmp_path / "board.svg"
    assert window.export_picture("svg", str(path), RenderOptions(theme="dark"), 600)
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    renderer = QSvgRenderer(str(path))
    assert renderer.isValid()
    assert renderer.defaultSize().width() == 600


def test_export_unknown_extension_is_explained(window: MainWindow, tmp_path: Path, dialogs: Any) -> None:
    from designer.dialogs.export import export_picture
    with pytest.raises(ValueError, match=r"\.gif"):
        export_picture(window.document.board, str(tmp_path / "x.gif"), RenderOptions(), 100)


def test_text_grid_matches_board(window: MainWindow) -> None:
    board = window.document.board
    text = text_grid(board)
    lines = text.splitlines()
    assert lines[0].startswith("Crossroads (12x12, O moves first, pie on, supply L5 I5 T5 S5)")
    assert lines[1].split() == list("ABCDEFGHIJKL")
    for r, row in enumerate(board.rows()):
        number, *cells = lines[2 + r].split()
        assert int(number) == r + 1
        assert "".join(cells) == row
    # Columns line up in a monospace font: every row has the same width.
    assert len({len(line) for line in lines[1:]}) == 1


def test_export_sealed_with_digests_and_sums(window: MainWindow, tmp_path: Path, qtbot: QtBot) -> None:
    pytest.importorskip("core.seal.sealing")
    other = tmp_path / "second.yaml"
    other.write_text((Path(__file__).resolve().parents[2] / "boards" / "sparse.yaml").read_text())
    dialog = SealDialog(window.document.snapshot(), None, window)
    qtbot.addWidget(dialog)
    out = tmp_path / "sealed"
    dialog.folder.setText(str(out))
    dialog.season.setText("spring-2027")
    assert dialog.add_board_files([str(other)]) == []
    assert dialog.table.rowCount() == 2
    assert dialog.seal()
    assert len(dialog.written) == 2
    sums = (out / "SHA256SUMS").read_text()
    for path in dialog.written:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert path.exists()
        assert digest in sums or digest in dialog.digest_text
    dialog.copy.click()
    assert QGuiApplication.clipboard().text() == dialog.digest_text
    assert "spring-2027" in dialog.digest_text
    assert "same board" not in dialog.output.toPlainText()


def test_sealing_the_same_board_twice_is_pointed_out(window: MainWindow, tmp_path: Path, qtbot: QtBot) -> None:
    copy = tmp_path / "copy.yaml"
    save_board(window.document.snapshot(), copy)
    dialog = SealDialog(window.document.snapshot(), None, window)
    qtbot.addWidget(dialog)
    dialog.folder.setText(str(tmp_path / "sealed"))
    dialog.season.setText("s")
    assert dialog.add_board_files([str(copy)]) == []
    assert dialog.seal()
    assert "Warning: slot dm2 holds the same board as slot dm1 (the same grid and settings)." in (
        dialog.output.toPlainText())


def test_render_light_and_dark_differ() -> None:
    from designer.canvas.render import png_bytes
    board = Board.random(size=8, pairs=10, seed=3)
    assert png_bytes(board, RenderOptions(theme="light"), 200) != png_bytes(board, RenderOptions(theme="dark"), 200)


def test_text_grid_dialog_copies(window: MainWindow, qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QPushButton

    from designer.dialogs.export import TextGridDialog

    dialog = TextGridDialog(window.document.snapshot(), window)
    qtbot.addWidget(dialog)
    copy = next(b for b in dialog.findChildren(QPushButton) if b.text() == "Copy to clipboard")
    copy.click()
    copied = QGuiApplication.clipboard().text()
    assert copied == "```\n" + text_grid(window.document.board) + "```\n"  # a code block keeps the columns in a chat


@pytest.mark.parametrize("size", [12, 26])
def test_text_grid_dialog_shows_every_line_unwrapped(qtbot: QtBot, size: int) -> None:
    """The preview wrapped long lines, so a 26x26 grid's rows (and the header) broke in two."""
    board = Board(size=size)
    board.random_fill(20, random.Random(1))
    board.name = "Season final, board three"
    dialog = TextGridDialog(board)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    edit = dialog.findChild(QPlainTextEdit)
    assert edit is not None
    doc = edit.document()
    assert doc.blockCount() >= size + 2
    block = doc.begin()
    while block.isValid():
        assert block.layout().lineCount() <= 1, block.text()
        block = block.next()


def test_export_board_copy_keeps_document_file(window: MainWindow, tmp_path: Path) -> None:
    window.document.paint(parse_cell("A1", 12), Symbol.X)
    copy = tmp_path / "copy.yaml"
    assert window.export_board_copy(str(copy))
    assert load_board(copy).cells == window.document.board.cells
    assert window.document.path is None and window.document.dirty


def test_resources_found_through_search_paths(qapp: Any) -> None:
    from PySide6.QtCore import QFile

    from designer.app import default_board_path, find_dir, register_search_paths
    from designer.main_window import load_icon

    register_search_paths()
    resources = find_dir("resources")
    assert resources is not None and (resources / "icons").is_dir()
    for name in ("new", "open", "save", "undo", "redo", "brush-o", "brush-x", "erase", "playtest", "analyse"):
        assert QFile.exists(f"icons:{name}.svg"), name
        assert not load_icon(name).isNull(), name
        assert not load_icon(name, dark=True).isNull(), name
    board = default_board_path()
    assert board is not None and load_board(board).name == "Crossroads"
