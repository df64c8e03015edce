"""How long the summary features take: after every first placement of each bundled board, and on mid-game positions.

Usage: ``python tests/benchmarks/bench_summary.py``.  One process, one thread, after a warm-up call; the loops run
inside a compiled kernel (as the designer's and the searches' callers do), and one figure is a call from Python.
The machine's load is printed with the figures.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.agents.summary import NSUMMARY, k_summary, summary_of, summary_tables
from core.agents.value import position_inputs, symbols_of
from core.board.boardfile import bundled_boards_dir, load_board
from core.board.model import Board
from core.engine.kernels import kernel_tables, playout_moves
from core.engine.pieces import placement_table

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]


@njit(cache=False, nogil=True)
def openings(place: I64, fstart: I64, full: I64, size: int, sym: I8, cells: I64, ptype: I64, supply: I64, ctype: I8,
             count: I64, out: I64) -> int:
    """The features after each first placement (S2 to move); returns a checksum so nothing is optimised away."""
    total = 0
    for p in range(cells.shape[0]):
        t = ptype[p]
        for i in range(4):
            ctype[cells[p, i]] = t + 1
        supply[t] -= 1
        k_summary(place, fstart, full, size, sym, ctype, supply, False, count, out)
        total += out[3] + out[11]
        supply[t] += 1
        for i in range(4):
            ctype[cells[p, i]] = 0
    return total


@njit(cache=False, nogil=True)
def batch(place: I64, fstart: I64, full: I64, size: int, sym: I8, ctypes: I8, supplies: I64,
          movers: npt.NDArray[np.bool_], count: I64, out: I64) -> int:
    total = 0
    for k in range(ctypes.shape[0]):
        k_summary(place, fstart, full, size, sym, ctypes[k], supplies[k], movers[k], count, out)
        total += out[3] + out[11]
    return total


def mid_game(board: Board, games: int, plies: range) -> tuple[I8, I64, npt.NDArray[np.bool_]]:
    """(ctype, supply, S1 to move) per position at ``plies`` of ``games`` random games."""
    ctypes, supplies, movers = [], [], []
    for g in range(games):
        moves = playout_moves(board, seed=7, game=g)
        for k in plies:
            if k < len(moves):
                _, ctype, supply, s1 = position_inputs(board, moves[:k])
                ctypes.append(ctype)
                supplies.append(supply)
                movers.append(s1)
    return np.array(ctypes, dtype=np.int8), np.array(supplies, dtype=np.int64), np.array(movers, dtype=np.bool_)


def best_of(reps: int, fn: object) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def measure(path: Path) -> str:
    """One line of figures for the board at ``path``."""
    board = load_board(path)
    n = board.size
    tables = summary_tables(n)
    tb = placement_table(n)
    sym = symbols_of(kernel_tables(board))
    cells = tb.cells.astype(np.int64)
    ptype = tb.ptype.astype(np.int64)
    supply = np.array(board.params.supply, dtype=np.int64)
    ctype = np.zeros(n * n, dtype=np.int8)
    count = np.zeros(n * n, dtype=np.int64)
    out = np.zeros(NSUMMARY, dtype=np.int64)
    openings(*tables, n, sym, cells, ptype, supply, ctype, count, out)
    t_open = best_of(7, lambda: openings(*tables, n, sym, cells, ptype, supply, ctype, count, out))
    ctypes, supplies, movers = mid_game(board, 40, range(6, 16))
    batch(*tables, n, sym, ctypes, supplies, movers, count, out)
    t_mid = best_of(7, lambda: batch(*tables, n, sym, ctypes, supplies, movers, count, out))
    reps = 2000
    t = time.perf_counter()
    for _ in range(reps):
        summary_of(n, sym, ctypes[0], supplies[0], bool(movers[0]))
    t_py = (time.perf_counter() - t) / reps
    return (f"{path.name} ({n}x{n}, {tb.count} placements): all {tb.count} openings {t_open * 1e3:.1f} ms "
            f"({t_open / tb.count * 1e6:.2f} us each); {len(ctypes)} positions at plies 6-15 "
            f"{t_mid / len(ctypes) * 1e6:.2f} us each; summary_of from Python {t_py * 1e6:.1f} us")


def main() -> None:
    folder = bundled_boards_dir()
    if folder is None:
        raise SystemExit("no bundled boards found")
    print(f"load {os.getloadavg()[0]:.1f}")
    for path in sorted(folder.glob("*.yaml")):
        print(measure(path))


if __name__ == "__main__":
    main()
