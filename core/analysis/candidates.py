"""Which opening to play out next: the screen's estimates, calibrated against the results so far."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from core.analysis.config import SeedPhase
from core.selfplay.tasks import derive_seed

PRIOR_SLOPE = 1.7
"""How much P(S1 wins) under ``mcts:1000`` moves per unit of the screen's estimate.

Measured on boards/dense.yaml: 24 random openings, each screened with a 200-simulation
search and played 24 times by ``mcts:1000``; the outcomes spread about 1.7 times as wide
as the screen values (correlation 0.88) and sat about 0.15 lower.
"""
SLOPE_RANGE = (0.5, 4.0)
OFFSET_PRIOR_GAMES = 30
"""Weight (in check games) of the prior that the check agent and the deciding agent agree on average."""
REFINE_NEAR = 0.08
"""The picker asks for more refined openings while the best untested one is predicted further than this from 50%."""

Fit = tuple[float, float, float]
"""(weighted mean of the predictor, weighted mean of the rate, slope) of a calibration."""


class CandidatePicker:
    """Chooses the next opening to play out by calibrating the screen against the results so far.

    The screen (a short search per opening) and the playing agent agree well on the order
    of openings but not on the level (a strong S1 gets more out of a good opening and
    less out of a poor one).  So the picker fits ``v = a + b * screen`` to the openings
    already played (weighted by games; with one point the slope is :data:`PRIOR_SLOPE`)
    and next tries the untested opening whose screen value the fit maps closest to 50%.

    With a cross-check the aim is an opening both engines find even: the check agent's rate on the openings
    it played differs from the deciding agent's by a mean offset (``mcts:8000`` gave S1 about 5 points more
    than ``club`` on 30 club-fair openings, with a spread of 10), so the fit aims where the deciding agent's
    rate plus half that offset is 50%.  Only the order of the candidates changes; what counts as fair does not.

    With refinement (search agents; ``core.analysis.run`` asks for it) the screen only says which openings to look
    at more closely: the untested openings it maps nearest to 50% get a deeper guided search (``refined``), and
    the picker chooses among those by their own calibration.  On a board whose short screen predicts the deciding
    agent poorly (random-103: correlation 0.65 over 30 openings) a 2,000-8,000 simulation ``puct`` search predicts it
    at 0.86-0.90, so fewer candidates far from even are played out.
    """

    def __init__(self, screen: npt.NDArray[np.float64], seed: int) -> None:
        self.screen = screen
        self.legal = [p for p in range(len(screen)) if screen[p] >= 0]
        self.tie = {p: derive_seed(seed, SeedPhase.SCREEN, 99, p) for p in self.legal}
        self.target = 0.5
        self.tested: set[int] = set()
        self.points: list[tuple[float, float, int]] = []
        self.refined_points: list[tuple[float, float, int]] = []
        self.offsets: list[tuple[float, int]] = []
        """Per cross-checked opening: the check agent's rate minus the deciding agent's, and the check's games."""
        self.refined: dict[int, float] = {}
        """The deeper search's S1 share per refined opening."""
        self.refined_target = 0.5
        self.refined_slope = PRIOR_SLOPE

    def next(self) -> int | None:
        pool = [p for p in self.refined if p not in self.tested]
        values = self.refined
        target = self.refined_target
        if not pool:  # no refinement (or all refined openings tried): the screen alone
            pool = [p for p in self.legal if p not in self.tested]
            values = {p: float(self.screen[p]) for p in pool}
            target = self.target
        if not pool:
            return None
        p = min(pool, key=lambda q: (abs(values[q] - target), self.tie[q]))
        self.tested.add(p)
        return p

    def to_refine(self, k: int) -> list[int]:
        """Up to ``k`` untested, not yet refined openings, those the screen's calibration maps nearest to 50%."""
        pool = [p for p in self.legal if p not in self.tested and p not in self.refined]
        pool.sort(key=lambda q: (abs(float(self.screen[q]) - self.target), self.tie[q]))
        return pool[:k]

    def add_refined(self, values: dict[int, float]) -> None:
        """Record the deeper search's values (an illegal opening's negative value is dropped)."""
        self.refined.update({p: v for p, v in values.items() if v >= 0})

    def wants_refined(self) -> bool:
        """Whether no untested refined opening is predicted within :data:`REFINE_NEAR` of 50% yet."""
        pool = [self.refined[p] for p in self.refined if p not in self.tested]
        if not pool:
            return True
        gap = min(abs(v - self.refined_target) for v in pool)
        return self.refined_slope * gap > REFINE_NEAR

    def feedback(self, p: int, v: float, games: int, check_v: float | None = None, check_games: int = 0) -> None:
        """Add an opening's result (share of S1 wins over ``games``; the cross-check's share over
        ``check_games`` when it was checked) and move the target."""
        if games <= 0 or math.isnan(v):
            return
        self.points.append((float(self.screen[p]), v, games))
        if p in self.refined:
            self.refined_points.append((self.refined[p], v, games))
        if check_v is not None and check_games > 0 and not math.isnan(check_v):
            self.offsets.append((check_v - v, check_games))
        self._aim()

    @property
    def check_offset(self) -> float:
        """The check agent's mean rate minus the deciding agent's over the checked openings, shrunk towards 0 by
        :data:`OFFSET_PRIOR_GAMES` games of no difference: single openings differ by about 10 points either way,
        so one check alone says little about the mean."""
        games = sum(g for _, g in self.offsets)
        return sum(d * g for d, g in self.offsets) / (games + OFFSET_PRIOR_GAMES)

    def _aim(self) -> None:
        shift = 0.5 - self.check_offset / 2
        mx, my, slope = _fit(self.points)
        self.target = mx + (shift - my) / slope
        if self.refined_points:
            mx, my, slope = _fit(self.refined_points)
            self.refined_target = mx + (shift - my) / slope
            self.refined_slope = slope


def _fit(points: list[tuple[float, float, int]]) -> Fit:
    """``v = my + slope * (x - mx)`` over (predictor, rate, games) points, weighted by games; the slope is shrunk
    towards :data:`PRIOR_SLOPE` while the predictor values are close together (all of it with one point)."""
    w = np.array([g for _, _, g in points], dtype=np.float64)
    x = np.array([s for s, _, _ in points])
    y = np.array([v for _, v, _ in points])
    mx = float(np.average(x, weights=w))
    my = float(np.average(y, weights=w))
    sxx = float(np.sum(w * (x - mx) ** 2))
    slope = PRIOR_SLOPE
    if len(points) >= 2 and sxx > 1e-6:
        fitted = float(np.sum(w * (x - mx) * (y - my))) / sxx
        strength = sxx / (sxx + float(np.sum(w)) * 0.01)
        slope = strength * fitted + (1 - strength) * PRIOR_SLOPE
    slope = min(max(slope, SLOPE_RANGE[0]), SLOPE_RANGE[1])
    return mx, my, slope
