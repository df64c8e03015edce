"""Benchmark (simulated games, the analysis's own code): racing openings against playing them one at a time.

Run ``python -m tests.benchmarks.bench_race [--runs=200] [--races=1,6] [--pools=synthetic,observed,edge,edge_far]
[--candidates=28,40] [--alpha=0.05,0.10] [--noise=0.5/0.3,0/0] [--first=1]`` from the repository root (seeds
``first`` to ``first + runs - 1``).  Normal test runs skip this folder.

Why: ``tests/benchmarks/sim_pie_rules.py`` compares rules in a model of the pie loop; this runs the analysis itself
(``core.analysis.run.analyze`` with the standard effort: screen, refinement, candidate picker, SPRTs, the
``mcts:8000`` judge) on the simulated games of ``tests/analysis/simulated.py``, so what it measures is the code a
host runs.  Each run gives every legal opening of ``boards/default.yaml`` a deciding-agent (``club``) rate drawn
from a pool, the judge's rate differs from it by a normal spread of 8 points (strong engines of different families
disagree by about 10 on single openings), the screen and the refinement see the rate through noise of 0.5 and 0.3
(on the hard boards' openings they correlated 0.20 and 0.49 with club's rate, ``docs/measurements.md``).  Costs are
the measured CPU seconds of one game: club 0.093, ``mcts:8000`` 0.359.  Pools as in ``sim_pie_rules.py``
(the synthetic one-sided openings on both sides), and ``edge``: a lopsided board whose every opening lies just
outside the fair band (30-38% or 62-70% for club), where a "balanced" verdict is wrong, and ``edge_far``: the same
with 70% of the openings far from even, so that a run starts many openings; ``--candidates`` sets the most
openings a run may play out while undecided (the effort's ``candidates``); ``--alpha`` sets both error rates of
the SPRT pair that decides each opening (the analysis: 0.05), to see what looser tests would save and cost;
``--noise=S/R,...`` sets the noise through which the screen and the refinement see each rate (default 0.5/0.3),
to see what a better predictor of the deciding agent's rate would save (0/0: a perfect order).
"""

from __future__ import annotations

import functools
import itertools
import math
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import core.analysis.run as run_module
from core.analysis.config import CHECK_AGENT, RACE_ACTIVE, STANDARD, AnalysisConfig
from core.analysis.openings import legal_openings
from core.analysis.run import analyze
from core.analysis.stats import DEFAULT_ALPHA, SprtPair, wilson
from core.analysis.verdict import sprt_pair
from core.board.boardfile import load_board
from tests.analysis.simulated import SimulatedGames
from tests.benchmarks.sim_pie_rules import OBSERVED, synthetic

ROOT = Path(__file__).resolve().parents[2]
COST = {"club": 0.093, CHECK_AGENT: 0.359}
NOISE = (0.5, 0.3)
"""The noise of the screen's and the refinement's view of a rate (their correlation with club's rate)."""


def observed(rng: random.Random) -> float:
    return min(0.98, max(0.02, rng.choice(OBSERVED) + rng.uniform(-0.03, 0.03)))


def edge(rng: random.Random) -> float:
    """An opening of a lopsided board, just outside the fair band on either side."""
    return rng.choice((rng.uniform(0.30, 0.38), rng.uniform(0.62, 0.70)))


def edge_far(rng: random.Random) -> float:
    """A lopsided board of which most openings are far from even (set aside after their first games, so a run
    starts many): 30% just outside the fair band, the rest 5-25% or 75-95%."""
    if rng.random() < 0.30:
        return edge(rng)
    return rng.choice((rng.uniform(0.05, 0.25), rng.uniform(0.75, 0.95)))


POOLS: dict[str, Callable[[random.Random], float]] = {
    "synthetic": functools.partial(synthetic, both_sides=True), "observed": observed, "edge": edge,
    "edge_far": edge_far}


def sprt_pair_at(cfg: AnalysisConfig, alpha: float) -> SprtPair:
    """The analysis's SPRT pair for one opening (``core.analysis.verdict.sprt_pair``) with both error rates
    ``alpha``."""
    pair = sprt_pair(cfg)
    for side in (pair.high, pair.low):
        side.alpha = side.beta = alpha
    return pair


def one_run(seed: int, pool: str, race: int, candidates: int = STANDARD.candidates,
            alpha: float = DEFAULT_ALPHA, noise: tuple[float, float] = NOISE) -> tuple[str, int, int, float]:
    """(verdict, club games, judge games, CPU seconds) of one simulated standard analysis."""
    board = load_board(ROOT / "boards" / "default.yaml")
    rng = random.Random(f"{pool}-{seed}")
    draw = POOLS[pool]
    decider = {p: draw(rng) for p in legal_openings(board)}
    judge = {p: min(0.98, max(0.02, v + rng.gauss(0, 0.08))) for p, v in decider.items()}
    sim = SimulatedGames(board, decider.__getitem__, COST, values={CHECK_AGENT: judge.__getitem__},
                         screen_noise=noise[0], refine_noise=noise[1])
    with pytest.MonkeyPatch.context() as mp:
        sim.install(mp)
        if alpha != DEFAULT_ALPHA:
            mp.setattr(run_module, "sprt_pair", functools.partial(sprt_pair_at, alpha=alpha))
        report = analyze(board, AnalysisConfig.from_effort("standard", agents=["club"], seed=seed, race=race,
                                                           candidates=candidates, inline=True, strong_raw_games=10,
                                                           mirror_games=40),
                         clock=sim.clock)
    pie = report.pie
    judged = sum(j.games for o in pie.openings for j in o.judges)
    return report.verdict, pie.games, judged, pie.games * COST["club"] + judged * COST[CHECK_AGENT]


def main(argv: list[str]) -> None:
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    runs = int(opts.get("runs", "200"))
    first = int(opts.get("first", "1"))
    races = [int(r) for r in opts.get("races", f"1,{RACE_ACTIVE}").split(",")]
    pools = opts.get("pools", "synthetic,observed").split(",")
    limits = [int(c) for c in opts.get("candidates", str(STANDARD.candidates)).split(",")]
    alphas = [float(a) for a in opts.get("alpha", str(DEFAULT_ALPHA)).split(",")]
    noises = [(float(a), float(b)) for a, b in (n.split("/") for n in opts.get("noise", "0.5/0.3").split(","))]
    print(f"{runs} simulated standard analyses per row (seeds {first}-{first + runs - 1}), boards/default.yaml's "
          "openings\n")
    print("| pool | openings | candidates | alpha = beta | noise (screen / refinement) | balanced | inconclusive | "
          "lopsided | median club games | median CPU s (club + judge) | mean CPU s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for pool in pools:
        for r, limit, alpha, noise in itertools.product(races, limits, alphas, noises):
            rows = [one_run(seed, pool, r, limit, alpha, noise) for seed in range(first, first + runs)]
            verdicts = [v for v, *_ in rows]
            ok = verdicts.count("balanced")
            low, high = wilson(ok, runs)
            cpu = [c for *_, c in rows]
            print(f"| {pool} | {'one at a time' if r == 1 else f'raced, {r} in play'} | {limit} | {alpha:g} | "
                  f"{noise[0]:g} / {noise[1]:g} | {ok / runs:.1%} "
                  f"[{low:.1%}-{high:.1%}] | {verdicts.count('inconclusive')} | {verdicts.count('lopsided')} | "
                  f"{statistics.median(g for _, g, _, _ in rows):.0f} | {statistics.median(cpu):.1f} | "
                  f"{statistics.mean(cpu) if cpu else math.nan:.1f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
