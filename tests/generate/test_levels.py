"""Levels for the generator: agent specs and the named levels casual/club/expert, read by ``parse_agent``."""

from __future__ import annotations

import pytest

from core.agents.levels import LEVELS
from core.agents.spec import parse_agent
from core.analysis.config import MIN_TIME, TIME_SIDE_SHARE
from core.board.model import Board
from core.generate.evaluate import AnalysisEvaluator, LevelError, resolve_level


def test_agent_specs_are_levels() -> None:
    assert resolve_level("greedy") == "greedy"
    assert resolve_level(" MCTS:500 ") == "mcts:500"
    assert AnalysisEvaluator(level="greedy").agents() == ["greedy"]
    assert AnalysisEvaluator(level="mcts:500").agents() == ["greedy", "mcts:500"]


def test_named_levels_resolve_to_their_agent() -> None:
    assert list(LEVELS) == ["casual", "club", "expert"]
    for name in LEVELS:
        assert resolve_level(name.upper()) == parse_agent(name).text


def test_unknown_level_lists_what_is_accepted() -> None:
    with pytest.raises(LevelError, match=r"unknown level 'grandmaster'.*mcts:N.*casual, club, expert"):
        resolve_level("grandmaster")


def test_a_level_sized_in_seconds_is_refused() -> None:
    """The generator's verdicts must be the seed's, so a level that thinks for seconds per move cannot judge."""
    with pytest.raises(LevelError, match=r"'puct:t=1' is sized in seconds per move"):
        resolve_level("puct:t=1")
    assert resolve_level("puct:800:t=1") == "puct:800:t=1"  # played on its 800 simulations


def test_the_judge_takes_a_time_budget_per_board() -> None:
    judge = AnalysisEvaluator(level="club", seed=3)
    board = Board.random(6, 5, seed=1)
    assert judge.config(board).time_budget == 0.0  # untimed: the game caps decide
    assert judge.timed(42.0).config(board).time_budget == 42.0
    assert judge.timed(1.0).time_budget == MIN_TIME  # never below what the analysis accepts
    # three openings shown fair at the SPRTs' expected 70 games each at 50%, plus the side games' share
    assert judge.games_needed() == pytest.approx(3 * 69.9 / (1 - TIME_SIDE_SHARE), rel=0.01)


def test_the_level_probe_times_games_and_the_fixed_part() -> None:
    """Every part is measured, however short the budget: a refusal names the budget that really does."""
    board = Board.random(6, 5, seed=1)
    judge = AnalysisEvaluator(level="greedy", seed=3)
    full = judge.probe(2)(board)
    assert full.complete and full.games == 2 and full.game_seconds > 0 and full.overhead > 0
    assert full.games_needed == judge.games_needed() and full.min_budget == MIN_TIME
