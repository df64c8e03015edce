"""Simulated agents for analysis tests: S1 wins after each opening with a known probability, on a simulated clock.

Replaces ``core.analysis.run.play_games``, ``screen_openings`` and ``refine_openings`` (monkeypatch), so the whole
analysis runs as it does for real (SPRTs, candidate picker, verdict, time budget) while the
truth is known.  Every game's outcome is drawn from its task's own seed, so results stay
reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import pytest

import core.analysis.run as run
from core.analysis.openings import legal_openings
from core.board.model import Board
from core.selfplay.tasks import GameResult, GameTask
from core.selfplay.worker import RefineItem, ScreenItem


class SimulatedGames:
    """The truth per opening (``value(placement)`` = P(S1 wins)), a per-agent cost in simulated seconds."""

    def __init__(self, board: Board, value: Callable[[int], float], cost: dict[str, float] | None = None,
                 raw: float = 0.5, tie_break: bool = False, screen_noise: float = 0.05,
                 values: dict[str, Callable[[int], float]] | None = None, refine_noise: float | None = None) -> None:
        self.board = board
        self.value = value
        self.values = values or {}
        """Per agent spec, its own truth (agents of different strength or family disagree); default ``value``."""
        self.cost = cost or {}
        self.raw = raw
        self.tie_break = tie_break
        self.screen_noise = screen_noise
        self.refine_noise = screen_noise if refine_noise is None else refine_noise
        """Noise of the deeper search that refines the screen (by default no sharper than the screen)."""
        self.now = 0.0
        self.legal = set(legal_openings(board))
        self.played: dict[str, int] = {}

    def clock(self) -> float:
        return self.now

    def install(self, monkeypatch: pytest.MonkeyPatch) -> SimulatedGames:
        monkeypatch.setattr(run, "play_games", self.play_games)
        monkeypatch.setattr(run, "screen_openings", self.screen)
        monkeypatch.setattr(run, "refine_openings", self.refine)
        return self

    def play_games(self, tasks: Sequence[GameTask]) -> list[GameResult]:
        return [self.play(t) for t in tasks]

    def play(self, task: GameTask) -> GameResult:
        self.now += self.cost.get(task.s1, 0.0)
        self.played[task.s1] = self.played.get(task.s1, 0) + 1
        rng = random.Random(task.seed)
        p = self.values.get(task.s1, self.value)(task.opening) if task.opening >= 0 else self.raw
        won = rng.random() < p
        n = self.board.size
        return GameResult(s1_score=0, s2_score=0, winner=1 if won else 2, tie_break=self.tie_break, length=10,
                          legal_sum=100, legal_turns=10, runout=(0, 0, 0, 0), coverage=bytes(n * n),
                          moves=(max(task.opening, 0), 1), mirror_all=task.mirror and not won)

    def screen(self, item: ScreenItem) -> npt.NDArray[np.float64]:
        _spec, openings, _sims, seed = item
        rng = random.Random(seed)
        return np.array([min(1.0, max(0.0, self.value(p) + rng.gauss(0, self.screen_noise))) if p in self.legal
                         else -1.0 for p in openings])

    def refine(self, item: RefineItem) -> npt.NDArray[np.float64]:
        _spec, openings, _sims = item
        self.now += self.cost.get("refine", 0.0) * len(openings)
        return np.array([min(1.0, max(0.0, self.value(p) + random.Random(seed).gauss(0, self.refine_noise)))
                         if p in self.legal else -1.0 for p, seed in openings])
