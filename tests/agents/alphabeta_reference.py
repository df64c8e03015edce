"""A slow, plain reference for ``core.agents.alphabeta``: the evaluation written out from its definition, and a
full-width minimax (no pruning, no transposition table, no move ordering) over the rules kernels.

Only the rules come from the engine (legal placements, applying one, the winner, the blocked set a placement
leaves); everything the search adds is recomputed here cell by cell and placement by placement.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from core.agents.alphabeta import MATE, W_GAIN, W_MOBILITY, W_RISK, W_SAFE
from core.engine.kernels import H_TO_MOVE, KTables, k_apply, k_legal_list, k_winner
from core.engine.pieces import placement_table

State = npt.NDArray[np.uint64]


def _bit(words: npt.NDArray[np.uint64], i: int) -> bool:
    return bool(int(words[i >> 6]) >> (i & 63) & 1)


def legal(kt: KTables, s: State) -> list[int]:
    out = np.empty(kt.nplace, dtype=np.int32)
    return [int(p) for p in out[:k_legal_list(kt, s, out)]]


def evaluate(kt: KTables, gain: npt.NDArray[np.int64], s: State) -> int:
    """Safe symbols (no placement left that is not ruled out covers them) count W_SAFE, symbols at risk W_RISK,
    for the side to move minus the opponent; plus the best gain it can take now and the mobility difference."""
    me = int(s[H_TO_MOVE])
    cells = placement_table(kt.size).cells
    covered = s[kt.off_cov:kt.off_cov + kt.ncw]
    blocked = s[kt.off_blk:kt.off_blk + kt.npw]
    value = 0
    for c in range(kt.size * kt.size):
        owner = 0 if _bit(kt.sym_o, c) else 1 if _bit(kt.sym_x, c) else None
        if owner is None or _bit(covered, c):
            continue
        coverable = any(c in cells[p] and not _bit(blocked, p) for p in range(kt.nplace))
        weight = W_RISK if coverable else W_SAFE
        value += weight if owner == me else -weight
    moves = legal(kt, s)
    gains = [int(gain[me, p]) for p in moves]
    value += W_GAIN * max([0, *gains])
    value += W_MOBILITY * (sum(g > 0 for g in gains) - sum(g < 0 for g in gains))
    return value


def minimax(kt: KTables, gain: npt.NDArray[np.int64], s: State, depth: int) -> int:
    """The value for the side to move, ``depth`` placements deep; a finished game is +-MATE."""
    moves = legal(kt, s)
    if not moves:
        return MATE if int(k_winner(kt, s)) == int(s[H_TO_MOVE]) else -MATE
    if depth == 0:
        return evaluate(kt, gain, s)
    return max(-minimax(kt, gain, child(kt, s, p), depth - 1) for p in moves)


def child(kt: KTables, s: State, p: int) -> State:
    out = s.copy()
    k_apply(kt, out, p)
    return out


def root_values(kt: KTables, gain: npt.NDArray[np.int64], s: State, depth: int) -> dict[int, int]:
    """Each legal move's value for the side to move at the root, searched ``depth`` placements deep in all."""
    return {p: -minimax(kt, gain, child(kt, s, p), depth - 1) for p in legal(kt, s)}
