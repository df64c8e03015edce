"""``net:N``: the puct search with the learned value at its leaves, on random-weight test models."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import core.agents.netsearch as netsearch
import core.agents.value as value
from core.agents.agent import make_agent
from core.agents.netsearch import NetSearch, net_search
from core.agents.puct import F_FIRST, F_MOVE, F_NLEGAL, F_NVIS, F_PROOF, F_SIB, G_WINS, LOSS, PuctSearch, PuctTree
from core.agents.search import gain_for
from core.agents.spec import AgentSpecError, PuctBudget, parse_agent
from core.agents.value import ModelError, ValueModel, position_inputs
from core.board.boardfile import load_board
from core.board.model import Board
from core.engine.kernels import H_TO_MOVE, k_apply, k_is_legal, k_new_state, k_seed, kernel_tables
from core.engine.rules import GameState
from core.learn.train import model_bytes
from tests.agents import summary_reference
from tests.agents import value_reference as ref
from tests.agents.test_solver_exact import check_tree, random_prefix
from tests.agents.test_value import model_of, tame_weights
from tests.minimax import side_to_move_wins
from tests.paths import BOARDS

REPO = Path(__file__).resolve().parents[2]


MODEL = model_of(tame_weights(45))


def searcher(board: Board, text: str, seed: int, model: ValueModel = MODEL) -> NetSearch:
    kt = kernel_tables(board)
    return net_search(text, kt, gain_for(kt), k_seed(seed), model=model)


def play(board: Board, text: str, seed: int) -> list[int]:
    """A whole game between two searchers; every move legal and the piece types they keep those of the game."""
    kt = kernel_tables(board)
    sides = (searcher(board, text, seed), searcher(board, text, seed + 1))  # each learns the other's moves
    s = k_new_state(kt)
    moves: list[int] = []
    while True:
        ns = sides[len(moves) % 2]
        p = ns.choose(s)
        if p < 0:
            return moves
        assert k_is_legal(kt, s, p), f"illegal placement {p} after {moves}"
        k_apply(kt, s, p)
        moves.append(p)
        assert ns.root_ctype(s).tolist() == position_inputs(board, moves)[1].tolist()


@pytest.mark.parametrize("size", [10, 12, 14])
def test_whole_games_are_legal(size: int) -> None:
    moves = play(Board.random(size, pairs=size, seed=size), "net:40", seed=size)
    assert len(moves) >= 4


def test_same_seed_same_moves_and_mix_changes_them() -> None:
    board = Board.random(10, pairs=10, seed=2)
    assert play(board, "net:60", 9) == play(board, "net:60", 9)
    assert play(board, "net:60:mix=0.5", 9) == play(board, "net:60:mix=0.5", 9)


def test_budget_is_kept() -> None:
    board = Board.random(12, pairs=12, seed=4)
    kt = kernel_tables(board)
    tree = searcher(board, "net:250", 1).search(k_new_state(kt))
    assert tree.root_visits == 250
    assert tree.nnodes <= 252


def test_mix_zero_is_the_puct_search_exactly() -> None:
    board = Board.random(12, pairs=12, seed=5)
    kt = kernel_tables(board)
    a = searcher(board, "net:400:mix=0", 3).search(k_new_state(kt))
    b = PuctSearch(kt, gain_for(kt), k_seed(3), PuctBudget(sims=400)).search(k_new_state(kt))
    assert a.nnodes == b.nnodes
    assert np.array_equal(a.ti[: a.nnodes], b.ti[: b.nnodes])
    assert np.array_equal(a.tf[: a.nnodes], b.tf[: b.nnodes])
    c = searcher(board, "net:400", 3).search(k_new_state(kt))
    assert not np.array_equal(c.tf[: c.nnodes], b.tf[: b.nnodes])


def reference_chance(board: Board, moves: list[int], m: ValueModel) -> float:
    sym, ctype, supply, s1 = position_inputs(board, moves)
    x = summary_reference.summary(board.size, sym.tolist(), ctype.tolist(), supply.tolist(), s1)
    win, _ = ref.evaluate(m.w1.tolist(), m.b1.tolist(), m.w2.tolist(), m.b2.tolist(), m.w3.tolist(),
                          m.b3.tolist(), m.q, x)
    one = 1 << (2 * m.q)
    return min(max(win, 0), one) / one


@pytest.mark.parametrize("plies", [0, 7])
def test_leaf_value_is_the_models(plies: int) -> None:
    """One simulation creates one child and values it: its wins are the model's chance for its mover."""
    board = Board.random(12, pairs=12, seed=6)
    kt = kernel_tables(board)
    game = [p.index for p in random_prefix(board, 11, plies).placements]
    s = k_new_state(kt)
    for p in game:
        k_apply(kt, s, p)
    ns = searcher(board, "net:1", 2)
    tree = ns.search(s)
    child = int(tree.ti[0, F_FIRST])
    move = int(tree.ti[child, F_MOVE])
    s1_chance = reference_chance(board, [*game, move], MODEL)
    mover_is_s1 = int(s[H_TO_MOVE]) == kt.first
    assert float(tree.tf[child, G_WINS]) == (s1_chance if mover_is_s1 else 1.0 - s1_chance)
    assert 0.0 < s1_chance < 1.0  # a value the playout's 0 or 1 could not give


def test_every_leaf_of_a_search_gets_the_models_value() -> None:
    """The search's one layer scratch serves every leaf: each leaf visited once holds the model's own chance."""
    board = Board.random(12, pairs=12, seed=7)
    kt = kernel_tables(board)
    game = [p.index for p in random_prefix(board, 12, 5).placements]
    s = k_new_state(kt)
    for p in game:
        k_apply(kt, s, p)
    tree = searcher(board, "net:60", 4).search(s)
    checked = 0
    stack = [(0, game)]
    while stack:
        node, moves = stack.pop()
        child = int(tree.ti[node, F_FIRST])
        while child >= 0:
            path = [*moves, int(tree.ti[child, F_MOVE])]
            stack.append((child, path))
            if (tree.ti[child, F_NVIS] == 1 and tree.ti[child, F_PROOF] == 0
                    and tree.ti[child, F_NLEGAL] > 0):
                s1_chance = reference_chance(board, path, MODEL)
                mover_is_s1 = len(moves) % 2 == 0
                assert float(tree.tf[child, G_WINS]) == (s1_chance if mover_is_s1 else 1.0 - s1_chance)
                checked += 1
            child = int(tree.ti[child, F_SIB])
    assert checked >= 30


@pytest.mark.parametrize("size", [10, 12, 14])
def test_pieces_of_a_position_met_in_mid_game(size: int) -> None:
    """A searcher that meets a position first finds which piece covers each cell from the covered cells alone."""
    checked = 0
    for g in range(4):
        board = Board.random(size, pairs=size, seed=g)
        kt = kernel_tables(board)
        game = [p.index for p in random_prefix(board, 50 + g, 200).placements]
        for k in range(0, len(game) + 1, 3):
            s = k_new_state(kt)
            for p in game[:k]:
                k_apply(kt, s, p)
            assert searcher(board, "net:1", 1).root_ctype(s).tolist() == position_inputs(board, game[:k])[1].tolist()
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("seed", range(3))
def test_proofs_agree_with_minimax_on_endgames(seed: int) -> None:
    board = load_board(BOARDS / "default.yaml")
    full = random_prefix(board, 2000 + seed, plies=200)
    placements = list(full.placements)
    state = GameState(board)
    for p in placements[: max(0, len(placements) - 3)]:
        state.push(p)
    while state.legal_placements().count() > 40 and len(state.placements) < len(placements):
        state.push(placements[len(state.placements)])
    kt = kernel_tables(board)
    tree: PuctTree = NetSearch(kt, gain_for(kt), k_seed(seed), PuctBudget(sims=5000), model=MODEL).search(
        state.kernel_state())
    memo: dict[bytes, bool] = {}
    assert tree.root_proof != 0
    assert (tree.root_proof == LOSS) == side_to_move_wins(state, memo)
    assert check_tree(board, state, tree, memo) >= 5


def test_board_size_the_model_lacks_is_refused() -> None:
    board = Board.random(8, pairs=8, seed=1)
    with pytest.raises(ModelError, match="not 8x8"):
        searcher(board, "net:10", 1)


def test_spec_spellings() -> None:
    assert parse_agent("net:200").text == "net:200"
    assert parse_agent("NET:200:mix=0.5").text == "net:200:mix=0.5"
    assert parse_agent("net:200:mix=1").text == "net:200"
    assert parse_agent("net:300:t=2").fixed_work().text == "net:300"
    assert parse_agent("net:500").capped(100).text == "net:100"
    for bad, why in (("net:200:mix=2", "within 0..1"), ("net:200:threads=2", "one core"), ("net", "net:1000"),
                     ("net:200:mix=x", "not a number")):
        with pytest.raises(AgentSpecError, match=why):
            parse_agent(bad)


def test_agent_table_plays_net_with_the_default_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(netsearch, "default_model", lambda: MODEL)
    board = load_board(BOARDS / "default.yaml")
    agent = make_agent("net:30", board, seed=3)
    s = k_new_state(agent.kt)
    p = agent.choose(s)
    assert k_is_legal(agent.kt, s, p)
    assert 0.0 <= agent.last_value <= 1.0


@pytest.fixture
def shipped_model() -> Iterator[None]:
    """A test model where the program looks for the shipped one (spawned duel workers load it from there); the
    shipped model itself, once there, is left alone and used."""
    path = value.DEFAULT_MODEL
    if path.exists():
        yield
        return
    made = not path.parent.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(model_bytes(tame_weights(45), {}))
    tmp.rename(path)
    try:
        yield
    finally:
        path.unlink()
        if made:
            path.parent.rmdir()


def test_duel_runs_net(shipped_model: None, capsys: pytest.CaptureFixture[str]) -> None:
    from core.cli import main

    rc = main(["duel", str(BOARDS / "default.yaml"), "--agent", "net:200", "--agent", "club", "--pairs", "2",
               "--workers", "1"])
    assert rc == 0
    assert "net:200" in capsys.readouterr().out


def test_same_moves_in_a_fresh_process_with_an_empty_cache(tmp_path: Path) -> None:
    script = ("import sys; sys.path.insert(0, '.');"
              "from tests.agents.test_net import play; from core.board.model import Board;"
              "print(play(Board.random(10, pairs=10, seed=2), 'net:60', 9))")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=900, check=True).stdout
    assert out.strip() == str(play(Board.random(10, pairs=10, seed=2), "net:60", 9))
