"""The board files opened or saved lately: newest first, at most :data:`MAX_RECENT`, kept in the settings.

:class:`RecentFiles` is the list (and the folder the file dialogs start in); :class:`RecentMenu` shows it as
File > Open Recent and follows every change to it, so a window only reports what it opened, saved or failed to
find.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QMenu, QWidget

MAX_RECENT = 10
RECENT_KEY = "files/recent"
LAST_DIR_KEY = "files/last_dir"


class RecentFiles(QObject):
    """The recent board files in ``settings``; ``changed`` after every change."""

    changed = Signal()

    def __init__(self, settings: QSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings

    def paths(self) -> list[str]:
        """Newest first (an INI file returns a single entry as a string, not a list)."""
        value = self.settings.value(RECENT_KEY, [])
        items: list[object] = [value] if isinstance(value, str) else list(value) if isinstance(value, list) else []
        return [str(v) for v in items if v][:MAX_RECENT]

    def add(self, path: str) -> None:
        """``path`` (absolute) opened or saved: it goes first, and its folder is where file dialogs start."""
        items = [p for p in self.paths() if p != path]
        self.settings.setValue(RECENT_KEY, [path, *items][:MAX_RECENT])
        self.settings.setValue(LAST_DIR_KEY, os.path.dirname(path))
        self.changed.emit()

    def remove(self, path: str) -> None:
        """A file that could not be opened leaves the list."""
        full = os.path.abspath(path)
        self.settings.setValue(RECENT_KEY, [p for p in self.paths() if p != full])
        self.changed.emit()

    def last_dir(self) -> str:
        """The folder of the file added last (the working folder before any)."""
        return str(self.settings.value(LAST_DIR_KEY, os.getcwd()))


class RecentMenu(QMenu):
    """File > Open Recent: one numbered entry per recent file; ``openRequested`` with the chosen path."""

    openRequested = Signal(str)

    def __init__(self, files: RecentFiles, title: str = "Open &Recent", parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self.files = files
        files.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        self.clear()
        paths = self.files.paths()
        for i, path in enumerate(paths, start=1):
            label = f"{Path(path).name}   ({Path(path).parent})".replace("&", "&&")  # '&' would be a mnemonic
            act = self.addAction(f"&{i % 10} {label}")
            act.triggered.connect(lambda _=False, p=path: self.openRequested.emit(p))
        self.setEnabled(bool(paths))
