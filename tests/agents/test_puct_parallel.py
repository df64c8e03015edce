"""Root-parallel puct (``threads=K``): K searches of the budget at once, merged at the root.

The play-test runs its puct agents this way on every core; these tests pin what makes that safe: the merged
root holds every thread's visits, proofs survive the merge, the move depends on the seed and not on how the
threads interleave, and the searches really run on separate threads.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from core.agents.agent import make_agent
from core.agents.puct import (
    F_FIRST,
    F_MOVE,
    F_NVIS,
    F_PROOF,
    F_SIB,
    G_WINS,
    LOSS,
    NF,
    NI,
    UNPROVEN,
    WIN,
    PuctSearch,
    PuctTree,
    k_puct_pick,
    merge_roots,
)
from core.agents.spec import AgentSpecError, parse_agent, with_threads
from core.board.boardfile import load_board
from core.board.model import Board
from core.engine.rules import GameState, Placement
from core.play.session import agent_decision
from tests.paths import BOARDS


def tree_of(children: list[tuple[int, int, float, int]], root_proof: int = UNPROVEN) -> PuctTree:
    """A root with the given (move, visits, wins, proof) children, linked as the kernel links them."""
    n = len(children) + 1
    ti = np.full((n, NI), -1, dtype=np.int32)
    tf = np.zeros((n, NF), dtype=np.float64)
    ti[0, F_FIRST] = 1
    ti[0, F_NVIS] = sum(c[1] for c in children)
    ti[0, F_PROOF] = root_proof
    for i, (move, visits, wins, proof) in enumerate(children, start=1):
        ti[i, F_MOVE], ti[i, F_NVIS], ti[i, F_PROOF] = move, visits, proof
        tf[i, G_WINS] = wins
        ti[i, F_SIB] = i + 1 if i < len(children) else -1
    return PuctTree(ti, tf, n)


def children_of(ti: Any, tf: Any) -> dict[int, tuple[int, float, int]]:
    out = {}
    c = int(ti[0, F_FIRST])
    while c >= 0:
        out[int(ti[c, F_MOVE])] = (int(ti[c, F_NVIS]), float(tf[c, G_WINS]), int(ti[c, F_PROOF]))
        c = int(ti[c, F_SIB])
    return out


def test_merge_sums_visits_and_wins_per_move_and_keeps_proofs() -> None:
    a = tree_of([(5, 10, 6.0, UNPROVEN), (9, 30, 12.0, UNPROVEN)])
    b = tree_of([(9, 5, 1.0, LOSS), (7, 25, 20.0, UNPROVEN), (5, 20, 15.0, UNPROVEN)])
    ti, tf = merge_roots([a, b])
    assert children_of(ti, tf) == {5: (30, 21.0, UNPROVEN), 7: (25, 20.0, UNPROVEN), 9: (35, 13.0, LOSS)}
    assert int(ti[0, F_NVIS]) == 90
    # 9 has the most visits but is proven lost: the pick avoids it and takes 5 (30 visits) over 7 (25)
    move, _value = k_puct_pick(ti, tf, False, np.ones(1, dtype=np.uint64))
    assert move == 5


def test_a_proven_win_in_any_thread_is_played() -> None:
    a = tree_of([(3, 50, 20.0, UNPROVEN), (4, 2, 2.0, UNPROVEN)])
    b = tree_of([(3, 40, 18.0, UNPROVEN), (4, 3, 3.0, WIN)], root_proof=LOSS)
    ti, tf = merge_roots([a, b])
    assert int(ti[0, F_PROOF]) == LOSS
    move, value = k_puct_pick(ti, tf, False, np.ones(1, dtype=np.uint64))
    assert (move, value) == (4, 1.0)


def test_threads_option_is_read_and_checked() -> None:
    assert with_threads("expert", 4).endswith(":threads=4")
    assert with_threads("greedy", 4) == "greedy"
    assert with_threads("mcts:100", 4) == "mcts:100"
    assert with_threads("puct:500", 1) == "puct:500"
    assert parse_agent("puct:500:threads=2").text == "puct:500:threads=2"
    for bad in ("puct:500:threads=0", "puct:500:threads=1.5", "puct:500:threads=100000"):
        with pytest.raises(AgentSpecError, match="threads"):
            parse_agent(bad)


@pytest.fixture(scope="module")
def board() -> Board:
    return load_board(BOARDS / "default.yaml")


def test_root_parallel_holds_every_threads_visits_and_is_reproducible(board: Board) -> None:
    state = GameState(board)
    state.push(Placement.parse("E6 F6 G6 F7", board.size))
    runs = []
    for _ in range(2):
        agent = make_agent("puct:300:threads=3", board, seed=11)
        move = agent.choose(state.kernel_state())
        runs.append((move, agent._puct.last_sims))
    assert runs[0] == runs[1], "the same seed must give the same move however the threads interleave"
    assert runs[0][1] == 900
    assert runs[0][0] in {p.index for p in state.legal_placements()}


def test_the_searches_run_on_separate_threads(board: Board, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: set[int] = set()
    barrier = threading.Barrier(2, timeout=30)
    real = PuctSearch.search

    def search(self: PuctSearch, *args: Any, **kw: Any) -> PuctTree:
        seen.add(threading.get_ident())
        barrier.wait()  # both searches must be under way at once, or this times out
        return real(self, *args, **kw)

    monkeypatch.setattr(PuctSearch, "search", search)
    agent = make_agent("puct:200:threads=2", board, seed=3)
    agent.choose(GameState(board).kernel_state())
    assert len(seen) == 2


def test_the_play_test_agent_searches_on_every_core(board: Board, monkeypatch: pytest.MonkeyPatch) -> None:
    used: list[str] = []
    real = make_agent

    def spy(spec: Any, *args: Any, **kw: Any) -> Any:
        used.append(str(spec))
        return real(spec, *args, **kw)

    monkeypatch.setattr("core.play.session.make_agent", spy)
    monkeypatch.setattr("core.play.session.os.cpu_count", lambda: 2)
    first = agent_decision("puct:100", board, [], seed=4)
    assert used[-1] == "puct:100:threads=2"
    assert agent_decision("puct:100", board, [], seed=4) == first
    agent_decision("greedy", board, [], seed=4)
    assert used[-1] == "greedy"
