"""What a host meets around the board's files: recovering after a crash, saving over another program's changes,
exports and seals that cannot be written, the recent list, the longest texts a board file holds, and the Improve
dialog (its undo keys, the boards it refuses, proposals for a board edited since)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from core.board.boardfile import load_board, save_board
from core.board.model import Board, Symbol
from designer.app import create_window
from designer.canvas.render import RenderOptions
from designer.dialogs.export import SealDialog
from designer.dialogs.improve import ImproveDialog
from designer.document.autosave import autosave_dir, find_recoveries
from designer.main_window import MainWindow
from tests.gui.windows import open_window


def crashed_autosave(board: Board, source: Path | None, saved_at: object) -> Path:
    """The files a session that crashed leaves in the autosave folder (no live lock)."""
    folder = autosave_dir()
    folder.mkdir(parents=True, exist_ok=True)
    save_board(board, folder / "4242-crashed.yaml")
    note = {"source": str(source) if source else None, "saved_at": saved_at}
    (folder / "4242-crashed.json").write_text(json.dumps(note))
    return folder / "4242-crashed.yaml"


def started(qtbot: QtBot, board_path: str | None = None) -> MainWindow:
    win = create_window(board_path)
    assert isinstance(win, MainWindow)
    qtbot.addWidget(win)
    return win


def test_an_autosave_older_than_its_file_is_recovered_as_an_untitled_copy(qtbot: QtBot, tmp_path: Path,
                                                                          dialogs: Any) -> None:
    """The host cancelled the recovery, went on with mine.yaml and saved it: at the next start the older autosave
    is offered with a warning and reopened untitled, so Ctrl+S cannot put the older work over the newer file."""
    mine = tmp_path / "mine.yaml"
    crashed = Board.random(size=12, pairs=10, seed=1)
    crashed.name = "Crashed edit"
    crashed_autosave(crashed, mine, time.time() - 3600)
    newer = Board.random(size=12, pairs=14, seed=2)
    newer.name = "Saved later"
    save_board(newer, mine)
    dialogs.answer = QMessageBox.StandardButton.Yes
    win = started(qtbot)
    assert dialogs.kinds() == ["question"]
    question = dialogs.calls[0][2]
    assert "mine.yaml was saved after this autosave" in question
    assert "Yes opens it as an untitled copy and leaves mine.yaml as it is" in question
    doc = win.document
    assert doc.board.name == "Crashed edit" and doc.dirty
    assert doc.path is None  # Save asks for a name instead of writing over mine.yaml
    assert "untitled copy, because mine.yaml was saved after it" in win.statusBar().currentMessage()
    assert not win.save()  # the (fake) file dialog is cancelled
    assert load_board(mine).name == "Saved later"


def test_an_autosave_newer_than_its_file_is_recovered_as_that_file(qtbot: QtBot, tmp_path: Path,
                                                                   dialogs: Any) -> None:
    mine = tmp_path / "mine.yaml"
    save_board(Board.random(size=12, pairs=10, seed=1), mine)
    edited = Board.random(size=12, pairs=11, seed=3)
    crashed_autosave(edited, mine, time.time() + 60)
    dialogs.answer = QMessageBox.StandardButton.Yes
    win = started(qtbot)
    assert "saved after" not in dialogs.calls[0][2]
    assert win.document.path == str(mine) and win.document.dirty
    assert win.statusBar().currentMessage().endswith("it is not saved yet.")


@pytest.mark.parametrize("saved_at", [1e300, float("nan")])
def test_a_damaged_autosave_note_does_not_stop_the_start(qtbot: QtBot, dialogs: Any, saved_at: object) -> None:
    """A note with a time the clock cannot show (an overflow, NaN) falls back to the file's time."""
    crashed_autosave(Board.random(size=8, pairs=4, seed=1), None, saved_at)
    dialogs.answer = QMessageBox.StandardButton.Cancel
    started(qtbot)
    assert dialogs.kinds() == ["question"] and "an untitled board, autosaved 2" in dialogs.calls[0][2]


def test_a_damaged_autosave_is_kept_and_named_not_deleted(qtbot: QtBot, dialogs: Any) -> None:
    """A damaged autosave is named and kept aside (it may be the only copy of the work), not deleted."""
    path = crashed_autosave(Board.random(size=8, pairs=4, seed=1), None, time.time())
    path.write_text(path.read_text().replace('"', "", 1))  # a grid row loses its opening quote
    damaged = path.read_text()
    dialogs.answer = QMessageBox.StandardButton.Yes
    win = started(qtbot)
    assert dialogs.kinds() == ["question", "warning"]
    message = dialogs.calls[1][2]
    kept = autosave_dir() / "4242-crashed.damaged.txt"
    assert str(kept) in message and "not offered again" in message and "text editor" in message
    assert kept.read_text() == damaged
    assert find_recoveries() == [] and not win.document.dirty
    assert not path.with_suffix(".json").exists()


def test_recovered_work_is_on_disk_from_the_first_moment(qtbot: QtBot, dialogs: Any) -> None:
    """Recovered work stays on disk as this session's autosave at once: a second crash within the autosave delay
    must not lose it."""
    board = Board.random(size=10, pairs=9, seed=4)
    board.name = "Only copy"
    crashed_autosave(board, None, time.time())
    dialogs.answer = QMessageBox.StandardButton.Yes
    win = started(qtbot)
    assert win.document.board.name == "Only copy"
    saver = win.autosaver
    assert saver.board_path.exists()  # before any timer has fired
    assert load_board(saver.board_path).cells == board.cells
    assert [p.name for p in autosave_dir().glob("*.yaml")] == [saver.board_path.name]
    assert find_recoveries() == []  # held by this live session
    assert saver.wait()
    assert load_board(saver.board_path).cells == board.cells


def test_an_export_that_cannot_be_written_names_the_chosen_file_and_what_to_do(qtbot: QtBot, tmp_path: Path,
                                                                                dialogs: Any) -> None:
    """The message names the file the host chose and what to do, never the temporary file written beside it."""
    win = open_window(qtbot)
    target = tmp_path / "no-such-folder" / "board.png"
    assert not win.export_picture("png", str(target), RenderOptions(), 300)
    assert not win.export_board_copy(str(tmp_path / "no-such-folder" / "copy.yaml"))
    folder_as_name = tmp_path / "taken.yaml"
    folder_as_name.mkdir()
    assert not win.save_as(str(folder_as_name))
    picture, copy, save = (text for _kind, _title, text in dialogs.calls)
    assert picture.startswith(f"{target} was not written")
    assert f"the folder {target.parent} does not exist; choose another folder" in picture
    assert ".tmp" not in picture and ".tmp" not in copy
    assert copy.startswith(str(tmp_path / "no-such-folder" / "copy.yaml"))
    assert "that name is a folder; choose a file name" in save
    assert [kind for kind, _t, _x in dialogs.calls] == ["warning"] * 3
    assert not target.parent.exists()


def test_a_recent_board_with_a_mistake_stays_in_the_recent_list(qtbot: QtBot, tmp_path: Path,
                                                                dialogs: Any) -> None:
    """A board file with a hand-made typo stays in File > Open Recent, to open again once mended; a file that is
    gone leaves the list."""
    win = open_window(qtbot)
    mine = tmp_path / "mine.yaml"
    gone = tmp_path / "gone.yaml"
    assert win.save_as(str(gone)) and win.save_as(str(mine))
    mine.write_text(mine.read_text().replace("pie: true", "pie: ture"))
    gone.unlink()
    assert not win.open_file(str(mine))
    assert "Mend it in a text editor and open it again" in dialogs.calls[-1][2]
    assert not win.open_file(str(gone))
    assert "Mend it" not in dialogs.calls[-1][2]
    assert win.recent.paths() == [str(mine)]
    mine.write_text(mine.read_text().replace("pie: ture", "pie: true"))
    win.recent_menu.actions()[0].trigger()
    assert win.document.path == str(mine)


def test_ctrl_z_in_the_improve_dialog_undoes_the_proposal_it_applied(qtbot: QtBot) -> None:
    """The dialog says 'Applied proposal 1 (undo with Ctrl+Z)': the keys work in the dialog, a window of its own
    that the main window's shortcuts do not reach."""
    win = open_window(qtbot)
    dialog = win.improve_board()
    assert isinstance(dialog, ImproveDialog)
    qtbot.addWidget(dialog)
    qtbot.waitExposed(dialog)
    doc = win.document
    before = list(doc.board.cells)
    proposal = doc.snapshot()
    cell = proposal.cells.index(Symbol.EMPTY)
    proposal.apply_changes(proposal.paint(cell, Symbol.O), undo=False)
    changed = [i for i, (a, b) in enumerate(zip(before, proposal.cells, strict=True)) if a is not b]
    figures = SimpleNamespace(host_words=lambda: "first mover 50%")
    result = SimpleNamespace(start=None, screened=1, elapsed=0.0,
                             candidates=[SimpleNamespace(board=proposal, changed=changed, score=0.5, figures=figures)])
    dialog.base = doc.snapshot()
    dialog._on_finished(result)
    assert dialog.apply(0)
    assert "undo with Ctrl+Z" in dialog.progress.label.text()
    assert doc.board.cells == proposal.cells and win.isWindowModified()
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    QTest.keyClick(dialog, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert doc.board.cells == before and not doc.dirty and not win.isWindowModified()
    QTest.keyClick(dialog, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert doc.board.cells == proposal.cells


def test_a_sealing_folder_is_the_one_the_host_typed(qtbot: QtBot, tmp_path: Path, dialogs: Any,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """'~/season' is the home folder's season folder (not a folder named '~' wherever the designer was started);
    an empty Folder is refused; a relative name is shown in full, so the host knows where the secret files are."""
    home = tmp_path / "home"
    start = tmp_path / "started-here"
    home.mkdir()
    start.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    monkeypatch.chdir(start)
    win = open_window(qtbot)

    def dialog(folder: str) -> SealDialog:
        seal = SealDialog(win.document.snapshot(), None, win)
        qtbot.addWidget(seal)
        seal.folder.setText(folder)
        seal.season.setText("spring")
        return seal

    typed = dialog("~/season")
    assert typed.seal()
    assert (home / "season" / "SHA256SUMS").is_file() and (home / "season" / "dm1.lits-sealed").is_file()
    assert typed.folder.text() == str(home / "season")
    assert str(home / "season" / "PRIVATE-slots.txt") in typed.output.toPlainText()
    empty = dialog("  ")
    assert not empty.seal()
    assert dialogs.calls[-1][:2] == ("warning", "Not sealed") and "Choose the folder" in dialogs.calls[-1][2]
    assert list(start.iterdir()) == []
    relative = dialog("season-b")
    assert relative.seal()
    assert relative.folder.text() == str(start / "season-b")  # where it went, in full
    assert str(start / "season-b" / "dm1.lits-sealed") in relative.output.toPlainText()


def test_improve_says_why_it_cannot_start_before_any_worker_runs(qtbot: QtBot) -> None:
    """A board no match can use (an empty supply) is not searched for minutes and rated by games in which no
    piece can be placed, and with every cell locked the host is told what to do, not 'Improve failed: ...'."""
    from core.generate.layout import layout_of
    from designer.document.document import Document
    from tests.gui.test_generate_dialogs import engine_for

    board = Board.random(6, 8, seed=1)
    doc = Document(board)
    for kind in "LITS":
        doc.set_param(f"supply_{kind}", 0)
    dialog = ImproveDialog(doc, engine=engine_for(layout_of(Board.random(6, 8, seed=5))))
    qtbot.addWidget(dialog)
    assert not dialog.start() and not dialog.running
    said = dialog.progress.label.text()
    assert said.startswith("No match can be played on this board (the supply is empty")
    assert "Change it in the Properties tab" in said
    doc.set_param("supply_L", 3)
    doc.set_locks(range(board.cell_count))
    assert not dialog.start() and not dialog.running
    assert dialog.progress.label.text().startswith("Every cell is locked, so Improve has nothing to change")
    assert "failed" not in dialog.progress.label.text()


def test_save_asks_before_writing_over_changes_another_program_made(qtbot: QtBot, tmp_path: Path,
                                                                   dialogs: Any) -> None:
    """The host mends mine.yaml in a text editor while the designer has it open: Ctrl+S in the designer asks
    before writing the board shown over the mended file."""
    win = open_window(qtbot)
    mine = tmp_path / "mine.yaml"
    assert win.save_as(str(mine))
    doc = win.document
    doc.paint(doc.board.cells.index(Symbol.EMPTY), Symbol.X)
    assert win.save() and dialogs.kinds() == []  # its own last save is no change by another program
    mended = mine.read_text().replace("bank: 300", "bank: 240")
    assert mended != mine.read_text()
    mine.write_text(mended)
    later = time.time() + 5
    os.utime(mine, (later, later))
    doc.paint(doc.board.cells.index(Symbol.EMPTY), Symbol.O)
    dialogs.answer = QMessageBox.StandardButton.No
    assert not win.save()
    assert dialogs.kinds() == ["question"] and dialogs.calls[0][1] == "File changed on disk"
    assert str(mine) in dialogs.calls[0][2] and "Save As writes the board to another file" in dialogs.calls[0][2]
    assert mine.read_text() == mended and doc.dirty
    dialogs.answer = QMessageBox.StandardButton.Yes
    assert win.save()
    assert load_board(mine).cells == doc.board.cells and not doc.dirty
    doc.paint(doc.board.cells.index(Symbol.EMPTY), Symbol.X)
    assert win.save() and len(dialogs.calls) == 2  # no question after the designer's own save
    mine.unlink()  # a file that is gone is simply written again
    doc.paint(doc.board.cells.index(Symbol.EMPTY), Symbol.O)
    assert win.save() and load_board(mine).cells == doc.board.cells and len(dialogs.calls) == 2


def test_a_name_or_notes_too_long_for_a_board_file_is_not_saved_into_a_file_that_never_opens(
        qtbot: QtBot, tmp_path: Path, dialogs: Any) -> None:
    """Notes pasted from a long report (over 10,000 characters) or a name over 200 would make a file that is
    refused on every open ('String should have at most 10000 characters'): the Properties tab holds what a board
    file holds, and shows it."""
    from PySide6.QtTest import QTest

    from designer.document.document import META_LIMITS

    assert META_LIMITS == {"name": 200, "author": 200, "notes": 10_000}
    win = open_window(qtbot)
    panel = win.properties
    report = "".join(f"opening {i}: first mover 52%\n" for i in range(600))
    assert len(report) > 10_000
    panel.notes.setPlainText(report)
    assert win.document.board.notes == report[:10_000] == panel.notes.toPlainText()
    panel.name.clear()
    panel.name.setFocus()
    QTest.keyClicks(panel.name, "N" * 205)
    assert win.document.board.name == "N" * 200 == panel.name.text()
    win.document.undo_stack.undo()  # the typing is one step, and undo restores the name it replaced
    assert win.document.board.name == "Crossroads" == panel.name.text()
    win.document.undo_stack.redo()
    assert win.document.board.name == "N" * 200
    mine = tmp_path / "long.yaml"
    assert win.save_as(str(mine))
    assert win.open_file(str(mine)) and dialogs.kinds() == []
    assert win.document.board.notes == report[:10_000] and win.document.board.name == "N" * 200


def test_proposals_for_a_board_edited_during_the_search_cannot_look_applicable(qtbot: QtBot, dialogs: Any) -> None:
    """After an edit during the search the proposals' Apply buttons are off until the board is back as searched,
    the dialog says why, and its board shows the board as it is now."""
    from core.generate.layout import layout_of
    from designer.document.document import Document
    from tests.gui.test_generate_dialogs import engine_for

    doc = Document(Board.random(6, 8, seed=1))
    dialog = ImproveDialog(doc, engine=engine_for(layout_of(Board.random(6, 8, seed=5))))
    qtbot.addWidget(dialog)
    searched = list(doc.board.cells)
    edits: list[bool] = []

    def edit_once(*_args: object) -> None:  # the host paints while the search runs (its first progress report)
        if not edits:
            edits.append(dialog.running)
            doc.paint(doc.board.cells.index(Symbol.EMPTY), Symbol.O)

    dialog.time_box.setValue(60)  # room for the timing check on a loaded machine: the fake search ends sooner
    dialog.runner.progress.connect(edit_once)
    with qtbot.waitSignal(dialog.runner.finished, timeout=60_000):
        assert dialog.start()
    assert edits == [True], "the edit came while the search ran"
    assert dialog.proposals, dialog.progress.label.text()
    buttons = [button for _picture, _text, button in dialog.proposal_widgets[:len(dialog.proposals)]]
    assert not any(b.isEnabled() for b in buttons)
    assert "edited during the search" in dialog.progress.label.text()
    assert dialog.lock_board.board.cells == doc.board.cells  # the board as it is now, not as searched
    doc.undo_stack.undo()  # back to the searched board: the proposals fit again
    assert doc.board.cells == searched and all(b.isEnabled() for b in buttons)
    buttons[0].click()
    assert doc.board.cells != searched and dialogs.kinds() == []


def test_an_unreadable_sha256sums_is_explained_not_a_traceback(qtbot: QtBot, tmp_path: Path, dialogs: Any,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A SHA256SUMS the account may not read (read for the fingerprint note) is explained, not a traceback."""
    win = open_window(qtbot)
    folder = tmp_path / "season"
    folder.mkdir()
    sums = folder / "SHA256SUMS"
    sums.write_text("")
    real = Path.read_bytes

    def refuse(path: Path) -> bytes:
        if path == sums:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    seal = SealDialog(win.document.snapshot(), None, win)
    qtbot.addWidget(seal)
    seal.folder.setText(str(folder))
    assert not seal.seal()
    assert dialogs.calls[-1][:2] == ("warning", "Not sealed")
    assert str(sums) in dialogs.calls[-1][2] and "Permission denied" in dialogs.calls[-1][2]
    assert sorted(p.name for p in folder.iterdir()) == ["SHA256SUMS"]


def test_after_recovering_one_board_the_host_is_told_others_wait(qtbot: QtBot, dialogs: Any,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A window recovers one board; two crashed windows leave two, and the second must not look lost."""
    folder = autosave_dir()
    folder.mkdir(parents=True)
    for i, name in enumerate(("Older", "Newer", "Newest")):
        board = Board.random(size=8, pairs=4 + i, seed=i)
        board.name = name
        save_board(board, folder / f"{i}-crashed.yaml")
        (folder / f"{i}-crashed.json").write_text(json.dumps({"source": None, "saved_at": time.time() - 60 + i}))
    answers = [QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Yes]
    monkeypatch.setattr(QMessageBox, "question", staticmethod(
        lambda *_a, **_k: answers.pop(0) if answers else QMessageBox.StandardButton.Yes))
    win = started(qtbot)
    assert win.document.board.name == "Newer"
    said = win.statusBar().currentMessage()
    assert said.endswith("2 more autosaved boards are kept: start LITS Board Studio again to recover the next.")
    assert sorted(r.board_path.name for r in find_recoveries()) == ["0-crashed.yaml", "2-crashed.yaml"]
    again = started(qtbot)  # a second window offers the next one
    assert again.document.board.name in ("Older", "Newest") and again.document.dirty
