"""The board's settings reach the worker games whole: no rule setting silently reverts to its default."""

from __future__ import annotations

import dataclasses

from core.board.model import Board, GameParams, Symbol
from core.engine.pieces import placement_table
from core.engine.rules import GameState, Placement
from core.selfplay.game import spec_board
from core.selfplay.runner import Runner
from core.selfplay.tasks import BoardSpec, GameTask, derive_seed
from core.selfplay.worker import play_game

# Every setting differs from its default. When GameParams gains a field, the first test fails until that
# field is given a non-default value here, and the worker test then checks that the value arrives.
NON_DEFAULT = GameParams(supply=(0, 6, 0, 0), first=Symbol.X, pie=False, turn_time=7, bank=11)


def test_every_setting_of_the_test_board_differs_from_its_default() -> None:
    default = GameParams()
    same = [f.name for f in dataclasses.fields(GameParams) if getattr(NON_DEFAULT, f.name) == getattr(default, f.name)]
    assert same == [], f"give these settings a non-default value in NON_DEFAULT: {same}"


def test_board_spec_carries_the_board_params_object_and_nothing_copied_by_hand() -> None:
    assert [f.name for f in dataclasses.fields(BoardSpec)] == ["size", "cells", "params"]
    board = Board.random(size=8, pairs=10, seed=3)
    board.params = NON_DEFAULT
    spec = BoardSpec.from_board(board)
    assert spec.params is board.params
    rebuilt = spec.to_board()
    assert rebuilt.params == NON_DEFAULT and rebuilt.cells == board.cells and rebuilt.size == 8


def test_a_worker_process_rebuilds_the_board_with_every_setting() -> None:
    board = Board.random(size=8, pairs=10, seed=3)
    board.params = NON_DEFAULT
    spec = BoardSpec.from_board(board)
    with Runner(workers=1) as runner:  # a spawned process: the spec is pickled there and rebuilt by the game code
        seen = runner.run(spec_board, [spec])
    assert seen[0].params == NON_DEFAULT
    assert seen[0].cells == board.cells


def test_a_worker_game_plays_by_the_board_supply_and_first_player() -> None:
    board = Board.random(size=8, pairs=10, seed=3)
    board.params = NON_DEFAULT
    spec = BoardSpec.from_board(board)
    tasks = [GameTask(spec, derive_seed(1, 2, i), "greedy:0.3", "greedy:0.3") for i in range(4)]
    with Runner(workers=1) as runner:
        results = runner.run(play_game, tasks)
    table = placement_table(8)
    for r in results:
        assert r.moves and {table.ptype_letter(p) for p in r.moves} == {"I"}  # the supply holds only I pieces
        assert r.length <= 6
        state = GameState(board)
        for p in r.moves:
            state.push(Placement.from_index(p, 8))
        outcome = state.result()
        assert outcome is not None
        # S1 is the board's first player, X: S1's score is X's uncovered symbols
        assert (r.s1_score, r.s2_score) == (outcome.score[Symbol.X], outcome.score[Symbol.O])
        assert (r.winner == 1) == (outcome.winner is Symbol.X)
