"""How noisy is the replay criterion itself?  Exact figures, no games played (docs/measurements.md).

Run ``python tests/benchmarks/replay_noise.py``.  Normal test runs skip this folder.

The criterion replays every opening a verdict calls fair with ``mcts:8000`` for 60 games and asks that the 95%
Wilson interval reach into the fair band.  This prints:

1. how often a 60-game replay of an opening at a true rate ``t`` falls wholly outside the band;
2. how often *all* replays of 30 or 90 fair openings reach the band when the verdict is perfect (it knows every
   opening's true rate and calls fair exactly those inside the band), for true rates spread like the measured
   ones (about 51% with a standard deviation of 4-6 points, with or without a share of one-sided openings);
3. how many games a sequential test needs to tell an opening at 60% (fair) from one at 66% (not), which is what
   keeping the near-edge misses out would take.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.analysis.config import FAIR_BAND  # noqa: E402  (after the checkout is on the path)
from core.analysis.stats import bernoulli_llr, sprt_bounds, wilson  # noqa: E402
from tests.benchmarks.bench_verdicts import REPLAY_GAMES, reaches_band  # noqa: E402  (the replays it measures)

GRID = [i / 1000 for i in range(100, 901, 2)]
"""True rates the spread is evaluated on."""


def replay_outside(t: float, n: int = REPLAY_GAMES) -> float:
    """P(the n-game replay's 95% interval lies wholly outside the fair band) for an opening at true rate t."""
    return sum(math.comb(n, k) * t**k * (1 - t) ** (n - k) for k in range(n + 1) if not reaches_band(*wilson(k, n)))


def spread(one_sided: float, sd: float) -> list[float]:
    """Weights over GRID: a normal about 51% plus a flat share of one-sided (and any other) openings."""
    weights = [(1 - one_sided) * math.exp(-0.5 * ((t - 0.51) / sd) ** 2) / sd + one_sided / 0.8 for t in GRID]
    total = sum(weights)
    return [w / total for w in weights]


def perfect_verdict_miss(one_sided: float, sd: float) -> float:
    """P(one replay misses) among the openings a perfect verdict calls fair."""
    low, high = FAIR_BAND
    weights = spread(one_sided, sd)
    fair = [(w, t) for w, t in zip(weights, GRID, strict=True) if low <= t <= high]
    return sum(w * replay_outside(t) for w, t in fair) / sum(w for w, _ in fair)


def sprt_games(p: float, p0: float, p1: float, error: float = 0.05, cap: int = 3000) -> tuple[float, float]:
    """(P(the test says p1), mean games) of a Wald SPRT of p0 against p1 for an opening at rate p (exact)."""
    lower, upper = sprt_bounds(error, error)
    paths = {0: 1.0}
    flagged = games = 0.0
    for n in range(1, cap + 1):
        nxt: dict[int, float] = {}
        for k, prob in paths.items():
            games += prob
            for won, q in ((1, p), (0, 1 - p)):
                wins = k + won
                llr = bernoulli_llr(wins, n, p0, p1)
                if llr >= upper:
                    flagged += prob * q
                elif llr > lower:
                    nxt[wins] = nxt.get(wins, 0.0) + prob * q
        paths = nxt
    return flagged, games


def main() -> int:
    print(f"1. a {REPLAY_GAMES}-game replay falls wholly outside {FAIR_BAND[0]:.0%}-{FAIR_BAND[1]:.0%}:")
    for t in (0.5, 0.55, 0.6, 0.62, 0.65, 0.67, 0.7):
        print(f"   true {t:.0%}: {replay_outside(t):.1%}")
    print("2. a perfect verdict (fair = truly inside the band): all replays reach the band")
    for one_sided, sd in ((0.0, 0.05), (0.4, 0.04), (0.4, 0.06)):
        miss = perfect_verdict_miss(one_sided, sd)
        print(f"   sd {sd:.0%}, one-sided share {one_sided:.0%}: a replay misses {miss:.2%}; "
              f"all 30 inside {(1 - miss) ** 30:.0%}, all 90 inside {(1 - miss) ** 90:.0%}")
    print("3. SPRT 60% against 66%, 5% errors either way:")
    for p in (0.5, 0.55, 0.6, 0.63, 0.66, 0.7):
        flagged, games = sprt_games(p, 0.60, 0.66)
        print(f"   opening at {p:.0%}: flagged {flagged:.1%}, {games:.0f} games on average")
    return 0


if __name__ == "__main__":
    sys.exit(main())
