"""The same analysis on a real dask LocalCluster (two worker processes on loopback) as on the process pool."""

from __future__ import annotations

import pytest

from core.analysis.config import AnalysisConfig
from core.analysis.run import analyze
from core.board.model import Board
from core.selfplay.cluster import DaskSession, parse_cluster


def _figures(report_json: dict[str, object]) -> dict[str, object]:
    """Everything but the wall time, which is the only thing allowed to differ."""
    return {k: v for k, v in report_json.items() if k != "elapsed_s"}


def test_cluster_gives_the_process_pools_verdict_pie_and_raw_figures() -> None:
    pytest.importorskip("distributed")
    board = Board.random(size=8, pairs=12, seed=11)
    cfg = AnalysisConfig(agents=["greedy", "mcts:40"], games=40, seed=5, workers=2, screen_sims=20,
                         max_candidates=4, strong_raw_games=20, mirror_games=10)
    local = analyze(board, cfg).to_json()
    with DaskSession(parse_cluster("local:2")) as session:
        remote = analyze(board, cfg, executor=session.executor, executor_workers=session.worker_count()).to_json()
    assert _figures(remote) == _figures(local)
    assert local["verdict"] in {"balanced", "lopsided", "inconclusive"}
    assert local["pie"]["tested"] >= 1  # type: ignore[index]
