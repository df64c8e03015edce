"""A verdict is a function of (board, settings, seed) alone: real worker processes, slowed at random or not, one
or two of them, this machine's pool or a dask cluster, a cold engine cache or a warm one, give the same report
apart from its timings."""

from __future__ import annotations

import concurrent.futures as cf
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from core.analysis.config import AnalysisConfig
from core.analysis.results import AnalysisReport
from core.analysis.run import analyze
from core.board.model import Board, GameParams
from tests.paths import REPO

pytestmark = pytest.mark.slow


def board() -> Board:
    return Board.random(size=8, pairs=10, seed=5, params=GameParams(supply=(3, 3, 3, 3)))


def config(**kw: Any) -> AnalysisConfig:
    """A small analysis with every phase: two agents, the refined screen, sequential stops and a cross-check (a
    wide fair band, so that this small board has fair openings to check)."""
    base: dict[str, Any] = {"agents": ["greedy", "puct:40"], "check_agent": "mcts:40", "seed": 3, "games": 40,
                            "decider_games": 120, "pie_games": 240, "max_candidates": 4, "candidates": 6,
                            "screen_sims": 20, "refine_sims": 100, "strong_raw_games": 12, "mirror_games": 12,
                            "fair_low": 0.3, "fair_high": 0.7, "min_fair_openings": 2}
    base.update(kw)
    return AnalysisConfig(**base)


def figures(report: AnalysisReport) -> str:
    data = report.to_json()
    data.pop("elapsed_s")
    return json.dumps(data, sort_keys=True)


def _slowly(fn: Callable[..., Any], seed: int, *args: Any) -> Any:
    """Sleep 0-60 ms, then run: workers finish in a shuffled order, as on a busy machine."""
    time.sleep(random.Random(seed).random() * 0.06)
    return fn(*args)


class SlowPool(cf.Executor):
    """A process pool whose every task is delayed by a random sleep (the artificially slowed worker)."""

    def __init__(self, workers: int) -> None:
        self.inner = cf.ProcessPoolExecutor(workers)
        self.count = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        self.count += 1
        return self.inner.submit(_slowly, fn, self.count, *args)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.inner.shutdown(wait=wait, cancel_futures=cancel_futures)


@pytest.fixture(scope="module")
def reference() -> str:
    report = analyze(board(), config(workers=2))
    assert report.verdict == "balanced" and report.per_agent["puct:40"].raw.games == 12
    assert any(o.check is not None for o in report.pie.openings), "the cross-check never ran"
    return figures(report)


def test_one_worker_gives_what_two_give(reference: str) -> None:
    assert figures(analyze(board(), config(workers=1))) == reference


def test_slowed_workers_give_what_fast_ones_give(reference: str) -> None:
    pool = SlowPool(2)
    try:
        slow = analyze(board(), config(), executor=pool, executor_workers=2)
    finally:
        pool.shutdown(cancel_futures=True)
    assert pool.count > 100  # every game went through the delay
    assert figures(slow) == reference


def test_a_dask_cluster_gives_what_the_process_pool_gives(reference: str) -> None:
    pytest.importorskip("distributed")
    from core.selfplay.cluster import DaskSession, parse_cluster

    with DaskSession(parse_cluster("local:2")) as session:
        remote = analyze(board(), config(), executor=session.executor, executor_workers=session.worker_count())
    assert figures(remote) == reference


COLD_RUN = """
import json, sys
from core.selfplay.worker import load_engine
compiled = load_engine()
from core.analysis.run import analyze
from tests.analysis.test_reproducible import board, config, figures
print(json.dumps({"compiled": compiled, "figures": figures(analyze(board(), config(inline=True)))}))
"""


def test_a_cold_start_compiles_once_and_gives_what_a_warm_one_gives(tmp_path: Path) -> None:
    """Two processes that start at once on an empty engine cache compile it once between them (the other waits
    and loads it); both, and a third on the warm cache, give the same report."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(REPO))

    def start() -> subprocess.Popen[str]:
        return subprocess.Popen([sys.executable, "-c", COLD_RUN], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env, cwd=REPO)

    first, second = start(), start()
    outs = []
    for proc in (first, second):
        out, err = proc.communicate(timeout=1800)
        assert proc.returncode == 0, err[-2000:]
        outs.append(json.loads(out.strip().splitlines()[-1]))
    warm = start()
    out, err = warm.communicate(timeout=600)
    assert warm.returncode == 0, err[-2000:]
    outs.append(json.loads(out.strip().splitlines()[-1]))
    assert sorted(o["compiled"] for o in outs) == [False, False, True]
    assert outs[0]["figures"] == outs[1]["figures"] == outs[2]["figures"]


def test_a_search_s_time_cap_never_cuts_an_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    """``expert`` carries a two-second cap for live play; an analysis plays it on its simulations alone, so a
    machine too slow for the cap gives the same report.  Here every clock reading is ten seconds after the last."""
    import itertools

    import core.agents.puct as puct
    from core.agents.search import gain_for
    from core.engine.kernels import k_new_state, k_seed, kernel_tables

    timed = config(agents=["greedy", "puct:40:t=0.5"], inline=True)
    fast = figures(analyze(board(), timed))
    real = puct.puct_search

    def on_a_slow_machine(*args: Any) -> puct.PuctSearch:
        search, ticks = real(*args), itertools.count()
        search.clock = lambda: 10.0 * next(ticks)
        return search

    monkeypatch.setattr(puct, "puct_search", on_a_slow_machine)
    kt = kernel_tables(board())
    probe = puct.puct_search("puct:40:t=0.5", kt, gain_for(kt), k_seed(1))
    probe.choose(k_new_state(kt))
    assert probe.last_sims < 40  # the slow clock cuts a search that runs on its time cap
    slow = figures(analyze(board(), timed))
    assert json.loads(slow)["per_agent"]["puct:40:t=0.5"]["raw"]["games"] == 12
    assert slow == fast


def two_families() -> AnalysisConfig:
    """The thorough preset's judging in small: a Monte Carlo and an alpha-beta judge, each with the firm check."""
    return config(check_agent="mcts:40+ab:200", check_rule="firm", workers=2)


def test_judges_of_two_families_give_the_same_report_anywhere() -> None:
    """``--effort thorough``'s shape (two judges in turn, the firm check) on one worker, on two slowed ones and on a
    dask cluster: a cluster's extra cores make the run faster, never different."""
    reference = analyze(board(), two_families())
    judged = [o for o in reference.pie.openings if o.judges]
    assert judged and any(len(o.judges) == 2 for o in judged), "the alpha-beta judge never played"
    assert {j.agent for o in judged for j in o.judges} == {"mcts:40", "ab:200"}
    expected = figures(reference)
    assert figures(analyze(board(), replace(two_families(), workers=1))) == expected
    pool = SlowPool(2)
    try:
        slow = analyze(board(), two_families(), executor=pool, executor_workers=2)
    finally:
        pool.shutdown(cancel_futures=True)
    assert figures(slow) == expected
    pytest.importorskip("distributed")
    from core.selfplay.cluster import DaskSession, parse_cluster

    with DaskSession(parse_cluster("local:2")) as session:
        remote = analyze(board(), two_families(), executor=session.executor, executor_workers=session.worker_count())
    assert figures(remote) == expected
