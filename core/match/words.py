"""The words for match events: one table of sentences, filled in from the event records.

The command line's reply, the status, the Host window's journal list and the post say an event through the
functions here, and the match words its own refusals here too, so one event reads alike wherever it is shown and
a sentence is changed in one place.  A refusal's words are stored in the journal but not re-judged, so a sentence
may be worded better without making older journals unreadable.
"""

from __future__ import annotations

from datetime import tzinfo
from typing import Protocol

from core.board.model import Board
from core.match.events import Correct, End, Event, Move, Posted, Refusal, Resign, Start, Timeout, Undo
from core.match.times import clock_text, parse_iso

WORDS: dict[str, str] = {
    # the command line's reply to an event it recorded (and the lines an undo would take back)
    "reply.counted": "Counted: {move}",
    "reply.corrected": "Corrected: {move} (was {replaces})",
    "reply.refused": "Not counted ({rule}): {message}{cells}",
    "reply.start": "Match started: {o} plays O, {x} plays X.",
    "reply.timeout": "Time: {player}'s turn time and bank ran out at {clock}.",
    "reply.resign": "{by} resigns.",
    "reply.pause": "Paused at {clock}: both clocks stop.",
    "reply.resume": "Resumed at {clock}.",
    "reply.end": "Match closed at {clock}.",
    "reply.undo": "Undo at {clock}: took back line(s) {taken}.",
    # a counted move, as the reply and a judgement say it
    "move.placement": "move {ply}: {player} places {article} {piece} at {action}, covering {covers}",
    "move.swap": "move {ply}: {player} swaps (pie rule): {player} now plays {first} with the first placement; "
                 "{other} plays {second} and places next",
    "judgement.swap": "move {ply}: {player} swaps (pie rule): {player} takes over {symbol} and the first placement",
    # the Host window's journal list, after the event's time
    "log.counted": "{player}: {action} ({piece}) counted",
    "log.corrected": "{player}: {action} ({piece}) counted, replaces {replaces}",
    "log.refused": "{who}: {what} {text!r} not counted ({rule})",
    "log.start": "start: {o} plays O, {x} plays X",
    "log.timeout": "{player}'s bank ran out",
    "log.resign": "{by} resigns",
    "log.pause": "pause",
    "log.resume": "resume",
    "log.end": "end: {outcome}",
    "log.undo": "undo: took back line(s) {taken}",
    # the status's line for a post that did not count
    "status.refused": "Last post not counted: {who} {text!r} ({rule})",
    # the post's headline for the last move that counts
    "post.start": "Match start: {first} vs {second} on {board} ({size}x{size}); {first} places first",
    "post.placement": "Move {ply} | {player} | {action} | {piece} piece | covers {covers}",
    "post.swap": "Move {ply} | {player} swaps (pie rule): {player} now plays {symbol} with the first placement; "
                 "{other} places next",
    # why a post does not count (the engine's rules are worded by the engine; these are the match's own)
    "refusal.decided": "the match is decided: {result}",
    "refusal.game-over": "the game is over: no legal placement is left. {result}",
    "refusal.paused": "the match is paused (since {since}); moves count again after it is resumed",
    "refusal.wrong-player": "it is {mover}'s turn, not {poster}'s",
    "refusal.notation": "{text!r} is not a placement: {why}",
    "refusal.nothing-to-correct": "there is no move to correct yet",
    "refusal.replied": "too late to correct move {ply}: {other} has replied with move {reply}, and a move may be "
                       "corrected only until the reply",
    "refusal.not-the-mover": "only {mover}, who made move {ply}, may correct it",
    "refusal.window-closed": "the correction window closed at {closed}: move {ply} was posted at {posted} and may be "
                             "corrected for {window} s",
    "refusal.before": "{message} (in the position before move {ply})",
    # a post entered again exactly as the last one (a command run again after a crash)
    "repeat.counted": "already counted as move {ply} {when}; nothing more was written",
    "repeat.refused": "already recorded as not counted ({rule}) {when}; nothing more was written",
    # a rebuild that judges a line otherwise than it was written
    "summary.counted": "{kind} {action} by {player} counted",
    "summary.refused": "{kind} {text!r} refused ({rule})",
    "summary.end": "end: {winner} wins ({reason})",
}
"""Every sentence said about a match event, by audience and case."""


class Table(Protocol):
    """What the words need of the match: the players' names, the board and the zone its clock reads in."""

    @property
    def names(self) -> tuple[str, str]: ...

    @property
    def board(self) -> Board: ...

    @property
    def zone(self) -> tzinfo: ...


def say(key: str, **fields: object) -> str:
    return WORDS[key].format(**fields)


def article(ptype: str) -> str:
    """``an L``, ``an I``, ``an S`` but ``a T``: the one place the article of a piece letter is decided."""
    return "an" if ptype in ("L", "I", "S") else "a"


def covers_text(covers: tuple[str, ...] | list[str]) -> str:
    return ", ".join(covers) or "no symbol"


def clock_of(event: Event, table: Table) -> str:
    """The event's time on the match's clock (``14:03:27``)."""
    return clock_text(parse_iso(event.at)[0], table.zone)


def refused_text(refusal: Refusal, cells: bool = True) -> str:
    """``Not counted (occupied): ... [cells: E1 F1]``: a refusal as the host is told it."""
    named = f" [cells: {' '.join(refusal.cells)}]" if cells and refusal.cells else ""
    return say("reply.refused", rule=refusal.rule, message=refusal.message, cells=named)


def counted_move(event: Posted, table: Table) -> str:
    """``move 5: Bo places a T at E6 F6 G6 F7, covering O F6``: a counted post as the reply says it."""
    j = event.judged
    assert j is not None and j.player is not None
    if j.action == "swap":
        first = table.board.params.first
        other = next(n for n in table.names if n != j.player)
        return say("move.swap", ply=j.ply, player=j.player, first=first.value, other=other, second=first.other.value)
    piece = j.piece or ""
    return say("move.placement", ply=j.ply, player=j.player, article=article(piece), piece=piece, action=j.action,
               covers=covers_text(j.covers))


def _taken(event: Undo) -> str:
    return ", ".join(str(n) for n in sorted(event.lines))


def _fields(event: Event) -> dict[str, object]:
    """The fields the sentences of an event that is not a post name."""
    if isinstance(event, Start):
        return {"o": event.o, "x": event.x}
    if isinstance(event, Timeout):
        return {"player": event.player}
    if isinstance(event, Resign):
        return {"by": event.by}
    if isinstance(event, End):
        return {"outcome": "" if event.result is None else event.result.text}
    if isinstance(event, Undo):
        return {"taken": _taken(event)}
    return {}


def reply(event: Event, table: Table) -> str:
    """The command line's answer to a recorded event."""
    if isinstance(event, Move | Correct):
        refusal = event.refusal
        if refusal is not None:
            return refused_text(refusal)
        j = event.judged
        assert j is not None
        if isinstance(event, Correct):
            return say("reply.corrected", move=counted_move(event, table), replaces=j.replaces)
        return say("reply.counted", move=counted_move(event, table))
    return say(f"reply.{event.kind}", clock=clock_of(event, table), **_fields(event))


def _poster(event: Posted, decided: str) -> str:
    """Who posted a post that did not count (``decided`` when no player is named)."""
    j = event.judged
    return (j.player if j is not None else None) or event.by or decided


def log_line(event: Event) -> str:
    """The Host window's journal list: ``14:00:20  Al: A2 B2 C2 C3 (L) counted``."""
    at = event.at[11:19]
    if isinstance(event, Move | Correct):
        j = event.judged
        refusal = event.refusal
        if j is None or refusal is not None:
            what = "correction" if isinstance(event, Correct) else "post"
            text = say("log.refused", who=_poster(event, "a post after the match was decided"), what=what,
                       text=event.text, rule=None if refusal is None else refusal.rule)
        else:
            key = "log.corrected" if isinstance(event, Correct) else "log.counted"
            text = say(key, player=j.player, action=j.action, piece=j.piece or "pie rule", replaces=j.replaces)
        return f"{at}  {text}"
    return f"{at}  {say(f'log.{event.kind}', **_fields(event))}"


def status_refused(event: Posted) -> str:
    """The status's line for a last post that did not count."""
    refusal = event.refusal
    return say("status.refused", who=_poster(event, "a post"), text=event.text,
               rule=None if refusal is None else refusal.rule)


def summary(event: Event) -> str:
    """A few words for a journal line, to say how a stored line and its re-judgement differ."""
    if isinstance(event, Move | Correct):
        j = event.judged
        if j is not None and j.counted:
            return say("summary.counted", kind=event.kind, action=j.action, player=j.player)
        refusal = event.refusal
        return say("summary.refused", kind=event.kind, text=event.text, rule=None if refusal is None else refusal.rule)
    if isinstance(event, End):
        result = event.result
        return say("summary.end", winner=None if result is None else result.winner,
                   reason=None if result is None else result.reason)
    return event.kind


def unfinished_words(event: Event) -> str:
    """``move E1 F1 D2 E2 at 2026-05-02T14:00:20+00:00``: a line that was written but never counted."""
    text = event.text if isinstance(event, Move | Correct) else ""
    return " ".join(f"{event.kind} {text} at {event.at}".split())


__all__ = ["WORDS", "Table", "article", "clock_of", "counted_move", "covers_text", "log_line", "refused_text",
           "reply", "say", "status_refused", "summary", "unfinished_words"]
