"""Twenty hand-made integer features of a LITS position, for the opening predictor's input.

Why summaries instead of one-hot cells: twenty numbers such as "how many placements are still open over each side's
uncovered symbols" say what matters to the score in a form that means the same on every board size, where the cell
encoding takes about 1,400 bits that a small network must learn to combine.  The features are counts and sums of
integers, computed by one compiled pass over the placements, so they are exact on every machine;
``tests/agents/summary_reference.py`` computes them the obvious way and the tests compare the two feature for feature.

Definitions (``tests/agents/summary_reference.py`` spells them out in plain Python).  A placement is *open* when none
of its cells is covered, its type has supply left, no cell outside it sharing an edge with it is covered by a piece
of its own type, and placing it fills no 2x2 window it has a cell in.  It is *legal* when it is open and touches a
covered cell (or nothing is covered yet): the engine's legal set.  ``count[c]`` is the number of open placements
covering cell ``c``; a placement's *gain* is its cells holding S1's symbol minus those holding S2's.

How the pass stays fast (8 loads per placement, no branch per window): each cell's facts are packed into one int64
of the scratch ``count`` (bits 0-7 the running count, then covered, the types covering an edge neighbour, the symbol,
and per 2x2 window around the cell, as four nibbles, how many of its cells are uncovered).  A placement fills a
window exactly when the window's uncovered cells are the placement's cells in it, i.e. when the nibble equals the
number of the placement's cells in that window; the table holds those numbers per placement cell, and a zero-nibble
test over the XOR finds any match in a few instructions.  Early in a game, when most placements are open, the counts
start from every placement of the types in supply, only placements near the covered cells are looked at, and the
closed ones are taken off; later the counts count up over every placement.
``tests/benchmarks/bench_summary.py`` measures it.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from core.board.model import MAX_SUPPLY as BOARD_MAX_SUPPLY
from core.engine.pieces import placement_table

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]

SUMMARY_NAMES = (
    "score_diff", "s1_unc", "s2_unc", "n_open", "safe1", "safe2", "few1", "few2", "expo1", "expo2", "dead",
    "n_legal", "gain_max", "gain_min", "gain_sum", "supply_left", "types_left", "s1_to_move", "size", "parity",
)
NSUMMARY = len(SUMMARY_NAMES)

MAX_CELLS = 14 * 14
"""Cells of the largest board."""
MAX_PLACEMENTS = 2804
"""Placements on a 14x14 board (the most of any size; ``tests/agents/test_summary.py`` checks the figure): an L has
8 orientations of 12x13 positions, an I 2 of 11x14, a T and an S 4 of 12x13 each."""
MAX_SUPPLY = BOARD_MAX_SUPPLY
"""Pieces per type the bounds below allow for: as many as a board file may give."""
FEW = 3
"""A symbol open to 1..FEW placements counts as *few*."""
EXPO_CAP = 8
"""A symbol's exposure is the open placements over it, capped here (one cell can lie under up to 72: 18 orientations
times 4 cells)."""

SUMMARY_MAX = (
    MAX_CELLS, MAX_CELLS, MAX_CELLS,  # score_diff, s1_unc, s2_unc
    MAX_PLACEMENTS,  # n_open
    MAX_CELLS, MAX_CELLS, MAX_CELLS, MAX_CELLS,  # safe1, safe2, few1, few2
    EXPO_CAP * MAX_CELLS, EXPO_CAP * MAX_CELLS,  # expo1, expo2
    MAX_CELLS,  # dead
    MAX_PLACEMENTS, 4, 4, 4 * MAX_PLACEMENTS,  # n_legal, gain_max, gain_min, gain_sum (a gain is within -4..4)
    4 * MAX_SUPPLY, 4, 1, 14, 1,  # supply_left, types_left, s1_to_move, size, parity
)
"""A true bound on ``abs(feature)`` for any position on a board of size <= 14 with at most MAX_SUPPLY pieces per
type: every count of cells is at most the cell count, every count of placements at most the placement count."""

# Bit layout of one cell's packed facts in the scratch ``count`` (see the module docstring).
_COUNT_MASK = 0xFF
_COV = 1 << 8
_TOUCH_SHIFT = 9  # bit 9 + t: an edge neighbour is covered by a piece of type t
_TOUCH_ALL = 0xF << _TOUCH_SHIFT
_SYM1_SHIFT = 13
_SYM2_SHIFT = 14
_WIN_SHIFT = 16  # nibble q (bits 16 + 4q): uncovered cells of the window at quadrant q, 0xF when off the board
_CELL_MASK = 0xFFFF


@functools.cache
def summary_tables(size: int) -> tuple[I64, I64, I64]:
    """(place, fstart, full) for :func:`k_summary` on a ``size`` x ``size`` board.

    ``place[p, i]``: cell ``i`` of placement ``p`` in bits 0-15 and, in nibble ``q`` of bits 16-31, how many of
    ``p``'s cells lie in the 2x2 window at that cell's quadrant ``q`` (0 when that window is off the board).
    Quadrant q: the window whose top-left (0), top-right (1), bottom-left (2) or bottom-right (3) cell it is.
    ``fstart[t, f]``: the first placement of type ``t`` whose first cell is ``f`` or later (the placement table's
    order), so ``fstart[t, 0]:fstart[t, size * size]`` are all of type ``t``.
    ``full[m, c]``: the placements over cell ``c`` of the types whose bits are set in ``m``."""
    tb = placement_table(size)
    n = tb.size
    cells = tb.cells.astype(np.int64)
    rows, cols = cells // n, cells % n
    place = cells.copy()
    for q, (dr, dc) in enumerate(((0, 0), (0, -1), (-1, 0), (-1, -1))):
        wr = rows + dr  # the window's top-left corner, per placement cell
        wc = cols + dc
        on_board = (wr >= 0) & (wr < n - 1) & (wc >= 0) & (wc < n - 1)
        # per placement cell, how many of the placement's four cells lie in that window
        inside = ((rows[:, None, :] - wr[:, :, None]) & ~1) == 0
        inside &= ((cols[:, None, :] - wc[:, :, None]) & ~1) == 0
        place |= np.where(on_board, inside.sum(axis=2), 0) << (_WIN_SHIFT + 4 * q)
    fstart = np.zeros((4, n * n + 1), dtype=np.int64)
    for t, (start, stop) in enumerate(tb.type_range):
        firsts = cells[start:stop, 0]  # ascending: the table sorts by type, then cells
        fstart[t] = start + np.searchsorted(firsts, np.arange(n * n + 1), side="left")
    per_type = np.zeros((4, n * n), dtype=np.int64)
    np.add.at(per_type, (np.repeat(tb.ptype.astype(np.int64), 4), cells.ravel()), 1)
    types = (np.arange(16)[:, None] >> np.arange(4)) & 1  # [mask, type]: the types whose bits are set
    full = types @ per_type
    for arr in (place, fstart, full):
        arr.setflags(write=False)
    return place, fstart, full


@njit(cache=True, nogil=True)
def k_summary(place: Any, fstart: Any, full: Any, size: int, sym: I8, ctype: I8, supply: I64, s1_to_move: bool,
              count: I64, out: I64) -> None:
    """The NSUMMARY features of a position into ``out`` (int64[NSUMMARY]); allocates nothing.

    ``sym[c]``: 0 none, 1 S1's symbol, 2 S2's; ``ctype[c]``: 0 uncovered, 1-4 covered by L, I, T, S; ``supply``: pieces
    left per type.  ``count`` is int64 scratch of ``size * size`` cells, any contents on entry; on return it holds the
    open placements over each cell."""
    n = size
    ncell = n * n
    # pass 1: covered, symbol; every window nibble starts as "off the board"
    ncov = 0
    rmin = n
    rmax = -1
    cmin = n
    cmax = -1
    for c in range(ncell):
        v = 0xFFFF << _WIN_SHIFT
        if ctype[c] != 0:
            v |= _COV
            ncov += 1
            r = c // n
            col = c - r * n
            rmin = min(rmin, r)
            rmax = max(rmax, r)
            cmin = min(cmin, col)
            cmax = max(cmax, col)
        s = sym[c]
        if s == 1:
            v |= 1 << _SYM1_SHIFT
        elif s == 2:
            v |= 1 << _SYM2_SHIFT
        count[c] = v
    # Counting down from every placement of a type in supply costs less while most placements are open (early in
    # a game), counting up while most are not.
    down = ncov * 6 < ncell
    # Counting down with something covered, a placement with no cell within one step (diagonals too) of a covered
    # cell is open and not legal: nothing to do.  Only placements that may reach the covered cells' bounding box
    # grown by one are visited; a placement starting at (r, c) (its top row's leftmost cell) lies in rows r..r+3 and
    # columns c-2..c+3, so per row of starts that is one run of placements (``fstart``).
    box = down and ncov > 0
    r_lo = max(rmin - 4, 0)
    r_hi = min(rmax + 1, n - 1)
    c_lo = max(cmin - 4, 0)
    c_hi = min(cmax + 3, n - 1)
    mask = 0
    for t in range(4):
        if supply[t] > 0:
            mask |= 1 << t
    # pass 2: the types covering each cell's edge neighbours (and, counting down, the placements over it)
    if ncov > 0 or down:
        for c in range(ncell):
            if down:
                count[c] += full[mask, c]
            ct = np.int64(ctype[c])
            if ct != 0:
                bit = np.int64(1) << (_TOUCH_SHIFT + ct - 1)
                r = c // n
                col = c - r * n
                if r > 0:
                    count[c - n] |= bit
                if r < n - 1:
                    count[c + n] |= bit
                if col > 0:
                    count[c - 1] |= bit
                if col < n - 1:
                    count[c + 1] |= bit
    # pass 3: uncovered cells per window, written into the nibble of each of its four cells
    for wr in range(n - 1):
        for wc in range(n - 1):
            a = wr * n + wc
            b = a + 1
            d = a + n
            e = d + 1
            u = 4 - ((count[a] >> 8) & 1) - ((count[b] >> 8) & 1) - ((count[d] >> 8) & 1) - ((count[e] >> 8) & 1)
            x = 0xF ^ u
            count[a] ^= x << _WIN_SHIFT
            count[b] ^= x << (_WIN_SHIFT + 4)
            count[d] ^= x << (_WIN_SHIFT + 8)
            count[e] ^= x << (_WIN_SHIFT + 12)
    # the placements
    n_open = 0
    n_legal = 0
    gmax = -5
    gmin = 5
    gsum = 0
    for t in range(4):
        if supply[t] <= 0:
            continue
        bad = _COV | (np.int64(1) << (_TOUCH_SHIFT + t))
        runs = 1
        if box:
            n_open += fstart[t, ncell] - fstart[t, 0]
            runs = r_hi - r_lo + 1
        for run in range(runs):
            if box:
                f = (r_lo + run) * n
                lo = fstart[t, f + c_lo]
                hi = fstart[t, f + c_hi + 1]
            else:
                lo = fstart[t, 0]
                hi = fstart[t, ncell]
            for p in range(lo, hi):
                e0 = place[p, 0]
                e1 = place[p, 1]
                e2 = place[p, 2]
                e3 = place[p, 3]
                v0 = count[e0 & _CELL_MASK]
                v1 = count[e1 & _CELL_MASK]
                v2 = count[e2 & _CELL_MASK]
                v3 = count[e3 & _CELL_MASK]
                acc = v0 | v1 | v2 | v3
                # the window nibbles of two cells side by side in 32 bits: a zero nibble is a window this fills
                x01 = (((v0 ^ e0) >> _WIN_SHIFT) & 0xFFFF) | ((v1 ^ e1) & 0xFFFF0000)
                x23 = (((v2 ^ e2) >> _WIN_SHIFT) & 0xFFFF) | ((v3 ^ e3) & 0xFFFF0000)
                hz = ((x01 - 0x11111111) & ~x01) | ((x23 - 0x11111111) & ~x23)
                if (acc & bad) != 0 or (hz & 0x88888888) != 0:
                    if down:
                        count[e0 & _CELL_MASK] -= 1
                        count[e1 & _CELL_MASK] -= 1
                        count[e2 & _CELL_MASK] -= 1
                        count[e3 & _CELL_MASK] -= 1
                    if box:
                        n_open -= 1
                    continue
                if not box:
                    n_open += 1
                if not down:
                    count[e0 & _CELL_MASK] += 1
                    count[e1 & _CELL_MASK] += 1
                    count[e2 & _CELL_MASK] += 1
                    count[e3 & _CELL_MASK] += 1
                if ncov == 0 or (acc & _TOUCH_ALL) != 0:
                    g = (((v0 >> _SYM1_SHIFT) & 1) + ((v1 >> _SYM1_SHIFT) & 1) + ((v2 >> _SYM1_SHIFT) & 1)
                         + ((v3 >> _SYM1_SHIFT) & 1) - ((v0 >> _SYM2_SHIFT) & 1) - ((v1 >> _SYM2_SHIFT) & 1)
                         - ((v2 >> _SYM2_SHIFT) & 1) - ((v3 >> _SYM2_SHIFT) & 1))
                    n_legal += 1
                    gsum += g
                    if g > gmax:
                        gmax = g
                    if g < gmin:
                        gmin = g
    # the cells: each side's counts go straight to their pair of features (S1's at i, S2's at i + 1)
    for i in (1, 2, 4, 5, 6, 7, 8, 9):
        out[i] = 0
    dead = 0
    for c in range(ncell):
        v = count[c]
        k = v & _COUNT_MASK
        count[c] = k  # plain counts for callers who look (a covered cell's is 0)
        if (v & _COV) != 0:
            continue
        if k == 0:
            dead += 1
        side = 0 if (v >> _SYM1_SHIFT) & 1 else 1 if (v >> _SYM2_SHIFT) & 1 else -1
        if side < 0:
            continue
        out[1 + side] += 1
        if k == 0:
            out[4 + side] += 1
        elif k <= FEW:
            out[6 + side] += 1
        out[8 + side] += k if k < EXPO_CAP else EXPO_CAP
    left = 0
    kinds = 0
    for t in range(4):
        left += supply[t]
        if supply[t] > 0:
            kinds += 1
    if n_legal == 0:
        gmax = 0
        gmin = 0
    out[0] = out[1] - out[2]
    out[3] = n_open
    out[10] = dead
    out[11] = n_legal
    out[12] = gmax
    out[13] = gmin
    out[14] = gsum
    out[15] = left
    out[16] = kinds
    out[17] = 1 if s1_to_move else 0
    out[18] = n
    out[19] = left % 2


def summary_of(size: int, sym: npt.ArrayLike, ctype: npt.ArrayLike, supply: npt.ArrayLike,
               s1_to_move: bool) -> I64:
    """The NSUMMARY features of one position (see :func:`k_summary` for the inputs)."""
    ncell = size * size
    sym_a = np.ascontiguousarray(sym, dtype=np.int8)
    ctype_a = np.ascontiguousarray(ctype, dtype=np.int8)
    supply_a = np.ascontiguousarray(supply, dtype=np.int64)
    if sym_a.shape != (ncell,) or ctype_a.shape != (ncell,):
        raise ValueError(f"a {size}x{size} position needs {ncell} symbols and {ncell} cover types, "
                         f"not {sym_a.shape} and {ctype_a.shape}")
    if supply_a.shape != (4,):
        raise ValueError(f"the supply holds 4 counts (L, I, T, S), not {supply_a.shape}")
    for name, arr, top in (("symbol", sym_a, 2), ("cover type", ctype_a, 4)):
        wrong = np.flatnonzero((arr < 0) | (arr > top))
        if len(wrong):
            c = int(wrong[0])
            raise ValueError(f"cell {c} (row {c // size + 1}, column {c % size + 1}) has {name} {int(arr[c])}; "
                             f"a {name} is 0..{top}")
    out = np.zeros(NSUMMARY, dtype=np.int64)
    count = np.empty(ncell, dtype=np.int64)
    k_summary(*summary_tables(size), size, sym_a, ctype_a, supply_a, bool(s1_to_move), count, out)
    return out


__all__ = ["MAX_PLACEMENTS", "NSUMMARY", "SUMMARY_MAX", "SUMMARY_NAMES", "k_summary", "summary_of",
           "summary_tables"]
