"""Duels: pairs of games between two agents, one seed per pair, seats swapped, no pie swap.

Pair ``i`` of a duel seeded ``S`` uses the seed ``derive_seed(S, DUEL_KEY, i)`` for both of its games; agent A
draws from one stream and B from another, both derived from that seed, so A meets the same randomness in either
seat.  Pairs are consumed in index order (``Runner.run``), so a duel, including where a sequential test stops
it, is the same on any number of workers (for simulation budgets; a time budget depends on the machine).

Without the pie swap the first mover picks the strongest first placement, and on most boards wins 75-95% of
games whoever plays better: most pairs then split one-one and say nothing about the agents.  A match has the pie
rule, so its games start from openings near even; ``openings="even"`` starts both games of pair ``i`` after one
first placement drawn (``derive_seed(S, OPENING_KEY, i)``) from those the opening predictor puts nearest to even,
and ``"random"`` after a placement drawn from all of them.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.board.model import Board
from core.selfplay.game import spec_board
from core.selfplay.runner import Runner, resolve_workers
from core.selfplay.tasks import BoardSpec, derive_seed

DUEL_KEY = 0x00D0E1
"""Seed coordinate of duels, apart from the analysis questions'."""
OPENING_KEY = 0x00D0E2
"""Seed coordinate of a pair's forced first placement, apart from its games' seeds."""
MAX_PLIES = 1000
OPENING_MODES = ("none", "even", "random")
"""How a pair's games start: the first mover's own choice, after a first placement the opening predictor puts
near even, or after one drawn from all."""
EVEN_BAND = (0.40, 0.60)
"""Predicted S1 chances an ``even`` opening is drawn from: the analysis's fair band."""
EVEN_MIN = 16
"""Fewest openings an ``even`` duel draws from: the nearest to 50% when fewer lie in the band, so a duel on a board
the model calls lopsided everywhere still varies its openings (the pool's predicted range is reported)."""


class OpeningPoolError(ValueError):
    """No pool of openings can be made (the opening predictor is missing, damaged or not for this board size)."""


@dataclass(frozen=True)
class OpeningPool:
    """The first placements a duel's pairs start after, and what chose them."""

    mode: str
    placements: tuple[int, ...] = ()
    predicted: tuple[float, float] | None = None
    """The lowest and highest predicted S1 chance in the pool (``even`` only)."""
    model: str | None = None
    """The opening predictor's digest (``even`` only)."""

    def opening_of(self, seed: int, pair: int) -> int:
        """The first placement of pair ``pair`` of a duel seeded ``seed``, or -1 for the first mover's choice."""
        if not self.placements:
            return -1
        return self.placements[derive_seed(seed, OPENING_KEY, pair) % len(self.placements)]


def opening_pool(board: Board, mode: str) -> OpeningPool:
    """The pool ``mode`` names for ``board``; ``OpeningPoolError`` says why an ``even`` pool cannot be made."""
    if mode not in OPENING_MODES:
        raise ValueError(f"unknown opening mode {mode!r}: give one of {', '.join(OPENING_MODES)}")
    if mode == "none":
        return OpeningPool(mode)
    from core.engine.rules import first_placements
    from core.selfplay.worker import predict_openings

    legal = first_placements(board)
    if mode == "random":
        return OpeningPool(mode, tuple(legal))
    predicted = predict_openings(BoardSpec.from_board(board))
    if isinstance(predicted, str):
        raise OpeningPoolError(f"no openings near even without the opening predictor: {predicted}")
    digest, chances = predicted
    pool = near_even(legal, chances, EVEN_BAND, EVEN_MIN)
    values = [chances[p] for p in pool]
    return OpeningPool(mode, tuple(pool), (min(values), max(values)), digest)


def near_even(legal: Sequence[int], chances: Sequence[float], band: tuple[float, float], least: int) -> list[int]:
    """The placements of ``legal`` whose predicted S1 chance lies in ``band``, or the ``least`` nearest to 50% when
    fewer lie there, in placement order."""
    low, high = band
    pool = [p for p in legal if low <= chances[p] <= high]
    if len(pool) < least:
        pool = sorted(sorted(legal, key=lambda p: abs(chances[p] - 0.5))[:least])
    return pool


@dataclass(frozen=True)
class DuelTask:
    """One pair: agent specs A and B, the board, the pair's seed and the first placement both games start after
    (-1: the first mover chooses)."""

    board: BoardSpec
    seed: int
    a: str
    b: str
    opening: int = -1


@dataclass(frozen=True)
class GameLog:
    """One finished game of a pair, seen from the seats."""

    s1_won: bool
    length: int
    s1_score: int
    s2_score: int


@dataclass(frozen=True)
class PairResult:
    """Both games of a pair and the thinking time each agent used (wall and CPU seconds, moves)."""

    a_as_s1: GameLog
    a_as_s2: GameLog
    a_seconds: float
    a_cpu: float
    a_moves: int
    b_seconds: float
    b_cpu: float
    b_moves: int

    @property
    def a_won_as_s1(self) -> bool:
        return self.a_as_s1.s1_won

    @property
    def a_won_as_s2(self) -> bool:
        return not self.a_as_s2.s1_won


_WARM: set[int] = set()


def _warm_once() -> None:
    """Load the compiled kernels before the first timed move of this process."""
    if os.getpid() in _WARM:
        return
    from core.agents.agent import warm_up

    warm_up()
    _WARM.add(os.getpid())


def play_duel_game(board: Board, s1: str, s2: str, seed_s1: int, seed_s2: int,
                   opening: int = -1) -> tuple[GameLog, list[float]]:
    """One game without the pie swap, after the first placement ``opening`` when it is not -1 (untimed, no
    agent's move); returns the log and [wall s1, cpu s1, moves s1, wall s2, cpu s2, moves s2]."""
    from core.agents.agent import make_agent
    from core.engine.kernels import k_apply, k_is_legal, k_new_state, k_score, k_winner, kernel_tables

    kt = kernel_tables(board)
    players = [make_agent(s1, board, seed_s1), make_agent(s2, board, seed_s2)]
    s = k_new_state(kt)
    clock = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    plies = 0
    if opening >= 0:
        if not k_is_legal(kt, s, opening):
            raise ValueError(f"opening placement {opening} is not a legal first placement on this board")
        k_apply(kt, s, opening)
        plies = 1
    while plies < MAX_PLIES:
        seat = plies % 2
        w0, c0 = time.perf_counter(), time.thread_time()
        p = players[seat].choose(s)
        clock[3 * seat] += time.perf_counter() - w0
        clock[3 * seat + 1] += time.thread_time() - c0
        if p < 0:
            break
        if not k_is_legal(kt, s, p):
            raise RuntimeError(f"agent {(s1, s2)[seat]} chose an illegal placement {p}")
        clock[3 * seat + 2] += 1
        k_apply(kt, s, p)
        plies += 1
    o, x = k_score(kt, s)
    first = kt.first
    s1_score, s2_score = (o, x) if first == 0 else (x, o)
    return GameLog(int(k_winner(kt, s)) == first, plies, int(s1_score), int(s2_score)), clock


def play_pair(task: DuelTask) -> PairResult:
    """Worker entry: both games of a pair (A as S1, then B as S1) from the pair's seed."""
    _warm_once()
    board = spec_board(task.board)
    seed_a = derive_seed(task.seed, 1)
    seed_b = derive_seed(task.seed, 2)
    g1, c1 = play_duel_game(board, task.a, task.b, seed_a, seed_b, task.opening)
    g2, c2 = play_duel_game(board, task.b, task.a, seed_b, seed_a, task.opening)
    return PairResult(
        a_as_s1=g1, a_as_s2=g2,
        a_seconds=c1[0] + c2[3], a_cpu=c1[1] + c2[4], a_moves=int(c1[2] + c2[5]),
        b_seconds=c1[3] + c2[0], b_cpu=c1[4] + c2[1], b_moves=int(c1[5] + c2[2]),
    )


def duel_tasks(board: Board, a: str, b: str, pairs: int, seed: int,
               openings: OpeningPool | None = None) -> list[DuelTask]:
    spec = BoardSpec.from_board(board)
    pool = openings or OpeningPool("none")
    return [DuelTask(spec, derive_seed(seed, DUEL_KEY, i), a, b, pool.opening_of(seed, i)) for i in range(pairs)]


def run_duel(board: Board, a: str, b: str, pairs: int, seed: int = 0, workers: int = 0,
             on_pair: Callable[[int, PairResult], bool] | None = None, cancel: threading.Event | None = None,
             inline: bool = False, executor: cf.Executor | None = None,
             executor_workers: int = 0, openings: OpeningPool | None = None) -> list[PairResult]:
    """Play up to ``pairs`` pairs; ``on_pair(i, r)`` sees them in index order and returns True to stop early.

    Raises ``RunCancelled`` when ``cancel`` is set; the workers are stopped either way. ``executor`` (a dask
    cluster's) replaces the process pool; the pairs' seeds make the result the same.  ``openings`` (from
    :func:`opening_pool`) gives each pair its first placement.
    """
    tasks = duel_tasks(board, a, b, pairs, seed, openings)
    if executor is not None:
        runner = Runner(workers=max(1, executor_workers), executor=executor)
    else:
        runner = Runner(workers=1 if inline else max(1, min(resolve_workers(workers), pairs)), inline=inline)
    try:
        runner.start(cancel)  # one worker compiles the kernels into the disk cache while the others wait
        return runner.run(play_pair, tasks, on_pair, cancel)
    finally:
        runner.terminate()
