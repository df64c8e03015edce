"""What a self-play game is asked and what it answers: small, picklable values that cross process boundaries.

Reproducibility across worker counts starts here: every game's seed is derived from the
master seed and the game's coordinates (question, game index) only, never from which
worker plays it or when.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.board.model import Board, GameParams


def derive_seed(master: int, *keys: int) -> int:
    """A game's own seed from the master seed and its coordinates (stable across runs and platforms)."""
    ss = np.random.SeedSequence([int(master) & 0xFFFFFFFF, (int(master) >> 32) & 0xFFFFFFFF, *[int(k) for k in keys]])
    return int(ss.generate_state(1, dtype=np.uint32)[0]) & 0x7FFFFFFF


@dataclass(frozen=True)
class BoardSpec:
    """The parts of a board a game needs, small and picklable for the workers.

    ``params`` is the board's own settings object, carried whole: a rule setting added to
    :class:`~core.board.model.GameParams` reaches every worker game without a change here.
    """

    size: int
    cells: str
    params: GameParams

    @classmethod
    def from_board(cls, board: Board) -> BoardSpec:
        return cls(board.size, "".join(s.value for s in board.cells), board.params)

    def to_board(self) -> Board:
        """The board this spec describes, with every setting it was made from."""
        n = self.size
        return Board.from_rows([self.cells[r * n:(r + 1) * n] for r in range(n)], params=self.params)


@dataclass(frozen=True)
class GameTask:
    """One seeded game: agent specs per seat, an optional forced opening, the mirror probe, the pie decision."""

    board: BoardSpec
    seed: int
    s1: str
    s2: str
    opening: int = -1
    mirror: bool = False
    pie: bool = False
    values: bool = False
    """Record each search's value (training data for the opening predictor)."""


@dataclass
class GameResult:
    """What one game says about the board, at seat level (S1 made placements 1, 3, 5, ...)."""

    s1_score: int
    s2_score: int
    winner: int  # 1 or 2
    tie_break: bool
    length: int
    legal_sum: int  # legal placements summed over the turns played
    legal_turns: int
    runout: tuple[int, ...]  # per type (PIECE_TYPES order): 1 when its supply ran out
    coverage: bytes  # per cell: 0 uncovered, 1 covered by S1's piece, 2 by S2's
    moves: tuple[int, ...] = ()
    swapped: bool = False  # the second player's agent chose the pie swap
    mirror_moves: int = 0  # S2 placements that were the 180-degree image of S1's previous one
    mirror_all: bool = False  # S2 could mirror every time
    values: tuple[float, ...] = ()
    """With ``GameTask.values``: per placement, the searching agent's chance for S1 before it (NaN where no agent
    searched, e.g. a forced opening)."""

    @property
    def s1_won(self) -> bool:
        return self.winner == 1
