"""Benchmark: judges' opening values on 6x6 boards against the exactly solved values (docs/alphabeta.md).

Run ``python tests/benchmarks/bench_ab_exact.py [--boards N] [--ab SPEC] [--puct SPEC] [--seed S]``.  Normal test
runs skip this folder.

Boards are ``Board.random(size=6, pairs=4 + i % 3, seed=S + i)`` for i < N, small enough that every opening (every
legal first placement) is solved exactly by the compiled endgame solver (``k_solve``, checked against a plain
minimax in ``tests/agents/test_solver_exact.py``).  For each opening each judge searches the position after it
once, from its own seed, and gives the first player's (S1's) expected share: ``ab`` from its search value
(1 or 0 when it proved the game), ``puct`` from the root's simulations (``refine`` of the analysis).  A judge
*agrees* when its share is on the solved winner's side of one half.  Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.agents.agent import make_agent  # noqa: E402
from core.agents.alphabeta import share  # noqa: E402
from core.agents.puct import PuctSearch, root_share  # noqa: E402
from core.agents.search import gain_for, k_solve  # noqa: E402
from core.agents.spec import parse_puct  # noqa: E402
from core.analysis.stats import wilson  # noqa: E402
from core.board.model import Board  # noqa: E402
from core.engine.kernels import H_SUPPLY, k_apply, k_legal_list, k_new_state, k_seed, kernel_tables  # noqa: E402

SOLVE_BUDGET = 50_000_000


def judge_board(board: Board, ab_spec: str, puct_spec: str, seed: int) -> list[dict[str, Any]]:
    import numpy as np

    kt = kernel_tables(board)
    gain = gain_for(kt)
    start = k_new_state(kt)
    legal = np.empty(kt.nplace, dtype=np.int32)
    n = int(k_legal_list(kt, start, legal))
    ps = parse_puct(puct_spec)
    rows = []
    for i in range(n):
        p = int(legal[i])
        s = start.copy()
        k_apply(kt, s, p)
        left = sum(int(s[H_SUPPLY + t]) for t in range(4))
        res, _move = k_solve(kt, s, SOLVE_BUDGET, min(left, 60))
        if res < 0:
            continue  # not solved within the budget: left out (counted in the output)
        s1_wins = res == 0  # the side to move after the opening is S2
        ab = make_agent(ab_spec, board, seed + i)
        ab.choose(s)
        last = ab._chooser.last  # type: ignore[union-attr]
        ab_s1 = 1.0 - share(last.value) if last.move >= 0 else 1.0
        tree = PuctSearch(kt, gain, k_seed(seed + i), ps.budget, params=ps.params).search(s)
        rows.append({"opening": p, "s1_wins": s1_wins, "ab": ab_s1, "puct": root_share(tree),
                     "ab_proven": abs(last.value) >= 1_000_000})
    return rows


def summary(rows: list[dict[str, Any]], judge: str) -> dict[str, Any]:
    agree = sum((r[judge] > 0.5) == r["s1_wins"] for r in rows)
    lo, hi = wilson(agree, len(rows))
    error = sum(abs(r[judge] - (1.0 if r["s1_wins"] else 0.0)) for r in rows) / max(1, len(rows))
    return {"agree": agree, "of": len(rows), "rate": round(agree / max(1, len(rows)), 3),
            "ci95": [round(lo, 3), round(hi, 3)], "mean_abs_error": round(error, 3)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=6)
    ap.add_argument("--ab", default="ab:3000")
    ap.add_argument("--puct", default="puct:2000")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    per_board = []
    all_rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for i in range(args.boards):
        board = Board.random(size=6, pairs=4 + i % 3, seed=args.seed + i)
        rows = judge_board(board, args.ab, args.puct, 1000 * (args.seed + i))
        all_rows += rows
        share_s1 = sum(r["s1_wins"] for r in rows) / max(1, len(rows))
        per_board.append({"seed": args.seed + i, "pairs": 4 + i % 3, "openings": len(rows),
                          "s1_wins_share": round(share_s1, 3), "ab": summary(rows, "ab"),
                          "puct": summary(rows, "puct"),
                          "ab_proven": sum(r["ab_proven"] for r in rows),
                          "ab_proven_wrong": sum(r["ab_proven"] and (r["ab"] > 0.5) != r["s1_wins"] for r in rows)})
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    print(json.dumps({"commit": commit.stdout.strip(), "ab": args.ab, "puct": args.puct,
                      "seconds": round(time.perf_counter() - t0, 1), "boards": per_board,
                      "total": {"ab": summary(all_rows, "ab"), "puct": summary(all_rows, "puct"),
                                "ab_proven": sum(r["ab_proven"] for r in all_rows),
                                "ab_proven_wrong": sum(b["ab_proven_wrong"] for b in per_board)}}, indent=1))


if __name__ == "__main__":
    main()
