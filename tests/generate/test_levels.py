"""Levels: agent specs today, named levels from ``core.agents.levels`` once it exists (looked up at run time)."""

from __future__ import annotations

import importlib.machinery
import sys
import types
from dataclasses import dataclass

import pytest

from core.generate.evaluate import AnalysisEvaluator, LevelError, resolve_level
from core.generate.levels import level_names


def _install(monkeypatch: pytest.MonkeyPatch, **attrs: object) -> None:
    mod = types.ModuleType("core.agents.levels")
    mod.__spec__ = importlib.machinery.ModuleSpec("core.agents.levels", None)
    for k, v in attrs.items():
        setattr(mod, k, v)
    monkeypatch.setitem(sys.modules, "core.agents.levels", mod)


def test_agent_specs_are_levels() -> None:
    assert resolve_level("greedy") == "greedy"
    assert resolve_level(" MCTS:500 ") == "mcts:500"
    assert AnalysisEvaluator(level="greedy").agents() == ["greedy"]
    assert AnalysisEvaluator(level="mcts:500").agents() == ["greedy", "mcts:500"]


def test_unknown_level_lists_what_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("core.generate.levels.levels_module", lambda: None)
    with pytest.raises(LevelError, match=r"unknown level 'club'.*mcts:N.*casual/club/expert.*not in this version"):
        resolve_level("club")


def test_named_levels_from_a_table(monkeypatch: pytest.MonkeyPatch) -> None:
    @dataclass
    class Level:
        agent: str

    _install(monkeypatch, LEVELS={"casual": "greedy", "club": Level("mcts:300"), "expert": "mcts:bad"})
    assert level_names() == ["casual", "club", "expert"]
    assert resolve_level("casual") == "greedy"
    assert resolve_level("Club") == "mcts:300"
    with pytest.raises(LevelError, match="stands for 'mcts:bad'"):
        resolve_level("expert")
    with pytest.raises(LevelError, match=r"or a level name \(casual, club, expert\)"):
        resolve_level("grandmaster")


def test_named_levels_from_a_function(monkeypatch: pytest.MonkeyPatch) -> None:
    def parse_level(name: str) -> str:
        return {"expert": "mcts:4000"}[name]

    _install(monkeypatch, parse_level=parse_level, LEVEL_NAMES=("expert",))
    assert level_names() == ["expert"]
    assert resolve_level("expert") == "mcts:4000"
    with pytest.raises(LevelError):
        resolve_level("casual")
