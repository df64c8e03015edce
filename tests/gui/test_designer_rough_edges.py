"""What a host tripped over in the designer: the command line, a generated board's unsaved state, the
validation's words, the Improve dialog's pictures and an early Play-test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import shiboken6
from pytestqt.qtbot import QtBot

from core import __version__
from core.board.model import Board, Symbol
from designer.main_window import MainWindow
from tests.gui.windows import open_window

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot: QtBot) -> MainWindow:
    return open_window(qtbot, 1000, 760)


# -- the command line ------------------------------------------------------------------------------------------
@pytest.fixture
def no_window(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Records any attempt to build the designer window (there must be none)."""
    import designer.app

    made: list[object] = []
    monkeypatch.setattr(designer.app, "create_window", lambda *args, **kwargs: made.append(args))
    return made


def test_version_prints_the_version_and_opens_no_window(no_window: list[object],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from designer.app import main

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"lits-designer {__version__}"
    assert main(["--help"]) == 0
    assert "--version" in capsys.readouterr().out
    assert no_window == []


@pytest.mark.parametrize("argv", [["--frobnicate"], ["--theme", "purple"], ["a.yaml", "b.yaml"]])
def test_a_wrong_argument_prints_usage_and_exits_2_without_a_window(argv: list[str], no_window: list[object],
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from designer.app import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: lits-designer") and "error:" in err
    assert no_window == []


# -- a generated board is unsaved work -------------------------------------------------------------------------
def test_a_generated_board_is_unsaved_autosaved_and_asked_about_on_close(window: MainWindow, qtbot: QtBot,
                                                                        dialogs: Any) -> None:
    from PySide6.QtWidgets import QMessageBox

    from core.board.boardfile import load_board

    generate = window.generate_boards()
    qtbot.addWidget(generate)
    new = Board.random(12, 20, seed=8)
    generate.openBoard.emit(new)  # "Open as new board"
    generate.close()
    assert dialogs.kinds() == []  # the default board was unchanged: nothing to ask before replacing it
    assert window.document.board is new and window.document.path is None
    assert window.document.dirty and window.isWindowModified()
    autosaver = window.autosaver
    qtbot.waitUntil(lambda: autosaver.writes >= 1, timeout=10_000)  # within the autosave delay, unprompted
    assert load_board(autosaver.board_path).cells == new.cells
    dialogs.answer = QMessageBox.StandardButton.Cancel
    assert not window.close()  # closing asks, and Cancel keeps the window and the board
    assert dialogs.kinds() == ["question"] and "unsaved" in dialogs.calls[0][2]
    assert window.document.board is new
    dialogs.answer = QMessageBox.StandardButton.Discard


# -- validation counts problems by kind ------------------------------------------------------------------------
def test_validation_names_problems_by_kind_and_repairs_only_pairs(window: MainWindow, qtbot: QtBot) -> None:
    from dataclasses import replace

    from core.board.geometry import parse_cell

    doc, panel = window.document, window.validation
    doc.set_params(replace(doc.board.params, supply=(0, 0, 0, 0), turn_time=0, bank=0))
    assert window.valid_label.text() == "✖ 2 match settings"  # said "2 broken pair(s)"
    assert "2 match settings" in panel.status.text() and "Properties" in panel.status.text()
    assert not panel.repair_all_button.isEnabled() and not window.repair_action.isEnabled()
    a1, l12 = parse_cell("A1", 12), parse_cell("L12", 12)
    doc.set_cells([(a1, Symbol.X), (l12, Symbol.X)], "break a pair")
    doc.set_param("turn_time", 30)
    assert window.valid_label.text() == "✖ 1 broken pair, 1 match setting"
    assert panel.repair_all_button.isEnabled() and window.repair_action.isEnabled()
    panel.repair_all_button.click()
    assert doc.board.is_antisymmetric()
    assert window.valid_label.text() == "✖ 1 match setting"
    assert not panel.repair_all_button.isEnabled() and not window.repair_action.isEnabled()
    doc.set_param("supply_L", 4)
    assert window.valid_label.text().startswith("✔ valid")


# -- an early Play-test --------------------------------------------------------------------------------------
def test_an_early_playtest_opens_at_once_and_loads_the_engine_off_the_gui_thread(
        window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl+T while the warm-up still runs: a window says the play-test is getting ready, the loading happens on
    a worker, and the play-test replaces that window when it is done (it used to load on the GUI thread)."""
    import threading

    from PySide6.QtWidgets import QApplication

    from designer import warmup
    from designer.playtest.launcher import PlaytestStarter
    from designer.playtest.window import PlaytestWindow
    from designer.workers import Worker

    monkeypatch.setattr(warmup, "ready", threading.Event())  # this process as in its first second
    monkeypatch.setattr(warmup, "done", threading.Event())
    monkeypatch.setattr(warmup, "_runner", Worker())  # the warm-up "running"
    monkeypatch.setattr(warmup, "_sizes", set())
    loading_on: list[threading.Thread] = []
    release = threading.Event()

    def slow_prepare(board: Board) -> None:  # stands in for the loading, which takes seconds on a fresh start
        loading_on.append(threading.current_thread())
        assert release.wait(30)
        warmup.ready.set()

    monkeypatch.setattr(warmup, "prepare", slow_prepare)
    window.random_fill(10)
    window.playtest_action.trigger()  # Ctrl+T
    starters = [w for w in QApplication.topLevelWidgets() if isinstance(w, PlaytestStarter) and w.isVisible()]
    assert len(starters) == 1
    starter = starters[0]
    assert "Getting the play-test ready" in starter.message.text()
    assert not any(isinstance(w, PlaytestWindow) for w in QApplication.topLevelWidgets())
    qtbot.wait(100)
    assert loading_on == [], "the loading waits for the warm-up"
    warmup.done.set()  # the warm-up ends
    qtbot.waitUntil(lambda: bool(loading_on), timeout=5000)
    assert loading_on[0] is not threading.main_thread()
    release.set()
    qtbot.waitUntil(lambda: starter.playtest is not None, timeout=10_000)
    playtest = starter.playtest
    assert isinstance(playtest, PlaytestWindow) and playtest.isVisible()
    qtbot.addWidget(playtest)
    assert playtest.board.cells == window.document.board.cells
    qtbot.waitUntil(lambda: not shiboken6.isValid(starter))  # closed and deleted
    playtest.close()


def test_an_engine_that_fails_to_load_is_reported_in_the_starter(window: MainWindow, qtbot: QtBot,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from designer import warmup
    from designer.playtest.launcher import PlaytestStarter
    from designer.workers import Worker

    monkeypatch.setattr(warmup, "ready", threading.Event())
    monkeypatch.setattr(warmup, "done", threading.Event())
    monkeypatch.setattr(warmup, "_runner", Worker())
    warmup.done.set()  # the warm-up ended without loading the engine

    def broken(_board: Board) -> None:
        raise OSError("numba cache folder is read-only")

    monkeypatch.setattr(warmup, "prepare", broken)
    starter = window.playtest()
    assert isinstance(starter, PlaytestStarter)
    qtbot.addWidget(starter)
    qtbot.waitUntil(lambda: "could not start" in starter.message.text(), timeout=5000)
    assert "numba cache folder is read-only" in starter.message.text() and starter.playtest is None
    assert starter.isVisible()  # the host reads it and closes it


def test_the_starter_shows_a_first_starts_compile(window: MainWindow, qtbot: QtBot,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from designer import warmup
    from designer.playtest.launcher import PlaytestStarter
    from designer.workers import Worker

    warming: Worker[float, warmup.CompileProgress] = Worker()
    monkeypatch.setattr(warmup, "ready", threading.Event())
    monkeypatch.setattr(warmup, "done", threading.Event())
    monkeypatch.setattr(warmup, "_runner", warming)
    starter = window.playtest()
    assert isinstance(starter, PlaytestStarter)
    qtbot.addWidget(starter)
    warming.progress.emit(warmup.CompileProgress(3, 10))  # as the warm-up's compile reports it
    assert (starter.bar.minimum(), starter.bar.maximum(), starter.bar.value()) == (0, 10, 3)
    assert "Preparing the game engine (30%)" in starter.message.text()
    starter.close()


def test_cancelling_an_early_playtest_opens_nothing(window: MainWindow, qtbot: QtBot,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from PySide6.QtWidgets import QApplication

    from designer import warmup
    from designer.playtest.launcher import PlaytestStarter
    from designer.playtest.window import PlaytestWindow
    from designer.workers import Worker

    monkeypatch.setattr(warmup, "ready", threading.Event())
    monkeypatch.setattr(warmup, "done", threading.Event())
    monkeypatch.setattr(warmup, "_runner", Worker())
    starter = window.playtest()
    assert isinstance(starter, PlaytestStarter)
    starter.close()
    warmup.done.set()
    warmup.ready.set()
    qtbot.wait(200)
    assert not any(isinstance(w, PlaytestWindow) for w in QApplication.topLevelWidgets())


def test_ctrl_t_in_the_first_second_loads_nothing_on_the_gui_thread() -> None:
    """A fresh designer process, Ctrl+T right after the window is shown (before the warm-up began): the GUI
    thread opens the "getting ready" window at once and imports no engine module; the play-test opens when the
    worker has loaded it.  The stall figures are printed (``tests/gui/playtest_probe.py``), not asserted: the
    machine is shared and noisy."""
    import json
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(repo), QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, str(repo / "tests" / "gui" / "playtest_probe.py")], capture_output=True,
                          text=True, env=env, cwd=repo, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    print("playtest probe:", result)
    assert result["warmup_started"] is False  # Ctrl+T came before the warm-up
    assert result["opened_at_once"] == ["PlaytestStarter"] and "getting the play-test ready" in result["says"].lower()
    assert result["engine_imports_on_gui_thread"] == []  # the play-test's own imports were 0.5-2 s on this thread
    assert result["playtest_open"] is True


# -- the Improve dialog shows whole boards with coordinates ------------------------------------------------------
def improve_with_proposals(qtbot: QtBot) -> Any:
    """The Improve dialog on the bundled default board, its search (a scoring function whose best layout empties
    J1 and puts X on J2, in rows 1 and 12 with their partners) finished with proposals.  No main window: its
    engine warm-up would compete with the search for the interpreter."""
    from core.board.boardfile import default_board_path, load_board
    from core.board.geometry import parse_cell
    from core.generate.layout import layout_of
    from designer.dialogs.improve import ImproveDialog
    from designer.document.document import Document
    from tests.gui.test_generate_dialogs import engine_for

    path = default_board_path()
    assert path is not None
    document = Document(load_board(path))
    target = list(layout_of(document.board))
    target[parse_cell("J1", 12)] = 0  # J1 (and its partner C12) empty
    target[parse_cell("J2", 12)] = 2  # X on J2, O on its partner C11
    dialog = ImproveDialog(document, engine=engine_for(tuple(target)))
    qtbot.addWidget(dialog)
    dialog.show()  # at the size it opens with, as Tools > Improve this board opens it
    qtbot.waitExposed(dialog)
    dialog.time_box.setValue(10)
    dialog.start()
    qtbot.waitUntil(lambda: not dialog.running, timeout=120_000)
    qtbot.wait(50)
    assert dialog.proposals, dialog.progress.label.text()
    return dialog


def test_improve_pictures_show_the_whole_board_with_coordinates_and_the_changes(qtbot: QtBot) -> None:
    from PySide6.QtCore import QRect

    from designer.canvas.render import Overlay, RenderOptions, render_image

    dialog = improve_with_proposals(qtbot)
    for (picture, text, _button), proposal in zip(dialog.proposal_widgets, dialog.proposals, strict=False):
        pixmap = picture.pixmap()
        shown = pixmap.deviceIndependentSize().toSize()
        assert shown.width() >= 240 and shown == shown.expandedTo(pixmap.size() / pixmap.devicePixelRatio())
        # the label is as big as its picture and lies inside the dialog: nothing of the board is cut off
        assert picture.width() >= shown.width() and picture.height() >= shown.height()
        where = QRect(picture.mapTo(dialog, picture.rect().topLeft()), picture.size())
        assert dialog.rect().contains(where), (where, dialog.size())
        # the whole board with its coordinates (to match "Changed: J1 ..."), the changed cells outlined
        px = pixmap.width()
        expected = render_image(proposal.board, RenderOptions(coordinates=True), px,
                                Overlay(highlight=tuple(proposal.changed)))
        assert pixmap.toImage().convertToFormat(expected.format()) == expected
        assert expected != render_image(proposal.board, RenderOptions(coordinates=True), px)
        assert expected != render_image(proposal.board, RenderOptions(coordinates=False), px,
                                        Overlay(highlight=tuple(proposal.changed)))
        from designer.dialogs.improve import changed_cells

        assert text.text().endswith("Changed (outlined): " + changed_cells(proposal.board, proposal.changed))


def test_changed_cells_are_named_as_the_pictures_label_them() -> None:
    from core.board.geometry import parse_cell
    from designer.dialogs.improve import changed_cells

    board = Board(size=12)
    board.set_raw(parse_cell("J2", 12), Symbol.X)
    assert changed_cells(board, [parse_cell("J1", 12), parse_cell("J2", 12)]) == "J1 empty, J2 X"


def test_a_window_deleted_before_the_warm_up_ends_gets_no_late_signal(qtbot: QtBot,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The warm-up belongs to the application; a window gone before it ends must not be called (a lambda
    connection called the deleted window's status label: RuntimeError in the event loop)."""
    import threading

    from designer import warmup
    from designer.workers import JobError, Worker

    warming: Worker[float, warmup.CompileProgress] = Worker()
    monkeypatch.setattr(warmup, "ready", threading.Event())
    monkeypatch.setattr(warmup, "_runner", warming)
    window = MainWindow()
    window._warm_up()
    shiboken6.delete(window)
    warming.finished.emit(1.0)
    warming.failed.emit(JobError("failed"))
    warming.progress.emit(warmup.CompileProgress(1, 2))


@pytest.mark.parametrize("ends", ["loaded", "failed"])
def test_the_warm_up_ending_clears_the_status_note_and_a_load_tells_the_panel(
        qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, ends: str) -> None:
    import threading

    from designer import warmup
    from designer.workers import JobError, Worker

    warming: Worker[float, warmup.CompileProgress] = Worker()
    monkeypatch.setattr(warmup, "ready", threading.Event())
    monkeypatch.setattr(warmup, "_runner", warming)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    told: list[bool] = []
    monkeypatch.setattr(window.analysis, "engine_ready", lambda: told.append(True))
    window._warm_up()
    warming.progress.emit(warmup.CompileProgress(1, 2))
    assert window.engine_note.isVisible() and "Preparing the game engine (50%)" in window.engine_note.text()
    if ends == "loaded":
        warming.finished.emit(1.0)
    else:
        warming.failed.emit(JobError("numba cache folder is read-only", "OSError"))
    assert not window.engine_note.isVisible()
    assert told == ([True] if ends == "loaded" else [])  # a failed warm-up loads nothing: the Quick note waits
