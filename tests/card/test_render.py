"""The card's picture and page: drawn offscreen for a 12x12 and a 10x10 board, every sentence's figures taken
from the JSON, and every sentence on the picture and the page."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from core.board.boardfile import load_board
from core.card.render import card_lines, markdown, pct, wrapped, write_card
from tests.card.sample import sample_card
from tests.paths import REPO

BOARDS = ["default.yaml", "original-10x10.yaml"]


def by_key(card: dict[str, object]) -> dict[str, str]:
    return {line.key: line.text for line in card_lines(card)}  # type: ignore[arg-type]


def test_every_sentence_says_the_json_figures() -> None:
    board = load_board(REPO / "boards" / "default.yaml")
    card = sample_card(board)
    text = by_key(card)
    assert text["verdict"].startswith("BALANCED for club play") and "3 fair first placements of 14" in text["verdict"]
    s = card["skill"]
    assert f"club scores {pct(s['score'])} [81-91%] against casual over 200 games" in text["skill"]
    assert "wins about 1 game in 7 [5-11]" in text["skill"]
    assert text["fairness"].endswith("greedy 71%, casual 62%, club 52%")
    for k, o in enumerate(card["fairness"]["openings"]):
        assert text[f"opening{k + 1}"].startswith(" ".join(o["cells"]))
        assert "club 52% (100)" in text[f"opening{k + 1}"]
    assert text["placements"] == "23.5 placements per game; 141 legal placements to choose from per turn"
    assert text["tie_rule"] == "the tie rule decides 8% of games; the winner leads by 2.6 points on average"
    assert text["runout"].endswith("L 95%, I 41%, T 70%, S 20%")
    assert "first mover wins 63% [55-70%] (puct:2000, 160 games)" in text["first_mover"]
    assert text["ref_skill"] == "the better player scores more than on 8 of 10 reference boards"
    assert text["ref_tie_rule"] == "the tie rule decides fewer games than on 9 of 10 reference boards"
    assert text["measured"] == "effort standard, seed 1, lits 0.1.0, commit abc1234"


def test_the_verdict_line_says_when_judges_dispute_fair_openings() -> None:
    """A thorough verdict counts disputed openings and needs one undisputed; when the judges dispute every fair
    opening the engines disagree, which the line says instead of a bare INCONCLUSIVE beside "3 fair"."""
    card = sample_card(load_board(REPO / "boards" / "default.yaml"))
    card["verdict"].update(judges=["mcts:8000", "ab:8000"], fair=3, undisputed=1)  # type: ignore[attr-defined]
    assert by_key(card)["verdict"].endswith("3 fair first placements of 14 tested, 1 undisputed by every judge")
    card["verdict"].update(verdict="inconclusive", undisputed=0, engines_disagree=True)  # type: ignore[attr-defined]
    assert by_key(card)["verdict"] == ("INCONCLUSIVE for club play (checked by mcts:8000 and ab:8000): strong engines "
                                       "disagree: 3 fair first placements of 14 tested, each disputed by a judge")


def test_a_perfect_score_says_the_weaker_player_never_won() -> None:
    card = sample_card(load_board(REPO / "boards" / "default.yaml"))
    card["skill"].update(score=1.0, upset_one_in=None, upset_one_in_ci95=[4.2, None])  # type: ignore[attr-defined]
    assert "the weaker player never won" in by_key(card)["skill"]


@pytest.mark.parametrize("name", BOARDS)
def test_the_picture_and_the_page_carry_every_sentence(name: str, tmp_path: Path) -> None:
    board = load_board(REPO / "boards" / name)
    card = sample_card(board, name.removesuffix(".yaml"))
    svg = tmp_path / "card.svg"
    assert write_card(card, board, str(svg)) == [str(svg)]
    shown = html.unescape(re.sub(r"<[^>]+>", "\n", svg.read_text(encoding="utf-8")))
    for line in card_lines(card):
        for part in wrapped(line.text):
            assert part in shown, part
    for k, o in enumerate(card["verdict"]["drawn"]):  # the drawn openings are numbered on the board
        assert o["cells"]
        assert f"\n{k + 1}\n" in shown
    png = tmp_path / "card.png"
    write_card(card, board, str(png))
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1320, 726)
    page = tmp_path / "card.md"
    files = write_card(card, board, str(page), f"boards/{name}")
    assert files == [str(tmp_path / "card.png"), str(page)]
    md = page.read_text(encoding="utf-8")
    assert "![the board card](card.png)" in md
    for line in card_lines(card):
        assert f"- {line.text}" in md
    assert f"lits card boards/{name} --seed 1 --json" in md
    assert md == markdown(card, "card.png", f"boards/{name}")


def test_another_format_is_refused(tmp_path: Path) -> None:
    board = load_board(REPO / "boards" / "default.yaml")
    with pytest.raises(ValueError, match=r"\.png, \.svg, \.md"):
        write_card(sample_card(board), board, str(tmp_path / "card.jpg"))


def test_figures_that_were_not_measured_read_n_a() -> None:
    board = load_board(REPO / "boards" / "default.yaml")
    card = sample_card(board)
    card["game"].update(placements_per_game=None, legal_per_turn=None, margin=None,  # type: ignore[attr-defined]
                        tie_rule_share=None)
    card["fairness"].update(openings=[], mean_s1_rate={"greedy": None, "casual": None, "club": None})  # type: ignore[attr-defined]
    text = by_key(card)
    assert text["placements"] == "n/a placements per game; n/a legal placements to choose from per turn"
    assert text["tie_rule"] == "the tie rule decides n/a of games; the winner leads by n/a points on average"
    assert text["fairness"].endswith("greedy n/a, casual n/a, club n/a")
