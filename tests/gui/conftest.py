"""GUI test fixtures: offscreen Qt, settings in a temporary folder, and no dialog that can block a run."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

if not os.environ.get("QT_QPA_PLATFORM"):
    os.environ["QT_QPA_PLATFORM"] = "offscreen"

pytest.importorskip("PySide6")

from PySide6.QtCore import QCoreApplication, QDir, QSettings
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

REPO = Path(__file__).resolve().parents[2]


class DialogLog:
    """What the code under test asked the user; ``answer`` is what the fake user clicks for questions."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str]] = []
        self.answer = QMessageBox.StandardButton.Discard

    def kinds(self) -> list[str]:
        return [kind for kind, _, _ in self.calls]


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """QSettings go to an INI file under tmp_path, never the user's real settings; app data (autosaves) too."""
    folder = tmp_path / "settings"
    folder.mkdir()
    monkeypatch.setenv("LITS_BOARD_STUDIO_DATA", str(tmp_path / "app-data"))
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.SystemScope, str(folder))
    QCoreApplication.setOrganizationName("LITS Board Studio Tests")
    QCoreApplication.setApplicationName("lits-designer-tests")
    QDir.addSearchPath("icons", str(REPO / "resources" / "icons"))
    QDir.addSearchPath("resources", str(REPO / "resources"))
    yield folder


@pytest.fixture(autouse=True)
def dialogs(monkeypatch: pytest.MonkeyPatch) -> DialogLog:
    """Replace QMessageBox's static dialogs so nothing waits for a click; tests read what was shown."""
    log = DialogLog()

    def recorder(kind: str):  # type: ignore[no-untyped-def]
        def show(_parent: object, title: str = "", text: str = "", *args: object, **kwargs: object) -> object:
            log.calls.append((kind, str(title), str(text)))
            return log.answer if kind == "question" else QMessageBox.StandardButton.Ok
        return show

    for kind in ("question", "warning", "information", "critical", "about"):
        monkeypatch.setattr(QMessageBox, kind, staticmethod(recorder(kind)))

    def cancelled_file(*_args: object, **_kwargs: object) -> tuple[str, str]:
        log.calls.append(("file", "", ""))
        return "", ""

    for name in ("getOpenFileName", "getSaveFileName"):
        monkeypatch.setattr(QFileDialog, name, staticmethod(cancelled_file))
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(lambda *a, **k: ([], "")))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: ""))
    monkeypatch.setattr(QInputDialog, "getInt", staticmethod(lambda *a, **k: (0, False)))
    return log


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A match folder after its start (Al against Bo on the scripted match's board), for the Host window's tests."""
    from core.board.boardfile import load_board
    from core.match.host import Match
    from tests.match.script import START, write_board

    Match.create(tmp_path / "m", load_board(write_board(tmp_path)), "Al", "Bo", START)
    return tmp_path / "m"
