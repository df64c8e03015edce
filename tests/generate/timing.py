"""A simulated clock and evaluators that spend its time, so timed generator runs are decided deterministically.

Each evaluation advances the clock by its cost divided by the number of workers: ``workers`` evaluations side by
side then move the clock as far as one would on a real machine, and the planner's decisions do not depend on
how the threads interleave.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace

from core.board.model import Board
from core.generate.figures import Figures
from core.generate.layout import Layout, distance, layout_of, pairs_of
from core.generate.plan import ProbeResult


class FakeClock:
    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.lock = threading.Lock()

    def __call__(self) -> float:
        with self.lock:
            return self.now

    def advance(self, seconds: float) -> None:
        with self.lock:
            self.now += seconds


@dataclass
class Screen:
    """The cheap filter: score 1 at ``target``, one twentieth less per pair that differs; ``cost`` seconds each."""

    clock: FakeClock
    target: Layout
    cost: float = 0.5
    workers: int = 1
    later_cost: float | None = None
    """What each screen after the timing's (one per worker) costs, when the rounds run slower than it."""
    seen: list[Layout] = field(default_factory=list)

    def __call__(self, board: Board) -> Figures:
        layout = layout_of(board)
        self.seen.append(layout)
        slower = self.later_cost is not None and len(self.seen) > self.workers
        self.clock.advance((self.later_cost if slower and self.later_cost is not None else self.cost) / self.workers)
        return Figures(score=1.0 - distance(layout, self.target) / 20, pairs=pairs_of(layout), seconds=self.cost)


@dataclass
class Judge:
    """A judge with the real one's timed interface.  A verdict takes ``need`` seconds: with a smaller budget the
    analysis stops at its budget, inconclusive; decided boards with an even pair count are balanced.  ``probe``
    reports ``game``/``overhead``/``games_needed`` and spends what timing them would.  From call number
    ``hang_after`` on, an evaluation jumps the clock ``hang_jump`` seconds and waits for ``release`` (an
    analysis overrunning its budget, still in flight)."""

    clock: FakeClock
    need: float
    game: float
    overhead: float
    games_needed: float = 250.0
    min_budget: float = 5.0
    workers: int = 1
    budget: float = 0.0
    budgets: list[float] = field(default_factory=list)
    boards: list[Layout] = field(default_factory=list)
    hang_after: int | None = None
    hang_jump: float = 0.0
    release: threading.Event = field(default_factory=threading.Event)

    def __call__(self, board: Board) -> Figures:
        layout = layout_of(board)
        call = len(self.boards)
        self.boards.append(layout)
        self.budgets.append(self.budget)
        if self.hang_after is not None and call >= self.hang_after:
            self.clock.advance(self.hang_jump)
            self.release.wait(30)
            raise RuntimeError("released after the run ended")
        spent = self.need if self.budget <= 0 else min(self.need, self.budget)
        self.clock.advance(spent / self.workers)
        p = pairs_of(layout)
        decided = spent >= self.need
        verdict = ("balanced" if p % 2 == 0 else "lopsided") if decided else "inconclusive"
        return Figures(score=0.5 + 0.01 * p, pairs=p, verdict=verdict, level="fake", seconds=spent,
                       fair_openings=[["A1", "A2", "A3", "B3"]] * (3 if verdict == "balanced" else 0), tested=4)

    def timed(self, seconds: float) -> Judge:
        return replace(self, budget=max(self.min_budget, seconds))

    def probe(self, games: int) -> Probe:
        return Probe(self, games)


@dataclass(frozen=True)
class Probe:
    judge: Judge
    games: int

    def __call__(self, board: Board) -> ProbeResult:
        j = self.judge
        j.clock.advance((j.overhead + self.games * j.game) / j.workers)
        return ProbeResult(overhead=j.overhead, game_seconds=j.game, games=self.games, games_needed=j.games_needed,
                           min_budget=j.min_budget)
