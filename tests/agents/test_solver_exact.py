"""The puct search's proven wins and losses agree with a plain exhaustive minimax over the rules engine.

The minimax below uses only ``core.engine.rules.GameState`` (push, pop, legal placements, result) and a memo on
the set of placements made, which fixes everything the rest of the game depends on.  Every node the search
marked proven, anywhere in its tree, is checked, on 4x4 and 6x6 boards and on 12x12 positions with few
placements left.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.agents.puct import F_FIRST, F_MOVE, F_PROOF, F_SIB, LOSS, WIN, PuctBudget, PuctSearch, PuctTree
from core.agents.search import gain_for
from core.board.boardfile import load_board
from core.board.model import Board, GameParams
from core.engine.kernels import k_seed, kernel_tables
from core.engine.rules import GameState, Placement
from tests.minimax import side_to_move_wins
from tests.paths import BOARDS


def check_tree(board: Board, state: GameState, tree: PuctTree, memo: dict[bytes, bool]) -> int:
    """Walk the tree along with the game state; every proof must match the minimax. Returns proofs checked."""
    checked = 0

    def walk(node: int) -> None:
        nonlocal checked
        proof = int(tree.ti[node, F_PROOF])
        if proof != 0:
            # WIN: the player who moved into this node wins, i.e. the side to move here loses
            assert proof in (WIN, LOSS)
            assert side_to_move_wins(state, memo) == (proof == LOSS), \
                f"node {node} after {[p.notation() for p in state.placements]}: proof {proof}"
            checked += 1
        child = int(tree.ti[node, F_FIRST])
        while child >= 0:
            state.push(Placement.from_index(int(tree.ti[child, F_MOVE]), board.size))
            walk(child)
            state.pop()
            child = int(tree.ti[child, F_SIB])

    walk(0)
    return checked


def search(board: Board, state: GameState, sims: int, seed: int) -> PuctTree:
    kt = kernel_tables(board)
    return PuctSearch(kt, gain_for(kt), k_seed(seed), PuctBudget(sims=sims)).search(state.kernel_state())


def random_prefix(board: Board, seed: int, plies: int) -> GameState:
    rng = np.random.default_rng(seed)
    state = GameState(board)
    for _ in range(plies):
        moves = list(state.legal_placements())
        if not moves:
            break
        state.push(moves[int(rng.integers(len(moves)))])
    return state


def test_4x4_whole_games_are_proven_correctly() -> None:
    roots_proven = 0
    checked = 0
    for seed in range(12):
        board = Board.random(size=4, pairs=3 + seed % 3, seed=seed)
        state = GameState(board)
        memo: dict[bytes, bool] = {}
        tree = search(board, state, 3000, seed)
        checked += check_tree(board, state, tree, memo)
        roots_proven += tree.root_proof != 0
        if tree.root_proof != 0:
            assert (tree.root_proof == LOSS) == side_to_move_wins(state, memo)
    # a 4x4 game has only a few placements: the search proves the start position every time
    assert roots_proven == 12
    assert checked > 100


def test_6x6_positions_are_proven_correctly() -> None:
    checked = 0
    roots = 0
    for seed in range(8):
        board = Board.random(size=6, pairs=7, seed=100 + seed, params=GameParams(supply=(2, 2, 2, 2)))
        state = random_prefix(board, seed, plies=2)
        memo: dict[bytes, bool] = {}
        tree = search(board, state, 20_000, seed)
        checked += check_tree(board, state, tree, memo)
        if tree.root_proof != 0:
            roots += 1
            assert (tree.root_proof == LOSS) == side_to_move_wins(state, memo)
    assert roots >= 6
    assert checked >= 500


def test_6x6_from_the_start_is_proven_and_right() -> None:
    board = Board.random(size=6, pairs=6, seed=7, params=GameParams(supply=(1, 1, 1, 1)))
    state = GameState(board)
    memo: dict[bytes, bool] = {}
    tree = search(board, state, 60_000, 3)
    assert tree.root_proof != 0
    assert (tree.root_proof == LOSS) == side_to_move_wins(state, memo)
    assert check_tree(board, state, tree, memo) > 50


@pytest.mark.parametrize("seed", range(5))
def test_12x12_endgames_are_proven_correctly(seed: int) -> None:
    board = load_board(BOARDS / "default.yaml")
    # play a random game, then step back to where few placements are left
    full = random_prefix(board, 1000 + seed, plies=200)
    placements = list(full.placements)
    state = GameState(board)
    for p in placements[: max(0, len(placements) - 3)]:
        state.push(p)
    while state.legal_placements().count() > 40 and len(state.placements) < len(placements):
        state.push(placements[len(state.placements)])
    memo: dict[bytes, bool] = {}
    tree = search(board, state, 5000, seed)
    assert tree.root_proof != 0, "a 12x12 position a few placements from the end is proven"
    assert (tree.root_proof == LOSS) == side_to_move_wins(state, memo)
    assert check_tree(board, state, tree, memo) >= 5
