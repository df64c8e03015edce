from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.board.geometry import parse_cell
from core.board.model import TRANSFORMS, Board, GameParams, Symbol


def test_new_board_is_empty_12x12_with_defaults() -> None:
    board = Board()
    assert board.size == 12
    assert all(s is Symbol.EMPTY for s in board)
    assert board.params == GameParams(supply=(5, 5, 5, 5), first=Symbol.O, pie=True, turn_time=60, bank=300)


def test_painting_sets_the_mirrored_partner() -> None:
    board = Board()
    c3, j10 = parse_cell("C3", 12), parse_cell("J10", 12)
    changes = board.paint(c3, Symbol.O)
    assert board[c3] is Symbol.O
    assert board[j10] is Symbol.X
    assert {(c.cell, c.old, c.new) for c in changes} == {(c3, Symbol.EMPTY, Symbol.O), (j10, Symbol.EMPTY, Symbol.X)}
    board.paint(j10, Symbol.O)
    assert board[j10] is Symbol.O and board[c3] is Symbol.X
    board.paint(c3, Symbol.EMPTY)
    assert board[c3] is Symbol.EMPTY and board[j10] is Symbol.EMPTY
    assert board.is_antisymmetric()


def test_painting_the_same_symbol_twice_changes_nothing() -> None:
    board = Board()
    board.paint(5, Symbol.X)
    assert board.paint(5, Symbol.X) == []


def test_changes_can_be_undone_exactly() -> None:
    board = Board.random(seed=3, pairs=15)
    before = board.copy()
    changes = board.paint(7, Symbol.O) + board.paint(60, Symbol.EMPTY)
    board.apply_changes(reversed(changes), undo=True)
    assert board == before


@given(st.lists(st.tuples(st.integers(0, 143), st.sampled_from(list(Symbol))), max_size=60))
def test_any_sequence_of_paints_stays_antisymmetric(edits: list[tuple[int, Symbol]]) -> None:
    board = Board()
    for cell, symbol in edits:
        board.paint(cell, symbol)
    assert board.is_antisymmetric()
    assert board.count(Symbol.O) == board.count(Symbol.X)


@pytest.mark.parametrize("pairs", [0, 1, 20, 72])
def test_random_fill_places_exactly_n_pairs(pairs: int) -> None:
    board = Board()
    board.random_fill(pairs, random.Random(1))
    assert board.count(Symbol.O) + board.count(Symbol.X) == 2 * pairs
    assert board.is_antisymmetric()


def test_random_fill_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError, match=r"0\.\.72 symbol pairs"):
        Board().random_fill(73, random.Random(1))


@pytest.mark.parametrize("kind", TRANSFORMS)
def test_transforms_keep_antisymmetry_and_counts(kind: str) -> None:
    board = Board.random(pairs=25, seed=9)
    out = board.transformed(kind)
    assert out.is_antisymmetric()
    assert out.count(Symbol.O) + out.count(Symbol.X) == 50
    assert board.transformed(kind) == out  # pure: the original is untouched


def test_rotation_moves_the_top_left_corner_to_the_top_right() -> None:
    board = Board()
    board.paint(0, Symbol.O)
    rotated = board.transformed("rot90")
    assert rotated[11] is Symbol.O
    assert rotated.transformed("rot270") == board
    assert board.transformed("flip_h")[11] is Symbol.O
    assert board.transformed("swap")[0] is Symbol.X


def test_from_rows_and_rows_round_trip() -> None:
    board = Board.random(size=10, pairs=12, seed=4)
    assert Board.from_rows(board.rows()) == Board(size=10, cells=list(board.cells))


def test_broken_pairs_are_found() -> None:
    board = Board()
    board.set_raw(parse_cell("C3", 12), Symbol.O)
    assert board.broken_pairs() == [(parse_cell("C3", 12), parse_cell("J10", 12))]


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"supply": (5, 5, 5)}, "supply needs 4"),
        ({"supply": (5, -1, 5, 5)}, "supply of I"),
        ({"first": Symbol.EMPTY}, "first player"),
        ({"bank": -5}, "bank"),
    ],
)
def test_bad_params_are_refused(kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        GameParams(**kwargs)  # type: ignore[arg-type]


def test_original_game_has_x_first() -> None:
    assert GameParams.original_game().first is Symbol.X


def test_transforms_are_an_enum_and_unknown_ones_are_named() -> None:
    from core.board.model import Transform

    board = Board.random(size=6, pairs=5, seed=3)
    assert board.transformed(Transform.ROT90) == board.transformed("rot90")
    assert board.transformed(Transform.ROT90).transformed(Transform.ROT270) == board
    with pytest.raises(ValueError, match="unknown transform 'spin'; one of rot90, rot180"):
        board.transformed("spin")
