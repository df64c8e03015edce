"""Held-out figures: which openings are measured, the measurement's reuse, and the figures' arithmetic."""

from __future__ import annotations

from random import Random

import numpy as np
import pytest

from core.board.model import Board
from core.learn.heldout import Measured, choose_openings, figures, measure
from core.selfplay.tasks import GameResult, GameTask
from tests.agents.test_value import model_of, random_weights


def test_the_nearest_to_even_and_random_others_are_chosen() -> None:
    pred = np.array([0.1, 0.52, 0.9, 0.47, 0.3, 0.5, 0.8])
    chosen = choose_openings(pred, near=2, spread=2, rng=Random(1))
    drawn = chosen[:2]
    assert drawn == choose_openings(1 - pred, near=2, spread=2, rng=Random(1))[:2]  # whatever the model says
    assert chosen[2:] == [p for p in (5, 1, 3) if p not in drawn][:2]
    assert len(set(chosen)) == 4


def test_figures_of_a_perfect_and_a_useless_predictor() -> None:
    rows = [Measured("b", 12, p, r, int(r * 60), 60, top=abs(r - 0.5) < 0.06)
            for p, r in enumerate([0.1, 0.3, 0.5, 0.5, 0.7, 0.9])]
    f = figures(rows)
    assert f["correlation"] == 1.0
    assert f["measured_even"] == 2 and f["measured_even_in_top20"] == 2
    assert sum(row["openings"] for row in f["calibration"]) == 6
    flat = [Measured("b", 12, p, 0.5, int(r * 60), 60, top=False) for p, r in enumerate([0.1, 0.5, 0.9])]
    assert figures(flat)["correlation"] is None


def test_measured_openings_are_reused_and_give_the_same_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    import core.learn.heldout as heldout

    played: list[int] = []
    real = heldout.play_games

    def counting(tasks: list[GameTask]) -> list[GameResult]:
        played.append(len(tasks))
        return real(tasks)

    monkeypatch.setattr(heldout, "play_games", counting)
    board = Board.random(10, pairs=12, seed=3)
    board.name = "small"
    model = model_of(random_weights(2))
    known: dict[str, int] = {}
    first = measure(model, [board], games=4, seed=1, near=2, spread=1, known=known, inline=True, agent="greedy")
    assert len(first) == 3 and len(known) == 3 and played == [4, 4, 4]
    again = measure(model, [board], games=4, seed=1, near=2, spread=1, known=dict(known), inline=True,
                    agent="greedy")
    assert again == first
    assert played == [4, 4, 4]  # nothing played again
    other = measure(model_of(random_weights(9)), [board], games=4, seed=1, near=2, spread=1, known=known,
                    inline=True, agent="greedy")
    assert {r.opening for r in first} <= {r.opening for r in other}  # the first model's openings count too
    before = list(played)
    cached = measure(model_of(random_weights(11)), [board], games=4, seed=1, near=2, spread=1, known=dict(known),
                     inline=True, agent="greedy", play_new=False)
    assert played == before  # no game: only what was measured before
    assert {r.opening for r in cached} == {r.opening for r in other}
    assert all(0 <= r.wins <= 4 for r in first)


def test_predictors_are_compared_within_boards_and_near_even() -> None:
    """A predictor that only knows which board is which (a per-board constant) correlates over all openings but
    not within a board; one that orders the openings inside each board does; the near-even column keeps only the
    openings measured within 25-75%."""
    from core.learn.heldout import compare_predictors

    rates = {"a": [0.1, 0.3, 0.4, 0.6], "b": [0.5, 0.7, 0.8, 0.95]}
    rows = [Measured(name, 12, p, 0.0, round(r * 60), 60, top=False)
            for name, rs in rates.items() for p, r in enumerate(rs)]
    board_only = [0.2 if r.board == "a" else 0.8 for r in rows]
    order = [r.rate + (0.5 if r.board == "a" else -0.5) for r in rows]  # right within boards, wrong across them
    wrong_near = [r.rate if not 0.25 <= r.rate <= 0.75 else 1 - r.rate for r in rows]
    out = compare_predictors(rows, {"board": board_only, "order": order, "wrong near even": wrong_near})
    assert out["board"]["all"] is not None and out["board"]["all"] > 0.7
    assert out["board"]["within_board"] is None  # no spread within a board: no correlation to give
    assert out["order"]["within_board"] == 1.0 and out["order"]["near_even_within_board"] == 1.0
    assert out["order"]["all"] is not None and out["order"]["all"] < 0.5
    assert out["wrong near even"]["near_even_within_board"] == -1.0


def test_the_baselines_are_the_analysis_searches_with_seeds_of_their_own() -> None:
    """The screen and refinement values repeat for a seed and do not depend on which other openings are asked."""
    from core.learn.heldout import baseline_values

    board = Board.random(10, pairs=12, seed=3)
    board.name = "small"
    rows = [Measured("small", 10, p, 0.5, 30, 60, top=False) for p in (0, 5, 9)]
    screened, refined = baseline_values([board], rows, 1, lambda count: 20, 200)
    again = baseline_values([board], rows[1:], 1, lambda count: 20, 200)
    assert (screened[1:], refined[1:]) == again
    assert all(0.0 <= v <= 1.0 for v in screened + refined)
