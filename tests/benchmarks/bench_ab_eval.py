"""Benchmark: nodes per CPU second of ``ab:N`` with the hand-made, the learned (``eval=net``) and the summed
(``eval=mix``) evaluation.

Run ``python tests/benchmarks/bench_ab_eval.py [NODES] [ROUNDS]``.  Normal test runs skip this folder.

Positions are every other ply of three seeded ``ab:200`` self-play games on the 12x12 default board (the shipped
model).  Per round and evaluation one searcher runs a ``NODES`` search (default 8000) from each position in game
order (so the piece types the model needs are tiled move by move, as in a game); the figure is the nodes visited
per CPU second of this one process.  Evaluations alternate within a round, so a change of load hits all three.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.agents.alphabeta import AlphaBeta  # noqa: E402
from core.agents.search import gain_for  # noqa: E402
from core.agents.spec import parse_ab  # noqa: E402
from core.board.boardfile import load_board  # noqa: E402
from core.engine.kernels import k_apply, k_new_state, k_seed, kernel_tables  # noqa: E402

EVALS = ("hand", "net", "mix")


def main(nodes: int = 8000, rounds: int = 3) -> None:
    kt = kernel_tables(load_board(ROOT / "boards" / "default.yaml"))
    gain = gain_for(kt)
    positions: list[npt.NDArray[np.uint64]] = []
    for seed in range(3):
        player = AlphaBeta(kt, gain, k_seed(seed), parse_ab("ab:200"))
        s = k_new_state(kt)
        ply = 0
        while (move := player.choose(s)) >= 0:
            if ply % 2 == 0:
                positions.append(s.copy())
            k_apply(kt, s, move)
            ply += 1
    print(f"{len(positions)} positions, ab:{nodes}")
    for e in EVALS:  # compile or load the kernels outside the timing
        AlphaBeta(kt, gain, k_seed(1), parse_ab(f"ab:100:eval={e}")).search(positions[0])
    for r in range(rounds):
        for e in EVALS:
            searcher = AlphaBeta(kt, gain, k_seed(1), parse_ab(f"ab:{nodes}:eval={e}"))
            total = 0
            t0 = time.process_time()
            for s in positions:
                total += searcher.search(s).nodes
            spent = time.process_time() - t0
            print(f"round {r} eval={e}: {total} nodes in {spent:.2f} s CPU, {total / spent:,.0f} nodes/s", flush=True)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
