"""The match being played: who plays which symbol, the moves that counted, corrections, clocks and the result.

A :class:`MatchSession` is built from the journal's start event and then takes every later event in order
through :meth:`MatchSession.apply`, which judges it and returns the event as the journal must hold it (the
input plus the judgement).  A live command applies its event the same way and appends what came out; a rebuild
compares what came out with each stored line, so an edited judgement is caught even when the hash chain was
rewritten.

Every rule decision is the engine's (``core.engine.rules.GameState``: parsing, ``why_illegal``, the swap, the
result); who holds which symbol is the play-test's :func:`core.play.session.symbol_held`; the clocks are the
play-test's :class:`core.play.clock.MatchClock`, counting whole milliseconds from the times the host gives.
Players are seats: seat 0 starts with the board's first symbol; the pie swap exchanges symbols, not clocks.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import tzinfo

from core.board.geometry import cell_name
from core.board.model import PIECE_TYPES, Board, GameParams, Symbol
from core.engine.purerules import SWAP_WORDS, PureGameState, symbol_held
from core.engine.rules import SWAP, GameOutcome, IllegalReason, NotationError, Placement, Rule
from core.match.events import (
    BoardFields,
    Correct,
    End,
    Event,
    EventError,
    Judged,
    MatchRule,
    Move,
    Outcome,
    Pause,
    Posted,
    Refusal,
    Resign,
    Result,
    Resume,
    Source,
    Start,
    Timeout,
    Undo,
)
from core.match.times import AN_HOUR_MS, TimeError, clock_text, iso, parse_iso, span_text
from core.match.words import article, say
from core.play.clock import MatchClock

SEATS = (0, 1)
DEFAULT_WINDOW = 120
"""Seconds after a post during which its player may correct it (the host's call; set at start)."""
MAX_WINDOW = 3600
"""The longest correction window a host may set (seconds): an hour is already far longer than a turn."""
MAX_NAME = 40


DECIDED_OFF_THE_BOARD = (Outcome.TIME, Outcome.RESIGNED)
"""Outcomes that end the match while placements could still be made."""


class Refused(Exception):
    """A host's command that cannot be done now (pause twice, end a game that goes on); nothing is written."""


class Repeated(Refused):
    """A post that repeats the last one exactly (the same text, poster and time: a command run again after a crash
    that had already written it); nothing is written.  ``counted`` says whether that post counted."""

    def __init__(self, message: str, counted: bool) -> None:
        super().__init__(message)
        self.counted = counted


class Implausible(Refused):
    """A time that jumps further than a slip would (past the running player's whole clock, or over an hour after
    the last event): refused unless the host confirms it, because what it decides is hard to see in a typo."""


@dataclass(frozen=True)
class Action:
    """A move that counts: the placement or the swap, who made it, and the post it counts from."""

    move: Placement | str
    seat: int
    at: int
    """Milliseconds: the time of the first post (a correction keeps it)."""
    seq: int
    """Journal line of the post that made it what it is (the move, or its last correction)."""


@dataclass(frozen=True)
class Verdict:
    """The judgement of a post: counted or refused, in plain words, with the rule and cells when refused."""

    counted: bool
    message: str
    rule: Rule | MatchRule | None = None
    cells: tuple[int, ...] = ()
    move: Placement | str | None = None
    seat: int | None = None


@dataclass(frozen=True)
class MatchResult:
    """A decided match: winner and loser seats, why, the visible symbols, and when."""

    winner: int
    loser: int
    reason: Outcome
    score: dict[Symbol, int]
    at: int
    game: GameOutcome | None




def board_dict(board: Board) -> BoardFields:
    """The board as the start event holds it, so the journal alone is the match."""
    p = board.params
    return {"name": board.name, "size": board.size, "rows": board.rows(), "first": p.first.value, "pie": p.pie,
            "supply": dict(zip(PIECE_TYPES, p.supply, strict=True)), "turn": p.turn_time, "bank": p.bank}


def board_from_dict(data: BoardFields) -> Board:
    try:
        supply = data["supply"]
        params = GameParams(supply=tuple(int(supply[t]) for t in PIECE_TYPES),  # type: ignore[arg-type]
                            first=Symbol(data["first"]), pie=data["pie"], turn_time=data["turn"],
                            bank=data["bank"])
        board = Board.from_rows(list(data["rows"]), params=params, name=data["name"])
    except (KeyError, TypeError, ValueError) as exc:
        raise EventError(f"the board cannot be read ({exc})") from None
    if board.size != data["size"]:
        raise EventError("the board's size does not match its rows")
    return board


def check_name(name: object, what: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise EventError(f"{what} needs a name")
    clean = name.strip()
    if len(clean) > MAX_NAME or any(not ch.isprintable() for ch in clean):
        raise EventError(f"{what}: {name!r} is not a usable name (at most {MAX_NAME} printable characters)")
    return clean




def start_event(board: Board, o_name: str, x_name: str, at: str, window: int = DEFAULT_WINDOW,
                source: Source | None = None) -> Start:
    """The first line of a journal; :class:`MatchSession` checks it."""
    return Start(at, o_name, x_name, window, board_dict(board), source or Source())


class MatchSession:
    """A match rebuilt event by event; see the module docstring."""

    def __init__(self, start: Start) -> None:
        self.start = start
        self.board = board_from_dict(start.board)
        o_name = check_name(start.o, "the player of O")
        x_name = check_name(start.x, "the player of X")
        if o_name.casefold() == x_name.casefold():
            raise EventError(f"both players are called {o_name!r}; give each a name of their own")
        first = self.board.params.first
        self.names = (o_name, x_name) if first is Symbol.O else (x_name, o_name)
        window = start.correction_window
        if not 0 <= window <= MAX_WINDOW:
            raise EventError(f"correction window {window!r}: give whole seconds, 0..{MAX_WINDOW}")
        self.window_ms = window * 1000
        self.started, self.zone = self._time(start.at)
        if start.source.sealed is not None:
            _check_reveal(start.source, self.board)
        self.events: list[tuple[int, Event]] = [(1, self.start)]
        """Every event so far with its journal line, as judged (undone ones and the undo events too)."""
        self.undone: set[int] = set()
        """Journal lines taken back by an undo event."""
        self._seq = 1
        self._reset()

    def _reset(self) -> None:
        """The match as at its start: the board empty, both clocks full, the first player's clock running."""
        self.state = PureGameState(self.board)
        self.actions: list[Action] = []
        self.now = self.started
        p = self.board.params
        self.clock: MatchClock[int] = MatchClock(SEATS, p.turn_time * 1000, p.bank * 1000, now=lambda: self.now)
        self.paused_at: int | None = None
        self.flag: tuple[int, int] | None = None
        self.resigned: tuple[int, int] | None = None
        self.ended: int | None = None
        self.clock.start_turn(self.seat_to_move())

    # ------------------------------------------------------------------ who is who
    def symbol_of(self, seat: int) -> Symbol:
        return symbol_held(self.board.params.first, seat, self.state.swapped)

    def seat_of(self, symbol: Symbol) -> int:
        return next(s for s in SEATS if self.symbol_of(s) is symbol)

    def seat_to_move(self) -> int:
        return self.seat_of(self.state.to_move)

    def label(self, seat: int) -> str:
        """``Bo (X)``: a player and the symbol they hold now."""
        return f"{self.names[seat]} ({self.symbol_of(seat).value})"

    def find_seat(self, name: str) -> int:
        for exact in (True, False):
            for seat in SEATS:
                if (self.names[seat] == name.strip()) if exact else \
                        (self.names[seat].casefold() == name.strip().casefold()):
                    return seat
        raise EventError(f"{name!r} does not play in this match: the players are "
                         f"{self.label(0)} and {self.label(1)}")

    def clock_at(self, ms: int) -> str:
        return clock_text(ms, self.zone)

    def iso(self, ms: int) -> str:
        return iso(ms, self.zone)

    # ------------------------------------------------------------------ state
    @property
    def over(self) -> bool:
        """No more moves count: decided by the rules, on time or by resignation."""
        return self.result() is not None

    def result(self) -> MatchResult | None:
        score = self.state.score()
        if self.resigned is not None:
            seat, at = self.resigned
            return MatchResult(1 - seat, seat, Outcome.RESIGNED, score, at, None)
        if self.flag is not None:
            seat, at = self.flag
            return MatchResult(1 - seat, seat, Outcome.TIME, score, at, None)
        game = self.state.result()
        if game is None:
            return None
        winner = self.seat_of(game.winner)
        at = self.actions[-1].at if self.actions else self.started
        return MatchResult(winner, 1 - winner, Outcome(game.reason), score, at, game)

    def result_text(self) -> str:
        """The result and why, in one or two sentences; empty while the match goes on."""
        r = self.result()
        if r is None:
            return ""
        w, lo = self.label(r.winner), self.label(r.loser)
        mine, theirs = r.score[self.symbol_of(r.winner)], r.score[self.symbol_of(r.loser)]
        if r.reason is Outcome.RESIGNED:
            return f"{w} wins: {lo} resigned at {self.clock_at(r.at)}."
        if r.reason is Outcome.TIME:
            return f"{w} wins on time: {lo} used up the turn time and the bank at {self.clock_at(r.at)}."
        assert r.game is not None
        n = r.game.placements
        left = f"no legal placement is left after {n} placement{'s' if n != 1 else ''}"
        if r.reason is Outcome.SCORE:
            return f"{w} wins {mine} to {theirs} in visible symbols: {left}."
        if r.game.last_mover is None:
            return f"{w} wins by the tie rule, {mine} to {theirs}: {left}, and {lo} could not move."
        return (f"{w} wins by the tie rule: {mine} to {theirs} in visible symbols ({left}), and the tie goes to "
                f"the last placement, made by {r.game.last_mover.value}.")

    def deadline(self) -> int | None:
        """When the running clock's bank runs out (ms), or None while no clock runs."""
        seat = self.clock.current
        if seat is None or self.clock.paused or self.over:
            return None
        reading = self.clock.reading(seat)
        return self.now + round(reading.turn_left) + round(reading.bank_left)

    def clocks(self, at: int | None = None) -> dict[int, tuple[int, int, bool]]:
        """Each seat's (turn left, bank left, running) in ms, projected to ``at`` without changing anything."""
        out = {}
        for seat in SEATS:
            r = self.clock.reading(seat)
            out[seat] = (round(r.turn_left), round(r.bank_left), r.running)
        running = self.clock.current
        if at is not None and at > self.now and running is not None and out[running][2]:
            turn, bank, _ = out[running]
            elapsed = at - self.now
            from_turn = min(elapsed, turn)
            out[running] = (turn - from_turn, max(0, bank - (elapsed - from_turn)), True)
        return out


    def pending_timeout(self, at: int) -> Timeout | None:
        """The timeout event to record before an event at ``at``, when the running bank is empty by then."""
        deadline = self.deadline()
        if deadline is None or at < deadline:
            return None
        seat = self.clock.current
        assert seat is not None
        return Timeout(self.iso(deadline), self.names[seat])

    def repeat_of(self, event: Event) -> Repeated | None:
        """Whether ``event`` (a post) is the last standing event posted again, and how it went."""
        if not isinstance(event, Move | Correct):
            return None
        seq, last = self.standing()[-1]
        if type(last) is not type(event) or not isinstance(last, Posted) or \
                (last.text, last.posted, last.by) != (event.text, event.posted, event.by) or \
                self._time(last.at)[0] != self._time(event.at)[0]:
            return None
        when = f"at {self.clock_at(self._time(event.at)[0])} (journal line {seq})"
        if last.judged is not None and last.judged.counted:
            return Repeated(say("repeat.counted", ply=last.judged.ply, when=when), True)
        refusal = last.refusal
        return Repeated(say("repeat.refused", rule=None if refusal is None else refusal.rule, when=when), False)

    def poster_problem(self, kind: str, by: str | None) -> str | None:
        """Why a post cannot be taken without its poster's name: once a move has counted, a post without one
        would be charged to whoever is to move (a player's second post in a row would become the opponent's
        move), so it names its player.  None when it may go without (the first move) or names one."""
        if by is not None or not self.actions or self.over:
            return None
        options = " or ".join(f"--by {name}" for name in self.names)
        if kind == "correct":
            last = self.actions[-1]
            return (f"who posted the correction? Give its poster ({options}): only {self.names[last.seat]}, who made "
                    f"move {len(self.actions)}, may correct it")
        return (f"who posted it? Once the match has begun every post names its poster ({options}): "
                f"{self.label(self.seat_to_move())} is to move")

    def implausible(self, at: int) -> str | None:
        """Why an event at ``at`` looks like a mistyped time, naming what it would decide; None when it does not:
        it would run past the running player's whole remaining clock, or lies over an hour after the last event."""
        if at < self.now:
            return None  # refused anyway, as before the last event
        deadline = self.deadline()
        gap = at - self.now
        decides = deadline is not None and at >= deadline
        if not decides and gap <= AN_HOUR_MS:
            return None
        said = f"{self.clock_at(at)} is {span_text(gap)} after the last event ({self.clock_at(self.now)})"
        seat = self.clock.current
        if decides and seat is not None and deadline is not None:
            return (f"{said}, past {self.label(seat)}'s whole remaining clock (turn time and bank run out at "
                    f"{self.clock_at(deadline)}): it would decide the match, {self.label(1 - seat)} winning on time")
        if seat is not None and deadline is not None and not self.clock.paused:
            turn, bank, _running = self.clocks(at)[seat]
            return f"{said}: it would leave {self.label(seat)} {span_text(turn + bank)} of turn time and bank"
        return f"{said}: over an hour with no event"

    @property
    def last_action(self) -> Action | None:
        return self.actions[-1] if self.actions else None

    # ------------------------------------------------------------------ judging posts
    def _stopped(self) -> None:
        if self.ended is not None:
            raise Refused(f"the match ended at {self.clock_at(self.ended)}; nothing more is recorded")

    def _parse(self, text: str) -> Placement | str:
        if text.strip().lower() in SWAP_WORDS:
            return SWAP
        return Placement.parse(text, self.board.size)

    def _rule_refusal(self, move: Placement | str) -> IllegalReason | None:
        return self.state.swap_refusal() if isinstance(move, str) else self.state.why_illegal(move)

    def judge_move(self, text: str, by: str | None) -> Verdict:
        """What a post of ``text`` by ``by`` (None: the player to move) would be now; changes nothing."""
        self._stopped()
        poster = self.find_seat(by) if by is not None else None
        result = self.result()
        if result is not None and result.reason in DECIDED_OFF_THE_BOARD:
            return Verdict(False, say("refusal.decided", result=self.result_text()), MatchRule.DECIDED, seat=poster)
        if self.state.is_over():
            return Verdict(False, say("refusal.game-over", result=self.result_text()), Rule.GAME_OVER, seat=poster)
        mover = self.seat_to_move()
        if self.paused_at is not None:
            return Verdict(False, say("refusal.paused", since=self.clock_at(self.paused_at)), MatchRule.PAUSED,
                           seat=poster if poster is not None else mover)
        if poster is not None and poster != mover:
            return Verdict(False, say("refusal.wrong-player", mover=self.label(mover), poster=self.names[poster]),
                           MatchRule.WRONG_PLAYER, seat=poster)
        try:
            move = self._parse(text)
        except NotationError as exc:
            return Verdict(False, say("refusal.notation", text=text.strip(), why=exc), MatchRule.NOTATION, seat=mover)
        reason = self._rule_refusal(move)
        if reason is not None:
            return Verdict(False, reason.message, reason.rule, reason.cells, move, mover)
        return Verdict(True, self.describe(move, mover), move=move, seat=mover)

    def judge_correction(self, text: str, by: str | None, at: int) -> Verdict:
        """Whether ``text`` may replace the last move at ``at``; changes nothing."""
        self._stopped()
        poster = self.find_seat(by) if by is not None else None
        last = self.last_action
        if last is None:
            return Verdict(False, say("refusal.nothing-to-correct"), MatchRule.NOTHING_TO_CORRECT, seat=poster)
        result = self.result()
        if result is not None and result.reason in DECIDED_OFF_THE_BOARD:
            return Verdict(False, say("refusal.decided", result=self.result_text()), MatchRule.DECIDED, seat=poster)
        ply = len(self.actions)
        if poster is not None and poster != last.seat:
            if ply >= 2 and self.actions[-2].seat == poster:
                return Verdict(False, say("refusal.replied", ply=ply - 1, other=self.names[last.seat], reply=ply),
                               MatchRule.WRONG_PLAYER, seat=poster)
            return Verdict(False, say("refusal.not-the-mover", mover=self.names[last.seat], ply=ply),
                           MatchRule.WRONG_PLAYER, seat=poster)
        closes = last.at + self.window_ms
        if at > closes:
            return Verdict(False, say("refusal.window-closed", closed=self.clock_at(closes), ply=ply,
                                      posted=self.clock_at(last.at), window=self.window_ms // 1000),
                           MatchRule.WINDOW_CLOSED, seat=last.seat)
        try:
            move = self._parse(text)
        except NotationError as exc:
            return Verdict(False, say("refusal.notation", text=text.strip(), why=exc), MatchRule.NOTATION,
                           seat=last.seat)
        self.state.pop()
        try:
            reason = self._rule_refusal(move)
        finally:
            self.state.push_action(last.move)
        if reason is not None:
            return Verdict(False, say("refusal.before", message=reason.message, ply=ply), reason.rule,
                           reason.cells, move, last.seat)
        return Verdict(True, self.describe(move, last.seat, ply), move=move, seat=last.seat)

    def covers(self, move: Placement) -> list[str]:
        """The symbols a placement covers, e.g. ``["O F6", "X G6"]``."""
        return [f"{self.board.cells[c].value} {cell_name(c, self.board.size)}" for c in move.cells
                if self.board.cells[c] is not Symbol.EMPTY]


    def describe(self, move: Placement | str, seat: int, ply: int | None = None) -> str:
        """``move 5: Bo (X) places a T at E6 F6 G6 F7, covering O F6`` (the ply defaults to the next one)."""
        number = len(self.actions) + 1 if ply is None else ply
        if isinstance(move, str):
            return say("judgement.swap", ply=number, player=self.names[seat], symbol=self.symbol_of(1 - seat).value)
        covered = self.covers(move)
        return say("move.placement", ply=number, player=self.label(seat), article=article(move.ptype),
                   piece=move.ptype, action=move.notation(), covers=", ".join(covered) or "no symbol")


    # ------------------------------------------------------------------ events
    def _time(self, value: str) -> tuple[int, tzinfo]:
        try:
            return parse_iso(value)
        except (TimeError, ValueError) as exc:
            raise EventError(f"time {value!r} cannot be read ({exc})") from None

    def apply(self, event: Event, seq: int) -> Event:
        """Judge ``event`` (its inputs) as journal line ``seq``, change the match, return the event as journaled.

        Refused (nothing to record) and EventError (input that does not fit) leave the match as it was.
        """
        judged = self._undo(event) if isinstance(event, Undo) else self._judge(event, seq)
        self.events.append((seq, judged))
        return judged

    def _judge(self, event: Event, seq: int) -> Event:
        """Judge one event that is not an undo, as journal line ``seq``, and change the match by it."""
        self._seq = seq
        if isinstance(event, Start | Undo):
            raise EventError(f"unknown event {event.kind!r}")  # as line 1 or an undo only
        at, _zone = self._time(event.at)
        if at < self.now:
            raise EventError(f"{self.clock_at(at)} is before the last event ({self.clock_at(self.now)}): events are "
                             "entered in the order they were posted")
        if not isinstance(event, Timeout):
            pending = self.pending_timeout(at)
            if pending is not None:
                raise EventError(f"{pending.player}'s bank ran out at {self.clock_at(self.deadline() or at)}, "
                                 "before this event, but no timeout is recorded")
        judged: Event
        if isinstance(event, Move | Correct):
            judged = self._move(event, at) if isinstance(event, Move) else self._correct(event, at)
        elif isinstance(event, Pause | Resume):
            judged = self._break(event, at)
        elif isinstance(event, Resign):
            judged = self._resign(event, at)
        else:
            judged = self._timeout(event, at) if isinstance(event, Timeout) else self._end(event, at)
        self.now = at
        return judged

    # ------------------------------------------------------------------ undo
    def standing(self) -> list[tuple[int, Event]]:
        """The events that stand (not taken back by an undo, and not undo events), with their journal lines."""
        return [(seq, e) for seq, e in self.events if seq not in self.undone and not isinstance(e, Undo)]

    def undo_lines(self, count: int = 1) -> list[int]:
        """The journal lines an undo of the last ``count`` commands takes back, last first: each command's event,
        with the timeout recorded just before it (the command that found the bank empty wrote both).
        Refused when fewer than ``count`` commands stand."""
        standing = self.standing()[1:]
        lines: list[int] = []
        for _ in range(count):
            if not standing:
                done = f"only {len(lines)} command{'s' if len(lines) != 1 else ''} can" if lines else "nothing can"
                raise Refused(f"{done} be taken back: the match stands as at its start")
            seq, event = standing.pop()
            lines.append(seq)
            if not isinstance(event, Timeout) and standing and isinstance(standing[-1][1], Timeout) \
                    and standing[-1][0] == seq - 1:
                lines.append(standing.pop()[0])
        return lines

    def _undo(self, event: Undo) -> Undo:
        """Take back the last commands' events: the match is rebuilt from the events that still stand, so its
        clocks, board and result are exactly those after the last of them (the undo's own time charges nothing)."""
        if event.count < 1:
            raise EventError("an undo gives how many commands it takes back (1 or more), and nothing else")
        self._time(event.at)
        lines = self.undo_lines(event.count)
        undone = self.undone | set(lines)
        standing = [(s, e) for s, e in self.standing()[1:] if s not in undone]
        self._reset()
        for line, judged in standing:
            self._judge(judged, line)
        self.undone = undone
        return Undo(event.at, event.count, tuple(lines))

    def event_at(self, seq: int) -> Event:
        """The judged event of journal line ``seq``."""
        return next(e for s, e in self.events if s == seq)

    def _judged(self, verdict: Verdict, ply: int | None, replaces: str | None = None) -> Judged:
        """A post's judgement as the journal holds it."""
        move = verdict.move
        return Judged(
            player=None if verdict.seat is None else self.names[verdict.seat], ply=ply,
            action=None if move is None else (move if isinstance(move, str) else move.notation()),
            piece=move.ptype if isinstance(move, Placement) else None,
            covers=tuple(self.covers(move)) if isinstance(move, Placement) and verdict.counted else (),
            refused=None if verdict.counted or verdict.rule is None else Refusal(
                verdict.rule, verdict.message,
                tuple(cell_name(c, self.board.size) for c in sorted(set(verdict.cells)))),
            replaces=replaces)

    def _move(self, event: Move, at: int) -> Move:
        verdict = self.judge_move(event.text, event.by)
        ply = len(self.actions) + 1
        judged = replace(event, judged=self._judged(verdict, ply if verdict.counted else None))
        if verdict.counted:
            assert verdict.move is not None and verdict.seat is not None
            self.now = at
            self.state.push_action(verdict.move)
            self.actions.append(Action(verdict.move, verdict.seat, at, self._next_seq()))
            self._next_turn()
        return judged

    def _next_seq(self) -> int:
        """The journal line of the event being judged."""
        return self._seq

    def _next_turn(self) -> None:
        """After a counted move the other player's turn starts (the swap too), or no clock runs once it is over."""
        if self.state.is_over():
            self.clock.stop()
        else:
            self.clock.start_turn(self.seat_to_move())

    def _correct(self, event: Correct, at: int) -> Correct:
        verdict = self.judge_correction(event.text, event.by, at)
        last = self.last_action
        replaces = None if last is None else (last.move if isinstance(last.move, str) else last.move.notation())
        judged = replace(event, judged=self._judged(verdict, len(self.actions) if last is not None else None,
                                                    replaces))
        if verdict.counted:
            assert verdict.move is not None and last is not None
            self.now = at
            self.state.pop()
            self.state.push_action(verdict.move)
            self.actions[-1] = Action(verdict.move, last.seat, last.at, self._next_seq())
            if self.state.is_over():
                self.clock.stop()
            elif self.clock.current is None:
                self.clock.start_turn(self.seat_to_move())
        return judged

    def _undecided(self, doing: str) -> None:
        self._stopped()
        if self.over:
            raise Refused(f"cannot {doing}: the match is decided. {self.result_text()}")

    def _break(self, event: Pause | Resume, at: int) -> Pause | Resume:
        """A pause stops both clocks for an agreed break; the resume restarts the one that ran."""
        self._undecided(event.kind)
        if isinstance(event, Pause) and self.paused_at is not None:
            raise Refused(f"the match is already paused (since {self.clock_at(self.paused_at)})")
        if isinstance(event, Resume) and self.paused_at is None:
            raise Refused("the match is not paused")
        self.now = at
        if isinstance(event, Pause):
            self.clock.pause()
            self.paused_at = at
        else:
            self.clock.resume()
            self.paused_at = None
        return event

    def _resign(self, event: Resign, at: int) -> Resign:
        seat = self.find_seat(event.by)
        self._undecided("resign")
        self.now = at
        self.clock.stop()
        self.resigned = (seat, at)
        return Resign(event.at, self.names[seat])

    def _timeout(self, event: Timeout, at: int) -> Timeout:
        deadline = self.deadline()
        seat = self.clock.current
        if deadline is None or seat is None or deadline != at or event.player != self.names[seat]:
            expected = "no bank was running" if deadline is None or seat is None else \
                f"{self.names[seat]}'s bank runs out at {self.iso(deadline)}"
            raise EventError(f"the timeout does not fit the clocks: {expected}")
        self.now = at
        self.clock.tick()
        if self.clock.flagged != seat:  # pragma: no cover - whole milliseconds make the deadline exact
            raise EventError("the clock did not run out at the recorded time")
        self.flag = (seat, at)
        return event

    def _end(self, event: End, at: int) -> End:
        self._stopped()
        result = self.result_record()
        if result is None:
            raise Refused(f"the game goes on ({self.label(self.seat_to_move())} to move): it ends when no legal "
                          "placement is left, a bank runs out or a player resigns (lits match resign MATCH NAME)")
        self.now = at
        self.clock.stop()
        self.ended = at
        return End(event.at, result)

    def result_record(self) -> Result | None:
        """The result as the end event and the status hold it; None while the match goes on."""
        r = self.result()
        if r is None:
            return None
        return Result(self.names[r.winner], self.symbol_of(r.winner).value, self.names[r.loser], r.reason,
                      r.score[Symbol.O], r.score[Symbol.X], self.result_text())


def _check_reveal(source: Source, board: Board) -> None:
    """A sealed board's reveal proves itself: the sealed text has the recorded digest and is the board played."""
    from core.seal.sealing import board_from_fields, verify_bytes

    sealed, digest = source.sealed, source.sha256
    if sealed is None or digest is None:
        raise EventError("the reveal needs the sealed file's text and its digest")
    try:
        result = verify_bytes(sealed.encode("utf-8"), digest)
    except ValueError as exc:
        raise EventError(f"the reveal's digest cannot be read ({exc})") from None
    if not result.ok or result.fields is None:
        raise EventError("the sealed text of the reveal does not have the recorded digest")
    revealed = board_from_fields(result.fields)
    if revealed.rows() != board.rows() or revealed.params != board.params:
        raise EventError("the board is not the one the sealed file holds")


__all__ = ["DEFAULT_WINDOW", "MAX_WINDOW", "Action", "Implausible", "MatchResult", "MatchSession", "Refused",
           "Repeated", "Verdict", "board_dict", "board_from_dict", "start_event"]
