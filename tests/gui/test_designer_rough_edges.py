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
