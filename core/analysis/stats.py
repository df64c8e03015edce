"""Honest statistics for win rates: Wilson intervals, a pair of one-sided SPRTs, means with intervals.

Balance questions are decided sequentially so that clear cases stop early and the
game budget goes to the close ones (see shared notes ``balance.md``).  Each side of
the SPRT pair is a Wald test on Bernoulli outcomes; once a side crosses a bound its
decision is frozen, so the pair's answer never flips back and forth.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

Decision = Literal["H0", "H1"]
PairStatus = Literal["inside", "outside", "undecided"]

DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05
HIGH_SIDE = (0.55, 0.65)
"""High side of the pair: H0 p = 0.55 (not above the band) against H1 p = 0.65 (above it)."""
LOW_SIDE = (0.45, 0.35)
"""Low side of the pair: H0 p = 0.45 (not below the band) against H1 p = 0.35 (below it)."""


def wilson(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval; it stays inside [0, 1] and is honest for small counts and extreme rates.

    scipy computes it; the import is deferred to the first call because loading
    scipy.stats costs over a second, which every ``lits`` start would otherwise pay.
    """
    if trials < 0 or successes < 0 or successes > trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return 0.0, 1.0
    from scipy.stats import binomtest

    ci = binomtest(successes, trials).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def sprt_bounds(alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA) -> tuple[float, float]:
    """Wald's log-likelihood-ratio bounds (accept H0 at or below the first, H1 at or above the second)."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def bernoulli_llr(successes: int, trials: int, p0: float, p1: float) -> float:
    """Log-likelihood ratio of H1 (rate p1) against H0 (rate p0) after ``successes`` of ``trials``."""
    failures = trials - successes
    return successes * math.log(p1 / p0) + failures * math.log((1.0 - p1) / (1.0 - p0))


@dataclass
class Sprt:
    """One sequential probability ratio test on a stream of successes and failures."""

    p0: float
    p1: float
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    successes: int = 0
    trials: int = 0
    decision: Decision | None = None
    decided_at: int = 0

    def __post_init__(self) -> None:
        for name, p in (("p0", self.p0), ("p1", self.p1)):
            if not 0.0 < p < 1.0:
                raise ValueError(f"{name} must lie strictly between 0 and 1, not {p}")
        if self.p0 == self.p1:
            raise ValueError("p0 and p1 must differ")

    @property
    def llr(self) -> float:
        return bernoulli_llr(self.successes, self.trials, self.p0, self.p1)

    def update(self, success: bool) -> Decision | None:
        """Add one outcome; after a decision the test ignores further outcomes."""
        if self.decision is not None:
            return self.decision
        self.trials += 1
        self.successes += int(success)
        low, high = sprt_bounds(self.alpha, self.beta)
        llr = self.llr
        if llr >= high:
            self.decision, self.decided_at = "H1", self.trials
        elif llr <= low:
            self.decision, self.decided_at = "H0", self.trials
        return self.decision


@dataclass
class SprtPair:
    """Is a win rate inside the fair band? Two one-sided SPRTs, one per edge of the band.

    ``outside`` as soon as either side accepts its H1 (the rate is beyond that edge);
    ``inside`` once both sides accept H0; ``undecided`` until then.
    """

    high: Sprt = field(default_factory=lambda: Sprt(*HIGH_SIDE))
    low: Sprt = field(default_factory=lambda: Sprt(*LOW_SIDE))
    successes: int = 0
    trials: int = 0

    @classmethod
    def with_levels(cls, high: tuple[float, float] = HIGH_SIDE, low: tuple[float, float] = LOW_SIDE,
                    alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA) -> SprtPair:
        return cls(high=Sprt(high[0], high[1], alpha, beta), low=Sprt(low[0], low[1], alpha, beta))

    @property
    def status(self) -> PairStatus:
        if self.high.decision == "H1" or self.low.decision == "H1":
            return "outside"
        if self.high.decision == "H0" and self.low.decision == "H0":
            return "inside"
        return "undecided"

    @property
    def decided(self) -> bool:
        return self.status != "undecided"

    def update(self, success: bool) -> PairStatus:
        """Add one outcome (ignored once decided, so the counts say where the decision fell)."""
        if self.decided:
            return self.status
        self.trials += 1
        self.successes += int(success)
        self.high.update(success)
        self.low.update(success)
        return self.status


def expected_remaining(test: Sprt, p: float) -> float:
    """Wald's approximation of the outcomes a test still needs when the true rate is ``p`` (0 once decided).

    Each outcome moves the log-likelihood ratio by a step with mean ``mu`` and variance ``var``; the
    expected exit time of such a walk from between the bounds is ``(dist to the bound it drifts to) / |mu|``,
    or ``(up)(down) / var`` when it has no drift (the slowest case, a rate right at the test's midpoint).
    """
    if test.decision is not None:
        return 0.0
    low, high = sprt_bounds(test.alpha, test.beta)
    llr = test.llr
    up, down = high - llr, llr - low
    win = math.log(test.p1 / test.p0)
    lose = math.log((1.0 - test.p1) / (1.0 - test.p0))
    mu = p * win + (1.0 - p) * lose
    var = p * (1.0 - p) * (win - lose) ** 2
    no_drift = up * down / var if var > 0 else math.inf
    if abs(mu) < 1e-12:
        return no_drift
    # the exact exit time of a drifting walk lies below both the one-sided time and the driftless one
    one_sided = (up if mu > 0 else down) / abs(mu)
    return min(one_sided, no_drift)


def pair_expected_remaining(pair: SprtPair, p: float) -> float:
    """Outcomes the pair still needs at rate ``p``: until one side says "outside" or both say H0."""
    if pair.decided:
        return 0.0
    sides = [expected_remaining(t, p) for t in (pair.high, pair.low)]
    return max(sides)


def sprt_pair_run(outcomes: Iterable[bool], cap: int | None = None,
                  high: tuple[float, float] = HIGH_SIDE, low: tuple[float, float] = LOW_SIDE) -> SprtPair:
    """Feed outcomes in order until the pair decides or ``cap`` outcomes were used."""
    pair = SprtPair.with_levels(high, low)
    for outcome in outcomes:
        if pair.decided or (cap is not None and pair.trials >= cap):
            break
        pair.update(outcome)
    return pair


@dataclass(frozen=True)
class PairOperating:
    """What an SPRT pair does to an opening at a known rate: the chance of each class and the games it takes."""

    inside: float
    outside: float
    undecided: float
    mean_games: float


def pair_operating(p: float, cap: int, high: tuple[float, float] = HIGH_SIDE, low: tuple[float, float] = LOW_SIDE,
                   alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA, stop: bool = True) -> PairOperating:
    """Exact operating figures of :class:`SprtPair` for outcomes at rate ``p``, at most ``cap`` of them.

    ``stop``: the games end once the pair decides (a sequential stop); otherwise all ``cap`` are played and
    the class is the frozen one at the end.  Dynamic programming over (wins, each side's decision), so the
    figures are exact rather than simulated; ``cap`` of a few hundred takes milliseconds.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must lie within 0 and 1, not {p}")
    if cap < 1:
        raise ValueError(f"cap must be at least 1, not {cap}")
    lower, upper = sprt_bounds(alpha, beta)

    def decide(wins: int, n: int, side: tuple[float, float], before: Decision | None) -> Decision | None:
        if before is not None:
            return before
        llr = bernoulli_llr(wins, n, side[0], side[1])
        return "H1" if llr >= upper else "H0" if llr <= lower else None

    states: dict[tuple[int, Decision | None, Decision | None], float] = {(0, None, None): 1.0}
    inside = outside = games = 0.0
    for n in range(1, cap + 1):
        nxt: dict[tuple[int, Decision | None, Decision | None], float] = {}
        for (wins, hi, lo), prob in states.items():
            games += prob
            for won, q in ((1, p), (0, 1.0 - p)):
                if q == 0.0:
                    continue
                key = (wins + won, decide(wins + won, n, high, hi), decide(wins + won, n, low, lo))
                if stop and "H1" in key[1:]:
                    outside += prob * q
                elif stop and key[1:] == ("H0", "H0"):
                    inside += prob * q
                else:
                    nxt[key] = nxt.get(key, 0.0) + prob * q
        states = nxt
    for (_, hi, lo), prob in states.items():  # without a stop: the class the pair holds after the last game
        if "H1" in (hi, lo):
            outside += prob
        elif (hi, lo) == ("H0", "H0"):
            inside += prob
    return PairOperating(inside, outside, max(0.0, 1.0 - inside - outside), games)


@dataclass(frozen=True)
class MeanCI:
    """A sample mean with a two-sided Student-t interval (nan bounds with fewer than two values)."""

    mean: float
    low: float
    high: float
    n: int

    def as_dict(self) -> dict[str, float | int | None]:
        def clean(x: float) -> float | None:
            return None if math.isnan(x) else round(x, 4)
        return {"mean": clean(self.mean), "low": clean(self.low), "high": clean(self.high), "n": self.n}


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> MeanCI:
    """Mean with a t interval; a constant sample gives a zero-width interval rather than an error."""
    n = len(values)
    if n == 0:
        return MeanCI(math.nan, math.nan, math.nan, 0)
    mean = math.fsum(values) / n
    if n < 2:
        return MeanCI(mean, math.nan, math.nan, n)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    from scipy.special import stdtrit  # Student-t quantile; scipy.special loads much faster than scipy.stats

    half = float(stdtrit(n - 1, 0.5 + confidence / 2.0)) * math.sqrt(var / n)
    return MeanCI(mean, mean - half, mean + half, n)
