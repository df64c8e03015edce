"""The card's figures: a function of (board, settings, seed) alone, the skill figure's arithmetic, the reference
comparison, and the refusal of a board no match can use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from core.board.model import Board, GameParams
from core.card.figures import CardError, compare, figures_only, measure_card, skill_figure
from core.card.skill import SkillGame
from tests.card.common import small_board, small_config
from tests.paths import REPO


@pytest.mark.slow
def test_one_worker_gives_what_two_give() -> None:
    inline = measure_card(small_board(), small_config(inline=True), "b.yaml", reference=None)
    pool = measure_card(small_board(), small_config(workers=2), "b.yaml", reference=None)
    assert inline["skill"]["games"] == 10 and inline["fairness"]["openings"]
    assert all(len(r["rates"]) == 3 for r in inline["fairness"]["openings"])
    assert json.dumps(figures_only(inline), sort_keys=True) == json.dumps(figures_only(pool), sort_keys=True)
    # warm: the same process again (its kernels loaded, its caches full) gives the same card
    again = measure_card(small_board(), small_config(inline=True), "b.yaml", reference=None)
    assert figures_only(again) == figures_only(inline)


def games(strong_wins: int, n: int) -> list[tuple[SkillGame, SkillGame]]:
    flat = [SkillGame(i % 2 == 0, False, i < strong_wins) for i in range(n)]
    return [(flat[i], flat[i + 1]) for i in range(0, n, 2)]


def test_skill_figure_score_interval_and_upset() -> None:
    fig = skill_figure(games(180, 200), "club", "casual")
    assert fig["score"] == 0.9 and fig["games"] == 200 and fig["weak_wins"] == 20
    assert fig["ci95"][0] < 0.9 < fig["ci95"][1]
    assert fig["upset_one_in"] == 10.0
    low, high = fig["upset_one_in_ci95"]
    assert low < 10.0 < high
    perfect = skill_figure(games(20, 20), "club", "casual")
    assert perfect["upset_one_in"] is None and perfect["upset_one_in_ci95"][1] is None


def card_with(score: float) -> dict[str, Any]:
    return {"skill": {"score": score}, "fairness": {"gap": 0.1},
            "game": {"placements_per_game": 20.0, "legal_per_turn": 100.0, "tie_rule_share": 0.1, "margin": 2.0,
                     "first_mover": {"s1_rate": 0.6}}}


def test_compare_places_a_figure_among_the_reference_boards() -> None:
    reference = {"made_by": "x", "boards": {f"b{i}": {"skill": 0.7 + 0.02 * i, "margin": 2.0} for i in range(10)}}
    out = compare(card_with(0.85), reference)
    assert out["boards"] == 10
    skill = out["figures"]["skill"]
    assert (skill["below"], skill["above"], skill["boards"]) == (8, 2, 10)
    assert out["figures"]["margin"]["below"] == 0 and out["figures"]["margin"]["above"] == 0
    assert "tie_rule" not in out["figures"]  # no reference board has it
    assert compare(card_with(0.85), None)["figures"] == {}


def test_a_board_no_match_can_use_is_refused_before_any_game() -> None:
    board = Board.random(size=8, pairs=10, seed=5, params=GameParams(supply=(0, 0, 0, 0)))
    with pytest.raises(CardError, match="no match can be played"):
        measure_card(board, small_config(inline=True))


def test_the_same_level_twice_is_refused() -> None:
    with pytest.raises(CardError, match="two different levels"):
        measure_card(small_board(), small_config(strong="casual", weak="casual", inline=True))


COLD_CARD = """
import json
from core.card.figures import figures_only, measure_card
from tests.card.common import small_board, small_config
card = measure_card(small_board(), small_config(inline=True), "b.yaml", reference=None)
print(json.dumps(figures_only(card), sort_keys=True))
"""


@pytest.mark.slow
def test_a_cold_process_gives_the_card_a_warm_one_gives(tmp_path: Path) -> None:
    """A fresh process with an empty engine cache (it compiles everything) measures the same card."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", COLD_CARD], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=1800, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    warm = measure_card(small_board(), small_config(inline=True), "b.yaml", reference=None)
    assert proc.stdout.strip().splitlines()[-1] == json.dumps(figures_only(warm), sort_keys=True)
