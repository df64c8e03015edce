"""``ab``: alpha-beta search over an evaluation that plays no games, a judge of another family than the MCTS ones.

* **search**: negamax alpha-beta with iterative deepening (depth 1, 2, ... placements), the previous depth's
  values ordering the root and a transposition table (Zobrist keys per placement, always replaced) giving each
  node the move that was best there before; then placements by symbol gain for the mover, then by a history
  count of the moves that cut off, then by a per-search random salt (so games differ by seed);
* **evaluation** (for the side to move, in hundredths of a symbol): each uncovered symbol is *safe* when no
  placement that is not ruled out for good covers it (it will score), else *at risk*; safe symbols count whole,
  symbols at risk half; plus the best symbol gain the mover can take now, and mobility: the legal placements
  that would cover an opponent's symbol against those that would cover one of the mover's.  The supply is in
  it through the rules: a type out of supply rules its placements out, so the symbols only they could cover
  turn safe.  Finished positions are exact wins and losses (higher score wins, a tie goes to the last placer),
  so near the end the search solves the game;
* **learned evaluation** (``eval=net``, ``eval=mix``): the model of ``core.agents.value`` (``k_inputs`` +
  ``k_eval_into``, integer arithmetic) gives S1's win chance p at a leaf, turned into the mover's chance p' and
  the score ``(2p' - 1) * NET_SCALE`` (floored, exact integers); ``eval=mix`` adds ``(2p' - 1) * MIX_SCALE`` to
  the hand-made evaluation.  The piece type covering each cell, which the model's inputs need and the kernel state
  does not hold, is kept for the root between moves (tiled from the covered cells as ``core.agents.netsearch``
  does) and for each ply of the search stack;
* **budget**: nodes per move (every position the search visits counts one), so a seed gives the same game on
  any machine; ``t=S`` adds seconds per move (between depths and within one by the measured node rate, not
  reproducible); ``d=D`` caps the depth.  The search never visits more nodes than its budget: when the budget
  ends within a depth, the moves that depth finished are compared with each other (the first is the previous
  depth's best), else the previous depth decides; such a partial depth proves a win, never a loss (moves
  not searched at it may save the game): every searched move losing counts as a near-certain loss;
* **noise**: in the first ``n=P`` placements of a game (default ``NOISE_PLIES``) the move is drawn among those
  within ``NOISE_MARGIN`` of the best (searched with a window lowered by the margin, so their values are exact).

Compiled with numba; ``tests/agents/alphabeta_reference.py`` is a slow plain minimax with the same evaluation
written out from the rules, and ``tests/agents/test_alphabeta.py`` checks that both give the same value and a
best move of that value.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit

from core.agents.netsearch import PieceTypes, k_cover, k_leaf_raw
from core.agents.spec import AbSpec, AgentSpec, parse_ab
from core.agents.summary import summary_tables
from core.agents.value import ValueModel, default_model, symbols_of
from core.engine.kernels import (
    H_NPLACED,
    H_SUPPLY,
    H_TO_MOVE,
    KTables,
    k_apply,
    k_copy_state,
    k_legal_list,
    k_new_state,
    k_rand,
    k_rand_below,
    k_winner,
)
from core.engine.pieces import placement_table

MATE = 1_000_000
"""The value of a finished game for its winner (the loser gets -MATE); evaluations stay far below it."""
INF = 1_000_000_000
W_SAFE = 100
"""Value of a symbol no placement can cover any more (it scores)."""
W_RISK = 70
"""Value of an uncovered symbol that some placement could still cover."""
W_GAIN = 30
"""Value of each symbol of the best gain the side to move can take right now (it moves next)."""
W_MOBILITY = 2
"""Value of each legal placement covering an opponent's symbol, less each covering one of the mover's own."""
VALUE_SCALE = 150.0
"""Evaluation units per e-fold of the odds, turning a search value into the mover's expected share."""
NET_SCALE = 300
"""``eval=net``: the mover's chance p scores ``(2p - 1) * NET_SCALE``.  Near an even game the logit of p is about
``2 * (2p - 1)``, so 300 gives the model's chance the slope :data:`VALUE_SCALE` gives the hand-made evaluation
(150 units per e-fold of the odds): the noise margin and :func:`share` read both alike."""
MIX_SCALE = 1150
"""``eval=mix``: the hand-made evaluation plus ``(2p - 1) * MIX_SCALE``.  Measured: a logistic fit of the mover's
win on the two terms, over 17,730 positions (every third placement) of the 3,384 ``club`` games on the boards the
model's training kept out (``.learn-data/club-s1``, ``board % VALIDATE_EVERY == 0``), weighs one unit of the
hand-made value 0.00256 and one of ``(2p - 1) * 300`` 0.00989 in log-odds: 300 * 0.00989 / 0.00256 = 1157,
rounded (docs/agents.md, "``ab`` with the learned evaluation")."""
HAND, NET, MIX = 0, 1, 2
EVAL_MODES = {"hand": HAND, "net": NET, "mix": MIX}
NOISE_MARGIN = 30
"""In the first placements of a game, moves within this much of the best are drawn at random."""
TT_MAX_BITS = 20
"""At most a million table entries (40 MB, allocated lazily by the system as entries are written)."""
TT_MIN_BITS = 12
EXACT, LOWER, UPPER = 0, 1, 2
T_VAL, T_DEPTH, T_FLAG, T_MOVE = 0, 1, 2, 3
C_NODES, C_BUDGET, C_ABORT = 0, 1, 2
MAX_PLY = 80
"""Deeper than any game has placements left (supply of at most 16 per type)."""
HIST_CAP = (1 << 27) - 1


class AbTables(NamedTuple):
    """What the search reads of a board besides the kernel tables: Zobrist keys and the symbols' coverers."""

    zobrist: npt.NDArray[np.uint64]
    """[nplace] key of each placement: a position's key is the root's key xor those of the placements made."""
    sym_cells: npt.NDArray[np.int64]
    sym_owner: npt.NDArray[np.int64]
    """0 = O, 1 = X for each symbol cell."""
    sym_cover: npt.NDArray[np.uint64]
    """[nsym, npw] the placements covering each symbol cell, as a placement bitset."""


@functools.lru_cache(maxsize=16)
def _ab_tables_cached(size: int, sym_o: bytes, sym_x: bytes, npw: int) -> AbTables:
    tb = placement_table(size)
    zobrist = np.random.default_rng(0x5EED_AB).integers(0, 2**63, size=tb.count, dtype=np.uint64) * np.uint64(2) + \
        np.uint64(1)
    o = int.from_bytes(sym_o, "little")
    x = int.from_bytes(sym_x, "little")
    cells = [c for c in range(size * size) if (o | x) >> c & 1]
    owner = [0 if o >> c & 1 else 1 for c in cells]
    where = {c: i for i, c in enumerate(cells)}
    cover = np.zeros((len(cells), npw), dtype=np.uint64)
    for p in range(tb.count):
        for c in tb.cells[p]:
            i = where.get(int(c))
            if i is not None:
                cover[i, p >> 6] |= np.uint64(1) << np.uint64(p & 63)
    return AbTables(zobrist, np.array(cells, dtype=np.int64), np.array(owner, dtype=np.int64), cover)


def ab_tables(kt: KTables) -> AbTables:
    """The search's tables for a board (cached by its symbols)."""
    return _ab_tables_cached(kt.size, kt.sym_o.tobytes(), kt.sym_x.tobytes(), kt.npw)


# ---------------------------------------------------------------------------------- compiled search


@njit(cache=True, nogil=True)
def k_evaluate(kt: KTables, s: Any, gain: Any, tabs: AbTables, legal: Any, n: int) -> int:
    """The position's value for the side to move (``legal[:n]`` its legal placements, n > 0)."""
    me = int(s[H_TO_MOVE])
    safe = 0
    risk = 0
    for i in range(tabs.sym_cells.shape[0]):
        c = tabs.sym_cells[i]
        if (s[kt.off_cov + (c >> 6)] >> np.uint64(c & 63)) & np.uint64(1):
            continue
        coverable = False
        for w in range(kt.npw):
            if tabs.sym_cover[i, w] & ~s[kt.off_blk + w] != 0:
                coverable = True
                break
        sign = 1 if tabs.sym_owner[i] == me else -1
        if coverable:
            risk += sign
        else:
            safe += sign
    best = 0
    mob = 0
    for i in range(n):
        g = gain[me, legal[i]]
        if g > best:
            best = g
        if g > 0:
            mob += 1
        elif g < 0:
            mob -= 1
    return W_SAFE * safe + W_RISK * risk + W_GAIN * best + W_MOBILITY * mob


@njit(cache=True, nogil=True)
def k_leaf(kt: KTables, s: Any, gain: Any, tabs: AbTables, legal: Any, n: int, mode: int, ctype: Any, model: Any,
           q: int, scratch: Any) -> int:
    """The leaf value of ``s`` for the side to move by the evaluation ``mode`` (HAND, NET or MIX).

    ``ctype`` is the piece type covering each cell of ``s``; ``model`` is (symbols, summary tables, w1, b1, w2, b2,
    w3, b3) and ``scratch`` (x, count, supply, two, acc, h2): a leaf allocates nothing."""
    v = 0
    if mode != NET:
        v = k_evaluate(kt, s, gain, tabs, legal, n)
    if mode != HAND:
        sym, stabs, w1, b1, w2, b2, w3, b3 = model
        x, count, supply, two, acc, h2 = scratch
        raw = k_leaf_raw(kt, s, sym, ctype, stabs, w1, b1, w2, b2, w3, b3, q, x, count, supply, two, acc, h2)
        one = 1 << (2 * q)
        mine = raw if int(s[H_TO_MOVE]) == kt.first else one - raw
        v += ((2 * mine - one) * (NET_SCALE if mode == NET else MIX_SCALE)) >> (2 * q)
    return v


@njit(cache=True, inline="always")
def _typed(kt: KTables, src: Any, dst: Any, p: int) -> None:
    """``dst`` = the piece types of ``src`` with placement ``p`` added."""
    dst[:] = src
    k_cover(kt, dst, p)


@njit(cache=True, inline="always")
def _finished(kt: KTables, s: Any) -> int:
    return MATE if k_winner(kt, s) == int(s[H_TO_MOVE]) else -MATE


ENTER, RETURN, NEXT = 0, 1, 2


@njit(cache=True, nogil=True)
def k_ab_node(kt: KTables, gain: Any, tabs: AbTables, st: Any, mv: Any, sc: Any, depth: int, alpha: int, beta: int,
              h: Any, tt_key: Any, tt: Any, hist: Any, ctr: Any, salt: Any, emode: int, ct: Any, model: Any, q: int,
              scratch: Any) -> int:
    """Negamax value of ``st[1]`` for its side to move, searched ``depth`` placements deep within (alpha, beta),
    fail-soft; 0 with ``ctr[C_ABORT]`` set when the node budget ran out.

    Iterative with an explicit stack (numba's disk cache cannot hold a recursive function): row ``ply`` of
    ``st``/``mv``/``sc``/``ct`` is the position, its legal placements, their ordering keys and (learned
    evaluations only) its piece types at that ply; ``emode``, ``model``, ``q`` and ``scratch`` are
    :func:`k_leaf`'s.
    """
    rows = st.shape[0]
    lo = np.empty(rows, dtype=np.int64)
    hi = np.empty(rows, dtype=np.int64)
    lo0 = np.empty(rows, dtype=np.int64)
    best = np.empty(rows, dtype=np.int64)
    best_move = np.empty(rows, dtype=np.int64)
    tried = np.empty(rows, dtype=np.int64)
    count = np.empty(rows, dtype=np.int64)
    left = np.empty(rows, dtype=np.int64)
    key = np.empty(rows, dtype=np.uint64)
    mask = np.uint64(tt_key.shape[0] - 1)
    ply = 1
    lo[1] = alpha
    hi[1] = beta
    left[1] = depth
    key[1] = h
    mode = ENTER
    v = 0
    while True:
        if mode == ENTER:
            ctr[C_NODES] += 1
            if ctr[C_NODES] > ctr[C_BUDGET]:
                ctr[C_ABORT] = 1
                return 0
            s = st[ply]
            moves = mv[ply]
            n = k_legal_list(kt, s, moves)
            if n == 0:
                v = _finished(kt, s)
                mode = RETURN
                continue
            if left[ply] <= 0:
                v = k_leaf(kt, s, gain, tabs, moves, n, emode, ct[ply], model, q, scratch)
                mode = RETURN
                continue
            slot = int(key[ply] & mask)
            hint = -1
            if tt_key[slot] == key[ply]:
                hint = tt[slot, T_MOVE]
                if tt[slot, T_DEPTH] >= left[ply]:
                    tv = tt[slot, T_VAL]
                    f = tt[slot, T_FLAG]
                    if f == EXACT or (f == LOWER and tv >= hi[ply]) or (f == UPPER and tv <= lo[ply]):
                        v = tv
                        mode = RETURN
                        continue
            me = int(s[H_TO_MOVE])
            keys = sc[ply]
            for i in range(n):
                p = moves[i]
                if p == hint:
                    keys[i] = 1 << 62
                else:
                    hv = min(hist[p], HIST_CAP)
                    keys[i] = ((gain[me, p] + 8) << 40) | (hv << 12) | int((tabs.zobrist[p] ^ salt) & np.uint64(4095))
            count[ply] = n
            tried[ply] = 0
            best[ply] = -INF
            best_move[ply] = -1
            lo0[ply] = lo[ply]
            mode = NEXT
            continue
        if mode == RETURN:
            if ply == 1:
                return v
            ply -= 1
            v = -v
            p = mv[ply, tried[ply] - 1]
            if v > best[ply]:
                best[ply] = v
                best_move[ply] = p
            if v > lo[ply]:
                lo[ply] = v
            if lo[ply] < hi[ply]:
                mode = NEXT
                continue
            hist[p] += left[ply] * left[ply]
            count[ply] = tried[ply]  # a cut-off: no more moves here
        # NEXT: the next child of the node at ply, or its value when every move was tried
        i = tried[ply]
        if i >= count[ply]:
            slot = int(key[ply] & mask)
            b = best[ply]
            tt_key[slot] = key[ply]
            tt[slot, T_VAL] = b
            tt[slot, T_DEPTH] = left[ply]
            tt[slot, T_FLAG] = UPPER if b <= lo0[ply] else (LOWER if b >= hi[ply] else EXACT)
            tt[slot, T_MOVE] = best_move[ply]
            v = b
            mode = RETURN
            continue
        moves = mv[ply]
        keys = sc[ply]
        k = i  # selection sort, one step per move tried: a cut-off spares sorting the rest
        for j in range(i + 1, count[ply]):
            if keys[j] > keys[k]:
                k = j
        p = moves[k]
        moves[k] = moves[i]
        moves[i] = p
        kk = keys[k]
        keys[k] = keys[i]
        keys[i] = kk
        tried[ply] = i + 1
        k_copy_state(st[ply], st[ply + 1])
        k_apply(kt, st[ply + 1], p)
        if emode != HAND:
            _typed(kt, ct[ply], ct[ply + 1], p)
        lo[ply + 1] = -hi[ply]
        hi[ply + 1] = -lo[ply]
        left[ply + 1] = left[ply] - 1
        key[ply + 1] = key[ply] ^ tabs.zobrist[p]
        ply += 1
        mode = ENTER


@njit(cache=True, nogil=True)
def k_ab_root(kt: KTables, gain: Any, tabs: AbTables, root: Any, h0: Any, order: Any, depth: int, margin: int,
              vals: Any, exact: Any, tt_key: Any, tt: Any, hist: Any, ctr: Any, salt: Any, mode: int, rct: Any,
              model: Any, q: int) -> int:
    """Search every root move of ``order`` in turn ``depth`` placements deep (the move itself included); a move's
    value is exact when it beats the best so far less ``margin``.  Returns how many moves were searched before
    the node budget ran out (all of them when it did not).  ``rct`` is the root's piece types (see
    :func:`k_leaf` for ``mode``, ``model`` and ``q``)."""
    st = np.empty((depth + 2, kt.state_len), dtype=np.uint64)  # row 0 the root, row 1 the move searched
    mv = np.empty((depth + 2, kt.nplace), dtype=np.int32)
    sc = np.empty((depth + 2, kt.nplace), dtype=np.int64)
    ct = np.empty((depth + 2, rct.shape[0]), dtype=np.int8)
    ct[0] = rct
    w1, b1, b2 = model[2], model[3], model[5]
    scratch = (np.zeros(w1.shape[0], dtype=np.int64), np.zeros(kt.size * kt.size, dtype=np.int64),
               np.zeros(4, dtype=np.int64), np.zeros(2, dtype=np.int64), np.zeros(b1.shape[0], dtype=np.int64),
               np.zeros(b2.shape[0], dtype=np.int64))
    k_copy_state(root, st[0])
    best = -INF
    for i in range(order.shape[0]):
        p = order[i]
        k_copy_state(st[0], st[1])
        k_apply(kt, st[1], p)
        if mode != HAND:
            _typed(kt, ct[0], ct[1], p)
        lo = -INF if best == -INF else best - margin
        v = -k_ab_node(kt, gain, tabs, st, mv, sc, depth - 1, -INF, -lo, h0 ^ tabs.zobrist[p], tt_key, tt, hist, ctr,
                       salt, mode, ct, model, q, scratch)
        if ctr[C_ABORT]:
            return int(i)
        vals[i] = v
        exact[i] = 1 if v > lo else 0
        if v > best:
            best = v
    return int(order.shape[0])


# ---------------------------------------------------------------------------------- Python side


def root_key(state: npt.NDArray[np.uint64]) -> np.uint64:
    """A 64-bit key of a whole kernel state (the root's part of every Zobrist key of a search)."""
    h = 0x9E3779B97F4A7C15
    for word in state.tolist():
        h = ((h ^ int(word)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        h ^= h >> 31
    return np.uint64(h)


def share(value: int) -> float:
    """A search value as the mover's expected share: 1 or 0 for a proven game, else a logistic of the value."""
    if value >= MATE:
        return 1.0
    if value <= -MATE:
        return 0.0
    return 1.0 / (1.0 + math.exp(min(-value / VALUE_SCALE, 700.0)))  # exp overflows past about 709


@dataclass
class AbResult:
    """One search: the move, its value for the mover, the depth the value comes from, nodes visited."""

    move: int
    value: int
    depth: int
    nodes: int
    values: dict[int, int]
    """Root moves with an exact value at that depth."""


Clock = Callable[[], float]


@dataclass
class AlphaBeta:
    """One seeded alpha-beta searcher bound to a board; ``choose`` runs a search from a kernel state."""

    kt: KTables
    gain: npt.NDArray[np.int64]
    rng: npt.NDArray[np.uint64]
    budget: AbSpec
    clock: Clock = time.perf_counter
    last_value: float = 0.5
    last: AbResult | None = None
    model: ValueModel | None = None
    """The learned evaluation's model (``eval=net`` or ``mix``; the shipped one when None)."""

    def __post_init__(self) -> None:
        self.tabs = ab_tables(self.kt)
        kt = self.kt
        self._mode = EVAL_MODES[self.budget.evaluation]
        cells = kt.size * kt.size
        self._types = PieceTypes(kt)
        if self._mode == HAND:  # arrays of the same types, never read: one compiled kernel serves every mode
            zero2, zero1 = np.zeros((1, 1), dtype=np.int64), np.zeros(1, dtype=np.int64)
            self._model: tuple[Any, ...] = (np.zeros(cells, dtype=np.int8), summary_tables(kt.size),
                                            zero2, zero1, zero2, zero1, zero2, zero1)
            self._q = 0
        else:
            if self.model is None:
                self.model = default_model()
            self.model.check_size(kt.size)
            self._model = (symbols_of(kt), summary_tables(kt.size), *self.model.arrays())
            self._q = self.model.q
        nodes = self.budget.nodes or 1 << TT_MAX_BITS
        bits = min(TT_MAX_BITS, max(TT_MIN_BITS, int(nodes).bit_length() + 1))
        self.tt_key = np.zeros(1 << bits, dtype=np.uint64)
        self.tt = np.zeros((1 << bits, 4), dtype=np.int64)
        self.hist = np.zeros(self.kt.nplace, dtype=np.int64)
        self._legal = np.empty(self.kt.nplace, dtype=np.int32)

    def root_ctype(self, state: npt.NDArray[np.uint64]) -> npt.NDArray[np.int8]:
        """The piece type covering each cell of ``state`` (0 uncovered, 1-4 L I T S), kept between calls."""
        return self._types.at(state)

    def choose(self, state: npt.NDArray[np.uint64]) -> int:
        """A legal placement for the side to move, or -1 when the game is over."""
        noise = int(state[H_NPLACED]) < self.budget.noise
        res = self.search(state, margin=NOISE_MARGIN if noise else 0)
        self.last = res
        self.last_value = share(res.value) if res.move >= 0 else 0.0
        move = res.move
        if noise and len(res.values) > 1:
            top = res.values[res.move]
            near = sorted(m for m, v in res.values.items() if v >= top - NOISE_MARGIN)
            move = int(near[k_rand_below(self.rng, len(near))])
        if move >= 0 and self._mode != HAND:  # our own placement is known: the next call tiles only the reply
            self._types.placed(move)
        return move

    def search(self, state: npt.NDArray[np.uint64], margin: int = 0, depth: int = 0) -> AbResult:
        """Iterative deepening from ``state`` within the budget (``depth`` > 0: exactly that deep, no budget)."""
        start = self.clock()
        kt = self.kt
        n = int(k_legal_list(kt, state, self._legal))
        if n == 0:
            return AbResult(-1, -MATE, 0, 0, {})
        salt = np.uint64(k_rand(self.rng))
        me = int(state[H_TO_MOVE])
        legal = self._legal[:n].copy()
        tiebreak = (self.tabs.zobrist[legal] ^ salt) & np.uint64(4095)
        order = legal[np.lexsort((-tiebreak.astype(np.int64), -self.gain[me, legal]))].astype(np.int32)
        if n == 1 and not depth:
            return AbResult(int(order[0]), 0, 0, 0, {int(order[0]): 0})
        h0 = root_key(state)
        rct = self.root_ctype(state) if self._mode != HAND else self._types.ctype
        ctr = np.zeros(3, dtype=np.int64)
        b = self.budget
        ctr[C_BUDGET] = b.nodes if (b.nodes and not depth) else 1 << 62
        left = sum(int(state[H_SUPPLY + t]) for t in range(4))
        deepest = depth or min(b.depth or MAX_PLY, left, MAX_PLY)
        first = depth or 1
        vals = np.zeros(n, dtype=np.int64)
        exact = np.zeros(n, dtype=np.int8)
        best = AbResult(int(order[0]), 0, 0, 0, {})
        rate = 0.0
        for d in range(first, deepest + 1):
            if b.seconds and not depth:
                elapsed = self.clock() - start
                if d > first and elapsed >= b.seconds:
                    break
                if rate > 0:
                    cap = int(ctr[C_NODES] + rate * max(b.seconds - elapsed, 0.0)) + 1
                    ctr[C_BUDGET] = min(cap, b.nodes) if b.nodes else cap
            t0, n0 = self.clock(), int(ctr[C_NODES])
            done = int(k_ab_root(kt, self.gain, self.tabs, state, h0, order, d, margin, vals, exact, self.tt_key,
                                 self.tt, self.hist, ctr, salt, self._mode, rct, self._model, self._q))
            spent = self.clock() - t0
            if spent > 0:
                rate = (int(ctr[C_NODES]) - n0) / spent
            if done == 0:
                break
            values = {int(order[i]): int(vals[i]) for i in range(done) if exact[i]}
            top = int(order[0])  # searched first with the full window: its value is exact
            for m, v in values.items():  # the first of equal values stays: dicts keep the search order
                if v > values[top]:
                    top = m
            if done < n:  # the budget ended within this depth: moves not searched at it may be better
                # a win found is proven; all searched moves losing is no proof that the root is lost
                best = AbResult(top, max(values[top], -(MATE - 1)), d, 0, values)
                break
            best = AbResult(top, values[top], d, 0, values)
            ranked = np.argsort(-vals, kind="stable")
            order, vals, exact = order[ranked], vals[ranked], exact[ranked]
            if abs(best.value) >= MATE:
                break
        best.nodes = min(int(ctr[C_NODES]), int(ctr[C_BUDGET]))
        return best


def ab_chooser(spec: AgentSpec, kt: KTables, gain: npt.NDArray[np.int64], rng: npt.NDArray[np.uint64],
               model: ValueModel | None = None) -> AlphaBeta:
    """The move choice of an ``ab`` spec (a row of the table in ``core.agents.spec``; the shipped model for a
    learned evaluation unless ``model`` is given)."""
    return AlphaBeta(kt, gain, rng, parse_ab(spec.text), model=model)


def warm_up_ab(kt: KTables, gain: npt.NDArray[np.int64], rng: npt.NDArray[np.uint64]) -> None:
    """Compile (or load) the search's kernels on a small start position."""
    AlphaBeta(kt, gain, rng, AbSpec(nodes=200)).choose(k_new_state(kt))


__all__ = ["AbResult", "AlphaBeta", "ab_chooser", "ab_tables", "k_evaluate", "k_leaf", "share", "warm_up_ab"]
