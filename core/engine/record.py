"""Game records: plain text, one action per line, so a host can write or fix one by hand.

Each line is a placement in the notation of ``core.engine.rules`` (four cell names, any
order, spaces or commas) or the word ``swap`` for the pie-rule swap.  Blank lines
and lines starting with ``#`` are ignored.  Parsing checks notation only; whether
the actions obey the rules is what :func:`replay` answers, naming the first
offending action by its ply (1-based, placements and swap counted alike).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from core.board.fileio import ReadError, atomic_write_text, read_limited_text
from core.board.model import Board
from core.engine.rules import SWAP, GameState, IllegalMoveError, IllegalReason, NotationError, Placement

MAX_RECORD_BYTES = 1024 * 1024
RECORD_FORM = "one placement per line, e.g. E6 F6 G6 F7, or swap"
"""What a game record looks like, for messages about a file that is something else."""
_LINE_BREAK_RE = re.compile(r"\r\n|\r|\n")

Action = Placement | str


class RecordError(ValueError):
    """A record that cannot be read; the message names the file and line."""

    def __init__(self, message: str, path: str = "<record>", line: int | None = None,
                 before: Sequence[Action] = (), detail: str = "") -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.before = list(before)
        """The actions read before the bad line, so a replay can show the position there."""
        self.detail = detail or message

    @property
    def ply(self) -> int:
        """1-based position of the unreadable action, counted like :class:`ReplayError`."""
        return len(self.before) + 1


@dataclass(frozen=True)
class ReplayError:
    """The first action of a record that breaks a rule."""

    ply: int
    """1-based position in the record, counting placements and the swap."""
    action: Action
    reason: IllegalReason

    def message(self, size: int) -> str:
        shown = self.action if isinstance(self.action, str) else self.action.notation()
        return f"action {self.ply} ({shown}): {self.reason.message}"


def _action_lines(text: str) -> Iterator[tuple[int, str]]:
    """Each line of a record that holds an action, with its number: blank and comment lines are skipped, and a
    ``#`` after a move starts a comment too (``E6 F6 G6 F7  # the wall``), as hosts annotate games."""
    text = text.removeprefix("\ufeff")  # editors on Windows may add a byte-order mark
    # Line breaks are LF, CRLF or CR only, as editors count lines; str.splitlines would also break at form
    # feeds, U+2028 and other separators, misnumbering lines and turning the tail of a comment into a move.
    for number, raw in enumerate(_LINE_BREAK_RE.split(text), start=1):
        line = raw.partition("#")[0].strip()
        if line:
            yield number, line


def action_line(text: str, ply: int) -> int | None:
    """The line of a record's text that holds action ``ply`` (1-based): records open with comment lines, so a
    host told "action 3" alone would count lines by hand."""
    for seen, (number, _line) in enumerate(_action_lines(text), start=1):
        if seen == ply:
            return number
    return None


def file_action_line(path: str | os.PathLike[str], ply: int) -> int | None:
    """:func:`action_line` of the record file at ``path``; None for one that cannot be read again (a pipe)."""
    name = os.fspath(path)
    if not os.path.isfile(name):
        return None
    try:
        return action_line(read_limited_text(name, MAX_RECORD_BYTES, what="game record"), ply)
    except ReadError:
        return None


def parse_record(text: str, size: int, path: str = "<record>") -> list[Action]:
    """The actions of a record's text; RecordError naming the line for anything unreadable."""
    actions: list[Action] = []
    for number, line in _action_lines(text):
        if line.lower() == SWAP:
            actions.append(SWAP)
            continue
        try:
            actions.append(Placement.parse(line, size))
        except NotationError as exc:
            raise RecordError(f"{path}: line {number}: {exc}", path, number, actions, f"line {number}: {exc}") from None
    return actions


def load_record(path: str | os.PathLike[str], size: int) -> list[Action]:
    """The actions of a record file; a board file given in its place is unreadable (no line), not a bad move."""
    name = os.fspath(path)
    try:
        text = read_limited_text(name, MAX_RECORD_BYTES, what="game record")
    except ReadError as exc:
        raise RecordError(str(exc), name) from None
    try:
        return parse_record(text, size, name)
    except RecordError:
        from core.board.boardfile import looks_like_board_file  # YAML is loaded only for a record that fails

        if looks_like_board_file(text):
            raise RecordError(f"{name}: this is a board file, not a game record ({RECORD_FORM})", name) from None
        raise


def record_to_text(actions: Iterable[Action], size: int, header_comments: Sequence[str] = ()) -> str:
    lines = [f"# {c}" if c else "#" for comment in header_comments for c in comment.splitlines() or [""]]
    for action in actions:
        if isinstance(action, str):
            lines.append(SWAP)
        else:
            if action.size != size:
                raise ValueError(f"{action.notation()} belongs to a {action.size}x{action.size} board, "
                                 f"not {size}x{size}")
            lines.append(action.notation())
    return "\n".join(lines) + "\n"


def save_record(path: str | os.PathLike[str], actions: Iterable[Action], size: int,
                header_comments: Sequence[str] = ()) -> None:
    atomic_write_text(path, record_to_text(actions, size, header_comments))


def replay(board: Board, actions: Iterable[Action]) -> tuple[GameState, ReplayError | None]:
    """Play the actions from the start; stops at the first illegal one and says which and why."""
    state = GameState(board)
    for ply, action in enumerate(actions, start=1):
        try:
            state.push_action(action)
        except IllegalMoveError as exc:
            return state, ReplayError(ply, action, exc.reason)
    return state, None


__all__ = ["MAX_RECORD_BYTES", "RECORD_FORM", "Action", "RecordError", "ReplayError", "action_line", "file_action_line",
           "load_record", "parse_record", "record_to_text", "replay", "save_record"]
