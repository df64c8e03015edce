"""What the play tests share: a time source moved by hand, so clock and pace tests never wait, and small boards."""

from __future__ import annotations

from core.board.model import Board, GameParams


class FakeTime:
    """A time source the test advances by hand."""

    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def small_board(seed: int = 3, size: int = 6, pairs: int = 7, **params: object) -> Board:
    """A random board with symbols (``params`` are the game settings: ``turn_time``, ``pie``, ``supply``...)."""
    return Board.random(size=size, pairs=pairs, seed=seed, params=GameParams(**params))  # type: ignore[arg-type]
