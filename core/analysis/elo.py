"""Paired-game scoring for duels: score with its Wilson interval, Elo with the interval it implies, and a
sequential test on Elo over pairs.

A duel plays pairs of games: one seed per pair, the agents swap seats between the two games and nobody swaps
sides.  The first-player advantage on LITS boards is large (65-88% with equal agents), so the two games of a
pair are not independent (see :class:`EloSprt` for what that means for the sequential test).
The score interval asked of the report is the plain Wilson interval over games; Elo and its interval are the
logistic transform of the score and of that interval's ends (a score of 0 or 1 has no finite Elo: ``None``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from core.analysis.stats import DEFAULT_ALPHA, DEFAULT_BETA, bernoulli_llr, sprt_bounds, wilson

SprtDecision = Literal["H0", "H1"]


def expected_score(elo: float) -> float:
    """The logistic expected score of a player ``elo`` points stronger than the other."""
    return float(1.0 / (1.0 + 10.0 ** (-elo / 400.0)))


def elo_of(score: float) -> float | None:
    """Elo difference that predicts ``score``; None at 0 and 1, where it is unbounded."""
    if not 0.0 <= score <= 1.0 or math.isnan(score):
        raise ValueError(f"a score lies within 0..1, not {score}")
    if score <= 0.0 or score >= 1.0:
        return None
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: an even score is 0, not -0


@dataclass(frozen=True)
class PairOutcome:
    """One pair of a duel: who won each game (True = A won) with A as S1 first, then A as S2."""

    a_won_as_s1: bool
    a_won_as_s2: bool

    @property
    def a_wins(self) -> int:
        return int(self.a_won_as_s1) + int(self.a_won_as_s2)

    @property
    def s1_wins(self) -> int:
        """Games the first mover won: A as S1 in the first, B as S1 in the second."""
        return int(self.a_won_as_s1) + int(not self.a_won_as_s2)

    @property
    def score(self) -> float:
        """A's score in the pair: 0, 0.5 or 1."""
        return self.a_wins / 2.0


@dataclass(frozen=True)
class DuelScore:
    """What a set of pairs says about A against B."""

    pairs: int
    games: int
    a_wins: int
    s1_wins: int
    score: float
    ci95: tuple[float, float]
    elo: float | None
    elo_ci95: tuple[float | None, float | None]
    s1_win_rate: float
    s1_ci95: tuple[float, float]

    def elo_text(self) -> str:
        """Elo with its interval, e.g. ``+191 [+103, +302]``; unbounded ends read ``-inf`` / ``+inf``."""
        return f"{_signed(self.elo, self.score)} [{_signed(self.elo_ci95[0], self.ci95[0])}, " \
               f"{_signed(self.elo_ci95[1], self.ci95[1])}]"


def _signed(elo: float | None, score: float) -> str:
    if elo is None:
        return "+inf" if score >= 1.0 else "-inf"
    rounded = round(elo)
    return "0" if rounded == 0 else f"{rounded:+d}"  # "-0" read as a loss


def score_pairs(outcomes: Iterable[PairOutcome]) -> DuelScore:
    """Score, Wilson 95% interval, Elo and its interval, and S1's win rate over the given pairs."""
    items = list(outcomes)
    games = 2 * len(items)
    a_wins = sum(o.a_wins for o in items)
    s1_wins = sum(o.s1_wins for o in items)
    score = a_wins / games if games else 0.5
    low, high = wilson(a_wins, games)
    s1_rate = s1_wins / games if games else 0.5
    return DuelScore(
        pairs=len(items), games=games, a_wins=a_wins, s1_wins=s1_wins, score=score, ci95=(low, high),
        elo=elo_of(score), elo_ci95=(None if a_wins == 0 else elo_of(low), None if a_wins == games else elo_of(high)),
        s1_win_rate=s1_rate,
        s1_ci95=wilson(s1_wins, games),
    )


@dataclass
class EloSprt:
    """Sequential test of H0 "A is elo0 stronger" against H1 "elo1 stronger", fed one pair at a time.

    Wald's test on the games as Bernoulli trials with rates ``expected_score(elo0)`` and
    ``expected_score(elo1)``, checked after each pair.  The seat swap makes a pair's two results negatively
    correlated when the first-mover advantage is large, so the pair scores vary less than independent games
    would: treating them as independent overstates the noise, which keeps the error rates at or below alpha
    and beta (the test is conservative, not optimistic).  The normal-approximation GSPRT of chess frameworks
    was not used because it has no variance, hence no decision, while every pair ends the same way.
    Once a bound is crossed the decision is frozen.
    """

    elo0: float
    elo1: float
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    scores: list[float] = field(default_factory=list)
    decision: SprtDecision | None = None
    decided_at: int = 0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1)) or self.elo0 >= self.elo1:
            raise ValueError(f"the SPRT needs ELO0 < ELO1, not {self.elo0:g},{self.elo1:g}")

    @property
    def bounds(self) -> tuple[float, float]:
        return sprt_bounds(self.alpha, self.beta)

    @property
    def llr(self) -> float:
        wins = round(2 * math.fsum(self.scores))
        return bernoulli_llr(wins, 2 * len(self.scores), expected_score(self.elo0), expected_score(self.elo1))

    def update(self, pair_score: float) -> SprtDecision | None:
        """Add one pair's score for A (0, 0.5 or 1)."""
        if self.decision is not None:
            return self.decision
        self.scores.append(float(pair_score))
        low, high = self.bounds
        llr = self.llr
        if llr >= high:
            self.decision, self.decided_at = "H1", len(self.scores)
        elif llr <= low:
            self.decision, self.decided_at = "H0", len(self.scores)
        return self.decision

    def describe(self) -> str:
        low, high = self.bounds
        head = f"SPRT Elo {self.elo0:g} vs {self.elo1:g} (alpha = {self.alpha:g}, beta = {self.beta:g}): " \
               f"LLR {self.llr:+.2f} in [{low:.2f}, {high:.2f}]"
        if self.decision == "H1":
            return f"{head}: accepted H1 (A is at least {self.elo1:g} Elo stronger) after {self.decided_at} pairs"
        if self.decision == "H0":
            return f"{head}: accepted H0 (A is at most {self.elo0:g} Elo stronger) after {self.decided_at} pairs"
        return f"{head}: undecided after {len(self.scores)} pairs"


def parse_sprt(text: str) -> tuple[float, float]:
    """Read ``ELO0,ELO1`` (e.g. ``0,50``); errors say what is wrong."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2:
        raise ValueError(f"--sprt {text!r}: give two Elo values ELO0,ELO1, e.g. 0,50")
    try:
        elo0, elo1 = float(parts[0]), float(parts[1])
    except ValueError:
        raise ValueError(f"--sprt {text!r}: {parts[0]!r} and {parts[1]!r} must both be numbers") from None
    if not (math.isfinite(elo0) and math.isfinite(elo1)):
        raise ValueError(f"--sprt {text!r}: the Elo values must be finite")
    if elo0 >= elo1:
        raise ValueError(f"--sprt {text!r}: ELO0 must be below ELO1")
    if max(abs(elo0), abs(elo1)) > 2000:
        raise ValueError(f"--sprt {text!r}: Elo values beyond +-2000 cannot be told apart by games")
    return elo0, elo1
