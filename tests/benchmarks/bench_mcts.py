"""Benchmark: MCTS simulations per second on one core on the 12x12 default board.

Run ``python tests/benchmarks/bench_mcts.py [SIMS]``.  Normal test runs skip this folder.
Positions are taken from seeded greedy games at several plies, so the figure mixes
opening positions (long playouts, ~2000 legal placements at the very first move) with
middle-game ones.  The solver is switched off so only the search itself is timed.  CPU
time of this single-threaded process is used so other load on a shared machine
disturbs the figure less than wall time would.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.agents.agent import warm_up  # noqa: E402
from core.agents.search import gain_for, k_mcts, k_simple_move  # noqa: E402
from core.agents.spec import DEFAULT_C  # noqa: E402
from core.board.boardfile import load_board  # noqa: E402
from core.engine.kernels import k_apply, k_new_state, k_seed, kernel_tables  # noqa: E402

GOAL = 100_000
PLIES = (0, 1, 2, 4, 6, 8, 10, 12, 14)


def positions(games: int = 4) -> list[tuple[int, np.ndarray]]:
    board = load_board(ROOT / "boards" / "default.yaml")
    kt = kernel_tables(board)
    gain = gain_for(kt)
    legal = np.empty(kt.nplace, dtype=np.int32)
    out = []
    for g in range(games):
        rng = k_seed(100 + g)
        s = k_new_state(kt)
        for ply in range(max(PLIES) + 1):
            if ply in PLIES:
                out.append((ply, s.copy()))
            p = k_simple_move(kt, s, gain, 1, 0.2, rng, legal)
            if p < 0:
                break
            k_apply(kt, s, p)
    return out


def measure(sims: int = 1000) -> dict[str, object]:
    t0 = time.perf_counter()
    warm_up()
    board = load_board(ROOT / "boards" / "default.yaml")
    kt = kernel_tables(board)
    gain = gain_for(kt)
    warm = time.perf_counter() - t0
    rng = k_seed(1)
    per_ply: dict[int, list[float]] = {}
    total_sims = 0
    total_cpu = 0.0
    for ply, state in positions():
        c0 = time.process_time()
        k_mcts(kt, gain, state, sims, DEFAULT_C, False, rng, False, 0, 0)
        cpu = time.process_time() - c0
        total_sims += sims
        total_cpu += cpu
        per_ply.setdefault(ply, []).append(sims / cpu if cpu > 0 else float("inf"))
    overall = total_sims / total_cpu
    return {
        "sims_per_move": sims,
        "sims_per_s": round(overall),
        "sims_per_s_by_ply": {str(p): round(float(np.median(v))) for p, v in sorted(per_ply.items())},
        "goal": GOAL,
        "meets_goal": overall >= GOAL,
        "warm_up_s": round(warm, 2),
    }


if __name__ == "__main__":
    sims = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print(json.dumps(measure(sims), indent=2))
