"""The pure-Python game state against the compiled one: the same legal placements, the same reasons, the same end,
on every position of whole random games (the kernels' tables and ``GameState.broken_rule`` are two writings of
the rules, so they are compared everywhere, not sampled)."""

from __future__ import annotations

import random

import pytest

from core.board.boardfile import load_board
from core.board.model import Board, GameParams, Symbol
from core.engine.purerules import PureGameState
from core.engine.rules import SWAP, GameState, all_placements
from tests.paths import BOARDS


def boards() -> list[Board]:
    blank = Board(size=8, params=GameParams(supply=(2, 1, 3, 2), pie=True, first=Symbol.X))
    return [load_board(BOARDS / "default.yaml"), load_board(BOARDS / "sparse.yaml"), blank]


@pytest.mark.parametrize("seed", [0, 1])
def test_every_position_of_random_games_is_judged_alike(seed: int) -> None:
    rng = random.Random(seed)
    for board in boards():
        compiled, pure = GameState(board), PureGameState(board)
        table = all_placements(board.size)
        while True:
            legal = {p.index for p in compiled.legal_placements()}
            assert {p.index for p in table if pure.is_legal(p)} == legal
            assert pure.is_over() == compiled.is_over() and pure.result() == compiled.result()
            assert pure.swap_refusal() == compiled.swap_refusal()
            for p in rng.sample(table, 40):
                assert pure.why_illegal(p) == compiled.why_illegal(p), p
            if not legal:
                break
            if len(compiled.actions) == 1 and board.params.pie and rng.random() < 0.5:
                compiled.push_action(SWAP)
                pure.push_action(SWAP)
                continue
            move = table[rng.choice(sorted(legal))]
            compiled.push(move)
            pure.push(move)
            assert pure.score() == compiled.score()
        # and back again: pop restores what push changed
        while compiled.actions:
            assert pure.pop() == compiled.pop()
            assert pure.is_over() == compiled.is_over()
        assert {p.index for p in table if pure.is_legal(p)} == {p.index for p in compiled.legal_placements()}


def test_the_legal_view_and_copy_work_without_a_kernel() -> None:
    board = load_board(BOARDS / "default.yaml")
    compiled, pure = GameState(board), PureGameState(board)
    first = next(iter(compiled.legal_placements()))
    compiled.push(first)
    pure.push(first)
    assert pure.legal_placements().count() == compiled.legal_placements().count()
    assert pure.copy().actions == [first]
    with pytest.raises(TypeError):
        pure.kernel_state()
