"""What a host tripped over in the designer: the command line, a generated board's unsaved state, the
validation's words, the Improve dialog's pictures and an early Play-test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
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
