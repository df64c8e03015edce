"""Levels for the generator: agent specs and the named levels casual/club/expert, read by ``parse_agent``."""

from __future__ import annotations

import pytest

from core.agents.levels import LEVELS
from core.agents.spec import parse_agent
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
