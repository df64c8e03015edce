"""The shipped reference boards: made by the committed command, every compared figure present, and a card placed
among them."""

from __future__ import annotations

from core.board.boardfile import load_board
from core.card.figures import COMPARED, REFERENCE_FILE, compare, load_reference
from tests.card.sample import sample_card
from tests.paths import REPO


def test_the_reference_file_says_how_it_was_made_and_holds_every_figure() -> None:
    ref = load_reference()
    assert ref is not None, REFERENCE_FILE
    assert ref["made_by"].startswith("python tests/card/bench_card.py ") and ref["seed"] == 1
    assert ref["effort"] == "standard" and ref["commit"]
    boards = ref["boards"]
    assert len(boards) >= 3 and "default" in boards
    for name, row in boards.items():
        assert set(row) == set(COMPARED), name
        assert all(isinstance(v, float | int) for v in row.values()), name


def test_a_card_is_placed_among_every_reference_board() -> None:
    ref = load_reference()
    card = sample_card(load_board(REPO / "boards" / "default.yaml"))
    placed = compare(card, ref)
    assert placed["boards"] == len(ref["boards"])  # type: ignore[index]
    for key, item in placed["figures"].items():
        assert item["below"] + item["above"] <= item["boards"] == len(ref["boards"]), key  # type: ignore[index]
