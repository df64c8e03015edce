"""The designer window as GUI tests open it: shown offscreen at a given size, closed by pytest-qt."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow
from pytestqt.qtbot import QtBot

from designer.app import create_window
from designer.main_window import MainWindow


def open_window(qtbot: QtBot, width: int = 1100, height: int = 800, new_board: int | None = None) -> MainWindow:
    """The default board (or a new empty board of ``new_board`` cells a side), exposed and ready for input."""
    win = create_window(None)
    assert isinstance(win, MainWindow)
    qtbot.addWidget(win)
    win.resize(width, height)
    win.show()
    qtbot.waitExposed(win)
    if new_board is not None:
        win.document.new_board(new_board)
    return win


def open_playtest(window: MainWindow, qtbot: QtBot) -> QMainWindow:
    """The window's play-test, once it is open (a play-test asked for while the engine loads opens later)."""
    from designer.playtest.launcher import PlaytestStarter

    shown = window.playtest()
    if isinstance(shown, PlaytestStarter):  # it closes and deletes itself when the play-test opens
        starter = shown
        qtbot.waitUntil(lambda: starter.playtest is not None, timeout=300_000)
        assert starter.playtest is not None
        shown = starter.playtest
    qtbot.addWidget(shown)
    assert shown.isVisible()
    return shown
