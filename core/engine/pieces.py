"""Placement tables: every tetromino placement on a board size, and the bitsets the rules need.

All rules that depend only on geometry are precomputed here once per board size,
so the Python game state (``core.engine.rules``) and the compiled kernels
(``core.engine.kernels``) read the very same tables and cannot disagree:

* a placement's cells and type (mirror images share a type: J is an L, Z is an S);
* ``blk``: placements a placement rules out by itself (overlap, sharing an edge
  with it while being of the same type, or covering every cell of a 2x2 window
  that it leaves open);
* ``tch``: placements that share an edge with it (they become reachable);
* 2x2 windows and, per window and set of still-uncovered cells, the placements
  that would cover all those remaining cells (the dynamic half of the 2x2 rule:
  windows whose other cells earlier pieces had partly covered).

Placements are sorted by type then by their ascending cell tuple, so each type
is one contiguous index range.  Placement bitsets are arrays of uint64 words,
bit ``i`` of the set is bit ``i & 63`` of word ``i >> 6``.  The per-placement and
per-window bitsets are whole rows (``uint64[rows, npw]``): the kernels OR a row in one
pass whose words run as vector instructions.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.board.geometry import check_size, edge_neighbours
from core.board.model import PIECE_TYPES

__all__ = ["PIECE_TYPES", "PlacementTable", "classify", "placement_table", "shapes"]

_BASE_SHAPES: dict[str, tuple[tuple[int, int], ...]] = {
    "L": ((0, 0), (1, 0), (2, 0), (2, 1)),
    "I": ((0, 0), (1, 0), (2, 0), (3, 0)),
    "T": ((0, 0), (0, 1), (0, 2), (1, 1)),
    "S": ((0, 1), (0, 2), (1, 0), (1, 1)),
}

MAX_NEIGHBOURS = 10
"""An I has 10 edge neighbours, every other tetromino fewer."""
MAX_WINDOWS = 16
"""Upper bound on the 2x2 windows one tetromino touches (an L touches 12)."""

U64 = npt.NDArray[np.uint64]


def _normalise(cells: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    pts = list(cells)
    r0 = min(r for r, _ in pts)
    c0 = min(c for _, c in pts)
    return tuple(sorted((r - r0, c - c0) for r, c in pts))


@functools.cache
def shapes() -> dict[tuple[tuple[int, int], ...], str]:
    """Every fixed orientation (normalised to the top-left corner) mapped to its type letter."""
    out: dict[tuple[tuple[int, int], ...], str] = {}
    for letter, base in _BASE_SHAPES.items():
        pts = list(base)
        for _flip in range(2):
            for _turn in range(4):
                pts = [(c, -r) for r, c in pts]
                out[_normalise(pts)] = letter
            pts = [(r, -c) for r, c in pts]
    return out


def classify(cells: Iterable[int] | Iterable[tuple[int, int]], size: int | None = None) -> str | None:
    """Type letter of four cells, or None when they are not a LITS tetromino.

    Cells are ``(row, col)`` pairs, or cell indices when ``size`` is given.  A 2x2
    square, a disconnected set or anything but four distinct cells gives None.
    """
    items = list(cells)
    pts: list[tuple[int, int]] = []
    for item in items:
        if isinstance(item, tuple):
            pts.append((int(item[0]), int(item[1])))
        elif isinstance(item, int | np.integer):
            if size is None:
                raise TypeError("classify() needs the board size to read cell indices")
            pts.append(divmod(int(item), size))
        else:
            return None
    if len(pts) != 4 or len(set(pts)) != 4:
        return None
    return shapes().get(_normalise(pts))


def _words(bits: int, nwords: int) -> U64:
    """A Python-int bitset as little-endian uint64 words."""
    return np.frombuffer(bits.to_bytes(nwords * 8, "little"), dtype=np.uint64).copy()


def _dense(sets: Sequence[int], nwords: int) -> U64:
    """Python-int bitsets as the rows of a uint64[len(sets), nwords] array."""
    out = np.zeros((len(sets), nwords), dtype=np.uint64)
    for i, bits in enumerate(sets):
        out[i] = _words(bits, nwords)
    return out


@dataclass(frozen=True, eq=False)
class PlacementTable:
    """Every placement on one board size plus the incremental rule tables (see module docstring)."""

    size: int
    count: int
    cells: npt.NDArray[np.int16]
    """int16[count, 4], each row ascending (reading order)."""
    ptype: npt.NDArray[np.int8]
    """int8[count], index into PIECE_TYPES."""
    masks: list[int]
    """Python-int cell bitboard per placement (bit = cell index)."""
    type_range: tuple[tuple[int, int], ...]
    """(start, stop) of each type's placements, in PIECE_TYPES order."""
    by_cells: dict[tuple[int, ...], int]
    """Ascending 4-cell tuple -> placement index (use :meth:`index_of` for any order)."""
    covering: tuple[tuple[int, ...], ...]
    """Per cell, the placements that cover it."""
    neighbours: tuple[tuple[int, ...], ...]
    """Per placement, the cells outside it that share an edge with it."""
    ncw: int
    """uint64 words in a cell bitset."""
    npw: int
    """uint64 words in a placement bitset."""
    cell_words: U64
    """uint64[count, ncw]: each placement's cells as a cell bitset."""
    blk: U64
    """uint64[count, npw]: placements ruled out by placing p whatever else is covered: overlap, same type sharing an
    edge, and covering every cell of a 2x2 window that p leaves open."""
    tch: U64
    """uint64[count, npw]: placements sharing an edge with p without overlapping it."""
    win_cells: npt.NDArray[np.int16]
    """int16[nwin, 4]: 2x2 windows as (top-left, top-right, bottom-left, bottom-right)."""
    pwin: npt.NDArray[np.int16]
    """int16[count, MAX_WINDOWS]: windows each placement has a cell in, padded with -1."""
    pwin_rest: npt.NDArray[np.int8]
    """int8[count, MAX_WINDOWS]: per window of pwin, bit q set when window cell q is not in the placement."""
    pwin_n: npt.NDArray[np.int16]
    sub: U64
    """uint64[nwin * 16, npw], row ``window * 16 + m``: placements covering every window cell whose bit is set in m
    and no other cell of the window (row ``window * 16`` is empty)."""
    tmask: U64
    """uint64[4, npw]: the placements of each type."""
    valid: U64
    """uint64[npw]: all placements."""

    def index_of(self, cells: Iterable[int]) -> int | None:
        """Placement index of four cells given in any order, or None."""
        return self.by_cells.get(tuple(sorted(cells)))

    def ptype_letter(self, index: int) -> str:
        return PIECE_TYPES[int(self.ptype[index])]

    @property
    def nwin(self) -> int:
        return int(self.win_cells.shape[0])


@functools.cache
def placement_table(size: int) -> PlacementTable:
    """All placements on a ``size`` x ``size`` board, built once per size."""
    n = check_size(size)
    ncells = n * n
    found: list[tuple[int, tuple[int, int, int, int]]] = []
    for shape, letter in shapes().items():
        height = max(r for r, _ in shape) + 1
        width = max(c for _, c in shape) + 1
        t = PIECE_TYPES.index(letter)
        for r0 in range(n - height + 1):
            for c0 in range(n - width + 1):
                cl = sorted((r0 + r) * n + c0 + c for r, c in shape)
                found.append((t, (cl[0], cl[1], cl[2], cl[3])))
    found.sort()
    count = len(found)
    cells = np.array([c for _, c in found], dtype=np.int16).reshape(count, 4)
    ptype = np.array([t for t, _ in found], dtype=np.int8)
    masks = [sum(1 << c for c in pc) for _, pc in found]
    by_cells: dict[tuple[int, ...], int] = {pcs: i for i, (_, pcs) in enumerate(found)}
    type_range = []
    for t in range(len(PIECE_TYPES)):
        idx = np.flatnonzero(ptype == t)
        type_range.append((int(idx[0]), int(idx[-1]) + 1) if len(idx) else (0, 0))

    covering_lists: list[list[int]] = [[] for _ in range(ncells)]
    for i, (_, pcs) in enumerate(found):
        for c in pcs:
            covering_lists[c].append(i)
    cover_bits = [sum(1 << i for i in lst) for lst in covering_lists]
    type_bits = [((1 << stop) - 1) ^ ((1 << start) - 1) for start, stop in type_range]

    neighbours: list[tuple[int, ...]] = []
    blk_sets: list[int] = []
    tch_sets: list[int] = []
    for t, pcs in found:
        own = set(pcs)
        nb = sorted({m for c in pcs for m in edge_neighbours(c, n)} - own)
        neighbours.append(tuple(nb))
        overlap = 0
        for c in pcs:
            overlap |= cover_bits[c]
        touch = 0
        for m in nb:
            touch |= cover_bits[m]
        blk_sets.append(overlap | (touch & type_bits[t]))
        tch_sets.append(touch & ~overlap)

    nwords_p = (count + 63) // 64
    ncw = (ncells + 63) // 64
    cell_words = _dense(masks, ncw)

    nwin = (n - 1) * (n - 1)
    win_cells = np.zeros((nwin, 4), dtype=np.int16)
    windows_of_cell: list[list[int]] = [[] for _ in range(ncells)]
    for r in range(n - 1):
        for c in range(n - 1):
            w = r * (n - 1) + c
            quad = (r * n + c, r * n + c + 1, (r + 1) * n + c, (r + 1) * n + c + 1)
            win_cells[w] = quad
            for q in quad:
                windows_of_cell[q].append(w)
    sub_sets: list[int] = []
    for w in range(nwin):
        wq = [int(x) for x in win_cells[w]]
        for m in range(16):
            if m == 0 or m == 15:
                sub_sets.append(0)
                continue
            # placements covering every open cell of the window (mask m); those that also cover one of its
            # other cells are left out: that cell is already covered, so overlap has blocked them.
            bits = -1
            for q in range(4):
                bits &= cover_bits[wq[q]] if m >> q & 1 else ~cover_bits[wq[q]]
            sub_sets.append(bits)
    sub = _dense(sub_sets, nwords_p)

    # 2x2 rule, static half: whatever else is covered, a placement covering every cell of a
    # window that p leaves open would fill it.  The kernels add the dynamic half (windows
    # whose open cells were partly covered before p) from pwin/pwin_rest.
    pwin = np.full((count, MAX_WINDOWS), -1, dtype=np.int16)
    pwin_rest = np.zeros((count, MAX_WINDOWS), dtype=np.int8)
    pwin_n = np.zeros(count, dtype=np.int16)
    for i, (_, pcs) in enumerate(found):
        ws = sorted({w for c in pcs for w in windows_of_cell[c]})
        pwin[i, : len(ws)] = ws
        pwin_n[i] = len(ws)
        for j, w in enumerate(ws):
            rest = sum(1 << q for q in range(4) if int(win_cells[w, q]) not in pcs)
            pwin_rest[i, j] = rest
            blk_sets[i] |= sub_sets[w * 16 + rest]
    blk, tch = _dense(blk_sets, nwords_p), _dense(tch_sets, nwords_p)

    tmask = _dense(type_bits, nwords_p)
    valid = _words((1 << count) - 1, nwords_p)

    for arr in (cells, ptype, cell_words, blk, tch, win_cells, pwin, pwin_rest, pwin_n, sub, tmask, valid):
        arr.setflags(write=False)
    return PlacementTable(
        size=n, count=count, cells=cells, ptype=ptype, masks=masks, type_range=tuple(type_range), by_cells=by_cells,
        covering=tuple(tuple(lst) for lst in covering_lists), neighbours=tuple(neighbours), ncw=ncw, npw=nwords_p,
        cell_words=cell_words, blk=blk, tch=tch, win_cells=win_cells, pwin=pwin, pwin_rest=pwin_rest,
        pwin_n=pwin_n, sub=sub, tmask=tmask, valid=valid,
    )
