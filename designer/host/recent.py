"""The matches hosted lately and the ones still open: File > Recent matches, and a match offered back after the
studio stopped without closing its Host window (a crash, a kill, a laptop whose battery ran out).

Nothing of the match itself is kept here: its folder's journal is the match.  The settings hold only folder
names, newest first.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMenu, QMessageBox, QWidget

from core.match.journal import JOURNAL_NAME

MAX_RECENT = 8
RECENT_KEY = "host/recent_matches"
OPEN_KEY = "host/open_matches"


def _folders(settings: QSettings, key: str) -> list[str]:
    value = settings.value(key, [])
    items: list[object] = [value] if isinstance(value, str) else list(value) if isinstance(value, list) else []
    return [str(v) for v in items if v]


def is_match(folder: str) -> bool:
    return (Path(folder) / JOURNAL_NAME).is_file()


def recent_matches(settings: QSettings) -> list[str]:
    """The match folders hosted lately, newest first (folders whose journal has gone are left out)."""
    return [f for f in _folders(settings, RECENT_KEY) if is_match(f)][:MAX_RECENT]


def match_opened(settings: QSettings, folder: str) -> None:
    """A Host window opened on ``folder``: it goes first in the recent list and is open until it is closed."""
    full = str(Path(folder).resolve())
    settings.setValue(RECENT_KEY, [full, *[f for f in _folders(settings, RECENT_KEY) if f != full]][:MAX_RECENT])
    settings.setValue(OPEN_KEY, [full, *[f for f in _folders(settings, OPEN_KEY) if f != full]])
    settings.sync()  # a crash right after must still find it


def match_closed(settings: QSettings, folder: str) -> None:
    full = str(Path(folder).resolve())
    settings.setValue(OPEN_KEY, [f for f in _folders(settings, OPEN_KEY) if f != full])
    settings.sync()


def last_match_parent(settings: QSettings) -> str:
    """Where the folder chooser starts: beside the last match hosted (empty: the system's choice)."""
    recent = recent_matches(settings)
    return str(Path(recent[0]).parent) if recent else ""


def offer_open_matches(parent: QWidget, settings: QSettings, reopen: Callable[[str], object]) -> list[str]:
    """Offer back each match whose Host window was still open when the studio last stopped; the folders reopened."""
    left = [f for f in _folders(settings, OPEN_KEY) if is_match(f)]
    settings.setValue(OPEN_KEY, [])
    reopened = []
    for folder in left:
        answer = QMessageBox.question(
            parent, "Match still open",
            f"The match in {folder} was open in the Host window when the studio stopped. Nothing is lost: its "
            "journal holds every event counted. Open it again?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes)
        if answer == QMessageBox.StandardButton.Yes:
            reopen(folder)
            reopened.append(folder)
    return reopened


class RecentMatchesMenu(QMenu):
    """File > Recent matches: one entry per match folder hosted lately, built when the menu opens."""

    def __init__(self, settings: QSettings, reopen: Callable[[str], object], parent: QWidget | None = None) -> None:
        super().__init__("Recent &matches", parent)
        self.settings = settings
        self._reopen = reopen
        self.aboutToShow.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        self.clear()
        folders = recent_matches(self.settings)
        for i, folder in enumerate(folders, start=1):
            label = f"{Path(folder).name}   ({Path(folder).parent})".replace("&", "&&")
            act = self.addAction(f"&{i % 10} {label}")
            act.triggered.connect(lambda _=False, f=folder: self._reopen(f))
        if not folders:
            self.addAction("(no match hosted yet)").setEnabled(False)


__all__ = ["RecentMatchesMenu", "last_match_parent", "match_closed", "match_opened", "offer_open_matches",
           "recent_matches"]
