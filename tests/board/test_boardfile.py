from __future__ import annotations

from pathlib import Path

import pytest

from core.board.boardfile import (
    BoardContentError,
    BoardReadError,
    board_to_text,
    load_board,
    parse_board_text,
    save_board,
)
from core.board.model import Board, GameParams, Symbol
from tests.paths import BOARDS

EMPTY_ROW = "." * 12


def grid_yaml(rows: list[str]) -> str:
    return "grid:\n" + "".join(f"  - '{r}'\n" for r in rows)


def test_grid_only_file_loads_with_defaults(tmp_path: Path) -> None:
    rows = [EMPTY_ROW] * 12
    rows[0] = "O" + "." * 11
    rows[11] = "." * 11 + "X"
    path = tmp_path / "b.yaml"
    path.write_text(grid_yaml(rows))
    board = load_board(path)
    assert board.size == 12
    assert board.params == GameParams()
    assert board[0] is Symbol.O and board[143] is Symbol.X
    assert board.name == ""


def test_save_load_round_trip_keeps_everything(tmp_path: Path) -> None:
    board = Board.random(size=10, pairs=17, seed=2,
                         params=GameParams(supply=(4, 3, 2, 1), first=Symbol.X, pie=False, turn_time=45, bank=120))
    board.name = "Round: trip"
    board.author = "Zoë"
    board.notes = "multi\nline: notes with 'quotes' and # hashes"
    path = tmp_path / "rt.yaml"
    save_board(board, path)
    assert load_board(path) == board
    assert [p.name for p in tmp_path.iterdir()] == ["rt.yaml"]  # no temporary file left behind


def test_save_replaces_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "keep.yaml"
    original = Board.random(pairs=5, seed=1)
    save_board(original, path)
    before = path.read_bytes()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("core.board.fileio.os.replace", broken_replace)
    with pytest.raises(OSError):
        save_board(Board.random(pairs=30, seed=2), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["keep.yaml"]


@pytest.mark.parametrize("name", sorted(p.name for p in BOARDS.glob("*.yaml")))
def test_shipped_boards_load_and_round_trip(name: str) -> None:
    board = load_board(BOARDS / name)
    assert board.is_antisymmetric()
    assert parse_board_text(board_to_text(board)) == board


def test_original_board_has_x_first() -> None:
    board = load_board(BOARDS / "original-10x10.yaml")
    assert board.size == 10 and board.params.first is Symbol.X


BAD_READ = {
    "truncated": ("grid:\n  - '....\n", "that starts on line 2, column 5); is the file truncated?"),
    "alias bomb": ("a: &a ['x','x']\nb: [*a, *a]\ngrid: []\n", "anchors"),
    "alias only": ("grid: *nothing\n", "aliases"),
    "duplicate key": ("pie: true\npie: false\ngrid: []\n", "duplicate key 'pie' (first given on line 1)"),
    "deep nesting": ("grid: " + "[" * 50 + "]" * 50 + "\n", "nested deeper"),
    "tab indentation": ("grid:\n\t- '....'\n", ": line 2: starts with a tab; indent with spaces"),
    "tab after spaces": ("grid:\n  \t- '....'\n", ": line 2: has a tab in its indentation; indent with spaces"),
    "tab inside a line": ("name:\tx\ngrid: []\n",
                          ": line 1, column 6: a tab where only spaces are allowed; write a space instead"),
}


@pytest.mark.parametrize("case", sorted(BAD_READ))
def test_unreadable_yaml_names_file_and_line(tmp_path: Path, case: str) -> None:
    text, fragment = BAD_READ[case]
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(BoardReadError) as info:
        load_board(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert fragment in message


def test_huge_file_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_bytes(b"grid:\n" + b"  - '" + b"." * (10 * 1024 * 1024) + b"'\n")
    with pytest.raises(BoardReadError, match="larger than 256 KiB"):
        load_board(path)


def test_binary_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "image.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    with pytest.raises(BoardReadError, match="binary file"):
        load_board(path)


def test_non_utf8_file_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"name: caf\xe9\ngrid: []\n")
    with pytest.raises(BoardReadError, match="line 1: not UTF-8"):
        load_board(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BoardReadError, match="no such file"):
        load_board(tmp_path / "nope.yaml")


BAD_CONTENT = {
    "wrong row length": (grid_yaml([EMPTY_ROW] * 5 + ["." * 11] + [EMPTY_ROW] * 6),
                         "grid row 6 (line 7): 11 cells, but the grid has 12 rows"),
    "bad character": (grid_yaml([EMPTY_ROW] * 3 + ["...Q........"] + [EMPTY_ROW] * 8),
                      "grid row 4 (line 5), cell D4: 'Q' is not one of"),
    "odd size": (grid_yaml(["." * 11] * 11), "11 rows, an odd size"),
    "too small": (grid_yaml(["."] * 1), "grid: 1 row; a board has 4 to 26 rows"),
    "unknown key": ("colour: red\n" + grid_yaml([EMPTY_ROW] * 12), "key 'colour': unknown key"),
    "unknown supply key": ("supply: {Q: 2}\n" + grid_yaml([EMPTY_ROW] * 12),
                           "key 'supply.Q': unknown key (allowed: L, I, T, S)"),
    "unknown clock key": ("clock: {turns: 2}\n" + grid_yaml([EMPTY_ROW] * 12),
                          "key 'clock.turns': unknown key (allowed: turn, bank)"),
    "missing grid": ("name: x\n", "key 'grid': required but missing"),
    "wrong type": ("pie: 'yes'\n" + grid_yaml([EMPTY_ROW] * 12), "key 'pie'"),
    "bad supply": ("supply: {L: 500}\n" + grid_yaml([EMPTY_ROW] * 12), "key 'supply.L'"),
    "bad first": ("first: Z\n" + grid_yaml([EMPTY_ROW] * 12), "key 'first'"),
    "future version": ("version: 2\n" + grid_yaml([EMPTY_ROW] * 12), "key 'version'"),
}
NOT_A_BOARD = {
    "a list": ("- 1\n- 2\n", "this is not a board file: it holds a list, not the keys of a board (such as grid:)"),
    "empty": ("", "this is not a board file: it is empty (or holds only comments)"),
    "blank lines": ("\n\n# only a comment\n", "this is not a board file: it is empty (or holds only comments)"),
    "a word": ("hello\n", "this is not a board file: it holds plain text, not the keys of a board (such as grid:)"),
    "a game record": ("E6 F6 G6 F7\nswap\n", "it holds plain text, not the keys of a board"),
    "a number": ("12\n", "this is not a board file: it holds a lone number"),
    "a boolean": ("yes\n", "this is not a board file: it holds a lone true or false"),
    "a null": ("~\n", "this is not a board file: it holds nothing but null"),
}


@pytest.mark.parametrize("case", sorted(NOT_A_BOARD))
def test_a_document_that_is_no_mapping_cannot_be_read_as_a_board(tmp_path: Path, case: str) -> None:
    """An empty file is no board file at all, like a binary one (exit 2), not a board with a problem (exit 1)."""
    text, fragment = NOT_A_BOARD[case]
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(BoardReadError) as info:
        load_board(path)
    assert fragment in str(info.value) and not isinstance(info.value, BoardContentError)
    assert not any(word in detail for word in ("document", "mapping", "str", "'grid' key")
                   for detail in info.value.details)


@pytest.mark.parametrize("case", sorted(BAD_CONTENT))
def test_bad_content_names_key_or_row(tmp_path: Path, case: str) -> None:
    text, fragment = BAD_CONTENT[case]
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(BoardContentError) as info:
        load_board(path)
    assert fragment in str(info.value)
    assert str(info.value).startswith(f"{path}: ")


GRID_SHAPES = {
    "a row missing": ([EMPTY_ROW] * 11, ["grid: 11 rows of 12 cells: the grid must be square (is a row missing?)"]),
    "a row too many": ([EMPTY_ROW] * 13,
                       ["grid: 13 rows of 12 cells: the grid must be square (is there one row too many?)"]),
    "two rows missing": ([EMPTY_ROW] * 10,
                         ["grid: 10 rows of 12 cells: the grid must be square (are 2 rows missing?)"]),
    "one row too long": ([EMPTY_ROW] * 11 + ["." * 13],
                         ["grid row 12 (line 13): 13 cells, but the grid has 12 rows and must be square "
                          "(one cell too many)"]),
    "a row missing and one too short": ([EMPTY_ROW] * 10 + ["." * 9],
                                        ["grid: 11 rows of 12 cells: the grid must be square (is a row missing?)",
                                         "grid row 11 (line 12): 9 cells, but the other rows have 12 "
                                         "(3 cells too few)"]),
}


@pytest.mark.parametrize("case", sorted(GRID_SHAPES))
def test_a_grid_that_is_not_square_is_one_problem_not_one_per_row(tmp_path: Path, case: str) -> None:
    rows, expected = GRID_SHAPES[case]
    path = tmp_path / "shape.yaml"
    path.write_text(grid_yaml(rows))
    with pytest.raises(BoardContentError) as info:
        load_board(path)
    assert info.value.details == expected


def test_every_grid_problem_is_reported_at_once(tmp_path: Path) -> None:
    rows = [EMPTY_ROW] * 12
    rows[1] = "." * 13
    rows[4] = "..x........."
    rows[9] = "." * 3
    path = tmp_path / "many.yaml"
    path.write_text(grid_yaml(rows))
    with pytest.raises(BoardContentError) as info:
        load_board(path)
    assert len(info.value.details) == 3


@pytest.mark.parametrize("char", ["\x7f", "\x01", "\x1b", "\ufffe"])
def test_control_character_is_a_read_error_naming_line_and_column(tmp_path: Path, char: str) -> None:
    path = tmp_path / "ctl.yaml"
    path.write_text(grid_yaml([EMPTY_ROW] * 12) + f"notes: |\n  ok {char}\n", encoding="utf-8")
    with pytest.raises(BoardReadError) as info:
        load_board(path)
    assert info.value.details == [f"line 15, column 6: character U+{ord(char):04X} is not allowed in a YAML file "
                                  "(a control character; was the file damaged or is it not a board file?)"]
