"""Agents bound to a board, and the warm-up that compiles every agent kernel.

This module sits above both searches (``search``: random, greedy, MCTS; ``puct``: the stronger search), so an
agent can dispatch to either without the two search modules importing each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

import core.agents.puct as puct_module
import core.engine.kernels as kernels_module
from core.agents import search
from core.agents.puct import k_puct_warm_up, puct_search
from core.agents.search import gain_for, k_mcts, k_screen, k_simple_move, k_solve
from core.agents.spec import DEFAULT_C, NOISE_PLIES, SOLVE_LIMIT, AgentKind, AgentSpec, parse_agent
from core.board.model import Board
from core.engine.kernels import (
    H_NPLACED,
    H_TO_MOVE,
    KTables,
    k_apply,
    k_is_legal,
    k_legal_count,
    k_new_state,
    k_rand_below,
    k_score,
    k_seed,
    k_winner,
    kernel_tables,
)


@dataclass
class Agent:
    """One seeded agent bound to a board; ``choose`` takes a kernel state and returns a placement index."""

    spec: AgentSpec
    kt: KTables
    gain: npt.NDArray[np.int64]
    rng: npt.NDArray[np.uint64]
    c_uct: float = DEFAULT_C
    noise_plies: int = NOISE_PLIES

    def __post_init__(self) -> None:
        self._legal = np.empty(self.kt.nplace, dtype=np.int32)
        self.last_value = 0.5
        self._puct: Any = None

    def choose(self, state: npt.NDArray[np.uint64]) -> int:
        """A legal placement for the side to move, or -1 when the game is over."""
        spec = self.spec
        if spec.kind is AgentKind.PUCT:
            if self._puct is None:
                self._puct = puct_search(spec.text, self.kt, self.gain, self.rng)
            p = int(self._puct.choose(state))
            self.last_value = float(self._puct.last_value)
            return p
        if spec.kind is AgentKind.MCTS:
            noise = int(state[H_NPLACED]) < self.noise_plies
            p, value = k_mcts(self.kt, self.gain, state, spec.sims, self.c_uct, spec.greedy_playouts, self.rng,
                              noise, SOLVE_LIMIT, max(2000, 20 * spec.sims))
            self.last_value = float(value)
            return int(p)
        return int(k_simple_move(self.kt, state, self.gain, int(spec.kind), spec.eps, self.rng, self._legal))

    def wants_swap(self, state: npt.NDArray[np.uint64], opening: int, searched: bool = False) -> bool:
        """Pie decision at the second player's first turn: swap when the first placement favours its maker.

        MCTS uses its search's value for the side to move (``searched=True`` reuses the search
        ``choose`` just ran on this same state); greedy swaps when the opening gained its maker
        symbols; random flips a coin.
        """
        if self.spec.kind in (AgentKind.MCTS, AgentKind.PUCT):
            if not searched:
                self.choose(state)
            return self.last_value < 0.5
        if self.spec.kind is AgentKind.RANDOM:
            return bool(k_rand_below(self.rng, 2) == 1)
        opener = 1 - int(state[H_TO_MOVE])
        return bool(self.gain[opener, opening] > 0)


def make_agent(spec: AgentSpec | str, board: Board, seed: int) -> Agent:
    """An agent for ``board`` with its own random stream."""
    sp = parse_agent(spec) if isinstance(spec, str) else spec
    kt = kernel_tables(board)
    return Agent(sp, kt, gain_for(kt), k_seed(seed))



WarmUpProgress = Callable[[int, int, bool], None]
"""``(work done, total work, whether anything had to be compiled so far)``, before the first warm-up step and
after each; work is in :data:`WARM_UP_WEIGHTS` units, so it runs evenly in time."""
WARM_UP_WEIGHTS = (3, 2, 4, 17, 0, 17, 1, 20)
"""Share of a cold compile each warm-up step takes (seconds of the 44 s measured on the 2-core machine)."""


def _compiled_count() -> int:
    """Signatures compiled in this process because the disk cache did not hold them (numba's own counters)."""

    total = 0
    for module in (vars(search), vars(kernels_module), vars(puct_module)):
        for obj in module.values():
            stats = getattr(obj, "stats", None)
            misses = getattr(stats, "cache_misses", None)
            if misses is not None and hasattr(obj, "py_func"):
                total += sum(misses.values())
    return total


def _warm_up_puct(kt: KTables, gain: npt.NDArray[np.int64], rng: npt.NDArray[np.uint64]) -> None:
    k_puct_warm_up(kt, gain, k_new_state(kt), rng)


def warm_up(progress: WarmUpProgress | None = None) -> bool:
    """Compile (or load from the disk cache) every kernel the agents use, on a tiny board, one step at a time.

    Returns True when anything had to be compiled.  The first step is small, so a caller
    learns within seconds whether this is the slow first run.
    """
    board = Board.random(size=4, pairs=3, seed=1)
    kt = kernel_tables(board)
    gain = gain_for(kt)
    rng = k_seed(1)
    s = k_new_state(kt)
    legal = np.empty(kt.nplace, dtype=np.int32)
    out = np.zeros(2, dtype=np.float64)
    steps: list[Callable[[], object]] = [
        lambda: (k_legal_count(kt, s), k_is_legal(kt, s, 0), k_score(kt, s), k_winner(kt, s)),
        lambda: k_simple_move(kt, s, gain, int(AgentKind.GREEDY), 0.1, rng, legal),
        lambda: k_solve(kt, s, 10, 4),
        lambda: k_mcts(kt, gain, s, 8, DEFAULT_C, False, rng, True, SOLVE_LIMIT, 100),
        lambda: k_mcts(kt, gain, s, 8, DEFAULT_C, True, rng, False, SOLVE_LIMIT, 100),
        lambda: k_screen(kt, gain, np.arange(2, dtype=np.int32), 4, 1, out),
        lambda: k_apply(kt, s, int(legal[0])),
        lambda: _warm_up_puct(kt, gain, rng),
    ]
    total = sum(WARM_UP_WEIGHTS)
    before = _compiled_count()
    done = 0
    if progress is not None:
        progress(0, total, False)
    for weight, step in zip(WARM_UP_WEIGHTS, steps, strict=True):
        step()
        done += weight
        if progress is not None:
            progress(done, total, _compiled_count() > before)
    return _compiled_count() > before
