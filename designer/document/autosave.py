"""Autosave: unsaved work is copied to the app-data folder a few seconds after each edit, and offered back
after a crash.

Each window's session writes ``autosave/<id>.yaml`` (the board, as a normal board file) and ``<id>.json``
(which file it came from, when, and the cells locked for "Improve this board"), both atomically (temporary
file and rename), on a worker thread so a slow disk never stalls the window.  A QLockFile ``<id>.lock`` is held
while the session lives: at the next start, an autosave whose lock can be taken belongs to a process that is
gone (crashed or killed), and the window offers to recover it.  A save, a clean quit or "Discard" removes the files.
Recovered work becomes the new session's autosave by a rename, so it is never only in memory; an autosave whose
file was saved after it is reopened untitled, so Save cannot put the older work over the newer file; a damaged one
is kept as ``<id>.damaged.txt`` for the host to read.

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
from designer.workers import Cancelled, Control, JobError, Worker

DATA_ENV = "LITS_BOARD_STUDIO_DATA"
AUTOSAVE_DELAY_MS = 2000
"""Quiet time after an edit before the autosave is written (a drag or typing is one write, not many)."""
AUTOSAVE_MAX_WAIT_S = 10.0
"""Under continuous editing, write at least this often."""
MAX_LOCK_NAMES = 26 * 26
"""No board has more cells than this: a longer lock list in a damaged file is cut there."""
NEWER_FILE_SLACK_S = 2.0
"""A source file modified more than this after its autosave was saved again since (FAT keeps times to 2 s)."""


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))


def _usable_time(value: object, fallback: float) -> float:
    """``value`` as a time the clock can show, else ``fallback`` (a damaged note must not stop the start)."""
    try:
        stamp = float(value)  # type: ignore[arg-type]
        time.localtime(stamp)
    except (TypeError, ValueError, OverflowError, OSError):
        return fallback
    return stamp


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

    def set_aside(self) -> Path:
        """Keep a damaged autosave where it is offered no more (``<id>.damaged.txt``); returns where it is."""
        kept = self.board_path.with_suffix(".damaged.txt")
        try:
            os.replace(self.board_path, kept)
        except OSError:
            return self.board_path
        for path in (self.meta_path, self.lock_path):
            with contextlib.suppress(OSError):
                path.unlink()
        return kept

    def describe(self) -> str:
        name = os.path.basename(self.source) if self.source else "an untitled board"
        return f"{name}, autosaved {_when(self.saved_at)}"

    def source_saved_since(self) -> float | None:
        """When the source file was written after this autosave (its modification time), else None.

        Then the file holds newer work than the autosave: reopening the autosave under the file's name would
        let Save put the older work over it."""
        if not self.source:
            return None
        try:
            modified = os.stat(self.source).st_mtime
        except OSError:
            return None
        return modified if modified > self.saved_at + NEWER_FILE_SLACK_S else None

    def reopen_as(self) -> str | None:
        """The file the recovered work takes as its own: its source, unless that is gone or saved since
        (then None, an untitled board, so Save asks for a name)."""
        if not self.source or not os.path.isfile(self.source) or self.source_saved_since() is not None:
            return None
        return self.source


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
            saved_at = _usable_time(meta.get("saved_at", saved_at), saved_at)
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
        self.runner: Worker[None, None] = Worker(self)
        self.runner.on_done(self._on_written)
        self.runner.on_failed(self._on_error)
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

        def write(control: Control[None]) -> None:
            with self._io:
                if removed.is_set():  # removed since: writing now would bring back what was deleted
                    raise Cancelled
                control.check()
                atomic_write_text(self.meta_path, meta)
                atomic_write_text(self.board_path, text)

        self.runner.request(write)

    def _on_written(self, _result: None) -> None:
        self.writes += 1

    def _on_error(self, error: JobError) -> None:
        self.last_error = str(error)  # autosave is a safety net; a full disk must not interrupt the host

    def adopt(self, recovery: Recovery) -> None:
        """Take over a recovered autosave as this session's own (renamed, not copied), so the recovered work is
        on disk from the first moment: deleting it and waiting for the next write would lose it to a second crash
        within the autosave delay.  The next write brings its note up to date."""
        if not self.document.dirty:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return
        if not self.lock.isLocked():
            self.lock.tryLock(0)
        with self._io:
            with contextlib.suppress(OSError):
                os.replace(recovery.meta_path, self.meta_path)
            try:
                os.replace(recovery.board_path, self.board_path)
            except OSError:
                return
        self.write_now()

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
    """The question shown at start-up; it warns when the work's file was saved after the autosave."""
    text = f"LITS Board Studio did not close properly last time. Unsaved work was kept: {recovery.describe()}."
    newer = recovery.source_saved_since()
    if recovery.source and newer is not None:
        name = os.path.basename(recovery.source)
        return (f"{text}\n\n{name} was saved after this autosave (at {_when(newer)}), so the file may hold newer "
                f"work than this.\n\nRecover it? Yes opens it as an untitled copy and leaves {name} as it is; "
                "No deletes it; Cancel keeps it for the next start.")
    return f"{text}\n\nRecover it? Yes opens it as an unsaved board; No deletes it; Cancel keeps it for the next start."


def damaged_text(recovery: Recovery, details: list[str], kept: Path) -> str:
    """Why an autosave cannot be recovered, and where its text still is."""
    problems = "\n".join(f"• {d}" for d in details[:10])
    where = f"kept in {kept}, which is not offered again" if kept != recovery.board_path else f"still in {kept}"
    return (f"The autosaved work ({recovery.describe()}) cannot be read as a board:\n{problems}\n\nIts text is "
            f"{where}: open it in a text editor to copy what you need, then delete it.")


def recovered_status(recovery: Recovery, left: int = 0) -> str:
    """The status line after recovering: which file the work now belongs to, when it is not its old one, and
    how many other autosaves wait (a window takes one; without a word the others look lost)."""
    done = f"Recovered {recovery.describe()}; it is not saved yet"
    if not recovery.source or recovery.reopen_as() is not None:
        said = done + "."
    elif recovery.source_saved_since() is not None:
        said = (f"{done}: it is an untitled copy, because {os.path.basename(recovery.source)} was saved after it "
                "(Save asks for a name).")
    else:
        said = f"{done}: {recovery.source} is no longer there, so it is an untitled board (Save asks for a name)."
    if left:
        said += (f" {left} more autosaved {'board is' if left == 1 else 'boards are'} kept: start LITS Board Studio "
                 "again to recover the next.")
    return said

