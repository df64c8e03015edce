"""A slow, plain reference for ``core.agents.alphabeta``: the evaluation written out from its definition, and a
full-width minimax (no pruning, no transposition table, no move ordering) over the rules kernels.

Only the rules come from the engine (legal placements, applying one, the winner, the blocked set a placement
leaves); everything the search adds is recomputed here cell by cell and placement by placement.  The learned
evaluations (``eval=net``, ``eval=mix``) take the model's chance from ``tests.agents.value_reference`` on the
inputs of ``tests.agents.summary_reference``, with the piece types carried along the line of placements.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.agents.alphabeta import MATE, MIX_SCALE, NET_SCALE, W_GAIN, W_MOBILITY, W_RISK, W_SAFE
from core.agents.value import ValueModel
from core.engine.kernels import H_SUPPLY, H_TO_MOVE, KTables, k_apply, k_legal_list, k_winner
from core.engine.pieces import placement_table
from tests.agents import summary_reference, value_reference

State = npt.NDArray[np.uint64]


@dataclass(frozen=True)
class Learned:
    """A learned evaluation: ``mode`` "net" or "mix", the model, and the piece type of each cell at the root."""

    mode: str
    model: ValueModel
    ctype: tuple[int, ...]

    def after(self, kt: KTables, p: int) -> Learned:
        table = placement_table(kt.size)
        ct = list(self.ctype)
        for c in table.cells[p]:
            ct[int(c)] = int(table.ptype[p]) + 1
        return Learned(self.mode, self.model, tuple(ct))


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


def learned_value(kt: KTables, s: State, learned: Learned) -> int:
    """The mover's score from the model: its chance p (S1's chance, clamped to 0..1, for S1; one less it for S2)
    as ``floor((2p - 1) * scale)`` in exact integers, the scale NET_SCALE or MIX_SCALE."""
    m = learned.model
    s1 = 0 if kt.first == 0 else 1  # the symbol of the first mover: 0 = O
    sym = [(1 if s1 == 0 else 2) if _bit(kt.sym_o, c) else (1 if s1 == 1 else 2) if _bit(kt.sym_x, c) else 0
           for c in range(kt.size * kt.size)]
    supply = [int(s[H_SUPPLY + t]) for t in range(4)]
    s1_to_move = int(s[H_TO_MOVE]) == kt.first
    x = summary_reference.summary(kt.size, sym, list(learned.ctype), supply, s1_to_move)
    win, _ = value_reference.evaluate(m.w1.tolist(), m.b1.tolist(), m.w2.tolist(), m.b2.tolist(), m.w3.tolist(),
                                      m.b3.tolist(), m.q, x)
    one = 1 << (2 * m.q)
    chance = min(max(win, 0), one)
    mine = chance if s1_to_move else one - chance
    scale = NET_SCALE if learned.mode == "net" else MIX_SCALE
    return (2 * mine - one) * scale // one


def leaf(kt: KTables, gain: npt.NDArray[np.int64], s: State, learned: Learned | None) -> int:
    """The evaluation of a position the search does not look past: hand-made, learned, or their sum."""
    if learned is None:
        return evaluate(kt, gain, s)
    hand = evaluate(kt, gain, s) if learned.mode == "mix" else 0
    return hand + learned_value(kt, s, learned)


def minimax(kt: KTables, gain: npt.NDArray[np.int64], s: State, depth: int, learned: Learned | None = None) -> int:
    """The value for the side to move, ``depth`` placements deep; a finished game is +-MATE."""
    moves = legal(kt, s)
    if not moves:
        return MATE if int(k_winner(kt, s)) == int(s[H_TO_MOVE]) else -MATE
    if depth == 0:
        return leaf(kt, gain, s, learned)
    return max(-minimax(kt, gain, child(kt, s, p), depth - 1, learned and learned.after(kt, p)) for p in moves)


def child(kt: KTables, s: State, p: int) -> State:
    out = s.copy()
    k_apply(kt, out, p)
    return out


def root_values(kt: KTables, gain: npt.NDArray[np.int64], s: State, depth: int,
                learned: Learned | None = None) -> dict[int, int]:
    """Each legal move's value for the side to move at the root, searched ``depth`` placements deep in all."""
    return {p: -minimax(kt, gain, child(kt, s, p), depth - 1, learned and learned.after(kt, p))
            for p in legal(kt, s)}
