"""Agents bound to a board, and the warm-up that compiles every agent kernel.

This module sits above every search (``search``: random, greedy, MCTS; ``puct``; ``alphabeta``) and knows none
of them by name: each kind's row in ``core.agents.spec.KINDS`` names its move choice and warm-up, and says which
pie decision it takes.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

import core.engine.kernels as kernels_module
from core.agents.search import gain_for, k_screen, k_solve
from core.agents.spec import KINDS, AgentSpec, parse_agent
from core.board.model import Board
from core.engine.kernels import (
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


class MoveChooser(Protocol):
    """What a kind's chooser returns: a move for a kernel state, and the value its search gave the mover."""

    last_value: float

    def choose(self, state: npt.NDArray[np.uint64]) -> int: ...


def resolve_code(ref: str | Callable[..., Any]) -> Callable[..., Any]:
    """The function a row names as ``"module:function"`` (imported now), or the function itself."""
    if callable(ref):
        return ref
    module, _, name = ref.partition(":")
    fn: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return fn


@dataclass
class Agent:
    """One seeded agent bound to a board; ``choose`` takes a kernel state and returns a placement index."""

    spec: AgentSpec
    kt: KTables
    gain: npt.NDArray[np.int64]
    rng: npt.NDArray[np.uint64]

    def __post_init__(self) -> None:
        self._chooser: MoveChooser | None = None

    @property
    def last_value(self) -> float:
        """The last search's expected share for the side it moved (0.5 for agents that do not search)."""
        return 0.5 if self._chooser is None else float(self._chooser.last_value)

    @property
    def _puct(self) -> MoveChooser | None:
        """The chooser, by the name the puct tests read its search statistics under."""
        return self._chooser

    def choose(self, state: npt.NDArray[np.uint64]) -> int:
        """A legal placement for the side to move, or -1 when the game is over."""
        if self._chooser is None:
            self._chooser = resolve_code(self.spec.kind.chooser)(self.spec, self.kt, self.gain, self.rng)
        return int(self._chooser.choose(state))

    def wants_swap(self, state: npt.NDArray[np.uint64], opening: int, searched: bool = False) -> bool:
        """Pie decision at the second player's first turn, by the kind's rule (``AgentKindInfo.swap``).

        ``value``: swap when the search says the side to move wins less than half the time (``searched=True``
        reuses the search ``choose`` just ran on this same state); ``gain``: swap when the opening gained its
        maker symbols; ``coin``: a fair coin.
        """
        rule = self.spec.kind.swap
        if rule == "value":
            if not searched:
                self.choose(state)
            return self.last_value < 0.5
        if rule == "coin":
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
after each; work is in units of the steps' weights (seconds of a cold compile), so it runs evenly in time."""
BASE_WARM_UP_WEIGHTS = (4, 5, 32, 2, 3)
"""Share of a cold compile the kernels every kind shares take (tables and rules, solver, screen, apply, the opening
predictor), in seconds of the 97 s measured on the idle 2-core machine (``docs/measurements.md``, "Compiling the
engine"; the predictor's 2.6 s measured alone at load 3-5); each kind's row gives its own.  Progress bars and the
compile's time estimate run evenly only when these match the steps' times."""


def _compiled_count() -> int:
    """Signatures compiled in this process because the disk cache did not hold them (numba's own counters)."""
    import sys

    total = 0
    for name, module in list(sys.modules.items()):
        if not (name.startswith("core.agents") or module is kernels_module):
            continue
        for obj in list(vars(module).values()):
            stats = getattr(obj, "stats", None)
            misses = getattr(stats, "cache_misses", None)
            if misses is not None and hasattr(obj, "py_func"):
                total += sum(misses.values())
    return total


def _warm_predictor(kt: KTables) -> None:
    """The opening predictor's kernels with the argument types of real calls (a model of zeros will do)."""
    from core.agents.summary import summary_tables
    from core.agents.value import FEATURES, k_eval, k_opening_values, opening_scratch

    def z(*shape: int) -> npt.NDArray[np.int64]:
        return np.zeros(shape, dtype=np.int64)

    sym = np.zeros(kt.size * kt.size, dtype=np.int8)
    left, x, ctype, count, two, acc, h2 = opening_scratch(kt.size, kt.supply, 2, 2)
    k_opening_values(z(FEATURES, 2), z(2), z(2, 2), z(2), z(2, 2), z(2), 10, summary_tables(kt.size), kt.size, sym,
                     kt.cells, kt.ptype, left, z(kt.nplace), x, ctype, count, two, acc, h2)
    k_eval(z(FEATURES, 2), z(2), z(2, 2), z(2), z(2, 2), z(2), 10, x, two)


def warm_up(progress: WarmUpProgress | None = None) -> bool:
    """Compile (or load from the disk cache) every kernel the agents use, on a tiny board, one step at a time.

    Returns True when anything had to be compiled.  The first step is small, so a caller
    learns within seconds whether this is the slow first run.
    """
    kinds: list[tuple[int, Callable[..., object]]] = []
    seen: set[int] = set()
    for info in KINDS.values():
        if info.warm_up is None:
            continue
        fn = resolve_code(info.warm_up)
        if id(fn) not in seen:
            seen.add(id(fn))
            kinds.append((info.warm_up_weight, fn))
    total = sum(BASE_WARM_UP_WEIGHTS) + sum(w for w, _ in kinds)
    before = _compiled_count()
    if progress is not None:  # before the tiny board's tables, whose kernels are compiled too on the first run
        progress(0, total, False)
    board = Board.random(size=4, pairs=3, seed=1)
    kt = kernel_tables(board)
    gain = gain_for(kt)
    rng = k_seed(1)
    s = k_new_state(kt)
    out = np.zeros(2, dtype=np.float64)
    steps: list[tuple[int, Callable[[], object]]] = [
        (BASE_WARM_UP_WEIGHTS[0], lambda: (k_legal_count(kt, s), k_is_legal(kt, s, 0), k_score(kt, s),
                                           k_winner(kt, s))),
        (BASE_WARM_UP_WEIGHTS[1], lambda: k_solve(kt, s, 10, 4)),
        (BASE_WARM_UP_WEIGHTS[2], lambda: k_screen(kt, gain, np.arange(2, dtype=np.int32), 4, 1, out)),
        (BASE_WARM_UP_WEIGHTS[3], lambda: k_apply(kt, k_new_state(kt), 0)),
        (BASE_WARM_UP_WEIGHTS[4], lambda: _warm_predictor(kt)),
        *((w, functools.partial(fn, kt, gain, rng)) for w, fn in kinds),
    ]
    done = 0
    for weight, step in steps:
        step()
        done += weight
        if progress is not None:
            progress(done, total, _compiled_count() > before)
    return _compiled_count() > before
