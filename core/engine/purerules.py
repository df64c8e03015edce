"""The game judged in Python: the same rules as :class:`core.engine.rules.GameState`, without the compiled kernels.

A match command judges one post and answers while the player's clock runs, so it must not wait for numba to
load (about a second even when its cache is warm).  :class:`PureGameState` is the engine's ``GameState`` with
legality decided by :meth:`GameState.broken_rule`, the rules written once in Python that also name the rule an
illegal placement breaks; the kernels decide the same from their tables (``tests/engine/test_purerules.py``
compares the two on every placement of whole games).  Whether the game is over is a scan for one legal
placement, remembered per position, since a match rebuilds its positions on every command.

Also here, because the rules of ownership belong to the engine and the light commands need them: what a person
types for the swap, and which symbol a seat holds.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from core.board.model import Board, Symbol
from core.engine.rules import SWAP, GameState, Placement, all_placements

SWAP_WORDS = (SWAP, "pie")
"""What a person may type for the pie-rule swap."""


def symbol_held(first: Symbol, seat: int, swapped: bool) -> Symbol:
    """The one rule for ownership: Player 1 starts with the first symbol; the pie swap exchanges the symbols."""
    return first if (seat == 0) != swapped else first.other


class PureGameState(GameState):
    """A :class:`GameState` that needs no compiled code: for judging a few moves at once, not for playouts."""

    def __init__(self, board: Board) -> None:
        self._over: dict[tuple[int, ...], bool] = {}
        super().__init__(board)

    def _start_kernel(self) -> None:
        self._s = np.zeros(0, dtype=np.uint64)  # no kernel: push and pop keep a stack of empty states

    def _advance_kernel(self, p: Placement) -> None:
        pass

    def copy(self) -> PureGameState:
        new = PureGameState(self.board)
        for action in self.actions:
            new.push_action(action)
        return new

    def kernel_state(self) -> npt.NDArray[np.uint64]:
        raise TypeError("a PureGameState has no kernel state: use GameState for compiled agents")

    def is_legal(self, p: Placement) -> bool:
        return p.size == self.size and self.broken_rule(p) is None

    def _legal_words(self) -> npt.NDArray[np.uint64]:
        table = all_placements(self.size)
        words = np.zeros((len(table) + 63) // 64, dtype=np.uint64)
        for p in table:
            if self.broken_rule(p) is None:
                words[p.index >> 6] |= np.uint64(1 << (p.index & 63))
        return words

    def is_over(self) -> bool:
        key = tuple(p.index for p in self.placements)
        over = self._over.get(key)
        if over is None:
            over = not any(self.broken_rule(p) is None for p in all_placements(self.size))
            self._over[key] = over
        return over

    def check_consistency(self) -> None:
        """Nothing to compare: the Python bookkeeping is all there is."""


__all__ = ["SWAP_WORDS", "PureGameState", "symbol_held"]
