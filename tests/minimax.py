"""An exhaustive, obviously-correct game solver for the tests: the yardstick for the search's proofs and for
boards whose every opening is proven won for one side."""

from __future__ import annotations

from core.engine.rules import GameState


def side_to_move_wins(state: GameState, memo: dict[bytes, bool]) -> bool:
    """Plain negamax with a transposition table: does the player to move win with perfect play from here?"""
    key = state.kernel_state().tobytes()
    if key in memo:
        return memo[key]
    legal = list(state.legal_placements())
    if not legal:
        result = state.result()
        assert result is not None
        won = result.winner == state.to_move
    else:
        won = False
        for p in legal:
            state.push(p)
            reply_wins = side_to_move_wins(state, memo)
            state.pop()
            if not reply_wins:
                won = True
                break
    memo[key] = won
    return won
