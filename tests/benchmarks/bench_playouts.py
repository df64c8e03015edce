"""Benchmark: random playouts per second on one core, and the Python state's legal-move latency.

Run ``python tests/benchmarks/bench_playouts.py [GAMES]`` (or through pytest by naming this
file).  Normal test runs skip this folder.  CPU time of this single-threaded process is used,
so other load on a shared machine disturbs the figure less than wall time would; the best
of several runs is reported next to every run.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.board.boardfile import load_board  # noqa: E402
from core.engine.kernels import random_playouts  # noqa: E402
from core.engine.rules import GameState  # noqa: E402

TARGET = 145_000


def measure(games: int = 30_000, runs: int = 5) -> dict[str, float]:
    board = load_board(ROOT / "boards" / "default.yaml")
    t0 = time.perf_counter()
    random_playouts(board, 10, seed=0)
    warmup = time.perf_counter() - t0
    rates = []
    for run in range(runs):
        c0 = time.process_time()
        w0 = time.perf_counter()
        random_playouts(board, games, seed=run + 1)
        cpu = time.process_time() - c0
        wall = time.perf_counter() - w0
        rates.append((games / cpu, games / wall))
    state = GameState(board)
    rng = random.Random(1)
    for _ in range(8):
        state.push(rng.choice(list(state.legal_placements())))
    reps = 1000
    l0 = time.perf_counter()
    for _ in range(reps):
        list(state.legal_placements())
    legal_us = (time.perf_counter() - l0) / reps * 1e6
    best_cpu = max(r[0] for r in rates)
    for cpu_rate, wall_rate in rates:
        print(f"  run: {cpu_rate:10,.0f} playouts/s (CPU time)  {wall_rate:10,.0f} /s (wall)")
    print(f"random playouts, 12x12 default board: best {best_cpu:,.0f} /s on one core (target {TARGET:,})")
    print(f"first compile / cache load: {warmup:.2f} s")
    print(f"Python legal moves (list) in a midgame position: {legal_us:.1f} us")
    return {"playouts_per_s": best_cpu, "warmup_s": warmup, "legal_us": legal_us}


def test_bench_playouts() -> None:
    result = measure(games=20_000, runs=3)
    assert result["legal_us"] < 1000


if __name__ == "__main__":
    measure(int(sys.argv[1]) if len(sys.argv) > 1 else 30_000)
