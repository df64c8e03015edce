from __future__ import annotations

from core.board.geometry import parse_cell
from core.board.model import Board, Symbol
from core.board.validation import Severity, describe_pair, is_valid, validate


def cell(name: str) -> int:
    return parse_cell(name, 12)


def test_clean_board_has_no_errors() -> None:
    board = Board.random(pairs=20, seed=5)
    problems = validate(board)
    assert is_valid(problems)
    assert problems == []


def test_every_broken_pair_is_named() -> None:
    board = Board.random(pairs=20, seed=5)
    board.set_raw(cell("C3"), Symbol.EMPTY)
    board.set_raw(cell("J10"), Symbol.EMPTY)
    board.set_raw(cell("C3"), Symbol.O)  # partner J10 now empty
    board.set_raw(cell("A1"), Symbol.X)
    board.set_raw(cell("L12"), Symbol.X)  # both X
    errors = [p for p in validate(board) if p.severity is Severity.ERROR]
    messages = [p.message for p in errors]
    assert "A1 holds X but its partner L12 holds X (it should hold O)" in messages
    assert "C3 holds O but its partner J10 is empty (it should hold X)" in messages
    assert len(errors) == 2
    assert {c for p in errors for c in p.cells} == {cell("A1"), cell("L12"), cell("C3"), cell("J10")}
    assert not is_valid(validate(board))


def test_empty_cell_with_filled_partner_is_described_from_the_filled_side() -> None:
    board = Board()
    board.set_raw(cell("J10"), Symbol.X)
    assert describe_pair(board, cell("C3"), cell("J10")) == "J10 holds X but its partner C3 is empty (it should hold O)"


def test_warnings_for_empty_and_extreme_boards() -> None:
    codes = {p.code for p in validate(Board())}
    assert codes == {"no-symbols"}
    sparse = Board()
    sparse.paint(0, Symbol.O)
    assert {p.code for p in validate(sparse)} == {"low-density"}
    dense = Board.random(pairs=60, seed=1)
    assert {p.code for p in validate(dense)} == {"high-density"}
    assert all(p.severity is Severity.WARNING for p in validate(dense))


def test_unequal_counts_warn() -> None:
    board = Board.random(pairs=20, seed=5)
    empty = next(c for c in range(144) if board[c] is Symbol.EMPTY)
    board.set_raw(empty, Symbol.O)
    codes = {p.code for p in validate(board)}
    assert {"antisymmetry", "symbol-count"} <= codes
