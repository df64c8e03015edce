"""A match folder: the journal, the match rebuilt from it, and the files derived from it.

Every call that writes takes the folder's lock, re-reads and re-judges the whole journal, appends its event
(fsynced, with its check file) and only then rewrites what derives from the journal (``record.txt``), so a command
line and a Host window can share a folder, and a crash or a full disk at any point leaves a journal that resumes.
An event counts once its journal line and check file are on disk; a derived file that cannot be rewritten then is
said (:attr:`Match.notes`) and rewritten by the next command, never read as "not counted".
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from core.board.model import Board
from core.engine.record import record_to_text
from core.match.events import End, Event, EventError, Judged, Posted, Source, Start, Undo
from core.match.journal import CHECK_NAME, JOURNAL_NAME, LOCK_NAME, Journal, JournalError
from core.match.session import DEFAULT_WINDOW, Implausible, MatchSession, Refused, start_event
from core.match.times import iso, parse_iso, parse_when
from core.match.words import summary
from core.seal import PRIVATE_MAP_NAME

if TYPE_CHECKING:
    from core.match.post import Post

BOARD_NAME = "board.yaml"
RECORD_NAME = "record.txt"
POSTS_DIR = "posts"


@dataclass(frozen=True)
class ChatReading:
    """A post's text as the rules read it (and ``posted``, the chat line, when it differs), the reply's quote of what
    was read, and, for a line that holds no move, what was found in it."""

    text: str
    posted: str | None
    quote: str | None
    unread: str | None


def _has_words(line: str) -> bool:
    """Whether a line holds more than cell names (a chat line rather than a mistyped placement)."""
    tokens = [t for t in re.split(r"[\s,;/\-\u2013\u2014]+", line.strip()) if t]
    return any(not re.fullmatch(r"(?:[A-Za-z]\d{1,2})+", t) for t in tokens)


class MatchExistsError(ValueError):
    """The folder already holds a match: a second start would hide the first one's journal."""


class RevealError(ValueError):
    """A sealed board that cannot start a match: ``unreadable`` when a file cannot be read as what it should be
    (the command line's exit 2), else it failed its check against the published digest (exit 1)."""

    def __init__(self, message: str, unreadable: bool, digest: bool = False) -> None:
        super().__init__(message)
        self.unreadable = unreadable
        self.digest = digest
        """The digest given is not one (64 hex digits): the caller names its own field."""


def reveal_sealed(path: str, sums: str | None, digest: str | None) -> tuple[Board, Source]:
    """The board of a sealed file checked against its published digest (``sums`` or ``digest``), and the source
    the start event records: the sealed text, its digest and what it was checked with, so the journal itself
    proves the board played is the one committed before the season."""
    from core.seal import sealcheck
    from core.seal.sealing import SealError, SealInputError, board_from_fields, published_digest, read_sealed

    if not (sums or digest):
        raise RevealError(f"{path}: a sealed board needs its published digest, so the reveal is checked: give "
                          "its SHA256SUMS or the digest", True)
    try:
        read = read_sealed(path)
        expected = published_digest(path, sums, digest)
    except SealInputError as exc:
        raise RevealError(str(exc), True) from None
    except SealError as exc:
        raise RevealError(f"not started:\n{exc}", False) from None
    except OSError as exc:
        raise RevealError(f"{path}: cannot be read ({exc.strerror or exc})", True) from None
    try:
        result = sealcheck.verify_file(read, expected)
    except ValueError as exc:
        raise RevealError(str(exc), True, digest=True) from None
    if not result.ok or result.fields is None:
        raise RevealError(f"not started:\n{sealcheck.describe(result, path)}", False)
    checked = "the digest" if sums is None else os.path.basename(sums)
    source = Source(file=os.path.basename(path), sealed=read.head.decode("ascii"), sha256=result.digest,
                    checked_with=checked)
    return board_from_fields(result.fields), source


def start_problem(folder: str | os.PathLike[str]) -> str | None:
    """Why a new match cannot start in ``folder``, asked before the setup too: a match never hides another's
    journal, never writes posts beside a season's secrets, and never overwrites a file it did not write."""
    path = Path(folder)
    journal = Journal(path)
    if journal.exists():
        return f"{journal.path}: the folder already holds a match; give another --dir"
    if (path / PRIVATE_MAP_NAME).exists():  # posts written there could be shared with the season's secrets
        return (f"{path}: this is a season's secret folder (it holds {PRIVATE_MAP_NAME}); keep each match in a "
                "folder of its own, e.g. dm1-match")
    if (path / CHECK_NAME).exists():
        return (f"{path}: holds {CHECK_NAME} but no {JOURNAL_NAME}: the journal of a match played here is missing; "
                "restore the folder from a copy, or start the match in a new folder, e.g. dm1-match")
    kept = [name for name in (BOARD_NAME, RECORD_NAME, POSTS_DIR) if (path / name).exists()]
    if kept:
        return (f"{path}: already holds {' and '.join(kept)}, which a match started here would overwrite; start "
                "it in an empty folder or a new one, e.g. dm1-match")
    return None


class Match:
    """One match folder; :meth:`open` rebuilds it, :meth:`submit` adds an event."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self.journal = Journal(self.folder)
        self._session: MatchSession | None = None
        self.counted_before_failure: list[Event] = []
        """The events that did count when :meth:`submit` failed to write (a timeout recorded before the event)."""
        self.notes: list[str] = []
        """What the host should know besides the answer: an unfinished append that was cut away, a derived file
        that could not be rewritten."""

    # ------------------------------------------------------------------ creating and opening
    @classmethod
    def create(cls, folder: str | os.PathLike[str], board: Board, o_name: str, x_name: str, at: str | None = None,
               window: int = DEFAULT_WINDOW, source: Source | None = None) -> Match:
        """Start a match in ``folder`` (made if missing); MatchExistsError when it already holds one."""
        match = cls(folder)
        problem = start_problem(folder)
        if problem is not None:
            raise MatchExistsError(problem)
        ms, zone = parse_when(at)
        event = start_event(board, o_name, x_name, iso(ms, zone), window, source)
        session = MatchSession(event)  # checks the names and the window before anything is written
        match.folder.mkdir(parents=True, exist_ok=True)
        with match.journal.locked():
            if match.journal.exists():
                raise MatchExistsError(f"{match.journal.path}: the folder already holds a match")
            match.journal.append(event)
            match._session = session
            try:
                from core.board.boardfile import save_board  # YAML and its schema: only a start needs them

                save_board(session.board, match.folder / BOARD_NAME)
                match.write_record()
            except OSError:  # a start counts whole or not at all: the folder is left as it was
                match._unstart()
                raise
        return match

    def _unstart(self) -> None:
        for name in (RECORD_NAME, BOARD_NAME, CHECK_NAME, JOURNAL_NAME):
            with contextlib.suppress(OSError):
                (self.folder / name).unlink(missing_ok=True)

    @classmethod
    def open(cls, folder: str | os.PathLike[str]) -> Match:
        """Rebuild a match from its journal; JournalError naming the line when it cannot be trusted."""
        match = cls(folder)
        match.reload()
        return match

    def reload(self) -> MatchSession:
        """Read the journal again and rebuild the match, re-judging every line."""
        entries = self.journal.read()
        note = self.journal.unfinished_note(repaired=False)
        if note is not None and note not in self.notes:
            self.notes.append(note)
        path = self.journal.path
        start = entries[0].event
        if not isinstance(start, Start):  # pragma: no cover - the journal's reader checks line 1 is a start
            raise JournalError(path, 1, "is not the start of a match")
        try:
            session = MatchSession(start)
        except EventError as exc:
            raise JournalError(path, 1, f"the start does not fit: {exc}") from None
        for entry in entries[1:]:
            try:
                judged = session.apply(entry.event, entry.seq)
            except (EventError, Refused) as exc:
                raise JournalError(path, entry.seq, f"does not fit the match: {exc}") from None
            if _verdict(judged) != _verdict(entry.event):
                raise JournalError(path, entry.seq, f"says {summary(entry.event)} but the rules judge it "
                                   f"{summary(judged)}: the line was edited")
        self._session = session
        return session

    @property
    def session(self) -> MatchSession:
        if self._session is None:
            return self.reload()
        return self._session

    # ------------------------------------------------------------------ writing
    def submit(self, event: Event, confirmed: bool = False) -> list[Event]:
        """Judge and record ``event`` (``at`` as ISO; a timeout that fell before it is recorded first).

        Returns the journaled events; Refused or EventError when nothing of the event itself was written, and
        Implausible (nothing written) for a time that looks mistyped unless ``confirmed``.
        """
        with self.journal.locked():
            self.notes = []
            self.counted_before_failure = []
            session = self.reload()
            self._repair()
            at, _zone = parse_iso(event.at)
            written: list[Event] = []
            repeat = session.repeat_of(event)
            if repeat is not None:
                raise repeat
            if not confirmed and not isinstance(event, End | Undo):  # an end records only what the clocks decided
                problem = session.implausible(at)
                if problem is not None:
                    raise Implausible(problem)
            timeout = session.pending_timeout(at) if at >= session.now and not isinstance(event, Undo) else None
            try:
                if timeout is not None:
                    written.append(self._append(session, timeout))
                written.append(self._append(session, event))
            except OSError:
                self._session = None  # judged in memory but not on disk: rebuilt from the journal when asked
                self.counted_before_failure = written
                raise
            finally:
                if written:
                    self._derived()
            return written

    def failure_text(self, exc: OSError) -> str:
        """The answer to a :meth:`submit` that could not write: the event did not count, and the folder's state."""
        from core.board.fileio import write_failure
        from core.match.journal import JournalWriteError

        kept = "The journal is as it was before this event."
        if isinstance(exc, JournalWriteError) and not exc.restored:
            kept = "The next command cuts the unfinished line away."
        return f"Not counted: {write_failure(str(exc.filename or self.journal.path), exc, kept)}"

    def _repair(self) -> None:
        """Cut away an append that never finished (told in :attr:`notes`) and temporary files a crash left."""
        note = self.journal.unfinished_note(repaired=True)
        if self.journal.repair() and note is not None:
            self.notes = [n for n in self.notes if "did not finish" not in n] + [note]
        for leftover in self.folder.glob(".*.tmp"):
            if leftover.name != LOCK_NAME:
                with contextlib.suppress(OSError):
                    leftover.unlink()

    def _derived(self) -> None:
        """Rewrite ``record.txt`` after a counted event; a failure is said, not raised: the event counted."""
        try:
            self.write_record()
        except OSError as exc:
            self.notes.append(f"Note: the event counted (it is in {JOURNAL_NAME}), but {self.folder / RECORD_NAME} "
                              f"could not be rewritten ({exc.strerror or exc}); the next command that records an "
                              "event rewrites it.")

    def _append(self, session: MatchSession, event: Event) -> Event:
        seq = len(self.journal.entries) + 1
        judged = session.apply(event, seq)
        self.journal.append(judged)
        return judged

    def chat_reading(self, line: str) -> ChatReading:
        """What a post's chat line is read as for the journal (``text``, and ``posted`` when they differ), with the
        words the reply quotes it by."""
        from core.match.chat import found_text, read_post

        size = self.session.board.size
        reading = read_post(line, size)
        if reading.found is None:
            unread = None if not _has_words(line) else \
                f"(In {line.strip()!r} the move was not found: {found_text(line, size)}; a placement is four cells.)"
            return ChatReading(line, None, None, unread)
        return ChatReading(reading.text, line, f"Read {line.strip()!r} as {reading.found}.", None)

    def when(self, text: str | None) -> str:
        """The ISO time the host means by ``--at`` (None: now), read against the last event's day and zone."""
        session = self.session
        ms, zone = parse_when(text, (session.now, session.zone))
        return iso(ms, zone)

    def record_text(self) -> str:
        s = self.session
        b = s.board
        comments = [f"LITS match record: {s.names[0]} and {s.names[1]} on {b.name or 'an untitled board'} "
                    f"({b.size}x{b.size}, first {b.params.first.value}), started {s.iso(s.started)}",
                    f"{s.names[0]} started with {b.params.first.value}, {s.names[1]} with "
                    f"{b.params.first.other.value}"]
        source = s.start.source
        if source.sealed:
            comments.append(f"sealed board {source.file}, SHA-256 {source.sha256}")
        result = s.result_text()
        comments.append(f"Result: {result}" if result else "The match goes on.")
        return record_to_text([a.move for a in s.actions], b.size, comments)

    def write_record(self) -> Path:
        """``record.txt``: the moves that counted, in the play-test record format ``lits replay`` reads."""
        from core.board.fileio import atomic_write_text

        path = self.folder / RECORD_NAME
        atomic_write_text(path, self.record_text())
        return path


    def write_post(self, at: int | None = None, picture: bool = True) -> tuple[Post, Path, Path | None]:
        """Write the post for the match as it stands into ``posts/`` (named after the moves that counted)."""
        from core.board.fileio import atomic_write_bytes, atomic_write_text
        from core.match.post import make_post, picture_png

        s = self.session
        post = make_post(s, at)
        folder = self.folder / POSTS_DIR
        stem = f"post-{len(s.actions):03d}"  # the post after move N (posted again: written again)
        text_path = folder / f"{stem}.txt"
        png_path = folder / f"{stem}.png" if picture else None
        folder.mkdir(exist_ok=True)
        atomic_write_text(text_path, post.text + "\n")
        if png_path is not None:
            atomic_write_bytes(png_path, picture_png(s, post))
        return post, text_path, png_path


def draw_post(folder: str) -> tuple[str, str]:
    """Rebuild the match in ``folder`` and write its post; (text, picture path).  A window runs this in a helper
    process, so drawing never holds its GUI thread."""
    post, _text_path, png_path = Match.open(folder).write_post()
    assert png_path is not None
    return post.text, str(png_path)


def _verdict(event: Event) -> Event:
    """A judged event without the words of its refusal: what a rebuild compares.  Why: the rule, the cells and
    whether it counted are the judgement; the sentence that explains it may be worded better later, and a
    journal written before must still read."""
    if not isinstance(event, Posted) or event.judged is None or event.judged.refused is None:
        return event
    judged: Judged = replace(event.judged, refused=replace(event.judged.refused, message=""))
    return replace(event, judged=judged)


__all__ = ["BOARD_NAME", "POSTS_DIR", "RECORD_NAME", "Match", "MatchExistsError", "draw_post", "start_problem"]
