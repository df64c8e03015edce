"""Autosave: unsaved work is copied to the app-data folder a few seconds after each edit, and offered back
after a crash.

Each window's session writes ``autosave/<id>.yaml`` (the board, as a normal board file) and ``<id>.json``
(which file it came from, when, and the cells locked for "Improve this board"), both atomically (temporary
file and rename), on a worker thread so a slow disk never stalls the window.  A QLockFile ``<id>.lock`` is held
while the session lives: at the next start, an autosave whose lock can be taken belongs to a process that is
gone (crashed or killed), and the window offers to recover it.  A save, a clean quit or "Discard" removes the files.

The folder is ``QStandardPaths.AppDataLocation``/autosave, or ``$LITS_BOARD_STUDIO_DATA/autosave`` when that
variable is set (the tests use it to keep the user's folder out of their way).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QLockFile, QObject, QStandardPaths, QTimer

from core.board.boardfile import board_to_text, load_board
from core.board.fileio import atomic_write_text
from core.board.geometry import cell_name, parse_cell
from core.board.model import Board
from designer.document.document import Document
from designer.workers import BackgroundRunner, JobControl

DATA_ENV = "LITS_BOARD_STUDIO_DATA"
AUTOSAVE_DELAY_MS = 2000
"""Quiet time after an edit before the autosave is written (a drag or typing is one write, not many)."""
AUTOSAVE_MAX_WAIT_S = 10.0
"""Under continuous editing, write at least this often."""
MAX_LOCK_NAMES = 26 * 26
"""No board has more cells than this: a longer lock list in a damaged file is cut there."""


def data_dir() -> Path:
    """The app-data folder: ``$LITS_BOARD_STUDIO_DATA`` or Qt's per-user AppDataLocation."""
    override = os.environ.get(DATA_ENV)
    if override:
        return Path(override)
    return Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation))


def autosave_dir() -> Path:
    return data_dir() / "autosave"


@dataclass
class Recovery:
    """An autosave left behind by a session that did not end cleanly."""

    board_path: Path
    meta_path: Path
    lock_path: Path
    source: str | None
    """The file the work belonged to (None: an untitled board)."""
    saved_at: float
    locks: list[str] = field(default_factory=list)
    """Names of the cells that were locked (a design aid of the session, not in the board file)."""

    def load(self) -> Board:
        """The autosaved board (BoardFileError when the file is damaged)."""
        return load_board(self.board_path)

    def lock_cells(self, size: int) -> list[int]:
        """The locked cells on a ``size`` board; names that do not fit it are left out (the lock is a hint)."""
        cells = []
        for name in self.locks:
            with contextlib.suppress(ValueError):
                cells.append(parse_cell(name, size))
        return cells

    def discard(self) -> None:
        for path in (self.board_path, self.meta_path, self.lock_path):
            with contextlib.suppress(OSError):
                path.unlink()

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.saved_at))
        name = os.path.basename(self.source) if self.source else "an untitled board"
        return f"{name}, autosaved {when}"


def find_recoveries(folder: Path | None = None) -> list[Recovery]:
    """Autosaves whose session is gone (its lock can be taken), newest first."""
    folder = folder or autosave_dir()
    if not folder.is_dir():
        return []
    found: list[Recovery] = []
    for lock_path in folder.glob("*.lock"):  # a session that crashed before its first autosave
        if not lock_path.with_suffix(".yaml").exists():
            stale = QLockFile(str(lock_path))
            stale.setStaleLockTime(0)
            if stale.tryLock(0):
                stale.unlock()
    for board_path in sorted(folder.glob("*.yaml")):
        lock_path = board_path.with_suffix(".lock")
        lock = QLockFile(str(lock_path))
        lock.setStaleLockTime(0)  # stale only when its process is gone, never by age
        if not lock.tryLock(0):
            continue  # another running window owns it
        lock.unlock()
        meta_path = board_path.with_suffix(".json")
        source: str | None = None
        saved_at = board_path.stat().st_mtime
        locks: list[str] = []
        with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            source = str(meta["source"]) if meta.get("source") else None
            saved_at = float(meta.get("saved_at", saved_at))
            locks = [str(name) for name in meta.get("locks", [])][:MAX_LOCK_NAMES]
        found.append(Recovery(board_path, meta_path, lock_path, source, saved_at, locks))
    found.sort(key=lambda r: r.saved_at, reverse=True)
    return found


class Autosaver(QObject):
    """Keeps a copy of a document's unsaved work in the autosave folder while it is unsaved."""

    def __init__(self, document: Document, folder: Path | None = None, delay_ms: int = AUTOSAVE_DELAY_MS,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.folder = folder or autosave_dir()
        session = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.board_path = self.folder / f"{session}.yaml"
        self.meta_path = self.folder / f"{session}.json"
        self.lock = QLockFile(str(self.folder / f"{session}.lock"))
        self.lock.setStaleLockTime(0)
        self.writes = 0
        self.last_error = ""
        self._first_pending = 0.0
        self._io = threading.Lock()
        """Held while a write or a removal touches the files, so a late write cannot undo a removal."""
        self._removed = threading.Event()
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(delay_ms)
        self.timer.timeout.connect(self.write_now)
        self.runner = BackgroundRunner(self)
        self.runner.finished.connect(self._on_written)
        self.runner.error.connect(self._on_error)
        document.cellsChanged.connect(self._changed)
        document.paramsChanged.connect(self._changed)
        document.fileChanged.connect(self._changed)
        document.locksChanged.connect(self._changed)

    @property
    def exists(self) -> bool:
        return self.board_path.exists()

    def _changed(self, *_args: object) -> None:
        if not self.document.dirty:
            self.remove()
            return
        now = time.monotonic()
        if not self.timer.isActive():
            self._first_pending = now
        if now - self._first_pending >= AUTOSAVE_MAX_WAIT_S:
            self.write_now()
        else:
            self.timer.start()

    def write_now(self) -> None:
        """Write the document's current state on the worker (text made here, so later edits cannot mix in)."""
        self.timer.stop()
        if not self.document.dirty:
            return
        text = board_to_text(self.document.board)
        n = self.document.board.size
        locks = [cell_name(c, n) for c in sorted(self.document.locks)]
        meta = json.dumps({"source": self.document.path, "saved_at": time.time(), "pid": os.getpid(),
                           "locks": locks}) + "\n"
        removed = self._removed
        removed.clear()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.last_error = f"{self.folder}: {exc.strerror or exc}"
            return
        if not self.lock.isLocked():
            self.lock.tryLock(0)  # marks the autosave as this live session's, so no other window offers it

        def write(control: JobControl) -> object:
            with self._io:
                if control.cancelled.is_set() or removed.is_set():
                    return False
                atomic_write_text(self.meta_path, meta)
                atomic_write_text(self.board_path, text)
            return True

        self.runner.request(write)

    def _on_written(self, result: object) -> None:
        if result is True:
            self.writes += 1

    def _on_error(self, message: str) -> None:
        self.last_error = message  # autosave is a safety net; a full disk must not interrupt the host

    def remove(self) -> None:
        """Delete the autosave (after a save, a clean quit, or when the work is back to its saved state)."""
        self.timer.stop()
        self.runner.cancel()
        self._removed.set()
        with self._io:
            for path in (self.board_path, self.meta_path):
                with contextlib.suppress(OSError):
                    path.unlink()
        if self.lock.isLocked():
            self.lock.unlock()

    def wait(self, msecs: int = 5000) -> bool:
        return self.runner.wait(msecs)


def recovered_text(recovery: Recovery) -> str:
    """The question shown at start-up."""
    return (f"LITS Board Studio did not close properly last time. Unsaved work was kept: "
            f"{recovery.describe()}.\n\nRecover it? Yes opens it as an unsaved board; No deletes it.")

