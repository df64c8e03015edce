"""Benchmark: where a ``puct`` simulation spends its time, and simulations per second.

Run ``python tests/benchmarks/bench_puct_speed.py [SIMS]``.  Normal test runs skip this folder.

Positions are middle-game positions of seeded greedy games on the 12x12 default board (plies 8 to 28, where
100-400 placements are legal).  ``full`` runs ``k_puct_run`` with ``SIMS`` simulations (the default parameters:
gain priors, epsilon-greedy playouts, solver) from a fresh tree per position and reports simulations per CPU
second.  The other lines time one piece of a simulation alone, repeated in a compiled loop, in microseconds per
call: ``playout`` (``k_fast_greedy_playout`` from the position), ``legal_list`` (one ``k_legal_list``),
``expand`` (what one expansion did before the node caches: the parent's legal list scanned for the next move
plus the child's legal list scanned for its first move and its prior sum), ``copy`` (one state copy).
CPU time of this single process is used so other load on a shared machine disturbs the figures less.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.agents.puct import (  # noqa: E402
    DEFAULT_PARAMS,
    NF,
    NI,
    gain_masks,
    k_fast_greedy_playout,
    k_puct_init,
    k_puct_run,
    prior_table,
)
from core.agents.search import gain_for, k_simple_move  # noqa: E402
from core.board.boardfile import load_board  # noqa: E402
from core.engine.kernels import (  # noqa: E402
    H_TO_MOVE,
    KTables,
    k_apply,
    k_copy_state,
    k_legal_list,
    k_new_state,
    k_seed,
    kernel_tables,
)

PLIES = (8, 12, 16, 20, 24, 28)
REPEAT = 2000


def positions(kt: KTables, games: int = 3) -> list[np.ndarray]:
    gain = gain_for(kt)
    legal = np.empty(kt.nplace, dtype=np.int32)
    out = []
    for g in range(games):
        rng = k_seed(200 + g)
        s = k_new_state(kt)
        for ply in range(max(PLIES) + 1):
            if ply in PLIES and k_legal_list(kt, s, legal) > 1:
                out.append(s.copy())
            p = k_simple_move(kt, s, gain, 1, 0.2, rng, legal)
            if p < 0:
                break
            k_apply(kt, s, p)
    return out


@njit(cache=True)
def _loop_playout(kt: KTables, root: Any, gmask: Any, eps: float, rng: Any, n: int) -> int:
    s = np.empty_like(root)
    moves = 0
    for _ in range(n):
        k_copy_state(root, s)
        moves += k_fast_greedy_playout(kt, s, gmask, eps, rng)
    return moves


@njit(cache=True)
def _loop_legal(kt: KTables, root: Any, n: int) -> int:
    legal = np.empty(kt.nplace, dtype=np.int32)
    total = 0
    for _ in range(n):
        total += k_legal_list(kt, root, legal)
    return total


@njit(cache=True)
def _loop_expand(kt: KTables, root: Any, gain: Any, expg: Any, n: int) -> float:
    """Two legal lists with a key scan each, as ``_scan_next`` plus ``_init_node`` did per expansion."""
    legal = np.empty(kt.nplace, dtype=np.int32)
    acc = 0.0
    for r in range(n):
        for _twice in range(2):
            m = k_legal_list(kt, root, legal)
            sym = int(root[H_TO_MOVE])
            best = -1
            z = 0.0
            for i in range(m):
                p = int(legal[i])
                z += expg[sym, p]
                k = (int(gain[sym, p]) + 16) * 4294967296 + (((p * 2654435761) ^ r) & 0xFFFFFFFF)
                if k > best:
                    best = k
            acc += z + best
    return acc


@njit(cache=True)
def _loop_copy(root: Any, n: int) -> int:
    s = np.empty_like(root)
    t = 0
    for _ in range(n):
        k_copy_state(root, s)
        t += int(s[0])
    return t


def _cpu(fn: Any, *args: Any) -> float:
    fn(*args[:-1], 2)  # compile / warm
    c0 = time.process_time()
    fn(*args)
    return time.process_time() - c0


def measure(sims: int = 700) -> dict[str, object]:
    board = load_board(ROOT / "boards" / "default.yaml")
    kt = kernel_tables(board)
    gain = gain_for(kt)
    params = np.array([DEFAULT_PARAMS[k] for k in ("c", "tau", "fpu", "play", "eps", "solver")], dtype=np.float64)
    expg = prior_table(gain, DEFAULT_PARAMS["tau"])
    gmask = gain_masks(kt, gain)
    pos = positions(kt)
    ti = np.empty((sims + 2, NI), dtype=np.int32)
    tf = np.empty((sims + 2, NF), dtype=np.float64)
    rng = k_seed(1)
    k_puct_init(kt, gain, expg, pos[0], ti, tf, rng)
    k_puct_run(kt, gain, expg, gmask, pos[0], ti, tf, 1, 8, params, rng)  # compile / warm
    total_cpu = 0.0
    total_sims = 0
    for s in pos:
        c0 = time.process_time()
        n = k_puct_init(kt, gain, expg, s, ti, tf, rng)
        k_puct_run(kt, gain, expg, gmask, s, ti, tf, n, sims, params, rng)
        total_cpu += time.process_time() - c0
        total_sims += int(ti[0, 3])
    us = 1e6 / (REPEAT * len(pos))
    parts = {
        "playout": sum(_cpu(_loop_playout, kt, s, gmask, DEFAULT_PARAMS["eps"], rng, REPEAT) for s in pos) * us,
        "legal_list": sum(_cpu(_loop_legal, kt, s, REPEAT) for s in pos) * us,
        "expand": sum(_cpu(_loop_expand, kt, s, gain, expg, REPEAT) for s in pos) * us,
        "copy": sum(_cpu(_loop_copy, s, REPEAT) for s in pos) * us,
    }
    return {
        "positions": len(pos),
        "sims_per_move": sims,
        "sims_per_s": round(total_sims / total_cpu),
        "us_per_sim": round(1e6 * total_cpu / total_sims, 2),
        "us_per_call": {k: round(v, 2) for k, v in parts.items()},
    }


if __name__ == "__main__":
    print(json.dumps(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 700), indent=2))
