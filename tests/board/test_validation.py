from __future__ import annotations

import pytest

from core.board.geometry import parse_cell
from core.board.model import Board, GameParams, Symbol
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


def codes(board: Board) -> dict[str, Severity]:
    return {p.code: p.severity for p in validate(board)}


def test_an_empty_supply_is_an_error() -> None:
    board = Board.random(12, 20, seed=4, params=GameParams(supply=(0, 0, 0, 0)))
    assert codes(board)["no-supply"] is Severity.ERROR
    assert not is_valid(validate(board))
    assert "tiny-supply" in codes(Board.random(12, 20, seed=4, params=GameParams(supply=(0, 1, 0, 2))))
    assert "tiny-supply" not in codes(Board.random(12, 20, seed=4, params=GameParams(supply=(0, 4, 0, 0))))


def test_a_clock_without_any_time_is_an_error() -> None:
    board = Board.random(12, 20, seed=4, params=GameParams(turn_time=0, bank=0))
    assert codes(board)["no-time"] is Severity.ERROR
    message = next(p.message for p in validate(board) if p.code == "no-time")
    assert "loses on time before placing anything" in message


@pytest.mark.parametrize(("turn", "bank", "short"), [
    (1, 2, True), (0, 30, True), (4, 0, True), (2, 20, True),  # up to 10 placements each: 50 s at least
    (5, 0, False), (0, 300, False), (60, 300, False), (0, 100, False), (1, 90, False),
])
def test_a_clock_people_cannot_play_warns(turn: int, bank: int, short: bool) -> None:
    board = Board.random(12, 20, seed=4, params=GameParams(turn_time=turn, bank=bank))
    found = codes(board)
    assert ("short-clock" in found) is short
    assert found.get("short-clock", Severity.WARNING) is Severity.WARNING
    assert is_valid(validate(board))


def test_the_bundled_boards_are_playable() -> None:
    from core.board.boardfile import load_board
    from tests.paths import BOARDS

    for path in BOARDS.glob("*.yaml"):
        assert not {"no-supply", "tiny-supply", "no-time", "short-clock"} & set(codes(load_board(path))), path


def test_errors_are_counted_by_kind() -> None:
    from core.board.validation import count_errors

    board = Board.random(pairs=20, seed=5, params=GameParams(supply=(0, 0, 0, 0), turn_time=0, bank=0))
    assert count_errors(validate(board)) == "2 match settings"  # the empty supply and the clock with no time
    board.set_raw(cell("A1"), Symbol.X)
    board.set_raw(cell("L12"), Symbol.X)
    assert count_errors(validate(board)) == "1 broken pair, 2 match settings"
    board.params = GameParams()
    board.set_raw(cell("B1"), Symbol.O)
    board.set_raw(cell("K12"), Symbol.O)
    assert count_errors(validate(board)) == "2 broken pairs"
    assert count_errors(validate(Board.random(pairs=20, seed=5))) == ""
