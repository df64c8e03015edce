"""The alpha-beta agent ``ab``: its spec, the compiled search against a plain reference, the exact solver, legal
games, seeds, budgets."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np
import pytest

import core.agents.alphabeta as ab
from core.agents.agent import make_agent
from core.agents.alphabeta import HAND, MATE, MIX, NET, AlphaBeta, k_evaluate, k_leaf
from core.agents.search import gain_for
from core.agents.spec import AbSpec, AgentKind, AgentSpecError, describe, parse_agent
from core.agents.value import ModelError, position_inputs
from core.analysis.config import quick_agent
from core.board.boardfile import load_board
from core.board.model import Board
from core.engine.kernels import k_legal_list, k_new_state, k_seed, kernel_tables
from core.engine.rules import GameState, Placement
from core.selfplay.game import play_task
from core.selfplay.tasks import BoardSpec, GameTask
from tests.agents import alphabeta_reference as ref
from tests.agents.test_value import model_of, tame_weights
from tests.minimax import side_to_move_wins
from tests.paths import BOARDS


def test_parse_ab_forms() -> None:
    spec = parse_agent("AB:5000")
    assert spec.kind is AgentKind.ALPHABETA and spec.text == "ab:5000" and spec.sims == 5000
    assert parse_agent("ab:t=0.5s").text == "ab:t=0.5"
    assert parse_agent("ab:5000:t=2:d=6").text == "ab:5000:t=2:d=6"
    assert parse_agent("ab:5000:n=12").text == "ab:5000:n=12" and parse_agent("ab:5000:n=4").text == "ab:5000"
    assert not spec.cheap
    assert parse_agent("mcts:16000").strength < parse_agent("ab:10").strength < parse_agent("puct:10").strength
    assert parse_agent("ab:10").strength < parse_agent("ab:1000").strength
    assert describe("ab:5000") == "a look-ahead computer player (alpha-beta, 5000 positions a move)"
    # quick mode caps the nodes at about the time of its 100 simulations
    assert quick_agent("ab:8000") == "ab:400" and quick_agent("ab:t=1") == "ab:400:t=1"
    assert quick_agent("ab:100:d=3") == "ab:100:d=3"


@pytest.mark.parametrize(("text", "words"), [
    ("ab", "nodes or seconds"), ("ab:0", "1..100000000"), ("ab:t=0", "0.001"), ("ab:10:d=0", "depth"),
    ("ab:10:10", "twice"), ("ab:10:x=1", "not understood"), ("ab:t=nan", "seconds per move"),
    ("ab:10:n=65", "noisy placements"), ("ab:10:n=x", "noisy placements"),
    ("ab:10:eval=nett", "evaluation must be one of hand, net, mix, not 'nett'"),
    ("ab:10:eval=", "evaluation must be one of"), ("ab:10:eval=net:eval=mix", "evaluation is given twice"),
])
def test_parse_ab_errors(text: str, words: str) -> None:
    with pytest.raises(AgentSpecError, match=words):
        parse_agent(text)


def test_parse_ab_learned_evaluations() -> None:
    for given, text in (("ab:5000:eval=net", "ab:5000:eval=net"), ("AB:5000:EVAL=MIX:d=4", "ab:5000:d=4:eval=mix"),
                        ("ab:eval=net:t=1", "ab:t=1:eval=net"), ("ab:5000:eval=hand", "ab:5000")):
        spec = parse_agent(given)
        assert spec.text == text and parse_agent(spec.text).text == text  # the canonical text round-trips
    assert parse_agent("ab:5000:eval=net").sims == 5000
    assert "learned evaluation" in describe("ab:5000:eval=net") and "learned" not in describe("ab:5000")
    assert "hand-made and learned" in describe("ab:5000:eval=mix")
    assert quick_agent("ab:8000:eval=mix") == "ab:400:eval=mix"  # the quick cap keeps the evaluation


# a random-weight model that also takes the small boards the plain reference can search in full
MODEL = dataclasses.replace(model_of(tame_weights(45)), sizes=(4, 6, 8, 10, 12, 14))


def _learned_searcher(board: Board, evaluation: str, nodes: int = 1, seed: int = 3) -> AlphaBeta:
    kt = kernel_tables(board)
    return AlphaBeta(kt, gain_for(kt), k_seed(seed), AbSpec(nodes=nodes, evaluation=evaluation), model=MODEL)


def _learned_ref(board: Board, state: GameState, mode: str) -> ref.Learned:
    return ref.Learned(mode, MODEL, tuple(position_inputs(board, [p.index for p in state.placements])[1].tolist()))


def _positions(size: int, seeds: range, plies: int) -> list[tuple[Board, GameState]]:
    out = []
    for seed in seeds:
        board = Board.random(size=size, pairs=size * size // 8 + seed % 3, seed=seed)
        rng = np.random.default_rng(seed)
        state = GameState(board)
        for _ in range(plies + seed % 3):
            moves = list(state.legal_placements())
            if not moves:
                break
            state.push(moves[int(rng.integers(len(moves)))])
        out.append((board, state))
    return out


def test_the_compiled_evaluation_equals_the_reference() -> None:
    checked = 0
    for board, state in _positions(6, range(10), 1) + _positions(8, range(4), 3):
        kt = kernel_tables(board)
        gain = gain_for(kt)
        s = state.kernel_state()
        legal = np.empty(kt.nplace, dtype=np.int32)
        n = int(k_legal_list(kt, s, legal))
        if n:
            assert k_evaluate(kt, s, gain, ab.ab_tables(kt), legal, n) == ref.evaluate(kt, gain, s)
            checked += 1
    assert checked >= 12


def test_the_learned_leaf_values_equal_the_reference() -> None:
    """``eval=net`` is the model's score for the mover, ``eval=mix`` the hand-made value plus it, bit for bit."""
    inside = 0
    for board, state in _positions(6, range(6), 2) + _positions(8, range(4), 4) + _positions(10, range(2), 6):
        kt = kernel_tables(board)
        gain = gain_for(kt)
        s = state.kernel_state()
        legal = np.empty(kt.nplace, dtype=np.int32)
        n = int(k_legal_list(kt, s, legal))
        if not n:
            continue
        searcher = _learned_searcher(board, "net")
        ctype = searcher.root_ctype(s)
        assert tuple(ctype.tolist()) == _learned_ref(board, state, "net").ctype  # the tiling finds the game's pieces
        mm = searcher._model
        scratch = tuple(np.zeros(k, dtype=np.int64) for k in (MODEL.w1.shape[0], kt.size * kt.size, 4, 2,
                                                             MODEL.b1.shape[0], MODEL.b2.shape[0]))
        for mode, name in ((NET, "net"), (MIX, "mix"), (HAND, "hand")):
            got = k_leaf(kt, s, gain, ab.ab_tables(kt), legal, n, mode, ctype, mm, MODEL.q, scratch)
            want = ref.leaf(kt, gain, s, None if name == "hand" else _learned_ref(board, state, name))
            assert got == want, f"{name} on {board.name}"
        net = ref.learned_value(kt, s, _learned_ref(board, state, "net"))
        inside += abs(net) < ab.NET_SCALE  # a chance inside (0, 1), not clamped
    assert inside >= 6


def test_learned_proven_values_agree_with_the_exact_solver() -> None:
    """Finished positions stay exact wins and losses under the learned evaluation."""
    proven = 0
    for board, state in _positions(4, range(8), 0) + _positions(6, range(4), 3):
        kt = kernel_tables(board)
        s = state.kernel_state()
        if len(ref.legal(kt, s)) < 2:
            continue
        wins = side_to_move_wins(state, {})
        for evaluation in ("net", "mix"):
            res = _learned_searcher(board, evaluation, nodes=200_000).search(s)
            if abs(res.value) >= MATE:
                proven += 1
                assert (res.value > 0) == wins
    assert proven >= 8


def test_a_board_size_the_model_was_not_trained_for_is_refused() -> None:
    board = Board.random(size=8, pairs=8, seed=1)
    with pytest.raises(ModelError, match="trained for 10x10, 12x12, 14x14 boards, not 8x8"):
        make_agent("ab:100:eval=net", board, 1).choose(k_new_state(kernel_tables(board)))


@pytest.mark.parametrize(("evaluation", "depth"), [("hand", 1), ("hand", 2), ("hand", 3), ("net", 1), ("net", 2),
                                                 ("mix", 1), ("mix", 2), ("net", 3)])
def test_the_search_finds_the_reference_minimax_value_and_a_move_of_that_value(evaluation: str, depth: int) -> None:
    """Against the plain minimax, with the hand-made evaluation and with the learned ones (fewer boards: the plain
    model is slow)."""
    hand = evaluation == "hand"
    compared = 0
    for board, state in _positions(6, range(8 if hand else 6), 3 if depth == 3 else 2):
        kt = kernel_tables(board)
        gain = gain_for(kt)
        s = state.kernel_state()
        if not ref.legal(kt, s):
            continue
        values = ref.root_values(kt, gain, s, depth, None if hand else _learned_ref(board, state, evaluation))
        searcher = (AlphaBeta(kt, gain, k_seed(3), AbSpec(nodes=1)) if hand
                    else _learned_searcher(board, evaluation))
        res = searcher.search(s, depth=depth)
        assert res.value == max(values.values()), f"seed board {board.name}: depth {depth}"
        assert values[res.move] == res.value
        compared += 1
    assert compared >= (6 if hand else 4)


def test_proven_values_agree_with_the_exact_solver() -> None:
    proven = 0
    for board, state in _positions(4, range(10), 0) + _positions(6, range(10), 1):
        kt = kernel_tables(board)
        s = state.kernel_state()
        if len(ref.legal(kt, s)) < 2:  # one legal move is played without a search
            continue
        wins = side_to_move_wins(state, {})
        # small budgets end within a depth, where unsearched moves must keep a loss unproven
        for nodes in (60, 500, 3000, 300_000):
            res = AlphaBeta(kt, gain_for(kt), k_seed(nodes), AbSpec(nodes=nodes)).search(s)
            if abs(res.value) >= MATE:
                proven += nodes == 300_000
                assert (res.value > 0) == wins, f"{nodes} nodes"
                if wins:  # a proven win's move is a winning move
                    state.push(Placement.from_index(res.move, board.size))
                    assert not side_to_move_wins(state, {})
                    state.pop()
    assert proven >= 14  # small games are solved outright within a big budget


def test_a_budget_ending_within_a_depth_proves_no_loss() -> None:
    # found by tests/benchmarks/bench_ab_exact.py: every move searched at depth 4 before the budget ran out lost,
    # yet a move not searched yet wins
    board = Board.random(size=6, pairs=4, seed=4)
    state = GameState(board)
    state.push(Placement.from_index(182, board.size))
    assert side_to_move_wins(state, {})
    agent = make_agent("ab:8000", board, 4182)
    agent.choose(state.kernel_state())
    res = agent._chooser.last  # type: ignore[union-attr]
    assert res is not None and res.nodes == 8000 and len(res.values) < len(list(state.legal_placements()))
    assert -MATE < res.value < 0  # every searched move lost: likely lost, not proven


@pytest.mark.parametrize(("spec", "size"), [("ab:300", 8), ("ab:2000:d=2", 8), ("ab:300:n=40", 8),
                                           ("ab:300:eval=net", 10), ("ab:300:eval=mix", 10)])
def test_every_move_is_legal_and_games_follow_their_seeds(spec: str, size: int) -> None:
    board = Board.random(size=size, pairs=size + 4, seed=11)  # the shipped model takes 10x10 and larger
    bs = BoardSpec.from_board(board)
    games = []
    for seed in range(6):
        res = play_task(GameTask(bs, seed, spec, "greedy", pie=True))
        state = GameState(board)
        for p in res.moves:
            placement = Placement.from_index(p, board.size)
            assert state.why_illegal(placement) is None
            state.push(placement)
        assert state.is_over()
        games.append(res.moves)
        assert play_task(GameTask(bs, seed, spec, "greedy", pie=True)) == res  # a seed gives the same game
    assert len(set(games)) >= 4  # games differ by seed (the first placements are drawn among near-best moves)


@pytest.mark.parametrize("evaluation", ["hand", "net", "mix"])
def test_the_node_budget_is_honoured(evaluation: str) -> None:
    board = load_board(BOARDS / "default.yaml")
    kt = kernel_tables(board)
    state = k_new_state(kt)
    for nodes in (1, 50, 3000, 20_000):
        searcher = AlphaBeta(kt, gain_for(kt), k_seed(2), AbSpec(nodes=nodes, evaluation=evaluation))
        move = searcher.choose(state)
        assert move >= 0 and searcher.last is not None
        assert searcher.last.nodes <= nodes
    assert searcher.last.nodes == 20_000 and searcher.last.depth >= 2  # a big budget is used, deeper


class FakeMachine:
    """A clock that moves only when the search runs: ``rate`` nodes per second."""

    def __init__(self, rate: float) -> None:
        self.now = 100.0
        self.rate = rate

    def __call__(self) -> float:
        return self.now

    def kernel(self, real: Any) -> Any:
        def run(*args: Any) -> int:
            ctr = args[13]
            before = int(ctr[0])
            done = int(real(*args))
            self.now += (min(int(ctr[0]), int(ctr[1])) - before) / self.rate
            return done
        return run


def test_the_time_budget_with_a_fake_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    board = load_board(BOARDS / "default.yaml")
    kt = kernel_tables(board)
    real = ab.k_ab_root
    for rate, seconds in ((50_000.0, 0.2), (500_000.0, 0.1)):
        machine = FakeMachine(rate)
        monkeypatch.setattr(ab, "k_ab_root", machine.kernel(real))
        searcher = AlphaBeta(kt, gain_for(kt), k_seed(1), AbSpec(seconds=seconds), clock=machine)
        begin = machine()
        res = searcher.search(k_new_state(kt))
        used = machine.now - begin
        # within a depth the node rate measured so far caps the search, so it ends at the budget
        assert used <= seconds * 1.05 and res.nodes >= rate * seconds * 0.5


def test_the_time_budget_on_the_real_clock_generous_bound() -> None:
    board = load_board(BOARDS / "default.yaml")
    player = make_agent("ab:t=0.3", board, 2)
    state = k_new_state(kernel_tables(board))
    player.choose(state)  # loads the kernels
    t0 = time.perf_counter()
    assert player.choose(state) >= 0
    assert time.perf_counter() - t0 <= 0.3 + 1.0  # a shared test machine gets a full second


def test_noise_over_more_placements_spreads_the_games_of_one_opening() -> None:
    """``n=P`` draws the first P placements among moves near the best: from one opening, games of the default
    (4) follow few lines, games drawn all the way differ far more (what a judge's rate needs to read a spread of
    games rather than one line of play)."""
    board = load_board(BOARDS / "default.yaml")
    bs = BoardSpec.from_board(board)
    opening = next(iter(GameState(board).legal_placements())).index

    def lines(spec: str) -> int:
        return len({play_task(GameTask(bs, seed, spec, spec, opening=opening)).moves[:12] for seed in range(8)})

    assert lines("ab:300:n=40") > lines("ab:300:n=0")
