"""Layouts, pair ranges, locks and local moves: every board the search can write is valid and anti-symmetric."""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.board.geometry import partner
from core.board.model import Board, Symbol
from core.board.validation import Severity, validate
from core.generate.layout import (
    EMPTY,
    LayoutError,
    Locks,
    Mutator,
    PairRange,
    board_of,
    changed_cells,
    distance,
    layout_of,
    pairs_of,
    parse_pair_range,
)


def test_pair_range_parsing_and_messages() -> None:
    assert parse_pair_range("10..20", 12) == PairRange(10, 20)
    assert parse_pair_range(" 10 - 20 ", 12) == PairRange(10, 20)
    assert parse_pair_range("16", 12) == PairRange(16, 16)
    assert PairRange.default_for(12) == PairRange(14, 24)
    with pytest.raises(LayoutError, match="MIN 20 is above MAX 10"):
        parse_pair_range("20..10", 12)
    with pytest.raises(LayoutError, match=r"write MIN\.\.MAX"):
        parse_pair_range("ten..20", 12)
    with pytest.raises(LayoutError, match="at most 72 symbol pairs"):
        parse_pair_range("10..73", 12)
    with pytest.raises(LayoutError, match="at least one pair"):
        parse_pair_range("0", 12)
    with pytest.raises(ValueError, match="odd"):
        parse_pair_range("1..2", 7)


def test_layout_round_trip_and_broken_boards_are_refused() -> None:
    board = Board.random(8, 9, seed=3)
    layout = layout_of(board)
    assert pairs_of(layout) == 9
    assert board_of(layout, 8).cells == board.cells
    broken = board.copy()
    broken.set_raw(0, Symbol.O if board[0] is not Symbol.O else Symbol.X)
    broken.set_raw(partner(0, 8), Symbol.O)
    with pytest.raises(LayoutError, match=r"A1 .*H8.*repair it first"):
        layout_of(broken)


def test_locks_name_cells_and_their_partners() -> None:
    locks = Locks.from_cells([0, 35], 6)  # A1 and its partner F6 are one slot; F6 is cell 35
    assert locks.slots == frozenset({0})
    assert locks.names() == ["A1", "F6"]
    with pytest.raises(LayoutError, match="cell index 36 is not on a 6x6 board"):
        Locks.from_cells([36], 6)


def _check(board: Board, pairs: PairRange, base: Board, locks: Locks) -> None:
    assert board.is_antisymmetric()
    assert not [p for p in validate(board) if p.severity is Severity.ERROR]
    assert pairs.contains(pairs_of(layout_of(board)))
    for cell in locks.cells():
        assert board[cell] is base[cell], f"locked cell {cell} changed"


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.sampled_from([4, 6, 8, 12]), moves=st.integers(1, 5))
def test_moves_keep_locks_range_and_antisymmetry(seed: int, size: int, moves: int) -> None:
    rng = Random(seed)
    half = size * size // 2
    low = rng.randint(1, half // 3)
    pairs = PairRange(low, low + rng.randint(0, half // 3))
    base = Board.random(size, rng.randint(0, pairs.low), seed=seed)
    locks = Locks.from_cells(rng.sample(range(size * size), rng.randint(0, 3)), size)
    mutator = Mutator(size, pairs, locks)
    mutator.check_locked(layout_of(base))
    layout = mutator.random_layout(layout_of(base), rng)
    _check(board_of(layout, size), pairs, base, locks)
    for _ in range(10):
        for _ in range(moves):
            child = mutator.mutate(layout, rng, 1)
            assert distance(child, layout) <= 2  # one move changes one pair (add, remove, turn) or two
            if distance(child, layout) == 0:  # only when nothing may move: locks hold the whole range
                assert not [s for s in mutator.free if layout[s] != EMPTY] and pairs_of(layout) >= pairs.high
            _check(board_of(child, size), pairs, base, locks)
            layout = child


def test_moves_walk_back_into_the_range() -> None:
    size = 6
    pairs = PairRange(6, 8)
    mutator = Mutator(size, pairs)
    rng = Random(1)
    few = layout_of(Board.random(size, 2, seed=1))
    many = layout_of(Board.random(size, 12, seed=1))
    assert pairs_of(mutator.mutate(few, rng, 4)) == 6
    assert pairs_of(mutator.mutate(many, rng, 4)) == 8


def test_every_move_kind_happens() -> None:
    """Steps, moves (including turning a pair round), adds and removes all occur from one layout."""
    size = 6
    mutator = Mutator(size, PairRange(3, 7))
    layout = layout_of(Board.random(size, 5, seed=2))
    rng = Random(0)
    counts = set()
    turned = False
    for _ in range(300):
        child = mutator.mutate(layout, rng, 1)
        counts.add(pairs_of(child) - pairs_of(layout))
        diff = [s for s in range(len(layout)) if layout[s] != child[s]]
        if len(diff) == 1 and layout[diff[0]] != EMPTY and child[diff[0]] != EMPTY:
            turned = True
    assert counts == {-1, 0, 1}
    assert turned


def test_lock_conflicts_are_explained() -> None:
    base = Board.random(6, 8, seed=4)
    occupied = [c for c in range(18) if base[c] is not Symbol.EMPTY]
    mutator = Mutator(6, PairRange(2, 4), Locks.from_cells(occupied, 6))
    with pytest.raises(LayoutError, match="the locked cells hold 8 symbol pairs, more than the 4"):
        mutator.check_locked(layout_of(base))
    with pytest.raises(LayoutError, match="every cell is locked"):
        Mutator(4, PairRange(1, 2), Locks.from_cells(range(16), 4))


def test_changed_cells_lists_both_cells_of_a_pair() -> None:
    a = Board.random(6, 4, seed=5)
    b = a.copy()
    b.paint(7, Symbol.O if a[7] is Symbol.EMPTY else Symbol.EMPTY)
    assert changed_cells(a, b) == sorted({7, partner(7, 6)})
