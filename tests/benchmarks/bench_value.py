"""How long the opening predictor takes: every first placement of a board, and one evaluation.

Usage: ``python tests/benchmarks/bench_value.py [MODEL.npz]`` (default: the shipped model).  One process, one thread,
after a warm-up call; the machine's load is printed with the figures.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.agents.summary import summary_of
from core.agents.value import (
    default_model_path,
    k_eval,
    load_model,
    opening_chances,
    position_inputs,
)
from core.board.model import Board
from core.engine.kernels import playout_moves


def main() -> None:
    model = load_model(sys.argv[1] if len(sys.argv) > 1 else default_model_path())
    print(f"model {model.digest[:16]}, layers {model.w1.shape[1]}-{model.w2.shape[1]}, load "
          f"{os.getloadavg()[0]:.1f}")
    for size, pairs in ((10, 30), (12, 20), (12, 43), (14, 60)):
        board = Board.random(size, pairs=pairs, seed=3)
        opening_chances(board, model)
        times = []
        for _ in range(7):
            t = time.perf_counter()
            v = opening_chances(board, model)
            times.append(time.perf_counter() - t)
        best = float(np.median(times))
        print(f"{size}x{size}, {pairs} pairs: every one of {len(v)} openings in {best * 1000:.1f} ms (median of 7), "
              f"{best / len(v) * 1e6:.2f} us an opening with its features")
    board = Board.random(12, pairs=30, seed=3)
    sym, ctype, supply, s1 = position_inputs(board, playout_moves(board, seed=1)[:10])
    x = summary_of(12, sym, ctype, supply, s1)
    out = np.zeros(2, dtype=np.int64)
    k_eval(*model.arrays(), model.q, x, out)
    reps = 20000
    t = time.perf_counter()
    for _ in range(reps):
        k_eval(*model.arrays(), model.q, x, out)
    print(f"one evaluation of the network ({len(x)} inputs), called from Python: "
          f"{(time.perf_counter() - t) / reps * 1e6:.2f} us")
    t = time.perf_counter()
    for _ in range(reps // 10):
        summary_of(12, sym, ctype, supply, s1)
    print(f"the inputs of one position, called from Python: {(time.perf_counter() - t) / (reps // 10) * 1e6:.2f} us")


if __name__ == "__main__":
    main()
