"""Autosave: unsaved work reaches the app-data folder a few seconds after an edit and survives a killed process.

The crash test is real: a separate Python process opens the designer offscreen, edits the board through the
document, waits for the autosave and is then killed with SIGKILL (no clean-up code runs); a new window in this
process must find the work and offer it back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from core.board.geometry import parse_cell
from core.board.model import Symbol
from designer.app import create_window
from designer.document.autosave import DATA_ENV, autosave_dir, find_recoveries
from designer.main_window import MainWindow

REPO = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import os, sys, time
    from PySide6.QtCore import QCoreApplication, QSettings
    from PySide6.QtWidgets import QApplication

    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, sys.argv[1])
    QCoreApplication.setOrganizationName("LITS Board Studio Tests")
    QCoreApplication.setApplicationName("lits-designer-tests")
    app = QApplication(["lits-designer"])
    from core.board.geometry import parse_cell
    from core.board.model import Symbol
    from designer.app import create_window

    window = create_window(None)
    window.show()
    window.document.paint(parse_cell("F6", 12), Symbol.X)   # an edit through the document API
    window.document.set_meta("name", "Killed before saving")
    deadline = time.monotonic() + 60
    while window.autosaver.writes < 1 and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    print("AUTOSAVED" if window.autosaver.writes else "NO AUTOSAVE", window.autosaver.board_path, flush=True)
    while True:  # wait to be killed: nothing after this line runs, like a crash
        app.processEvents()
        time.sleep(0.05)
""")


def window_in(qtbot: QtBot) -> MainWindow:
    win = create_window(None)
    assert isinstance(win, MainWindow)
    qtbot.addWidget(win)
    return win


def test_a_killed_designer_offers_its_unsaved_work_back(qtbot: QtBot, isolated_settings: Path, tmp_path: Path,
                                                       dialogs: Any) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO), QT_QPA_PLATFORM="offscreen")
    assert env[DATA_ENV].startswith(str(tmp_path))  # the conftest keeps app data out of the user's folder
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(isolated_settings)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.startswith("AUTOSAVED"), line + (child.stderr.read() if child.poll() is not None else "")
        saved = Path(line.split(maxsplit=1)[1].strip())
        assert saved.parent == autosave_dir() and saved.exists()
        child.kill()  # SIGKILL on POSIX: no close event, no clean-up
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode != 0
    assert saved.exists(), "the autosave outlives the killed process"
    assert [r.board_path for r in find_recoveries()] == [saved]

    dialogs.answer = QMessageBox.StandardButton.Yes  # "Recover"
    win = window_in(qtbot)
    assert dialogs.kinds() == ["question"]
    title, text = dialogs.calls[0][1:]
    assert "Recover" in title and "untitled board" in text
    doc = win.document
    assert doc.board.name == "Killed before saving"
    assert doc.board[parse_cell("F6", 12)] is Symbol.X and doc.board[parse_cell("G7", 12)] is Symbol.O
    assert doc.dirty and doc.path is None and win.isWindowModified()
    assert not saved.exists() and find_recoveries() == []  # taken over by this session


def left_behind(name: str = "Left behind") -> Path:
    """An autosave as a crashed session leaves it: the board and its note, and no live lock."""
    from core.board.boardfile import save_board
    from core.board.model import Board

    folder = autosave_dir()
    folder.mkdir(parents=True, exist_ok=True)
    board = Board.random(size=8, pairs=6, seed=2)
    board.name = name
    save_board(board, folder / "12345-dead.yaml")
    (folder / "12345-dead.json").write_text(json.dumps({"source": None, "saved_at": time.time()}))
    return folder / "12345-dead.yaml"


def test_discard_deletes_the_autosave(qtbot: QtBot, dialogs: Any) -> None:
    path = left_behind()
    dialogs.answer = QMessageBox.StandardButton.No  # "Discard"
    win = window_in(qtbot)
    assert dialogs.kinds() == ["question"]
    assert not path.exists() and not path.with_suffix(".json").exists()
    assert win.document.board.name == "Crossroads" and not win.document.dirty


def test_cancel_keeps_the_autosave_for_the_next_start(qtbot: QtBot, dialogs: Any) -> None:
    path = left_behind()
    dialogs.answer = QMessageBox.StandardButton.Cancel
    window_in(qtbot)
    assert path.exists()
    dialogs.answer = QMessageBox.StandardButton.Yes
    win = window_in(qtbot)
    assert win.document.board.name == "Left behind" and win.document.dirty and not path.exists()


def test_a_running_windows_autosave_is_not_offered(qtbot: QtBot, dialogs: Any) -> None:
    first = window_in(qtbot)
    first.document.paint(0, Symbol.O)
    first.autosaver.write_now()
    assert first.autosaver.wait() and first.autosaver.exists
    assert find_recoveries() == []  # its session is alive (the lock is held)
    window_in(qtbot)
    assert dialogs.kinds() == []


def test_autosave_waits_for_a_pause_writes_atomically_and_goes_on_save_and_quit(qtbot: QtBot,
                                                                                tmp_path: Path) -> None:
    win = window_in(qtbot)
    saver = win.autosaver
    saver.timer.setInterval(200)
    doc = win.document
    for cell in range(0, 5):  # a burst of edits is one write after the pause
        doc.paint(cell, Symbol.O)
    assert saver.timer.isActive() and saver.writes == 0
    qtbot.waitUntil(lambda: saver.writes == 1, timeout=10_000)
    assert saver.board_path.exists()
    meta = json.loads(saver.meta_path.read_text())
    assert meta["source"] is None and meta["pid"] == os.getpid()
    assert not [p for p in saver.folder.iterdir() if p.name.endswith(".tmp")]  # temp files were renamed
    from core.board.boardfile import load_board

    assert load_board(saver.board_path).cells == doc.board.cells
    assert win.save_as(str(tmp_path / "mine.yaml"))
    assert not saver.board_path.exists()  # saved: nothing to recover
    doc.paint(10, Symbol.X)
    qtbot.waitUntil(lambda: saver.writes == 2, timeout=10_000)
    assert json.loads(saver.meta_path.read_text())["source"] == str(tmp_path / "mine.yaml")
    doc.undo_stack.undo()  # back to the saved state
    assert not saver.board_path.exists()
    doc.paint(10, Symbol.X)
    saver.write_now()
    assert saver.wait() and saver.board_path.exists()
    win.close()  # the fake user discards the changes: a clean quit leaves nothing behind
    assert not saver.board_path.exists() and not saver.meta_path.exists()
    assert find_recoveries() == []


def test_a_write_that_finishes_after_a_save_does_not_bring_the_autosave_back(qtbot: QtBot, tmp_path: Path) -> None:
    win = window_in(qtbot)
    saver = win.autosaver
    win.document.paint(0, Symbol.O)
    saver.write_now()
    assert win.save_as(str(tmp_path / "b.yaml"))
    assert saver.wait()
    time.sleep(0.05)
    assert not saver.board_path.exists()
