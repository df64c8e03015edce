"""Placement notation: parsing in any order/case/separator, canonical form, specific errors."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.board.geometry import cell_name
from core.engine.pieces import placement_table
from core.engine.rules import (
    NotAPieceError,
    NotationError,
    NotFourCellsError,
    Placement,
    UnknownCellError,
    all_placements,
)


def test_parse_any_order_case_and_separators() -> None:
    canonical = Placement.parse("A1 B1 C1 D1", 12)
    for text in ("d1 c1 b1 a1", "A1,B1,C1,D1", " a1 ,  B1,c1\tD1 ", "C1, A1 D1,,B1"):
        assert Placement.parse(text, 12) == canonical
    assert canonical.notation() == "A1 B1 C1 D1"
    assert canonical.ptype == "I" and canonical.cells == (0, 1, 2, 3)
    assert str(canonical) == "A1 B1 C1 D1"


def test_parse_what_people_post() -> None:
    """Dashes, semicolons, slashes, or the names written together, as posts in a game room come."""
    canonical = Placement.parse("E6 F6 G6 F7", 12)
    for text in ("e6,f6,g6,f7", "E6-F6-G6-F7", "e6f6g6f7", "F7 E6 F6 G6", "e6;f6/g6 - f7",
                 "E6\u2013F6\u2013G6\u2013F7"):
        assert Placement.parse(text, 12) == canonical
    assert Placement.parse("a10b10c10d10", 12).notation() == "A10 B10 C10 D10"
    with pytest.raises(NotFourCellsError, match="3 cells given"):
        Placement.parse("e6f6g6", 12)
    with pytest.raises(UnknownCellError, match="'a123' is not a cell name"):
        Placement.parse("a123 b1 c1 d1", 12)
    # a space typed inside a cell name: the message gives the cell the host meant
    with pytest.raises(UnknownCellError) as info:
        Placement.parse("e 6 f6 g6 f7", 12)
    assert str(info.value) == ("'e 6' is not a cell name: write the column letter and the row number together, "
                               "e.g. E6")


def test_canonical_is_reading_order() -> None:
    p = Placement.parse("B3 A2 B2 B1", 12)
    assert p.notation() == "B1 A2 B2 B3"  # row by row, left to right
    assert p.ptype == "T"
    assert p.cell_names() == ["B1", "A2", "B2", "B3"]


@pytest.mark.parametrize("text, error, words", [
    ("", NotFourCellsError, "no cells"),
    ("A1 B1 C1", NotFourCellsError, "3 cells"),
    ("A1 B1 C1 D1 E1", NotFourCellsError, "5 cells"),
    ("A1 B1 C1 a1", NotFourCellsError, "A1 is named twice"),
    ("A1 B1 A2 B2", NotAPieceError, "2x2 square"),
    ("A1 B1 C1 E1", NotAPieceError, "not connected"),
    ("A1 B2 C3 D4", NotAPieceError, "not connected"),
    ("A1 B1 C1 M1", UnknownCellError, "column M is off the 12x12 board"),
    ("A1 B1 C1 A13", UnknownCellError, "row 13 is off"),
    ("A1 B1 C1 11", UnknownCellError, "not a cell name"),
    ("A1 B1 C1 swap", UnknownCellError, "not a cell name"),
])
def test_specific_errors(text: str, error: type[NotationError], words: str) -> None:
    with pytest.raises(error) as info:
        Placement.parse(text, 12)
    assert words in str(info.value)
    assert isinstance(info.value, ValueError)


def test_from_cells_and_index() -> None:
    p = Placement.from_cells([14, 2, 1, 0], 12)
    assert p.cells == (0, 1, 2, 14) and p.ptype == "L"
    assert Placement.from_index(p.index, 12) is p
    with pytest.raises(UnknownCellError):
        Placement.from_cells([0, 1, 2, 144], 12)
    with pytest.raises(NotAPieceError):
        Placement.from_cells([0, 1, 12, 13], 12)
    with pytest.raises(IndexError):
        Placement.from_index(1976, 12)


def test_every_placement_round_trips_through_its_notation() -> None:
    for size in (4, 10, 12):
        for p in all_placements(size):
            assert Placement.parse(p.notation(), size) == p
    table = placement_table(26)
    last = Placement.from_index(table.count - 1, 26)
    assert Placement.parse(last.notation().lower(), 26) == last


@settings(max_examples=200, deadline=None)
@given(size=st.sampled_from([4, 6, 8, 10, 12, 20, 26]), pick=st.integers(0, 10**9), order=st.permutations(range(4)),
       seps=st.lists(st.sampled_from([" ", ",", ", ", " ,", "\t", "  "]), min_size=3, max_size=3),
       lower=st.lists(st.booleans(), min_size=4, max_size=4))
def test_notation_round_trip_property(size: int, pick: int, order: list[int], seps: list[str],
                                      lower: list[bool]) -> None:
    table = all_placements(size)
    p = table[pick % len(table)]
    names = [cell_name(p.cells[i], size) for i in order]
    names = [n.lower() if lo else n for n, lo in zip(names, lower, strict=True)]
    text = names[0] + "".join(sep + n for sep, n in zip(seps, names[1:], strict=True))
    parsed = Placement.parse(text, size)
    assert parsed == p
    assert Placement.parse(parsed.notation(), size) == parsed
    assert parsed.notation() == " ".join(sorted(parsed.notation().split(), key=lambda n: (int(n[1:]), n[0])))


@settings(max_examples=100, deadline=None)
@given(cells=st.lists(st.integers(0, 143), min_size=4, max_size=4, unique=True))
def test_any_four_cells_are_a_piece_or_a_not_a_piece_error(cells: list[int]) -> None:
    text = " ".join(cell_name(c, 12) for c in cells)
    try:
        p = Placement.parse(text, 12)
    except NotAPieceError:
        assert placement_table(12).index_of(cells) is None
    else:
        assert set(p.cells) == set(cells)


def test_random_garbage_never_escapes_as_other_errors() -> None:
    rng = random.Random(0)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabc0123456789 ,;-_"
    for _ in range(500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 20)))
        try:
            Placement.parse(text, 12)
        except NotationError as exc:
            assert str(exc)  # a message for the user, never another exception type


def test_non_ascii_digits_are_not_row_numbers() -> None:
    from core.engine.rules import UnknownCellError

    with pytest.raises(UnknownCellError):
        Placement.parse("A\u0661 B1 C1 D1", 12)
