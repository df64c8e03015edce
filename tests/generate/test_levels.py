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
    # the agent specs now name the real levels themselves (core.agents.spec), so an unknown name is the case left
    monkeypatch.setattr("core.generate.levels.levels_module", lambda: None)
    with pytest.raises(LevelError, match=r"unknown level 'grandmaster'.*mcts:N.*casual, club, expert.*not in this"):
        resolve_level("grandmaster")
    assert resolve_level("club") == "club"


def test_named_levels_from_a_table(monkeypatch: pytest.MonkeyPatch) -> None:
    @dataclass
    class Level:
        agent: str

    # names other than the real levels (casual, club, expert), which core.agents.spec accepts before any lookup
    _install(monkeypatch, LEVELS={"novice": "greedy", "member": Level("mcts:300"), "master": "mcts:bad"})
    assert level_names() == ["novice", "member", "master"]
    assert resolve_level("novice") == "greedy"
    assert resolve_level("Member") == "mcts:300"
    with pytest.raises(LevelError, match="stands for 'mcts:bad'"):
        resolve_level("master")
    with pytest.raises(LevelError, match=r"or a level name \(novice, member, master\)"):
        resolve_level("grandmaster")


def test_named_levels_from_a_function(monkeypatch: pytest.MonkeyPatch) -> None:
    def parse_level(name: str) -> str:
        return {"master": "mcts:4000"}[name]

    _install(monkeypatch, parse_level=parse_level, LEVEL_NAMES=("master",))
    assert level_names() == ["master"]
    assert resolve_level("master") == "mcts:4000"
    with pytest.raises(LevelError):
        resolve_level("novice")
