"""Benchmark: where a ``puct`` simulation spends its time, and simulations per second.

Run ``python tests/benchmarks/bench_puct_speed.py [SIMS]``.  Normal test runs skip this folder.

Positions are every other ply of seeded greedy games on the 12x12 default board, from the first move (1976
legal placements) to the last, as a duel's searches meet them.  Each gets a ``SIMS`` search (``k_puct_run``,
the default parameters: gain priors, epsilon-greedy playouts, solver) from a fresh tree; the figure is
simulations per CPU second.  ``before`` is the straightforward kernel kept in ``tests/agents/puct_reference.py``
(the kernel of commit ad04615; it builds the same trees), timed in the same run, alternating with ``after``,
so ``speed_up`` is a ratio from one run.

``us_per_call`` times one piece of a simulation alone, repeated in a compiled loop, in microseconds:
``playout_before`` / ``playout`` (the epsilon-greedy playout from the position), ``legal_list`` (one
``k_legal_list``), ``expand_before`` (what one expansion did before the node buffers: the parent's legal list
scanned for the next move plus the child's scanned for its first move and its prior sum), ``copy`` (one state
copy).  CPU time of this single process is used so other load on a shared machine disturbs the figures less.
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

import tests.agents.puct_reference as reference  # noqa: E402
from core.agents import puct  # noqa: E402
from core.agents.puct import DEFAULT_PARAMS, gain_masks, k_fast_greedy_playout, kernel_params, prior_table  # noqa: E402
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

PLIES = tuple(range(0, 40, 2))
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
    lw = np.zeros(gmask.shape[2], dtype=np.uint64)
    moves = 0
    for _ in range(n):
        k_copy_state(root, s)
        moves += k_fast_greedy_playout(kt, s, gmask, eps, rng, lw)
    return moves


@njit(cache=True)
def _loop_playout_before(kt: KTables, root: Any, gmask: Any, eps: float, rng: Any, n: int) -> int:
    s = np.empty_like(root)
    moves = 0
    for _ in range(n):
        k_copy_state(root, s)
        moves += reference.k_fast_greedy_playout(kt, s, gmask, eps, rng)
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


def _search_cpu(module: Any, kt: KTables, gain: Any, expg: Any, gmask: Any, s: np.ndarray, sims: int,
                params: Any) -> tuple[float, int]:
    """CPU seconds and simulations of one ``sims`` search from ``s``, fresh tree, seed 1."""
    ti = np.empty((sims + 2, module.NI), dtype=np.int32)
    tf = np.empty((sims + 2, module.NF), dtype=np.float64)
    extra = (np.empty((sims + 2, puct.NB), dtype=np.int32), np.ones(puct.KIDS_PER_NODE * (sims + 2) + 1,
                                                                     dtype=np.int32)) if module is puct else ()
    rng = k_seed(1)
    c0 = time.process_time()
    n = module.k_puct_init(kt, gain, expg, s, ti, tf, rng)
    module.k_puct_run(kt, gain, expg, gmask, s, ti, tf, *extra, n, sims, params, rng)
    return time.process_time() - c0, int(ti[0, module.F_NVIS])


def measure(sims: int = 700, rounds: int = 8) -> dict[str, object]:
    board = load_board(ROOT / "boards" / "default.yaml")
    kt = kernel_tables(board)
    gain = gain_for(kt)
    params = kernel_params({})
    expg = prior_table(gain, DEFAULT_PARAMS["tau"])
    gmask = gain_masks(kt, gain)
    pos = positions(kt)
    modules = {"before": reference, "after": puct}
    cpu = dict.fromkeys(modules, 0.0)
    done = dict.fromkeys(modules, 0)
    for module in modules.values():
        _search_cpu(module, kt, gain, expg, gmask, pos[0], 8, params)  # compile / warm
    for _ in range(rounds):
        for s in pos:  # alternate position by position, so load on a shared machine falls on both alike
            for name, module in modules.items():
                c, d = _search_cpu(module, kt, gain, expg, gmask, s, sims, params)
                cpu[name] += c
                done[name] += d
    rate = {name: done[name] / cpu[name] for name in cpu}
    rng = k_seed(1)
    us = 1e6 / (REPEAT * len(pos))
    parts = {
        "playout_before": sum(_cpu(_loop_playout_before, kt, s, gmask, DEFAULT_PARAMS["eps"], rng, REPEAT)
                              for s in pos) * us,
        "playout": sum(_cpu(_loop_playout, kt, s, gmask, DEFAULT_PARAMS["eps"], rng, REPEAT) for s in pos) * us,
        "legal_list": sum(_cpu(_loop_legal, kt, s, REPEAT) for s in pos) * us,
        "expand_before": sum(_cpu(_loop_expand, kt, s, gain, expg, REPEAT) for s in pos) * us,
        "copy": sum(_cpu(_loop_copy, s, REPEAT) for s in pos) * us,
    }
    return {
        "positions": len(pos),
        "sims_per_move": sims,
        "sims_per_s_before": round(rate["before"]),
        "sims_per_s_after": round(rate["after"]),
        "speed_up": round(rate["after"] / rate["before"], 3),
        "us_per_sim_after": round(1e6 / rate["after"], 2),
        "us_per_call": {k: round(v, 2) for k, v in parts.items()},
    }


if __name__ == "__main__":
    print(json.dumps(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 700), indent=2))
