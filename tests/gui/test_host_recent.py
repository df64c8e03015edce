"""Recent matches and a match offered back after the studio stopped with its Host window open."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox

from core.board.boardfile import load_board
from designer.host import recent
from designer.host.window import PictureMaker, open_host_window
from tests.gui.test_host import Wall, show
from tests.match.script import write_board

pytestmark = pytest.mark.gui


def test_a_host_window_is_remembered_and_offered_back_after_a_crash(qtbot, folder: Path,  # type: ignore[no-untyped-def]
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    window = show(qtbot, folder, Wall())
    settings = QSettings()
    assert recent.recent_matches(settings) == [str(folder.resolve())]
    # the studio stops here without closing the window (a crash): the next start offers the match back
    asked: list[str] = []
    monkeypatch.setattr(QMessageBox, "question",
                        staticmethod(lambda _p, _t, text, *a: asked.append(text) or QMessageBox.StandardButton.Yes))
    reopened: list[str] = []
    assert recent.offer_open_matches(window, settings, reopened.append) == [str(folder.resolve())]
    assert reopened == [str(folder.resolve())] and "was open in the Host window when the studio stopped" in asked[0]
    assert recent.offer_open_matches(window, settings, reopened.append) == [], "offered once"
    window.close()
    assert recent.offer_open_matches(window, settings, reopened.append) == [], "a closed window is not offered"
    assert recent.recent_matches(settings) == [str(folder.resolve())], "but stays a recent match"


def test_recent_matches_menu_and_the_folder_chooser_start_beside_the_last_match(  # type: ignore[no-untyped-def]
        qtbot, folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = QSettings()
    recent.match_opened(settings, str(folder))
    recent.match_closed(settings, str(folder))
    opened: list[str] = []
    menu = recent.RecentMatchesMenu(settings, opened.append)
    qtbot.addWidget(menu)
    actions = menu.actions()
    assert len(actions) == 1 and "m" in actions[0].text()
    actions[0].trigger()
    assert opened == [str(folder.resolve())]
    starts: list[str] = []
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        staticmethod(lambda _p, _t, start="": starts.append(start) or ""))
    assert open_host_window(None, load_board(write_board(tmp_path))) is None
    assert starts == [str(folder.resolve().parent)]
    monkeypatch.setattr(PictureMaker, "request", lambda self, folder: None)  # no helper process for this test
    window = open_host_window(None, load_board(write_board(tmp_path)), folder=str(folder))  # from the menu
    assert window is not None
    qtbot.addWidget(window)
    assert window.match.folder == folder
    window.close()


def test_the_picture_helper_is_started_off_the_gui_thread(qtbot, folder: Path,  # type: ignore[no-untyped-def]
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Starting the helper process took 50-100 ms on a loaded machine: a window that froze as it opened."""
    import concurrent.futures as cf
    import threading

    threads: list[str] = []

    def submit(self: cf.ProcessPoolExecutor, fn: object, *args: object) -> cf.Future[tuple[str, str]]:
        threads.append(threading.current_thread().name)
        return cf.Future()

    monkeypatch.setattr(cf.ProcessPoolExecutor, "submit", submit)
    window = show(qtbot, folder, Wall(), pictures=True)
    qtbot.waitUntil(lambda: bool(threads))
    assert threads[0] != threading.main_thread().name and threads[0].startswith("post-picture")
    window.close()
