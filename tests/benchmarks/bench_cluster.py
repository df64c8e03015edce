"""Throughput of the default analysis on a dask LocalCluster against this machine's process pool.

    python tests/benchmarks/bench_cluster.py [--board boards/default.yaml] [--rounds 2] [--quick]

Both run the same seeded analysis with the same number of worker processes, alternating, so load from elsewhere
hits both alike; the figure is games per second and the ratio cluster / pool (goal: at least 0.9). The reports
must be identical apart from the wall time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def games_in(report: dict[str, object]) -> int:
    """Pie and raw games of every agent (the mirror probe and the screen are left out)."""
    total = 0
    for agent in (report.get("per_agent") or {}).values():  # type: ignore[attr-defined]
        total += int(agent.get("pie", {}).get("games", 0)) + int((agent.get("raw") or {}).get("games", 0))
    return total


def main() -> int:
    from core.analysis.config import AnalysisConfig, EffortChoice
    from core.analysis.run import analyze
    from core.board.boardfile import load_board
    from core.selfplay.cluster import DaskSession, parse_cluster

    parser = argparse.ArgumentParser()
    parser.add_argument("--board", default=str(ROOT / "boards" / "default.yaml"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    board = load_board(args.board)
    cfg = AnalysisConfig(workers=args.workers, effort=EffortChoice("quick" if args.quick else ""))
    pool_s: list[float] = []
    cluster_s: list[float] = []
    reports = []
    with DaskSession(parse_cluster(f"local:{args.workers}")) as session:
        for _ in range(args.rounds):
            t = time.perf_counter()
            reports.append(analyze(board, cfg).to_json())
            pool_s.append(time.perf_counter() - t)
            t = time.perf_counter()
            reports.append(analyze(board, cfg, executor=session.executor,
                                   executor_workers=session.worker_count()).to_json())
            cluster_s.append(time.perf_counter() - t)
    same = all({k: v for k, v in r.items() if k != "elapsed_s"} ==
               {k: v for k, v in reports[0].items() if k != "elapsed_s"} for r in reports)
    games = games_in(reports[0])
    best_pool, best_cluster = min(pool_s), min(cluster_s)
    print(f"{args.board}: {games} games per analysis; verdict {reports[0]['verdict']}; identical reports: {same}")
    print(f"process pool ({args.workers} workers): {', '.join(f'{s:.1f}' for s in pool_s)} s; "
          f"best {games / best_pool:.1f} games/s")
    print(f"LocalCluster ({args.workers} workers): {', '.join(f'{s:.1f}' for s in cluster_s)} s; "
          f"best {games / best_cluster:.1f} games/s")
    print(f"throughput ratio cluster / pool: {best_pool / best_cluster:.2f} (goal >= 0.9)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
