"""The match journal: one JSON event a line, append-only, each line carrying the hash of the line before.

A command answers only after its line is flushed and fsynced, so a crash or a closed laptop loses nothing that
was answered.  ``journal.check`` holds the number and hash of the last line, written after the journal, so
the reader tells apart the three things that can happen to the file:

* a line that is changed (by hand, or by a damaged disk): the next line's ``prev`` (or ``journal.check`` for
  the last line) no longer matches, and the reader names the changed line;
* a journal cut short, at a line end or inside a line: fewer lines than ``journal.check`` records, named;
* an append that did not finish (a crash, a full disk or any other failed write): an event counts only once it is
  wholly on disk together with its check file, so a line after the one ``journal.check`` records, whole or cut off,
  was never answered as counted: it is left out (:attr:`Journal.unfinished` says which it was) and cut away by the
  next append, and a failed append cuts its own line away at once (:class:`JournalWriteError`).

Each line's object is read into its record by :func:`core.match.events.read_event` and written from it by
:func:`core.match.events.event_fields`; what the events mean is :mod:`core.match.session`'s business.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core.board.fileio import atomic_write_text, fsync_dir
from core.match.events import FORMAT, VERSION, Event, EventError, event_fields, read_event

JOURNAL_NAME = "journal.jsonl"
CHECK_NAME = "journal.check"
LOCK_NAME = ".journal.lock"
GENESIS = "0" * 64
"""The ``prev`` of line 1."""
MAX_JOURNAL_BYTES = 16 * 1024 * 1024
MAX_LINE_BYTES = 64 * 1024


JOURNAL_ADVICE = ("The match folder cannot be trusted as it is, so nothing was judged. Restore the folder from a "
                  "copy, or start the match again in a new folder and enter the game room's posts in order with "
                  "their times.")
"""Said after every journal that cannot be trusted (command line and Host window).  Why: in the middle of a match the
host needs the way on, not only the line that is wrong."""


class JournalWriteError(OSError):
    """An append that could not be written wholly (a full disk, a failing device): the event did not count.

    ``restored`` says whether the journal is byte for byte as before; when it is not, the next command cuts the
    unfinished line away (see :attr:`Journal.unfinished`).  Keeps the cause's errno, so a full disk is still told
    apart from other failures.
    """

    def __init__(self, path: Path, cause: OSError, restored: bool) -> None:
        super().__init__(cause.errno, cause.strerror or str(cause))
        self.filename = str(path)
        self.cause = cause
        self.restored = restored


class JournalError(ValueError):
    """A journal that cannot be trusted as written; the message names the file and the line."""

    def __init__(self, path: Path, line: int | None, message: str) -> None:
        where = f"{path}: line {line}: " if line is not None else f"{path}: "
        super().__init__(where + message)
        self.path = path
        self.line = line


@dataclass(frozen=True)
class Entry:
    """One journal line: its number, the event and the hash of its bytes."""

    seq: int
    event: Event
    digest: str


@dataclass(frozen=True)
class _Line:
    """A line whose place in the chain is verified, its object not yet read into a record."""

    seq: int
    value: dict[str, object]
    digest: str


def line_digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def encode(seq: int, event: Event, prev: str) -> bytes:
    """The bytes of a line (without its line end): ``seq`` first, the event, ``prev`` last."""
    text = json.dumps({"seq": seq, **event_fields(event), "prev": prev}, ensure_ascii=False, separators=(",", ":"))
    data = text.encode("utf-8")
    if len(data) > MAX_LINE_BYTES:
        raise ValueError(f"a journal line is at most {MAX_LINE_BYTES // 1024} KiB")
    return data


class Journal:
    """The journal of one match folder.  :meth:`read` verifies everything; :meth:`append` adds one line."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self.path = self.folder / JOURNAL_NAME
        self.check_path = self.folder / CHECK_NAME
        self._good_bytes = 0
        """Length of the verified complete lines (a torn tail after them is cut by the next append)."""
        self._entries: list[Entry] = []
        self.unfinished: Entry | None = None
        """A whole line after the last one ``journal.check`` records, found by the last :meth:`read`: an append that
        stopped before its check file was written (a crash or a failed write), so it never counted."""
        self._unfinished_seq: int | None = None
        self.cut_tail = False
        """The last :meth:`read` found the journal longer than its counted lines (an unfinished append)."""

    def exists(self) -> bool:
        return self.path.exists()

    @property
    def entries(self) -> list[Entry]:
        """The lines of the last :meth:`read` or :meth:`append`."""
        return list(self._entries)

    def _check(self) -> tuple[int, str] | None:
        """(lines, hash of the last line) from ``journal.check``; None when it does not exist yet."""
        try:
            text = self.check_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise JournalError(self.check_path, None, f"cannot be read ({exc})") from None
        parts = text.split()
        if len(parts) != 2 or not parts[0].isdigit() or len(parts[1]) != 64:
            raise JournalError(self.check_path, None, "is not '<lines> <sha256 of the last line>'; it was edited")
        return int(parts[0]), parts[1]

    def read(self) -> list[Entry]:
        """Every line, verified; JournalError naming the first line that is wrong."""
        try:
            with open(self.path, "rb") as handle:
                data = handle.read(MAX_JOURNAL_BYTES + 1)
        except FileNotFoundError:
            raise JournalError(self.path, None, f"no such file: {self.folder} holds no match (start one with "
                               "`lits match start`)") from None
        except OSError as exc:
            raise JournalError(self.path, None, f"cannot be read ({exc.strerror or exc})") from None
        if len(data) > MAX_JOURNAL_BYTES:
            raise JournalError(self.path, None, f"larger than {MAX_JOURNAL_BYTES // (1024 * 1024)} MiB; not a journal")
        check = self._check()
        recorded = check[0] if check is not None else 0
        raw_lines = data.split(b"\n")
        tail = raw_lines.pop()  # after the last line end: empty, or a line cut off inside
        entries: list[_Line] = []
        prev = GENESIS
        for number, raw in enumerate(raw_lines, start=1):
            entries.append(self._verify_line(number, raw, prev))
            prev = entries[-1].digest
        complete = len(entries)
        unfinished: _Line | None = None
        if check is not None and complete == recorded + 1 and not tail:
            unfinished = entries.pop()  # written, but its check file was not: that append never finished
            complete -= 1
        if tail:
            if complete == recorded:  # an append that crashed inside its line; never answered, so left out
                pass
            else:
                raise JournalError(self.path, complete + 1, "is cut off (it has no line end): the journal was "
                                   "truncated or is still being written")
        if complete < recorded:
            raise JournalError(self.path, complete + 1, f"is missing: {CHECK_NAME} records {recorded} lines but the "
                               f"journal ends after line {complete}; it was truncated")
        if check is None and complete > 1:
            raise JournalError(self.check_path, None, f"is missing: it is rewritten beside {self.path.name} after "
                               "every event, so the two files must be copied together")
        if complete > recorded + 1:
            raise JournalError(self.path, recorded + 2, f"was added after {CHECK_NAME} was written ({recorded} "
                               "lines): lines were appended by hand or the check file is an old copy")
        if check is not None and recorded > 0 and entries[recorded - 1].digest != check[1]:
            raise JournalError(self.path, recorded, f"is not the line that was written: its hash differs from the "
                               f"one in {CHECK_NAME}; it was edited")
        if not entries:
            raise JournalError(self.path, 1, "is missing: the journal is empty")
        first = entries[0].value
        if first.get("event") != "start" or first.get("format") != FORMAT:
            raise JournalError(self.path, 1, f"is not the start of a {FORMAT}")
        if first.get("version") != VERSION:
            raise JournalError(self.path, 1, f"is version {first.get('version')!r}; this program reads version "
                               f"{VERSION}")
        self._entries = [self._read_line(line) for line in entries]
        self._good_bytes = sum(len(r) + 1 for r in raw_lines[:complete])
        self.unfinished = None
        if unfinished is not None:
            with contextlib.suppress(JournalError):  # never counted: said as well as it can be read
                self.unfinished = self._read_line(unfinished)
        self._unfinished_seq = None if unfinished is None else unfinished.seq
        self.cut_tail = len(data) > self._good_bytes
        return list(self._entries)

    def _read_line(self, line: _Line) -> Entry:
        """The record of a verified line: the one place a journal object is read (JournalError naming the line)."""
        try:
            event = read_event(line.value)
        except EventError as exc:
            what = "the start does not fit" if line.seq == 1 else "does not fit the match"
            raise JournalError(self.path, line.seq, f"{what}: {exc}") from None
        return Entry(line.seq, event, line.digest)

    def unfinished_note(self, repaired: bool) -> str | None:
        """What the host is told about an append that never finished (None when there was none)."""
        if not self.cut_tail:
            return None
        if self.unfinished is not None:
            from core.match.words import unfinished_words

            what = f"line {self.unfinished.seq} ({unfinished_words(self.unfinished.event)})"
        elif self._unfinished_seq is not None:
            what = f"line {self._unfinished_seq}"
        else:
            what = f"a part of line {len(self._entries) + 1}"
        done = "it was cut away" if repaired else "the next command that records an event cuts it away"
        return (f"Note: {what} was written but its command did not finish (a crash or a full disk stopped it "
                f"before {CHECK_NAME} was written), so it was never counted; {done}.")

    def repair(self) -> bool:
        """Cut away an unfinished append found by :meth:`read` (hold :meth:`locked`); True when there was one."""
        if not self.cut_tail:
            return False
        with open(self.path, "r+b") as handle:
            handle.truncate(self._good_bytes)
            handle.flush()
            os.fsync(handle.fileno())
        self.cut_tail = False
        return True

    def _verify_line(self, number: int, raw: bytes, prev: str) -> _Line:
        try:
            value = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise JournalError(self.path, number, "is not one JSON event; it was damaged or edited") from None
        if not isinstance(value, dict):
            raise JournalError(self.path, number, "is not one JSON event (an object); it was edited")
        if value.get("seq") != number:
            raise JournalError(self.path, number, f"says it is line {value.get('seq')!r}: lines were removed, "
                               "repeated or moved")
        if value.get("prev") != prev:
            what = "line 1 must start the chain" if number == 1 else f"line {number - 1} was changed after it " \
                                                                     "was written"
            raise JournalError(self.path, number - 1 if number > 1 else 1,
                               f"does not match the hash that line {number} carries of it: {what}")
        if not isinstance(value.get("event"), str):
            raise JournalError(self.path, number, "has no event name")
        event = {k: v for k, v in value.items() if k not in ("seq", "prev")}
        return _Line(number, event, line_digest(raw))

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the folder's lock (so a window and a command never append at once) where the system offers one."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: one host, one program at a time
            yield
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / LOCK_NAME, "a+b") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def append(self, event: Event) -> Entry:
        """Write one event after the lines of the last :meth:`read` (or as line 1), fsynced, then the check file.

        Call it holding :meth:`locked`, right after :meth:`read`, so nobody appended in between.
        """
        seq = len(self._entries) + 1
        prev = self._entries[-1].digest if self._entries else GENESIS
        raw = encode(seq, event, prev)
        new = not self.path.exists()
        entry = Entry(seq, event, line_digest(raw))
        try:
            with open(self.path, "ab") as handle:
                if handle.tell() != self._good_bytes:
                    handle.truncate(self._good_bytes)  # an append that never finished, never counted
                handle.write(raw + b"\n")
                handle.flush()
                os.fsync(handle.fileno())
            if new:
                fsync_dir(self.folder)
            atomic_write_text(self.check_path, f"{seq} {entry.digest}\n")
            fsync_dir(self.folder)
        except OSError as exc:
            raise JournalWriteError(self.path, exc, self._restore(new)) from exc
        self._entries.append(entry)
        self._good_bytes += len(raw) + 1
        self.cut_tail = False
        self.unfinished = None
        self._unfinished_seq = None
        return entry

    def _restore(self, new: bool) -> bool:
        """After a failed append: the journal as it was (removed when the append would have made it)."""
        try:
            if new and self._good_bytes == 0:
                self.path.unlink(missing_ok=True)
                fsync_dir(self.folder)
                return True
            with open(self.path, "r+b") as handle:
                handle.truncate(self._good_bytes)
                handle.flush()
                os.fsync(handle.fileno())
            return True
        except OSError:
            return False


__all__ = ["CHECK_NAME", "FORMAT", "JOURNAL_NAME", "VERSION", "Entry", "Journal", "JournalError", "JournalWriteError",
           "encode",
           "line_digest"]
