"""The board-file loader builds only text, numbers, booleans, nulls, lists and mappings.

Dates are text (``notes: 2026-02-30`` is a note, not a calendar error); every other tag, and every value
a tag cannot hold, is refused with its line; PyYAML's own conversion errors never escape.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import pytest

from core.board import boardfile
from core.board.boardfile import MAX_NODES, BoardContentError, BoardReadError, load_board, parse_board_text
from tests.paths import BOARDS

GRID = 'grid: ["....", "....", "....", "...."]\n'

READ_ERRORS = {
    "timestamp tag": ("notes: !!timestamp 2020-01-01\n", "line 1: the YAML tag !!timestamp is not allowed"),
    "bool tag on a dot": ("pie: !!bool .\n", "line 1: '.' cannot be read as true or false"),
    "float tag on a dot": ("notes: !!float .\n", "line 1: '.' cannot be read as a number"),
    "int tag on a dot": ("notes: !!int .\n", "line 1: '.' cannot be read as a whole number"),
    "hex without digits": ("author: x\nnotes: 0x_\n", "line 2: '0x_' cannot be read as a whole number; put it in "
                                                     "quotes if it is text"),
    "4301-digit integer": ("notes: " + "9" * 4301 + "\n", "(4301 characters) cannot be read as a whole number"),
    "set of a scalar": ("notes: !!set O\n", "line 1: the YAML tag !!set is not allowed"),
    "set of a list": ("notes: !!set [.]\n", "line 1: the YAML tag !!set is not allowed"),
    "set as a key": ("? !!set {a: 1}\n: 2\n", "line 1: the YAML tag !!set is not allowed"),
    "map tag on a scalar": ("notes: !!map O\n", "line 1, column 8: not valid YAML: expected a mapping node"),
    "binary": ("notes: !!binary '@@@'\n", "the YAML tag !!binary is not allowed"),
    "omap": ("supply: !!omap [{L: 1}]\n", "the YAML tag !!omap is not allowed"),
    "python object": ("notes: !!python/object:os.system ls\n", "the YAML tag !!python/object:os.system"),
    "local tag": ("name: !board x\n", "line 1: the YAML tag !board is not allowed"),
    "merge key": ("supply: {!!merge <<: {L: 1}}\n", "the YAML tag !!merge is not allowed"),
    "unpaired surrogate": ('name: "\\ud800"\n', "line 1: the text holds a \\u escape for half of a UTF-16 pair"),
    "too many values": ("notes: [" + ",".join(["1"] * (MAX_NODES + 5)) + "]\n", f"more than {MAX_NODES} values"),
}


@pytest.mark.parametrize("case", sorted(READ_ERRORS))
def test_tags_and_bad_values_are_refused_with_their_line(tmp_path: Path, case: str) -> None:
    text, fragment = READ_ERRORS[case]
    path = tmp_path / "hostile.yaml"
    path.write_text(text + GRID, encoding="utf-8")
    with pytest.raises(BoardReadError) as info:
        load_board(path)
    assert fragment in str(info.value)
    assert str(info.value).startswith(f"{path}: ")


@pytest.mark.parametrize(("value", "got"), [("true", "True"), ("yes", "True"), ("on", "True"), ("1.0", "1.0"),
                                            ("'1'", "'1'"), ("2", "2")])
def test_only_the_integer_1_is_a_version(value: str, got: str) -> None:
    with pytest.raises(BoardContentError) as info:
        parse_board_text(f"version: {value}\n{GRID}", "v.yaml")
    assert "key 'version'" in str(info.value) and got in str(info.value)
    assert parse_board_text(f"version: 1\n{GRID}").size == 4


@pytest.mark.parametrize("date", ["2026-02-30", "2020-13-45", "2026-03-01", "2001-12-14t21:59:43.10-05:00"])
def test_dates_are_text(date: str) -> None:
    board = parse_board_text(f"notes: {date}\nauthor: {date}\n{GRID}")
    assert board.notes == date and board.author == date


def test_dates_where_a_number_belongs_are_named_as_wrong_types() -> None:
    with pytest.raises(BoardContentError, match=r"key 'clock.turn'.*got '2026-02-30'"):
        parse_board_text(f"clock: {{turn: 2026-02-30}}\n{GRID}")


def test_plain_yaml_values_still_load() -> None:
    board = parse_board_text("name: !!str 12\npie: no\nsupply: {L: 0x3, I: 07, T: 1_0, S: !!int '2'}\n"
                             "clock: {turn: 1:30, bank: 300}\n" + GRID)
    assert board.name == "12" and board.params.pie is False
    assert board.params.supply == (3, 7, 10, 2) and board.params.turn_time == 90


def test_the_duplicate_key_check_survives_non_mapping_nodes() -> None:
    """`!!set O` reached the duplicate-key loop, which iterated over a scalar's text."""
    loader = boardfile.StrictLoader("a: 1\n")
    try:
        node = loader.get_single_node()
        scalar = node.value[0][1]
        with pytest.raises(Exception) as info:
            loader.construct_mapping(scalar)
        assert "expected a mapping node" in str(info.value)
    finally:
        loader.dispose()


def _best_load_time(path: Path, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        with contextlib.suppress(BoardReadError, BoardContentError):
            load_board(path)
        best = min(best, time.perf_counter() - start)
    return best


def test_files_near_the_size_cap_parse_in_time_close_to_a_normal_board(tmp_path: Path) -> None:
    """A 256 KiB `notes: [1,1,...]` took 4-11 s (130,000 values); the value cap stops it after 1,000."""
    limit = boardfile.MAX_FILE_BYTES
    shapes = {
        "flow list": b"notes: [" + b",".join([b"1"] * ((limit - 12) // 2)) + b"]\n",
        "flow map": b"notes: {" + b", ".join([b"a: 1"] * ((limit - 12) // 6)) + b"}\n",
        "block list": b"grid:\n" + b"  - '....'\n" * ((limit - 10) // 11),
        "many keys": b"".join(b"k%06d: 1\n" % i for i in range(limit // 11)),
    }
    normal = _best_load_time(BOARDS / "default.yaml")
    for name, data in shapes.items():
        assert len(data) <= limit, name
        path = tmp_path / f"{name}.yaml"
        path.write_bytes(data)
        with pytest.raises(BoardReadError, match=f"more than {MAX_NODES} values"):
            load_board(path)
        ratio = _best_load_time(path) / normal
        assert ratio < 60, f"{name}: {ratio:.0f} times a normal board's load time"
