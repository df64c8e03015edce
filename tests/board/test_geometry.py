from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.board.geometry import (
    CellNameError,
    SizeError,
    all_cell_names,
    cell_name,
    check_size,
    parse_cell,
    partner,
)


@pytest.mark.parametrize("size", [10, 12])
def test_every_cell_round_trips(size: int) -> None:
    names = all_cell_names(size)
    assert len(set(names)) == size * size
    for cell, name in enumerate(names):
        assert parse_cell(name, size) == cell
        assert parse_cell(name.lower(), size) == cell
        assert parse_cell(f"  {name} ", size) == cell


def test_corners_use_match_notation() -> None:
    assert cell_name(0, 12) == "A1"
    assert cell_name(11, 12) == "L1"
    assert cell_name(12, 12) == "A2"
    assert cell_name(143, 12) == "L12"
    assert cell_name(99, 10) == "J10"


def test_partner_is_the_180_degree_rotation() -> None:
    assert partner(parse_cell("A1", 12), 12) == parse_cell("L12", 12)
    assert partner(parse_cell("C3", 12), 12) == parse_cell("J10", 12)
    for cell in range(144):
        assert partner(partner(cell, 12), 12) == cell
        assert partner(cell, 12) != cell


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "not a cell name"),
        ("A", "not a cell name"),
        ("11", "not a cell name"),
        ("AA1", "not a cell name"),
        ("A1B", "not a cell name"),
        ("M1", "column M is off the 12x12 board"),
        ("A13", "row 13 is off"),
        ("A0", "row 0 is off"),
        ("A01", "row 01 is off"),
        ("K1", "column K is off the 10x10 board"),
        ("A\u0661", "not a cell name"),  # ARABIC-INDIC DIGIT ONE: only ASCII digits name rows
        ("\u0661\u0662", "not a cell name"),
        ("B\uff11", "not a cell name"),  # FULLWIDTH DIGIT ONE
    ],
)
def test_bad_names_say_why(text: str, fragment: str) -> None:
    size = 10 if text == "K1" else 12
    with pytest.raises(CellNameError, match=fragment):
        parse_cell(text, size)


@given(st.sampled_from([4, 6, 8, 10, 12, 14, 20, 26]), st.data())
def test_names_round_trip_on_every_size(size: int, data: st.DataObject) -> None:
    cell = data.draw(st.integers(0, size * size - 1))
    assert parse_cell(cell_name(cell, size), size) == cell


@pytest.mark.parametrize("size", [2, 3, 5, 11, 27, 28])
def test_unsupported_sizes(size: int) -> None:
    with pytest.raises(SizeError):
        check_size(size)


def test_edge_neighbours_in_reading_order() -> None:
    from core.board.geometry import edge_neighbours

    assert edge_neighbours(parse_cell("A1", 4), 4) == [parse_cell("B1", 4), parse_cell("A2", 4)]
    assert edge_neighbours(parse_cell("B2", 4), 4) == [parse_cell(n, 4) for n in ("B1", "A2", "C2", "B3")]
    assert edge_neighbours(parse_cell("D4", 4), 4) == [parse_cell("D3", 4), parse_cell("C4", 4)]
