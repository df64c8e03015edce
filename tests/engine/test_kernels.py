"""Compiled kernels: seeded playouts agree with the Python state and the reference; low-level API."""

from __future__ import annotations

import random

import numpy as np
import pytest

from core.board.boardfile import load_board
from core.board.model import Board, GameParams, Symbol
from core.engine.kernels import (
    H_LAST,
    H_NPLACED,
    H_SUPPLY,
    H_TO_MOVE,
    NO_SYMBOL,
    k_apply,
    k_copy_state,
    k_is_legal,
    k_legal_count,
    k_legal_list,
    k_new_state,
    k_rand_below,
    k_score,
    k_seed,
    k_winner,
    kernel_tables,
    playout_from,
    playout_moves,
    random_playouts,
)
from core.engine.rules import GameState, Placement
from tests.reference_rules import RefGame

SYM = {0: Symbol.O, 1: Symbol.X}


def boards() -> list[Board]:
    default = load_board("boards/default.yaml")
    original = load_board("boards/original-10x10.yaml")
    scarce = default.copy()
    scarce.params = GameParams(supply=(2, 1, 0, 3), first=Symbol.X)
    big = Board.random(size=26, pairs=150, seed=3, params=GameParams(supply=(3, 3, 3, 3)))
    return [default, original, scarce, big]


@pytest.mark.parametrize("board", boards(), ids=["default", "original10", "scarce", "26x26"])
def test_seeded_playouts_match_python_state_and_reference(board: Board) -> None:
    n_games = 40 if board.size <= 12 else 4
    stats = random_playouts(board, n_games, seed=9)
    for g in range(n_games):
        moves = playout_moves(board, seed=9, game=g)
        state = GameState(board)
        ref = RefGame(board.size, board.params.supply)
        for index in moves:
            p = Placement.from_index(index, board.size)
            piece = frozenset(divmod(c, board.size) for c in p.cells)
            assert not ref.broken_rules(piece), f"kernel move {p} breaks {ref.broken_rules(piece)}"
            state.push(p)
            ref.play(piece)
        assert state.is_over() and not ref.legal()
        result = state.result()
        assert result is not None
        assert stats.length[g] == len(moves)
        assert stats.score_o[g] == result.score[Symbol.O] and stats.score_x[g] == result.score[Symbol.X]
        assert SYM[int(stats.winner[g])] is result.winner
        assert SYM[int(stats.last_mover[g])] is state.last_mover


def test_playouts_are_deterministic_and_seed_dependent() -> None:
    board = load_board("boards/default.yaml")
    a = random_playouts(board, 200, seed=1)
    b = random_playouts(board, 200, seed=1)
    c = random_playouts(board, 200, seed=2)
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x, y)
    assert not np.array_equal(a.length, c.length) or not np.array_equal(a.score_o, c.score_o)
    assert 15 <= a.length.mean() <= 20  # peers' notes: 16-20 pieces on 12x12 under random play
    assert a.length.max() <= 20


def test_winner_follows_scores_and_tie_rule() -> None:
    board = Board(size=8)  # no symbols: every game is a tie decided by the last placer
    stats = random_playouts(board, 300, seed=5)
    assert (stats.score_o == 0).all() and (stats.score_x == 0).all()
    assert np.array_equal(stats.winner, stats.last_mover)
    assert np.array_equal(stats.last_mover, (stats.length + 1) % 2)  # O first: odd length -> O placed last
    default = random_playouts(load_board("boards/default.yaml"), 500, seed=6)
    decided = default.score_o != default.score_x
    assert np.array_equal(default.winner[decided], (default.score_x[decided] > default.score_o[decided]).astype(int))
    tied = ~decided
    assert tied.any() and np.array_equal(default.winner[tied], default.last_mover[tied])


def test_no_supply_means_no_game() -> None:
    board = Board(size=10, params=GameParams(supply=(0, 0, 0, 0), first=Symbol.X))
    stats = random_playouts(board, 3, seed=0)
    assert (stats.length == 0).all() and (stats.last_mover == NO_SYMBOL).all()
    assert (stats.winner == 0).all()  # X would move and cannot: O wins the tie
    assert GameState(board).result().winner is Symbol.O  # type: ignore[union-attr]


def test_playout_from_leaves_the_state_alone_and_continues_it() -> None:
    board = load_board("boards/default.yaml")
    state = GameState(board)
    rng = random.Random(2)
    for _ in range(6):
        state.push(rng.choice(list(state.legal_placements())))
    before = state.kernel_state()
    stats = playout_from(state, seed=4)
    assert np.array_equal(before, state.kernel_state()) and len(state.placements) == 6
    moves = playout_moves(board, seed=4, start=state.kernel_state())
    for index in moves:
        state.push(Placement.from_index(index, 12))
    assert state.is_over()
    result = state.result()
    assert result is not None and int(stats.length[0]) == 6 + len(moves)
    assert int(stats.score_o[0]) == result.score[Symbol.O] and SYM[int(stats.winner[0])] is result.winner


def test_an_index_outside_the_table_is_never_legal() -> None:
    """A placement index read from a task or a file is checked by k_is_legal itself: past the table it would
    read the words after the legal set (and, far enough, memory outside the state)."""
    kt = kernel_tables(load_board("boards/original-10x10.yaml"))
    s = k_new_state(kt)
    s[kt.off_legal + kt.npw:] = np.uint64(0xFFFFFFFFFFFFFFFF)  # every word after the legal set has all bits set
    assert k_is_legal(kt, s, 0)  # the first placement is legal on the empty board
    for p in (-1, -64, kt.nplace, kt.npw * 64 + 3, 10**6):
        assert not k_is_legal(kt, s, p), p


def test_low_level_api_matches_game_state() -> None:
    board = load_board("boards/original-10x10.yaml")
    kt = kernel_tables(board)
    s = k_new_state(kt)
    assert s.shape == (kt.state_len,) and s.dtype == np.uint64
    assert int(s[H_TO_MOVE]) == 1 and int(s[H_LAST]) == NO_SYMBOL and int(s[H_NPLACED]) == 0
    assert [int(x) for x in s[H_SUPPLY:H_SUPPLY + 4]] == [5, 5, 5, 5]
    state = GameState(board)
    out = np.empty(kt.nplace, dtype=np.int64)
    rng = random.Random(8)
    while True:
        n = k_legal_list(kt, s, out)
        expected = [p.index for p in state.legal_placements()]
        assert list(out[:n]) == expected and k_legal_count(kt, s) == n
        assert all(k_is_legal(kt, s, i) for i in expected[:20])
        o, x = k_score(kt, s)
        assert (o, x) == (state.score()[Symbol.O], state.score()[Symbol.X])
        if n == 0:
            break
        p = rng.choice(expected)
        assert not k_is_legal(kt, s, (p + 1) % kt.nplace) or (p + 1) % kt.nplace in expected
        copy = np.empty_like(s)
        k_copy_state(s, copy)
        k_apply(kt, copy, p)
        assert not np.array_equal(copy, s)
        s = copy
        state.push(Placement.from_index(p, 10))
        assert np.array_equal(s, state.kernel_state())
    result = state.result()
    assert result is not None and SYM[k_winner(kt, s)] is result.winner


def test_rng_helpers() -> None:
    rng = k_seed(123)
    draws = [k_rand_below(rng, 10) for _ in range(2000)]
    assert set(draws) == set(range(10))
    assert max(draws.count(v) for v in range(10)) < 300
    assert k_seed(1)[0] != k_seed(2)[0]
