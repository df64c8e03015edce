"""Match events: what happens at the table, as frozen records, and the journal's one reader and one writer of them.

A journal line is one event: :func:`read_event` turns its JSON object into a record (or an :class:`EventError`
saying which field is wrong), :func:`event_fields` turns a record back into the very same object, key for key and
in the same order, so a journal written before the records existed opens, replays and is rewritten byte for byte.
Nothing else reads an event by key; the words for an event are :mod:`core.match.words`'.

A post (:class:`Move`, :class:`Correct`) is entered as its inputs and journaled with :class:`Judged`, the match's
judgement: counted, or refused by a rule of the engine (:class:`core.engine.rules.Rule`) or of the match
(:class:`MatchRule`).  :class:`End` and :class:`Undo` are likewise entered bare and journaled with what they did.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, TypedDict, TypeGuard

from core.engine.rules import EndReason, Rule

FORMAT = "lits-match-journal"
VERSION = 1


class MatchRule(StrEnum):
    """Why the match refuses a post, beside the engine's rules (``core.engine.rules.Rule``); the values are the
    ``refused.rule`` ids in the journal."""

    WRONG_PLAYER = "wrong-player"
    NOTATION = "notation"
    PAUSED = "paused"
    DECIDED = "decided"
    WINDOW_CLOSED = "window-closed"
    NOTHING_TO_CORRECT = "nothing-to-correct"


class Outcome(StrEnum):
    """Why a match was decided; the values are the ``result.reason`` ids in the journal."""

    SCORE = EndReason.SCORE.value
    TIE_RULE = EndReason.TIE_RULE.value
    TIME = "time"
    RESIGNED = "resigned"


class EventError(ValueError):
    """An event that does not fit the match (an unknown player, a time before the last event, a malformed
    field): bad input from a command (exit 2), or an edited journal line when rebuilding."""


# ---------------------------------------------------------------------------------- the JSON shapes


class BoardFields(TypedDict):
    """The board as the start event holds it, so the journal alone is the match."""

    name: str
    size: int
    rows: list[str]
    first: str
    pie: bool
    supply: dict[str, int]
    turn: int
    bank: int


@dataclass(frozen=True)
class Source:
    """Where the board came from: its file and digest; for a sealed board also the sealed text and what the digest
    was checked with, so the journal itself proves the board played is the one committed."""

    file: str | None = None
    sealed: str | None = None
    sha256: str | None = None
    checked_with: str | None = None

    def fields(self) -> dict[str, str]:
        """The JSON object (only the fields there are, in this order)."""
        return {k: v for k, v in (("file", self.file), ("sealed", self.sealed), ("sha256", self.sha256),
                                  ("checked_with", self.checked_with)) if v is not None}


class Score(TypedDict):
    """The visible symbols of each kind."""

    O: int  # noqa: E741 - the symbol's own letter, as the journal names it
    X: int


class ResultFields(TypedDict):
    """The JSON object of a :class:`Result` (the end event's and the status's)."""

    winner: str
    winner_symbol: str
    loser: str
    reason: str
    score: Score
    text: str


@dataclass(frozen=True)
class Result:
    """A decided match: who won with which symbol, who lost, why, the visible symbols and the sentence."""

    winner: str
    winner_symbol: str
    loser: str
    reason: Outcome
    o: int
    x: int
    text: str

    def fields(self) -> ResultFields:
        return {"winner": self.winner, "winner_symbol": self.winner_symbol, "loser": self.loser,
                "reason": self.reason.value, "score": {"O": self.o, "X": self.x}, "text": self.text}


# ---------------------------------------------------------------------------------- the records


@dataclass(frozen=True)
class Start:
    """Line 1: the players, the correction window (seconds), the board and where it came from."""

    kind: ClassVar[str] = "start"
    at: str
    o: str
    x: str
    correction_window: int
    board: BoardFields
    source: Source
    format: str = FORMAT
    version: int = VERSION


@dataclass(frozen=True)
class Refusal:
    """Why a post did not count: the rule, the sentence that explains it and the cells it names."""

    rule: Rule | MatchRule
    message: str
    cells: tuple[str, ...] = ()


@dataclass(frozen=True)
class Judged:
    """The match's judgement of a post: counted (as move ``ply``) or refused, and what the post was read as.

    ``replaces`` is a correction's: the move it replaces (None when there was none)."""

    player: str | None
    ply: int | None
    action: str | None
    piece: str | None
    covers: tuple[str, ...]
    refused: Refusal | None
    replaces: str | None = None

    @property
    def counted(self) -> bool:
        return self.refused is None


@dataclass(frozen=True)
class Posted:
    """A player's post: ``text`` as the rules read it, ``posted`` the chat line it was read from (when they
    differ), ``by`` who posted it (None: the player to move), and once judged, :attr:`judged`."""

    at: str
    text: str
    by: str | None
    posted: str | None = None
    judged: Judged | None = None

    @property
    def counted(self) -> bool:
        return self.judged is not None and self.judged.counted

    @property
    def refusal(self) -> Refusal | None:
        return None if self.judged is None else self.judged.refused


@dataclass(frozen=True)
class Move(Posted):
    """A posted placement or the swap."""

    kind: ClassVar[str] = "move"


@dataclass(frozen=True)
class Correct(Posted):
    """A post that replaces the last move while its correction window is open."""

    kind: ClassVar[str] = "correct"


@dataclass(frozen=True)
class Pause:
    kind: ClassVar[str] = "pause"
    at: str


@dataclass(frozen=True)
class Resume:
    kind: ClassVar[str] = "resume"
    at: str


@dataclass(frozen=True)
class Resign:
    kind: ClassVar[str] = "resign"
    at: str
    by: str


@dataclass(frozen=True)
class Timeout:
    """The running player's turn time and bank ran out at ``at``."""

    kind: ClassVar[str] = "timeout"
    at: str
    player: str


@dataclass(frozen=True)
class End:
    """The host closes a decided match; journaled with the result."""

    kind: ClassVar[str] = "end"
    at: str
    result: Result | None = None


@dataclass(frozen=True)
class Undo:
    """Takes back the last ``count`` commands' events; journaled with the lines it took back, last first."""

    kind: ClassVar[str] = "undo"
    at: str
    count: int
    lines: tuple[int, ...] = ()


Event = Start | Move | Correct | Pause | Resume | Resign | Timeout | End | Undo
"""One match event, whatever its kind."""


# ---------------------------------------------------------------------------------- the writer


def event_fields(event: Event) -> dict[str, object]:
    """The JSON object a journal line holds for ``event`` (without ``seq`` and ``prev``), keys in the journal's
    order."""
    head: dict[str, object] = {"event": event.kind}
    if isinstance(event, Start):
        return {**head, "format": event.format, "version": event.version, "at": event.at, "o": event.o,
                "x": event.x, "correction_window": event.correction_window, "board": event.board,
                "source": event.source.fields()}
    if isinstance(event, Move | Correct):
        chat = {} if event.posted is None else {"posted": event.posted}
        fields = {**head, "at": event.at, "text": event.text, **chat, "by": event.by}
        j = event.judged
        if j is None:
            return fields
        extra: dict[str, object] = {"ply": j.ply}
        if isinstance(event, Correct):
            extra["replaces"] = j.replaces
        refused = None if j.refused is None else {"rule": j.refused.rule.value, "message": j.refused.message,
                                                    "cells": list(j.refused.cells)}
        return {**fields, "player": j.player, "counted": j.counted, **extra, "action": j.action, "piece": j.piece,
                "covers": list(j.covers), "refused": refused}
    if isinstance(event, Resign):
        return {**head, "at": event.at, "by": event.by}
    if isinstance(event, Timeout):
        return {**head, "at": event.at, "player": event.player}
    if isinstance(event, End):
        return {**head, "at": event.at, "result": None if event.result is None else event.result.fields()}
    if isinstance(event, Undo):
        return {**head, "at": event.at, "count": event.count, "lines": list(event.lines)}
    return {**head, "at": event.at}


# ---------------------------------------------------------------------------------- the reader


class _Fields:
    """A journal object's fields, taken one by one with their types checked; :meth:`done` refuses leftovers."""

    def __init__(self, kind: str, value: Mapping[str, object]) -> None:
        self.kind = kind
        self.value = value
        self.taken = {"event"}

    def get(self, key: str) -> object:
        if key not in self.value:
            raise EventError(f"a {self.kind} event needs its {key!r}")
        self.taken.add(key)
        return self.value[key]

    def has(self, key: str) -> bool:
        return key in self.value

    def text(self, key: str) -> str:
        value = self.get(key)
        if not isinstance(value, str):
            raise EventError(f"a {self.kind} event's {key!r} is {value!r}, not text")
        return value

    def optional_text(self, key: str) -> str | None:
        value = self.get(key)
        if value is not None and not isinstance(value, str):
            raise EventError(f"a {self.kind} event's {key!r} is {value!r}, not text or null")
        return value

    def whole(self, key: str) -> int:
        value = self.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise EventError(f"a {self.kind} event's {key!r} is {value!r}, not a whole number")
        return value

    def optional_whole(self, key: str) -> int | None:
        return None if self.get(key) is None else self.whole(key)

    def flag(self, key: str) -> bool:
        value = self.get(key)
        if not isinstance(value, bool):
            raise EventError(f"a {self.kind} event's {key!r} is {value!r}, not true or false")
        return value

    def mapping(self, key: str) -> dict[str, object]:
        value = self.get(key)
        if not isinstance(value, dict):
            raise EventError(f"a {self.kind} event's {key!r} is {value!r}, not an object")
        return value

    def texts(self, key: str, value: object | None = None) -> tuple[str, ...]:
        value = self.get(key) if value is None else value
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise EventError(f"a {self.kind} event's {key!r} is {value!r}, not a list of text")
        return tuple(value)

    def done(self) -> None:
        extra = set(self.value) - self.taken
        if extra:
            raise EventError(f"unexpected field(s) {', '.join(sorted(extra))} in a {self.kind} event")


def _is_board(value: dict[str, object]) -> TypeGuard[BoardFields]:
    keys = ("name", "size", "rows", "first", "pie", "supply", "turn", "bank")
    supply, rows = value.get("supply"), value.get("rows")
    return (set(value) == set(keys) and isinstance(value["name"], str) and isinstance(value["first"], str)
            and all(isinstance(value[k], int) for k in ("size", "turn", "bank")) and isinstance(value["pie"], bool)
            and isinstance(rows, list) and all(isinstance(r, str) for r in rows)
            and isinstance(supply, dict) and all(isinstance(n, int) for n in supply.values()))


def _source(value: dict[str, object]) -> Source:
    """The start's source; only the fields it may hold, as text, in the order the writer puts them."""
    source = Source(**{k: v for k, v in value.items() if isinstance(v, str) and k in Source.__annotations__})
    if source.fields() != value or list(source.fields()) != list(value):
        raise EventError(f"the board's source cannot be read ({value!r})")
    return source


def _result(value: dict[str, object]) -> Result:
    """The end's result, which must be written back as it stands."""
    score = value.get("score")
    texts = [value.get(k) for k in ("winner", "winner_symbol", "loser", "reason", "text")]
    try:
        if not isinstance(score, dict) or not all(isinstance(t, str) for t in texts):
            raise ValueError
        result = Result(str(texts[0]), str(texts[1]), str(texts[2]), Outcome(str(texts[3])), score["O"], score["X"],
                        str(texts[4]))
    except (KeyError, ValueError):
        raise EventError(f"the end's result cannot be read ({value!r})") from None
    if result.fields() != value or list(value) != list(result.fields()) or list(score) != ["O", "X"] \
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in score.values()):
        raise EventError(f"the end's result cannot be read ({value!r})")
    return result


def _rule(value: object) -> Rule | MatchRule:
    for enum in (Rule, MatchRule):
        try:
            return enum(str(value))
        except ValueError:
            pass
    raise EventError(f"{value!r} is not a rule")


def _judged(f: _Fields, correcting: bool) -> Judged:
    player = f.optional_text("player")
    counted = f.flag("counted")
    ply = f.optional_whole("ply")
    replaces = f.optional_text("replaces") if correcting else None
    action, piece = f.optional_text("action"), f.optional_text("piece")
    covers = f.texts("covers")
    raw = f.get("refused")
    refusal = None
    if raw is not None:
        if not isinstance(raw, dict) or set(raw) != {"rule", "message", "cells"} \
                or not isinstance(raw["message"], str):
            raise EventError(f"a {f.kind} event's 'refused' is {raw!r}, not a rule, a message and cells")
        refusal = Refusal(_rule(raw["rule"]), raw["message"], f.texts("refused", raw["cells"]))
    if counted != (refusal is None):
        raise EventError(f"a {f.kind} event that is {'' if counted else 'not '}counted "
                         f"{'names a refusal' if counted else 'names no refusal'}")
    return Judged(player, ply, action, piece, covers, refusal, replaces)


def _posted(f: _Fields) -> tuple[str, str, str | None, str | None]:
    at, text = f.text("at"), f.text("text")
    posted = f.text("posted") if f.has("posted") else None
    return at, text, posted, f.optional_text("by")


def read_event(value: Mapping[str, object]) -> Event:
    """The record of one journal object (a line without ``seq`` and ``prev``); EventError naming what is wrong."""
    kind = value.get("event")
    f = _Fields(str(kind), value)
    event: Event
    if kind == "start":
        fmt, version = f.text("format"), f.whole("version")
        at, o, x, window = f.text("at"), f.text("o"), f.text("x"), f.whole("correction_window")
        board, source = f.mapping("board"), f.mapping("source")
        if not _is_board(board):
            raise EventError(f"the board cannot be read ({board!r})")
        event = Start(at, o, x, window, board, _source(source), fmt, version)
    elif kind in ("move", "correct"):
        at, text, posted, by = _posted(f)
        judged = _judged(f, kind == "correct") if f.has("counted") else None
        event = (Correct if kind == "correct" else Move)(at, text, by, posted, judged)
    elif kind in ("pause", "resume"):
        event = (Pause if kind == "pause" else Resume)(f.text("at"))
    elif kind == "resign":
        event = Resign(f.text("at"), f.text("by"))
    elif kind == "timeout":
        event = Timeout(f.text("at"), f.text("player"))
    elif kind == "end":
        at = f.text("at")
        result = f.mapping("result") if f.has("result") and value["result"] is not None else None
        if f.has("result"):
            f.taken.add("result")
        event = End(at, None if result is None else _result(result))
    elif kind == "undo":
        at, count = f.text("at"), f.whole("count")
        lines: tuple[int, ...] = ()
        if f.has("lines"):
            raw = f.get("lines")
            if not isinstance(raw, list) or not all(isinstance(n, int) and not isinstance(n, bool) for n in raw):
                raise EventError(f"an undo event's 'lines' is {raw!r}, not a list of line numbers")
            lines = tuple(raw)
        event = Undo(at, count, lines)
    else:
        raise EventError(f"unknown event {kind!r}")
    f.done()
    return event


__all__ = ["FORMAT", "VERSION", "BoardFields", "Correct", "End", "Event", "EventError", "Judged",
           "MatchRule", "Move", "Outcome", "Pause", "Posted", "Refusal", "Resign", "Result", "ResultFields", "Resume",
           "Score", "Source", "Start", "Timeout", "Undo", "event_fields", "read_event"]
