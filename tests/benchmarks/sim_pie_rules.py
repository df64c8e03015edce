"""Benchmark (simulated): how many deciding games a verdict costs under other rules for playing out openings.

Run ``python tests/benchmarks/sim_pie_rules.py [--runs=600] [--seed=1]``.  Normal test runs skip this folder.

Why simulate: a real comparison needs the 30-run verdict benchmark per rule (about 45 minutes of two cores each),
and most of a run's games go to the deciding agent's openings (``club`` pie games were 54 of 89 CPU seconds of the
default board, seed 1; the ``mcts:8000`` judge 26).  Here each opening is a coin with a known S1 rate, played with
the analysis's own SPRT pair (``core.analysis.verdict.sprt_pair``) and the standard effort's caps (400 games per
opening, 1,200 in all, 28 openings at most, 3 fair needed); the judge is left out (it vetoes the same share of
fair openings under every rule).  Two pools of candidate rates:

* ``synthetic``: 30% of candidates within 43-57%, 35% at the band's edges (35-43% or 57-66%), 35% one-sided
  (66-85%);
* ``observed``: the deciding agent's rates on the 30 openings two inconclusive default runs played out
  (``boards/default.yaml`` seed 2 and random-103 seed 1), each drawn with +-3 points of jitter: 20% near even,
  33% at the edges, 47% one-sided.  These are the hard boards, where the budget runs out.

Rules compared: the give-up rule (:func:`core.analysis.verdict.futile`) at other confidences; "racing" (play the
first games of a group of candidates, then carry on with them nearest-to-even first and set aside those whose
first games are far from even); and 2 fair openings needed instead of 3.
"""

from __future__ import annotations

import functools
import math
import random
import statistics
import sys
from collections.abc import Callable
from statistics import NormalDist

from core.analysis.config import AnalysisConfig
from core.analysis.stats import SprtPair, wilson
from core.analysis.verdict import FUTILITY_CONFIDENCE, futile, sprt_pair

CFG = AnalysisConfig.from_effort("standard")
OBSERVED = (0.48, 0.38, 0.75, 0.72, 0.70, 0.74, 0.39, 0.65, 0.41, 0.64, 0.55, 0.82, 0.46, 0.54, 0.62,
            0.35, 0.29, 0.72, 0.76, 0.74, 0.91, 0.18, 0.36, 0.82, 0.54, 0.62, 0.49, 0.91, 0.61, 0.05)
"""S1 rates of ``club`` on the openings played out by two inconclusive standard runs (commit 609eb4f)."""

Pool = Callable[[random.Random], float]
GiveUp = Callable[[int, int], bool]


def synthetic(rng: random.Random, both_sides: bool = False) -> float:
    """``both_sides``: the one-sided openings fall on either side of 50% (``bench_race.py``), not only above."""
    u = rng.random()
    if u < 0.30:
        return rng.uniform(0.43, 0.57)
    if u < 0.65:
        return rng.choice((rng.uniform(0.35, 0.43), rng.uniform(0.57, 0.66)))
    if both_sides:
        return rng.choice((rng.uniform(0.66, 0.85), rng.uniform(0.15, 0.34)))
    return rng.uniform(0.66, 0.85)


def observed(rng: random.Random) -> float:
    return min(0.98, max(0.02, rng.choice(OBSERVED) + rng.uniform(-0.03, 0.03)))


@functools.cache
def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def fast_wilson(wins: int, games: int, confidence: float) -> tuple[float, float]:
    """The Wilson interval in closed form (scipy's, which the analysis calls, is too slow for 10^6 calls)."""
    z = _z(confidence)
    p = wins / games
    d = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / d
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / d
    return centre - half, centre + half


def give_up_rule(confidence: float) -> GiveUp:
    """:func:`core.analysis.verdict.futile` with another confidence (checked against it below at its own)."""
    def rule(wins: int, games: int) -> bool:
        if games < CFG.futility_games:
            return False
        low, high = fast_wilson(wins, games, confidence)
        rate = wins / games
        return ((low > 0.5 or high < 0.5) and high >= CFG.fair_low and low <= CFG.fair_high
                and CFG.fair_low - CFG.sprt_margin <= rate <= CFG.fair_high + CFG.sprt_margin)
    return rule


def check_rule_matches_the_analysis() -> None:
    rule = give_up_rule(FUTILITY_CONFIDENCE)
    for games in range(CFG.futility_games, 200, 7):
        for wins in range(0, games + 1, 3):
            assert rule(wins, games) == futile(wins, games, CFG), (wins, games)
    assert abs(fast_wilson(36, 100, 0.99)[1] - wilson(36, 100, 0.99)[1]) < 1e-9


def play_opening(rng: random.Random, p: float, give_up: GiveUp, cap: int, pair: SprtPair | None = None,
                 wins: int = 0, games: int = 0) -> tuple[SprtPair, int, int]:
    """Games at rate ``p`` until the pair decides, the rule gives up or ``cap`` games were played."""
    pair = pair or sprt_pair(CFG)
    while games < cap and not pair.decided:
        won = rng.random() < p
        games += 1
        wins += won
        pair.update(won)
        if give_up(wins, games):
            break
    return pair, wins, games


def sequential(rng: random.Random, pool: Pool, give_up: GiveUp, need: int = CFG.min_fair_openings) -> tuple[bool, int]:
    """The analysis's loop: one opening at a time until its SPRT pair decides or it is given up."""
    spent = fair = 0
    for _ in range(CFG.candidate_limit):
        left = CFG.pie_budget - spent
        if left < CFG.min_verdict_games:
            break
        pair, _, games = play_opening(rng, pool(rng), give_up, min(CFG.opening_cap, left))
        spent += games
        fair += pair.status == "inside"
        if fair >= need:
            break
    return fair >= need, spent


def racing(rng: random.Random, pool: Pool, give_up: GiveUp, group: int, first: int, far: float) -> tuple[bool, int]:
    """Groups of ``group`` candidates: ``first`` games each, then nearest to even first; a candidate further
    than ``far`` from 50% after its first games is set aside (it would only be finished for a lopsided verdict)."""
    spent = fair = used = 0
    while (used < CFG.candidate_limit and fair < CFG.min_fair_openings
           and CFG.pie_budget - spent >= CFG.min_verdict_games):
        started = []
        for _ in range(min(group, CFG.candidate_limit - used)):
            p = pool(rng)
            used += 1
            pair, wins, games = play_opening(rng, p, lambda _w, _n: False, first)
            spent += games
            started.append((abs(wins / games - 0.5), p, pair, wins, games))
        for distance, p, pair, wins, games in sorted(started, key=lambda s: s[0]):
            if fair >= CFG.min_fair_openings:
                break
            if not pair.decided and distance <= far:
                cap = min(CFG.opening_cap, games + CFG.pie_budget - spent)
                pair, _, more = play_opening(rng, p, give_up, cap, pair, wins, games)
                spent += more - games
            fair += pair.status == "inside"
    return fair >= CFG.min_fair_openings, spent


def even_losses(rng: random.Random, give_up: GiveUp, p: float, trials: int) -> tuple[float, float]:
    """Share of openings at rate ``p`` not shown fair, and their mean games."""
    lost = 0
    games = []
    for _ in range(trials):
        pair, _, n = play_opening(rng, p, give_up, CFG.opening_cap)
        lost += pair.status != "inside"
        games.append(n)
    return lost / trials, statistics.mean(games)


def main(argv: list[str]) -> None:
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    runs = int(opts.get("runs", "600"))
    seed = int(opts.get("seed", "1"))
    check_rule_matches_the_analysis()
    current = give_up_rule(FUTILITY_CONFIDENCE)
    rows: list[tuple[str, Callable[[random.Random, Pool], tuple[bool, int]]]] = [
        (f"one at a time, give up at {FUTILITY_CONFIDENCE:.0%} (the analysis)", lambda r, p: sequential(r, p, current)),
        ("one at a time, give up at 98%", lambda r, p: sequential(r, p, give_up_rule(0.98))),
        ("one at a time, give up at 95%", lambda r, p: sequential(r, p, give_up_rule(0.95))),
        ("racing: groups of 4, 16 first games, set aside beyond 25 points",
         lambda r, p: racing(r, p, current, 4, 16, 0.25)),
        ("racing: groups of 4, 12 first games, set aside beyond 20 points",
         lambda r, p: racing(r, p, current, 4, 12, 0.20)),
        ("racing: groups of 6, 16 first games, set aside beyond 20 points",
         lambda r, p: racing(r, p, current, 6, 16, 0.20)),
        ("2 fair openings needed instead of 3", lambda r, p: sequential(r, p, current, need=2)),
    ]
    print(f"{runs} simulated runs per row and pool, seed {seed}; games = the deciding agent's pie games "
          f"(budget {CFG.pie_budget})\n")
    print("| rule | pool | balanced | median games | mean games of balanced runs |")
    print("| --- | --- | --- | --- | --- |")
    for name, rule in rows:
        for pool_name, pool in (("synthetic", synthetic), ("observed", observed)):
            rng = random.Random(seed)
            results = [rule(rng, pool) for _ in range(runs)]
            ok = [g for b, g in results if b]
            share = len(ok) / runs
            low, high = wilson(len(ok), runs)
            print(f"| {name} | {pool_name} | {share:.1%} [{low:.1%}-{high:.1%}] | "
                  f"{statistics.median(g for _, g in results):.0f} | {statistics.mean(ok) if ok else math.nan:.0f} |")
    print("\n| give-up confidence | opening at 50% not shown fair | games | at 45% not shown fair | games |")
    print("| --- | --- | --- | --- | --- |")
    for confidence in (FUTILITY_CONFIDENCE, 0.98, 0.95):
        rng = random.Random(seed)
        l50, g50 = even_losses(rng, give_up_rule(confidence), 0.5, 3 * runs)
        l45, g45 = even_losses(rng, give_up_rule(confidence), 0.45, 3 * runs)
        print(f"| {confidence:.0%} | {l50:.1%} | {g50:.0f} | {l45:.1%} | {g45:.0f} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
