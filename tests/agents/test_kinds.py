"""The table of agent kinds: a kind registered by a test alone is parsed, described, ranked, warmed up and played.

Nothing outside this file knows the test kind: if adding a kind needed an edit anywhere else (a dispatch on the
kind, a second parser, a strength order), these tests would fail.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import core.agents.agent as agent_module
from core.agents.spec import (
    KINDS,
    AgentKind,
    AgentKindInfo,
    AgentSpec,
    AgentSpecError,
    describe,
    parse_agent,
    register,
    reproducible,
    spec_help,
    unregister,
    with_threads,
)
from core.analysis.config import quick_agent
from core.analysis.hostwords import agent_name, describe_agent
from core.board.model import Board
from core.engine.kernels import KTables, k_legal_list
from core.engine.rules import GameState, Placement
from core.selfplay.tasks import BoardSpec, GameTask
from core.selfplay.worker import play_game


@dataclass
class NthLegal:
    """A test-only chooser: the ``n``-th legal placement (in index order, wrapping), nothing searched."""

    kt: KTables
    nth: int
    last_value: float = 0.5

    def choose(self, state: npt.NDArray[np.uint64]) -> int:
        legal = np.empty(self.kt.nplace, dtype=np.int32)
        n = int(k_legal_list(self.kt, state, legal))
        return -1 if n == 0 else int(legal[self.nth % n])


def _parse_nth(text: str, parts: list[str]) -> AgentSpec:
    if len(parts) != 2 or not parts[1].isdigit():
        raise AgentSpecError(f"agent {text!r}: give which legal placement, e.g. nth:2")
    return AgentSpec(NTH, sims=int(parts[1]), detail=f"nth:{int(parts[1])}")


WARMED: list[int] = []


def _warm_up_nth(kt: KTables, gain: Any, rng: Any) -> None:
    WARMED.append(kt.size)


NTH = AgentKindInfo(
    "nth", "nth:K (the K-th legal placement)", _parse_nth, lambda spec: f"a test player (legal placement {spec.sims})",
    "cheap", rank=-10, chooser=lambda spec, kt, gain, rng: NthLegal(kt, spec.sims), swap="gain",
    warm_up=_warm_up_nth)


@pytest.fixture
def nth_kind() -> Iterator[AgentKindInfo]:
    register(NTH)
    try:
        yield NTH
    finally:
        unregister(NTH.name)


def test_a_test_only_kind_is_parsed_and_described(nth_kind: AgentKindInfo) -> None:
    spec = parse_agent(" NTH:3 ")
    assert spec.kind is nth_kind and spec.text == "nth:3"
    assert "nth:K" in spec_help()
    with pytest.raises(AgentSpecError, match="which legal placement"):
        parse_agent("nth:x")
    assert describe("nth:3") == "a test player (legal placement 3)"
    assert describe_agent("nth:3") == describe("nth:3")  # the designer's words come from the same row
    assert agent_name("nth:3") == "test player"  # progress lines: the row's words without the budget
    assert spec.cheap and quick_agent("nth:3") == "nth:3" and with_threads("nth:3", 8) == "nth:3"


def test_a_test_only_kind_is_ranked_by_its_row(nth_kind: AgentKindInfo) -> None:
    # a new kind ranks where its row says, whatever order it was registered in: below random here
    ranked = sorted(["mcts:10", "nth:999999", "random", "club"], key=lambda t: parse_agent(t).strength)
    assert ranked == ["nth:999999", "random", "mcts:10", "club"]


def test_a_test_only_kind_plays_a_whole_game_through_the_worker(nth_kind: AgentKindInfo) -> None:
    board = Board.random(size=8, pairs=12, seed=4)
    res = play_game(GameTask(BoardSpec.from_board(board), 5, "nth:2", "nth:7", pie=True))
    state = GameState(board)
    for i, p in enumerate(res.moves):
        legal = sorted(pl.index for pl in state.legal_placements())
        assert p == legal[(2 if i % 2 == 0 else 7) % len(legal)]
        state.push(Placement.from_index(p, board.size))
    assert state.is_over() and len(res.moves) == res.length > 4


def test_the_warm_up_runs_every_registered_kind(nth_kind: AgentKindInfo) -> None:
    WARMED.clear()
    agent_module.warm_up()
    assert WARMED == [4]  # once, on the warm-up's tiny board


def test_the_built_in_kinds_are_rows_of_the_table() -> None:
    assert [KINDS[k] for k in ("random", "greedy", "mcts", "puct", "ab")] == [
        AgentKind.RANDOM, AgentKind.GREEDY, AgentKind.MCTS, AgentKind.PUCT, AgentKind.ALPHABETA]
    assert "nth" not in KINDS
    with pytest.raises(ValueError, match="already taken"):
        register(AgentKind.MCTS)
    with pytest.raises(ValueError, match="already taken"):
        register(AgentKindInfo("club", "", _parse_nth, str, "cheap", 0, "x:y", "coin"))  # a level's name
    # every kind that searches is ordered above every kind that does not
    cheap = max(k.rank for k in KINDS.values() if k.cost == "cheap")
    assert all(k.rank > cheap for k in KINDS.values() if k.cost == "search")


@pytest.mark.parametrize(("given", "played"), [
    ("expert", "puct:16000"), ("puct:2000:t=2", "puct:2000"), ("puct:500:t=1:c=2", "puct:500:c=2"),
    ("club", "club"), ("mcts:8000", "mcts:8000"), ("greedy", "greedy"),
    ("ab:8000:t=1", "ab:8000"), ("ab:8000:t=1:d=6", "ab:8000:d=6"), ("ab:8000", "ab:8000"),
])
def test_a_fixed_work_run_plays_the_search_on_its_simulations_alone(given: str, played: str) -> None:
    assert parse_agent(given).fixed_work().text == played
    assert reproducible(given) == parse_agent(given).text  # the run keeps the name it was given


@pytest.mark.parametrize("given", ["puct:t=2", "ab:t=1", "ab:t=0.5:d=4"])
def test_an_agent_sized_in_seconds_only_is_refused_for_a_fixed_work_run(given: str) -> None:
    with pytest.raises(AgentSpecError, match=r"sized in seconds per move.*machine's speed and load.*puct:2000"):
        reproducible(given)
