"""Placement tables against the counting formula and an independent enumeration."""

from __future__ import annotations

import numpy as np
import pytest

from core.board.model import PIECE_TYPES
from core.engine.pieces import classify, placement_table
from tests.reference_rules import all_pieces


@pytest.mark.parametrize("size", [4, 6, 10, 12, 26])
def test_counts_follow_the_formula(size: int) -> None:
    table = placement_table(size)
    n = size
    expected = {"L": 8 * (n - 1) * (n - 2), "I": 2 * n * (n - 3),
                "T": 4 * (n - 1) * (n - 2), "S": 4 * (n - 1) * (n - 2)}
    got = {PIECE_TYPES[t]: stop - start for t, (start, stop) in enumerate(table.type_range)}
    assert got == expected
    assert table.count == 18 * n * n - 54 * n + 32


def test_known_totals() -> None:
    assert placement_table(12).count == 1976
    assert [b - a for a, b in placement_table(12).type_range] == [880, 216, 440, 440]
    assert placement_table(10).count == 1292


@pytest.mark.parametrize("size", [6, 10, 12])
def test_table_matches_independent_enumeration(size: int) -> None:
    table = placement_table(size)
    ref = all_pieces(size)
    mine = {}
    for i in range(table.count):
        cells = frozenset(divmod(int(c), size) for c in table.cells[i])
        mine[cells] = table.ptype_letter(i)
    assert mine == ref


def test_sorted_by_type_then_cells_and_lookup() -> None:
    table = placement_table(12)
    keys = [(int(table.ptype[i]), tuple(int(c) for c in table.cells[i])) for i in range(table.count)]
    assert keys == sorted(keys)
    assert all(list(k[1]) == sorted(k[1]) for k in keys)
    for i in (0, 500, 1975):
        cells = [int(c) for c in table.cells[i]]
        assert table.index_of(reversed(cells)) == i
        assert table.masks[i] == sum(1 << c for c in cells)
    assert table.index_of([0, 1, 12, 13]) is None  # 2x2 square


def test_classify() -> None:
    assert classify([(0, 0), (1, 0), (2, 0), (2, 1)]) == "L"
    assert classify([(0, 1), (1, 1), (2, 1), (2, 0)]) == "L"  # J is an L
    assert classify([(0, 0), (0, 1), (1, 1), (1, 2)]) == "S"  # Z is an S
    assert classify([(0, 1), (0, 2), (1, 0), (1, 1)]) == "S"
    assert classify([(0, 0), (0, 1), (0, 2), (1, 1)]) == "T"
    assert classify([(5, 5), (6, 5), (7, 5), (8, 5)]) == "I"
    assert classify([(0, 0), (0, 1), (1, 0), (1, 1)]) is None  # square
    assert classify([(0, 0), (0, 1), (0, 2), (0, 4)]) is None  # disconnected
    assert classify([(0, 0), (0, 1), (0, 2)]) is None
    assert classify([(0, 0), (0, 0), (0, 1), (0, 2)]) is None
    assert classify([0, 1, 2, 14], 12) == "L"
    with pytest.raises(TypeError):
        classify([0, 1, 2, 3])


def _members(row: np.ndarray) -> set[int]:
    """The placements a bitset row holds (bit ``i & 63`` of word ``i >> 6``)."""
    return {w * 64 + b for w in range(len(row)) for b in range(64) if int(row[w]) >> b & 1}


def test_incremental_tables_are_consistent() -> None:
    """blk/tch rows equal the sets they stand for, computed the slow way for a sample.

    blk holds what p rules out whatever else is covered: overlap, same type sharing an
    edge, and placements completing a 2x2 window together with p alone.
    """
    size = 8
    table = placement_table(size)

    def nbrs(cell: int) -> set[int]:
        r, c = divmod(cell, size)
        return {rr * size + cc for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1))
                if 0 <= rr < size and 0 <= cc < size}

    cells = [set(int(c) for c in table.cells[i]) for i in range(table.count)]
    for p in range(0, table.count, 53):
        rim = set().union(*(nbrs(c) for c in cells[p])) - cells[p]
        overlap = {q for q in range(table.count) if cells[q] & cells[p]}
        touch = {q for q in range(table.count) if cells[q] & rim} - overlap
        same = {q for q in touch if table.ptype[q] == table.ptype[p]}
        windows = [{r * size + c, r * size + c + 1, (r + 1) * size + c, (r + 1) * size + c + 1}
                   for r in range(size - 1) for c in range(size - 1)]
        fills = {q for q in range(table.count) for w in windows if w & cells[p] and w <= cells[p] | cells[q]}
        blk = _members(table.blk[p])
        assert blk == overlap | same | fills
        assert _members(table.tch[p]) == touch


def test_window_sets_hold_exactly_the_placements_filling_the_open_cells() -> None:
    """``sub`` row 16 * window + mask: the placements that cover every cell of ``mask`` and no other cell of the
    window.  The kernel blocks them once the window's other cells are covered; a placement also covering one of
    those cells overlaps a piece, so overlap has blocked it already and the row need not list it."""
    size = 6
    table = placement_table(size)
    cells = [set(int(c) for c in table.cells[i]) for i in range(table.count)]
    for w in range(table.win_cells.shape[0]):
        quad = [int(c) for c in table.win_cells[w]]
        for mask in range(16):
            row = 16 * w + mask
            listed = _members(table.sub[row])
            open_cells = {quad[q] for q in range(4) if mask >> q & 1}
            if mask in (0, 15):
                assert listed == set()
                continue
            assert listed == {q for q in range(table.count) if cells[q] & set(quad) == open_cells}, (w, mask)
