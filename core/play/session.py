"""A play-test game without Qt: turns, the pie swap and who holds which symbol, undo/redo, records, the clock.

Every rule decision comes from ``core.engine.rules.GameState``; this session adds what a table of two people
(or agents) needs around it.  The game is a list of moves plus a cursor, so undo/redo and the replay of a loaded
record are one operation: moving the cursor.  Which player holds which symbol is worked out in one place,
:func:`symbol_held`, because the pie swap exchanges symbols between the players (not their clocks).

Agents never run here: the session says when one is due (:meth:`PlaySession.agent_due`), hands out a request
(:meth:`PlaySession.start_agent`) for which a window runs :func:`agent_decision` off its GUI thread, and takes the
answer back (:meth:`PlaySession.finish_agent`), dropping answers that a later change made stale.  Observers
(plain callables) hear about every change, so a Qt window can redraw without the session knowing Qt.
"""

from __future__ import annotations

import enum
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from core.agents.agent import make_agent
from core.agents.spec import parse_agent, with_threads
from core.board.model import Board, Symbol
from core.engine.purerules import SWAP_WORDS, symbol_held
from core.engine.record import RecordError, file_action_line, load_record, replay, save_record
from core.engine.rules import SWAP, EndReason, GameOutcome, GameState, IllegalReason, NotationError, Placement
from core.play.clock import MatchClock, TimeSource

Move = Placement | str
"""A placement or :data:`core.engine.rules.SWAP`."""

SEATS = (0, 1)
SEAT_NAMES = ("Player 1", "Player 2")
STEP_PACE = -1
"""The pace at which agents move only when asked, one move per :meth:`PlaySession.step`."""
NO_PLACEMENT = "No placement is possible on this board"
"""The result of a board on which not even the first piece can be placed: no game, so nobody wins."""


class Change(enum.Enum):
    """What an observer is told about."""

    POSITION = "position"
    """The moves or the cursor changed (a move, undo/redo, replay, new game, a loaded record)."""
    SEATS = "seats"
    """Who plays a seat changed."""
    CLOCK = "clock"
    """Pause, clocks on/off, new limits, or a flag fell."""
    AGENT = "agent"
    """An agent started or stopped thinking."""
    FINISHED = "finished"
    """The game at the cursor has just become finished (sent once per finish)."""


@dataclass(frozen=True)
class SeatInfo:
    """Who a seat is: its name, the symbol it holds at the cursor and its agent spec (None for a person)."""

    seat: int
    name: str
    symbol: Symbol
    agent: str | None

    @property
    def kind(self) -> str:
        return f"agent {self.agent}" if self.agent else "person"


@dataclass(frozen=True)
class Refusal:
    """Why a request was refused: plain words, and the broken rule with its cells when a game rule refused it."""

    message: str
    reason: IllegalReason | None = None


class PlayEnd(enum.StrEnum):
    """How a play-test game ended: the rules' two ways (:class:`~core.engine.rules.EndReason`) and the table's."""

    SCORE = EndReason.SCORE.value
    TIE_RULE = EndReason.TIE_RULE.value
    TIME = "time"
    """A bank ran out."""
    NO_PLACEMENT = "no-placement"
    """Not even the first piece can be placed: the rules' tie rule would name a winner of a game never played."""


@dataclass(frozen=True)
class PlayResult:
    """A finished game seen from the table: who won with which symbol, how, and which symbols scored."""

    winner: SeatInfo | None
    loser: SeatInfo | None
    """Both None only when no placement is possible on the board (``reason`` ``no-placement``)."""
    reason: PlayEnd
    score: dict[Symbol, int]
    swapped: bool
    game: GameOutcome | None
    """The rules engine's result; None when the game ended on time."""
    scoring_cells: dict[Symbol, tuple[int, ...]]
    """The uncovered cells of each symbol: what counted for each side."""

    def headline(self) -> str:
        """One line for a banner, e.g. ``Player 2 wins with X (agent greedy), 7 to 5``."""
        if self.winner is None or self.loser is None:
            return NO_PLACEMENT
        mine, theirs = self.score[self.winner.symbol], self.score[self.loser.symbol]
        how = {PlayEnd.SCORE: f", {mine} to {theirs}", PlayEnd.TIE_RULE: f", {mine} to {theirs} by the tie rule",
               PlayEnd.TIME: " on time"}[self.reason]
        return f"{self.winner.name} wins with {self.winner.symbol.value} ({self.winner.kind}){how}"

    def explain(self) -> str:
        """Score, winner and (when it decides) the tie rule, in plain words."""
        o, x = self.score[Symbol.O], self.score[Symbol.X]
        w, lo = self.winner, self.loser
        if w is None or lo is None:
            return (f"{NO_PLACEMENT}: not even the first piece fits (check the supply in the board's game "
                    "settings), so no game can be played and nobody wins.")
        if self.game is None:
            return (f"{lo.name} ({lo.symbol.value}) ran out of time: the turn time and the bank are used up. "
                    f"{w.name} ({w.symbol.value}) wins on time.\n"
                    f"Uncovered symbols at that moment: O {o}, X {x}.")
        n = self.game.placements
        lines = [f"No legal placement is left after {n} placement{'s' if n != 1 else ''}.",
                 f"Score (uncovered symbols): O {o}, X {x}."]
        if self.reason is PlayEnd.SCORE:
            lines.append(f"{w.symbol.value} wins with more uncovered symbols: "
                         f"{w.name} ({w.kind}) beats {lo.name} ({lo.kind}).")
        else:
            last = self.game.last_mover
            made = "nobody placed a piece" if last is None else f"the last placement was made by {last.value}"
            lines.append(f"The score is tied, so the tie rule decides: the tie goes to the symbol that made the last "
                         f"placement ({made}). {w.symbol.value} wins: {w.name} ({w.kind}).")
        if self.swapped:
            p1, p2 = (w, lo) if w.seat == 0 else (lo, w)
            lines.append("The players swapped sides by the pie rule, so Player 1 played "
                         f"{p1.symbol.value} and Player 2 played {p2.symbol.value}.")
        return "\n".join(lines)


@dataclass(frozen=True, eq=False)
class AgentRequest:
    """What an agent needs to decide, as copies a worker thread may own: run :func:`agent_decision` on it.

    Compared by identity: every start is a new request, so an answer to an earlier one is always told apart.
    """

    seat: int
    spec: str
    board: Board
    moves: tuple[Move, ...]
    seed: int


def agent_decision(spec: str, board: Board, moves: list[Move], seed: int, threads: int = 0) -> Move:
    """The agent's action after ``moves``: a placement, or the pie swap when its evaluation favours swapping.

    Pure (it builds its own game state from the board and the moves), so a window can run it on a worker thread.
    A ``puct`` search (the levels) runs on ``threads`` cores at once (0: every core), because a host waiting at
    the board wants the strongest move the machine can find in the agent's time; a simulation budget keeps the
    move reproducible for the seed on any machine with the same core count.
    """
    spec = with_threads(spec, threads or os.cpu_count() or 1)
    state = GameState(board)
    for move in moves:
        state.push_action(move)
    agent = make_agent(spec, board, seed)
    kernel = state.kernel_state()
    index = agent.choose(kernel)
    if state.can_swap() and agent.wants_swap(kernel, state.placements[0].index, searched=True):
        return SWAP
    if index < 0:
        raise ValueError("the agent found no legal placement although the game is not over")
    return Placement.from_index(index, board.size)


Observer = Callable[[Change], None]


class PlaySession:
    """One play-test game on a copy of ``board``: hot-seat, against an agent, or agent against agent."""

    def __init__(self, board: Board, *, time_source: TimeSource = time.monotonic,
                 agent_seed: int | None = None, wall: TimeSource = time.monotonic) -> None:
        """``time_source`` drives the match clocks; ``wall`` times the pace between agents' moves."""
        self.board = board.copy()
        self._moves: list[Move] = []
        self._ply = 0
        self._state = GameState(self.board)
        self._agents: list[str | None] = [None, None]
        self.agent_seed = random.randrange(1 << 30) if agent_seed is None else agent_seed
        """Agents draw their random choices from this seed (plus the ply), so a game can be repeated."""
        self.step_mode = False
        """True: agents move only when :meth:`step` asks for one move (watching agent games move by move)."""
        self.pace_ms = 0
        """Agent against agent: the least milliseconds from one move to the next (see :meth:`answer_delay_ms`)."""
        self._wall = wall
        self._moved_at = wall()
        self._hold = False
        """Agents wait: the cursor was moved into the past, or an agent failed (a step or a new choice resumes)."""
        self._step = False
        self._thinking: AgentRequest | None = None
        self._pending: Move | None = None
        self._announced = False
        self._observers: list[Observer] = []
        p = self.board.params
        self.clock: MatchClock[int] = MatchClock(SEATS, p.turn_time, p.bank, now=time_source)
        self._flag_told: int | None = None
        """The fallen flag observers were told of: a clock reading for a display may make a flag fall unseen."""
        self._sync_clock(new_turn=True)

    # ------------------------------------------------------------------ observers
    def subscribe(self, observer: Observer) -> Callable[[], None]:
        """Call ``observer(change)`` after every change; returns the function that unsubscribes it."""
        self._observers.append(observer)
        return lambda: self._observers.remove(observer) if observer in self._observers else None

    def _notify(self, change: Change) -> None:
        if change is Change.POSITION:
            self._moved_at = self._wall()
        for observer in list(self._observers):
            observer(change)
        if change is not Change.FINISHED:
            self._announce()

    def _announce(self) -> None:
        """Tell observers once when the game at the cursor becomes finished (again after an undo and redo)."""
        over = self.is_over
        if over and not self._announced:
            self._announced = True
            self._notify(Change.FINISHED)
        elif not over:
            self._announced = False

    # ------------------------------------------------------------------ queries
    @property
    def state(self) -> GameState:
        """The game at the cursor (read-only for callers: change it through the session)."""
        return self._state

    @property
    def moves(self) -> list[Move]:
        return list(self._moves)

    @property
    def ply(self) -> int:
        return self._ply

    @property
    def swapped(self) -> bool:
        """Whether the pie swap is among the moves up to the cursor."""
        return self._state.swapped

    def agent(self, seat: int) -> str | None:
        return self._agents[seat]

    def seat_info(self, seat: int) -> SeatInfo:
        return SeatInfo(seat, SEAT_NAMES[seat], symbol_held(self.board.params.first, seat, self.swapped),
                        self._agents[seat])

    def seat_of(self, symbol: Symbol, swapped: bool | None = None) -> int:
        """Which player holds ``symbol`` at the cursor (or with the given swap state)."""
        done = self.swapped if swapped is None else swapped
        return next(s for s in SEATS if symbol_held(self.board.params.first, s, done) is symbol)

    @property
    def is_over(self) -> bool:
        return self.clock.flagged is not None or self._state.is_over()

    def mover(self) -> SeatInfo | None:
        """Who acts now, or None when the game is over (no legal placement, or a flag fell)."""
        if self.is_over:
            return None
        return self.seat_info(self.seat_of(self._state.to_move))

    def _seat_to_move_after(self, ply: int) -> int:
        """Who is to act after the first ``ply`` moves (a position before the end is never finished)."""
        done = self._moves[:ply]
        placed = sum(1 for m in done if isinstance(m, Placement))
        return self.seat_of(self._state.placement_owner(placed), swapped=SWAP in done)

    def move_texts(self) -> list[str]:
        """The move list in match notation: placements numbered, each with the symbol that made it."""
        out = []
        number = 0
        for move in self._moves:
            if isinstance(move, Placement):
                out.append(f"{number + 1}. {self._state.placement_owner(number).value} {move.notation()}  "
                           f"({move.ptype})")
                number += 1
            else:
                taken = symbol_held(self.board.params.first, 1, swapped=True)
                out.append(f"   {SWAP}: {SEAT_NAMES[1]} takes over {taken.value} and the first placement (pie rule)")
        return out

    def result(self) -> PlayResult | None:
        """The finished game at the cursor, or None while it goes on."""
        score = self._state.score()
        flagged = self.clock.flagged
        game = None
        if flagged is not None:
            winner, loser, reason = self.seat_info(1 - flagged), self.seat_info(flagged), PlayEnd.TIME
        else:
            game = self._state.result()
            if game is None:
                return None
            if game.placements == 0:  # over before the first move: the board allows no placement at all
                return PlayResult(None, None, PlayEnd.NO_PLACEMENT, score, self.swapped, game,
                                  {Symbol.O: (), Symbol.X: ()})
            winner = self.seat_info(self.seat_of(game.winner))
            loser, reason = self.seat_info(1 - winner.seat), PlayEnd(game.reason)
        free = ~self._state.covered
        cells = {}
        for symbol in (Symbol.O, Symbol.X):
            scored = self.board.symbol_mask(symbol) & free
            cells[symbol] = tuple(c for c in range(self.board.size ** 2) if scored >> c & 1)
        return PlayResult(winner, loser, reason, score, self.swapped, game, cells)

    def result_text(self) -> str:
        result = self.result()
        return "" if result is None else result.explain()

    # ------------------------------------------------------------------ playing
    def play(self, move: Move) -> Refusal | None:
        """Make ``move`` at the cursor (cutting any moves after it); a Refusal saying why when it cannot be made."""
        refusal = self._refusal(move)
        if refusal is not None:
            return refusal
        self._cancel_agent()
        del self._moves[self._ply:]
        self._moves.append(move)
        self._state.push_action(move)
        self._ply += 1
        self._hold = False
        self._sync_clock(new_turn=True)
        self._notify(Change.POSITION)
        return None

    def _refusal(self, move: Move) -> Refusal | None:
        if self.clock.paused:
            return Refusal("The game is paused; resume it to play on.")
        if self.clock.flagged is not None:
            return Refusal("The game was lost on time; restart the clocks or start a new game to play on.")
        if self.is_over:
            return Refusal("The game is over: no legal placement is left. Undo or start a new game to play on.")
        reason = self._state.swap_refusal() if isinstance(move, str) else self._state.why_illegal(move)
        return None if reason is None else Refusal(reason.message, reason)

    def play_as_person(self, move: Move) -> Refusal | None:
        """A person's move: refused while an agent holds the side to move."""
        who = self.mover()
        if who is not None and who.agent is not None:
            if move == SWAP:
                return Refusal("It is the agent's turn; the agent makes its own pie-rule choice.")
            return Refusal("It is the agent's turn.")
        return self.play(move)

    def play_text(self, text: str) -> Refusal | None:
        """A person's typed move: four cells in any order, or ``swap``."""
        text = text.strip()
        if not text:
            return Refusal("Type the four cells of a placement, e.g. A1 A2 A3 B3.")
        if text.lower() in SWAP_WORDS:
            return self.play_as_person(SWAP)
        try:
            move = Placement.parse(text, self.board.size)
        except NotationError as exc:
            return Refusal(f"{text!r}: {exc}")
        return self.play_as_person(move)

    # ------------------------------------------------------------------ navigation
    def go_to(self, ply: int) -> None:
        """Show the position after ``ply`` moves (0 = start); the moves after it are kept for redo.

        Agents wait while the cursor is in the past, so browsing a game never cuts its future; a step, a move
        or a new choice of who plays the side to move lets them go on from there.
        """
        ply = max(0, min(ply, len(self._moves)))
        if ply == self._ply:
            return
        self._cancel_agent()
        while self._ply > ply:
            self._state.pop()
            self._ply -= 1
        while self._ply < ply:
            self._state.push_action(self._moves[self._ply])
            self._ply += 1
        self._hold = self._ply < len(self._moves)
        self._sync_clock(new_turn=True)
        self._notify(Change.POSITION)

    def undo(self) -> None:
        """Take back a move; against an agent, back to the last position where a person was to move."""
        if self._ply == 0:
            return
        target = self._ply - 1
        people = [a is None for a in self._agents]
        if any(people) and not all(people):
            while target > 0 and self._agents[self._seat_to_move_after(target)] is not None:
                target -= 1
        self.go_to(target)

    def redo(self) -> None:
        if self._ply < len(self._moves):
            self.go_to(self._ply + 1)

    def new_game(self, turn_time: float | None = None, bank: float | None = None) -> None:
        self._cancel_agent()
        self._moves.clear()
        self._ply = 0
        self._state = GameState(self.board)
        self._hold = False
        self._reset_clock(turn_time, bank)
        self._sync_clock(new_turn=True)
        self._notify(Change.POSITION)

    # ------------------------------------------------------------------ agents
    def set_agent(self, seat: int, spec: str | None) -> None:
        """Let an agent (``random``, ``greedy``, ``mcts:N``) or a person (None) play ``seat``.

        Any change of who plays the side to move lets that agent start at once, also in a position reached by
        undo (a person who handed their side to an agent expects it to move, not a clock that runs for nobody).
        """
        if spec is not None:
            spec = parse_agent(spec).text  # AgentSpecError (a ValueError) names the accepted forms
        if spec == self._agents[seat]:
            return
        self._agents[seat] = spec
        if self._thinking is not None and self._thinking.seat == seat:
            self._cancel_agent()
        who = self.mover()
        if who is not None and who.seat == seat:
            self._hold = False
        self._sync_clock(new_turn=False)
        self._notify(Change.SEATS)

    def set_step_mode(self, on: bool) -> None:
        """Step mode: agents move only when asked (one move per :meth:`step`)."""
        if on != self.step_mode:
            self.step_mode = on
            self._sync_clock(new_turn=False)
            self._notify(Change.SEATS)

    def set_pace(self, ms: int) -> None:
        """Agent against agent: at least ``ms`` milliseconds per move (0: as fast as they think), or
        :data:`STEP_PACE` for step mode."""
        self.pace_ms = max(0, ms)
        self.set_step_mode(ms == STEP_PACE)

    def answer_delay_ms(self) -> int:
        """How long an agent's answer that arrives now waits before it is played: the rest of the pace when
        agents hold both seats (so the game can be followed), nothing when a person plays (a person waits for
        no show).  The agent thinks meanwhile, so a slow agent loses nothing to the pace."""
        both = all(a is not None for a in self._agents)
        least = self.pace_ms if both else 0
        return max(0, least - round((self._wall() - self._moved_at) * 1000))

    def step(self) -> bool:
        """Let the agent to move make one move now (step mode, or resuming after undo); False if none is to move."""
        who = self.mover()
        if who is None or who.agent is None or self._thinking is not None:
            return False
        self._step = True
        self._notify(Change.AGENT)
        return True

    @property
    def thinking(self) -> AgentRequest | None:
        """The request an agent is working on, or None."""
        return self._thinking

    @property
    def agent_waiting(self) -> bool:
        """An agent is to move but waits (step mode, browsing the past, a failure, or the pause)."""
        who = self.mover()
        return who is not None and who.agent is not None and self._thinking is None and not self.agent_due()

    def agent_due(self) -> bool:
        """Whether an agent should start thinking now."""
        who = self.mover()
        if who is None or who.agent is None or self._thinking is not None or self._pending is not None:
            return False
        if self.clock.paused:
            return False
        return self._step or not (self.step_mode or self._hold)

    def start_agent(self) -> AgentRequest | None:
        """The request for the agent that is due (its clock runs from now), or None when no agent is due."""
        if not self.agent_due():
            return None
        who = self.mover()
        assert who is not None and who.agent is not None
        seed = (self.agent_seed * 1009 + self._ply) & 0x7FFFFFFF
        self._thinking = AgentRequest(who.seat, who.agent, self.board.copy(), tuple(self._moves[:self._ply]), seed)
        self._step = False
        self._sync_clock(new_turn=False)
        self._notify(Change.AGENT)
        return self._thinking

    def finish_agent(self, request: AgentRequest, move: object) -> Refusal | None:
        """Apply an agent's answer; an answer to a superseded request is dropped (None, nothing changes)."""
        if request is not self._thinking:
            return None
        if not (isinstance(move, Placement) or move == SWAP):
            self.agent_failed(request)
            return Refusal(f"The agent answered {move!r}, which is not a move.")
        if self.clock.paused:
            self._thinking = None
            self._pending = move
            self._notify(Change.AGENT)
            return None
        self._thinking = None
        refusal = self.play(move)
        if refusal is not None:
            self._hold = True
            self._sync_clock(new_turn=False)
            self._notify(Change.AGENT)
            return Refusal(f"The agent's move was refused: {refusal.message}", refusal.reason)
        return None

    def agent_failed(self, request: AgentRequest) -> None:
        """The agent could not answer: it waits (a step or a new choice tries again) and its clock stops."""
        if request is not self._thinking:
            return
        self._thinking = None
        self._hold = True
        self._sync_clock(new_turn=False)
        self._notify(Change.AGENT)

    def _cancel_agent(self) -> None:
        self._thinking = None
        self._pending = None
        self._step = False

    # ------------------------------------------------------------------ clocks
    def _clock_seat(self) -> int | None:
        """The seat whose clock should run: a person to move, or an agent while it thinks (never one that waits)."""
        who = self.mover()
        if who is None:
            return None
        if who.agent is None or self._thinking is not None or self._pending is not None or self.agent_due():
            return who.seat
        return None

    def _sync_clock(self, new_turn: bool) -> None:
        seat = self._clock_seat()
        if seat is None:
            self.clock.stop()
        elif new_turn or self.clock.current != seat:
            self.clock.start_turn(seat)

    def _reset_clock(self, turn_time: float | None = None, bank: float | None = None) -> None:
        """Fresh banks (the flag is taken back): a flag that falls after this is news again."""
        self.clock.reset(turn_time, bank)
        self._flag_told = None

    def tick(self) -> int | None:
        """Charge elapsed time (a window's timer calls this); returns the seat that lost on time, if any."""
        flagged = self.clock.tick()
        told, self._flag_told = self._flag_told, flagged
        if told is None and flagged is not None:
            self._cancel_agent()
            self._notify(Change.CLOCK)
        return flagged

    def set_paused(self, paused: bool) -> None:
        """Pause freezes the clocks and the agents; an answer that arrives meanwhile is played on resume."""
        if paused == self.clock.paused:
            return
        if paused:
            self.clock.pause()
            self._notify(Change.CLOCK)
            return
        self.clock.resume()
        pending, self._pending = self._pending, None
        if pending is None or self.play(pending) is not None:
            self._sync_clock(new_turn=False)
            self._notify(Change.CLOCK)

    def set_clocks_enabled(self, enabled: bool) -> None:
        """Switched-off clocks neither count nor flag (analysis play)."""
        self.clock.set_enabled(enabled)
        self._notify(Change.CLOCK)

    def restart_clocks(self, turn_time: float, bank: float) -> None:
        """New limits: fresh banks for both players and a new turn for the one to move."""
        self._reset_clock(turn_time, bank)
        self._sync_clock(new_turn=True)
        self._notify(Change.CLOCK)

    # ------------------------------------------------------------------ records
    def record_comments(self) -> list[str]:
        b = self.board
        comments = [f"LITS play-test record, board: {b.name or 'untitled'} "
                    f"({b.size}x{b.size}, first {b.params.first.value})"]
        state, _problem = replay(b, self._moves)
        result = state.result()
        if result is not None:
            comments.append(f"{NO_PLACEMENT}." if result.placements == 0 else result.explain())
        return comments

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write every move (also those after the cursor) as a record; OSError or ValueError when it cannot."""
        save_record(path, self._moves, self.board.size, self.record_comments())

    def load(self, path: str | os.PathLike[str]) -> Refusal | None:
        """Load a record for this board and show its final position; agents and clocks are switched off."""
        name = os.fspath(path)
        try:
            moves = load_record(name, self.board.size)
        except RecordError as exc:
            return Refusal(str(exc))
        _state, problem = replay(self.board, moves)
        if problem is not None:
            line = file_action_line(name, problem.ply)
            where = "" if line is None else f"line {line}: "
            return Refusal(f"{name}: {where}{problem.message(self.board.size)}; the record does not fit this board.",
                           problem.reason)
        self._cancel_agent()
        self._agents = [None, None]
        self.clock.set_enabled(False)
        self._reset_clock()
        self._moves = list(moves)
        self._ply = 0
        self._state = GameState(self.board)
        for move in moves:
            self._state.push_action(move)
        self._ply = len(moves)
        self._hold = False
        self._sync_clock(new_turn=True)
        self._notify(Change.SEATS)
        self._notify(Change.POSITION)
        return None


__all__ = ["NO_PLACEMENT", "SEATS", "SEAT_NAMES", "STEP_PACE", "AgentRequest", "Change", "Move", "PlayResult",
           "PlaySession", "Refusal", "SeatInfo", "agent_decision", "symbol_held"]
