"""Seeded game-playing agents compiled with numba on the kernel API of ``core.engine.kernels``.

Legality lives in the kernels only (``k_legal_list`` / ``k_apply``); this module just
chooses among legal placements.  The specs it plays are read by ``core.agents.spec``:

* ``random``: a uniformly random legal placement (a sanity check, not a measure of balance);
* ``greedy``: the best immediate symbol gain for the mover, ties at random; gain =
  opponent symbols covered minus own symbols covered, a constant per placement on a
  given board, so the agent is nearly free; ``greedy:0.1`` plays a random placement
  10% of the time;
* ``mcts:N``: UCT with N simulations per move, children tried in greedy order with
  progressive widening, random playouts (``mcts:N:greedy`` plays epsilon-greedy
  playouts instead), visit-weighted random choice in the first plies so games
  differ, and an exact endgame solver when few placements remain.  It also decides
  the pie swap: swap when its search says the side to move (the second player)
  wins less than half the time after the first placement.

Every random choice draws from one xorshift stream seeded per game, so a game is a
pure function of its seed whatever process plays it.  The self-play game loop that
uses these agents lives in ``core.selfplay``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

# parse_agent, NOISE_PLIES and SOLVE_LIMIT are imported from here by code outside this package (the play-test
# window, other branches in flight); they are defined once in core.agents.spec.
from core.agents.spec import (
    DEFAULT_C,
    PLAYOUT_EPS,
    AgentSpec,
)
from core.agents.spec import NOISE_PLIES as NOISE_PLIES
from core.agents.spec import SOLVE_LIMIT as SOLVE_LIMIT
from core.agents.spec import parse_agent as parse_agent
from core.board.model import PIECE_TYPES
from core.engine.kernels import (
    H_NPLACED,
    H_SUPPLY,
    H_TO_MOVE,
    KTables,
    k_apply,
    k_copy_state,
    k_is_legal,
    k_legal_list,
    k_new_state,
    k_rand,
    k_rand_below,
    k_random_playout,
    k_seed,
    k_winner,
)
from core.engine.pieces import placement_table

_RANDOM = 0  # the kinds k_simple_move plays, as plain ints (numba freezes module globals as constants)
_GREEDY = 1
N_TYPES = len(PIECE_TYPES)
MAX_GAIN = 4
"""Largest symbol gain of one placement (four cells), the range of the gain buckets."""


# ---------------------------------------------------------------------------------- tables


def gain_table(kt: KTables) -> npt.NDArray[np.int64]:
    """gain[sym, p]: opponent symbols covered minus own symbols covered when ``sym`` (0 = O, 1 = X) places p."""
    o = np.zeros(kt.nplace, dtype=np.int64)
    x = np.zeros(kt.nplace, dtype=np.int64)
    for w in range(kt.ncw):
        cw = kt.cell_words[:, w]
        o += np.array([int(v).bit_count() for v in (cw & kt.sym_o[w])], dtype=np.int64)
        x += np.array([int(v).bit_count() for v in (cw & kt.sym_x[w])], dtype=np.int64)
    return np.stack([x - o, o - x])


@functools.lru_cache(maxsize=8)
def mirror_table(size: int) -> npt.NDArray[np.int32]:
    """mirror[p]: the placement rotated 180 degrees about the centre."""
    tb = placement_table(size)
    last = size * size - 1
    out = np.empty(tb.count, dtype=np.int32)
    for p in range(tb.count):
        idx = tb.index_of(last - int(c) for c in tb.cells[p])
        assert idx is not None  # a rotated tetromino is a tetromino of the same type
        out[p] = idx
    return out


# ---------------------------------------------------------------------------------- simple agents


@njit(cache=True, nogil=True)
def k_greedy_pick(kt: KTables, s: Any, gain: Any, legal: Any, n: int, rng: Any) -> int:
    """Best gain for the side to move among ``legal[:n]``, ties uniformly at random (reservoir)."""
    sym = int(s[H_TO_MOVE])
    best = -1000
    pick = -1
    ties = 0
    for i in range(n):
        p = legal[i]
        g = gain[sym, p]
        if g > best:
            best = g
            pick = p
            ties = 1
        elif g == best:
            ties += 1
            if k_rand_below(rng, ties) == 0:
                pick = p
    return pick


@njit(cache=True, nogil=True)
def k_simple_move(kt: KTables, s: Any, gain: Any, kind: int, eps: float, rng: Any, legal: Any) -> int:
    """A random (``kind`` = 0) or (epsilon-)greedy (1) placement; -1 when none is legal."""
    n = k_legal_list(kt, s, legal)
    if n == 0:
        return -1
    if kind == _RANDOM:
        return int(legal[k_rand_below(rng, n)])
    if eps > 0.0 and (k_rand(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0) < eps:
        return int(legal[k_rand_below(rng, n)])
    return k_greedy_pick(kt, s, gain, legal, n, rng)


@njit(cache=True, nogil=True)
def k_greedy_playout(kt: KTables, s: Any, gain: Any, eps: float, rng: Any, legal: Any) -> int:
    """Play epsilon-greedy placements to the end; returns how many were made."""
    n = 0
    while True:
        p = k_simple_move(kt, s, gain, 1, eps, rng, legal)
        if p < 0:
            return n
        k_apply(kt, s, p)
        n += 1


# ---------------------------------------------------------------------------------- exact endgame


@njit(cache=True, nogil=True)
def k_solve(kt: KTables, root: Any, budget: int, max_depth: int) -> tuple[int, int]:
    """Exact win/loss for the side to move: (1 win / 0 loss / -1 unknown, winning move or -1).

    Iterative depth-first negamax with a node budget; ``max_depth`` bounds the stack.
    """
    states = np.empty((max_depth + 2, kt.state_len), dtype=np.uint64)
    moves = np.empty((max_depth + 2, kt.nplace), dtype=np.int32)
    nmoves = np.zeros(max_depth + 2, dtype=np.int64)
    idx = np.zeros(max_depth + 2, dtype=np.int64)
    k_copy_state(root, states[0])
    nmoves[0] = k_legal_list(kt, states[0], moves[0])
    if nmoves[0] == 0:
        return (1 if k_winner(kt, states[0]) == int(states[0][H_TO_MOVE]) else 0), -1
    d = 0
    nodes = 0
    res = -2  # pending result of the child of node d, from the child's side to move
    while True:
        if res == 0:  # the child's mover loses, so node d wins by this move
            if d == 0:
                return 1, int(moves[0, idx[0]])
            d -= 1
            res = 1
            continue
        if res == 1:
            idx[d] += 1
            res = -2
        if idx[d] >= nmoves[d]:  # every move loses
            if d == 0:
                return 0, -1
            d -= 1
            res = 0  # node d + 1 lost, so its parent's move into it wins
            continue
        nodes += 1
        if nodes > budget:
            return -1, -1
        if d + 1 > max_depth:
            return -1, -1
        child = states[d + 1]
        k_copy_state(states[d], child)
        k_apply(kt, child, moves[d, idx[d]])
        n = k_legal_list(kt, child, moves[d + 1])
        if n == 0:
            res = 1 if k_winner(kt, child) == int(child[H_TO_MOVE]) else 0
            continue
        d += 1
        nmoves[d] = n
        idx[d] = 0


# ---------------------------------------------------------------------------------- MCTS


@njit(cache=True, nogil=True)
def _expand(kt: KTables, s: Any, gain: Any, rng: Any, legal: Any, node: int, nnodes: int, cap: int,
            first_child: Any, n_child: Any, move: Any, n_vis: Any, w_val: Any, nxt: Any, buckets: Any) -> int:
    """Create the children of ``node`` in greedy order (random within equal gain); returns the new node count."""
    n = k_legal_list(kt, s, legal)
    if n == 0 or nnodes + n > cap:
        n_child[node] = 0 if n == 0 else -2
        return nnodes
    # shuffle, then a stable counting sort by gain, best first
    for i in range(n - 1, 0, -1):
        j = k_rand_below(rng, i + 1)
        t = legal[i]
        legal[i] = legal[j]
        legal[j] = t
    sym = int(s[H_TO_MOVE])
    for b in range(2 * MAX_GAIN + 2):
        buckets[b] = 0
    for i in range(n):
        buckets[MAX_GAIN - gain[sym, legal[i]] + 1] += 1
    for b in range(1, 2 * MAX_GAIN + 2):
        buckets[b] += buckets[b - 1]
    for i in range(n):
        b = MAX_GAIN - gain[sym, legal[i]]
        nxt[buckets[b]] = legal[i]
        buckets[b] += 1
    first_child[node] = nnodes
    n_child[node] = n
    for i in range(n):
        c = nnodes + i
        move[c] = nxt[i]
        n_vis[c] = 0
        w_val[c] = 0.0
        first_child[c] = -1
        n_child[c] = -1
    return nnodes + n


@njit(cache=True, inline="always")
def mcts_capacity(nplace: int, sims: int) -> int:
    """Nodes a search of ``sims`` simulations may create (its arrays' length; a node that would overflow them
    stays a leaf, so the length is part of what the search does)."""
    return 2 * nplace + 160 * sims + 16


@njit(cache=True, nogil=True)
def k_mcts_arrays(nplace: int, sims: int) -> Any:
    """The arrays :func:`k_mcts_in` searches in, for up to ``sims`` simulations (contents undefined)."""
    cap = mcts_capacity(nplace, sims)
    return (np.empty(cap, dtype=np.int32), np.empty(cap, dtype=np.int32), np.empty(cap, dtype=np.int32),
            np.empty(cap, dtype=np.int32), np.empty(cap, dtype=np.float64), np.empty(cap, dtype=np.float64))


@njit(cache=True, nogil=True)
def k_mcts(kt: KTables, gain: Any, root: Any, sims: int, c_uct: float, greedy_playouts: bool, rng: Any,
           noise: bool, solve_limit: int, solve_budget: int) -> tuple[int, float]:
    """Search from ``root``; returns (placement, estimated win rate of the side to move), (-1, x) when over."""
    tree = k_mcts_arrays(kt.nplace, sims)
    return k_mcts_in(kt, gain, root, sims, c_uct, greedy_playouts, rng, noise, solve_limit, solve_budget, tree)


@njit(cache=True, nogil=True)
def k_mcts_in(kt: KTables, gain: Any, root: Any, sims: int, c_uct: float, greedy_playouts: bool, rng: Any,
              noise: bool, solve_limit: int, solve_budget: int, tree: Any) -> tuple[int, float]:
    """:func:`k_mcts` in the caller's arrays ``tree`` = (first child, child count, move, visits, wins, mean), each
    ``mcts_capacity`` long (whatever they hold is overwritten).

    A chooser passes the same arrays to every search of a game: fresh arrays cost each search its page faults
    again (about 900 for ``mcts:8000`` on 12x12, 7% of a judge game's time; docs/measurements.md).  ``mean``
    keeps wins / visits of each node, so choosing a child needs no division for its value: the same number, the
    same tree.
    """
    first_child, n_child, move, n_vis, w_val, mean = tree
    legal = np.empty(kt.nplace, dtype=np.int32)
    n_root = k_legal_list(kt, root, legal)
    if n_root == 0:
        return -1, 1.0 if k_winner(kt, root) == int(root[H_TO_MOVE]) else 0.0
    if n_root == 1:
        return int(legal[0]), 0.5
    remaining = 0
    for t in range(N_TYPES):
        remaining += int(root[H_SUPPLY + t])
    if n_root <= solve_limit:
        res, best = k_solve(kt, root, solve_budget, min(remaining, 60))
        if res == 1:
            return best, 1.0
    cap = first_child.shape[0]
    nxt = np.empty(kt.nplace, dtype=np.int32)
    buckets = np.zeros(2 * MAX_GAIN + 2, dtype=np.int64)
    path = np.empty(kt.nplace + 2, dtype=np.int32)
    s = np.empty_like(root)
    first_child[0] = -1
    n_child[0] = -1
    n_vis[0] = 0
    w_val[0] = 0.0
    move[0] = -1
    nnodes = _expand(kt, root, gain, rng, legal, 0, 1, cap, first_child, n_child, move, n_vis, w_val, nxt, buckets)
    root_sym = int(root[H_TO_MOVE])
    for _sim in range(sims):
        k_copy_state(root, s)
        node = 0
        depth = 0
        path[0] = 0
        while True:
            nc = n_child[node]
            if nc == -1 and n_vis[node] > 0:
                nnodes = _expand(kt, s, gain, rng, legal, node, nnodes, cap, first_child, n_child, move, n_vis,
                                 w_val, nxt, buckets)
                nc = n_child[node]
            if nc <= 0:
                break
            # progressive widening: only the best-ordered few children until the node has been visited more
            width = 4 + int(2.0 * math.sqrt(n_vis[node] + 1.0))
            if width > nc:
                width = nc
            fc = first_child[node]
            logn = math.log(n_vis[node] + 1.0)
            best = -1
            best_u = -1e300
            for i in range(width):
                c = fc + i
                if n_vis[c] == 0:
                    best = c
                    break
                u = mean[c] + c_uct * math.sqrt(logn / n_vis[c])
                if u > best_u:
                    best_u = u
                    best = c
            k_apply(kt, s, move[best])
            node = best
            depth += 1
            path[depth] = node
            if n_vis[node] == 0:
                break
        # evaluate
        if greedy_playouts:
            k_greedy_playout(kt, s, gain, PLAYOUT_EPS, rng, legal)
        else:
            k_random_playout(kt, s, rng, legal)
        winner = k_winner(kt, s)
        # backpropagate: a node's value is from the viewpoint of the symbol that moved into it
        mover = 1 - root_sym
        for d in range(depth + 1):
            nd = path[d]
            n_vis[nd] += 1
            if winner == mover:
                w_val[nd] += 1.0
            mean[nd] = w_val[nd] / n_vis[nd]
            mover = 1 - mover
    # choose
    fc = first_child[0]
    nc = n_child[0]
    if nc <= 0:
        return int(legal[0]), 0.5
    most = 0
    for i in range(nc):
        if n_vis[fc + i] > most:
            most = n_vis[fc + i]
    pick = -1
    if noise:
        # visit-weighted (temperature 0.5) choice among children searched at least half as much as the best
        total = 0.0
        for i in range(nc):
            v = n_vis[fc + i]
            if 2 * v >= most and v > 0:
                total += float(v) * float(v)
        r = (k_rand(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0) * total
        for i in range(nc):
            v = n_vis[fc + i]
            if 2 * v >= most and v > 0:
                r -= float(v) * float(v)
                if r <= 0.0:
                    pick = fc + i
                    break
    if pick < 0:
        best_q = -1.0
        for i in range(nc):
            c = fc + i
            if n_vis[c] == most:
                q = w_val[c] / n_vis[c]
                if q > best_q:
                    best_q = q
                    pick = c
    value = 0.5
    total_vis = 0
    total_w = 0.0
    for i in range(nc):
        total_vis += n_vis[fc + i]
        total_w += w_val[fc + i]
    if total_vis > 0:
        value = total_w / total_vis
    return int(move[pick]), value


@njit(cache=True, nogil=True)
def k_screen(kt: KTables, gain: Any, openings: Any, sims: int, seed: int, out: Any) -> None:
    """out[i] = estimated P(S1 wins) after opening ``openings[i]`` from a short search (-1 when illegal).

    The search's value for the side to move (S2) after the opening, turned round.  On the
    default board it correlates about 0.9 with the outcome of real MCTS games from that
    opening, against about 0.7 for epsilon-greedy games of the same cost.
    """
    start = k_new_state(kt)
    s = np.empty_like(start)
    rng = k_seed(seed)
    tree = k_mcts_arrays(kt.nplace, sims)
    for i in range(openings.shape[0]):
        p = openings[i]
        if not k_is_legal(kt, start, p):
            out[i] = -1.0
            continue
        k_copy_state(start, s)
        k_apply(kt, s, p)
        _move, value = k_mcts_in(kt, gain, s, sims, DEFAULT_C, False, rng, False, 0, 0, tree)
        out[i] = 1.0 - value


# ---------------------------------------------------------------------------------- Python side


def gain_for(kt: KTables) -> npt.NDArray[np.int64]:
    """The gain table of a board, cached: every game on the same board shares one."""
    key = (kt.size, kt.sym_o.tobytes(), kt.sym_x.tobytes())
    cached = _GAIN_CACHE.get(key)
    if cached is None:
        cached = gain_table(kt)
        if len(_GAIN_CACHE) > 32:
            _GAIN_CACHE.clear()
        _GAIN_CACHE[key] = cached
    return cached


_GAIN_CACHE: dict[tuple[int, bytes, bytes], npt.NDArray[np.int64]] = {}


# ---------------------------------------------------------------------------------- choosers (rows of the table)


@dataclass
class SimpleChooser:
    """The move choice of ``random`` and ``greedy[:EPS]``: one kernel call, no search (value stays 0.5)."""

    kt: KTables
    gain: npt.NDArray[np.int64]
    rng: npt.NDArray[np.uint64]
    kind: int
    eps: float
    last_value: float = 0.5

    def __post_init__(self) -> None:
        self._legal = np.empty(self.kt.nplace, dtype=np.int32)

    def choose(self, state: npt.NDArray[np.uint64]) -> int:
        return int(k_simple_move(self.kt, state, self.gain, self.kind, self.eps, self.rng, self._legal))


def random_chooser(spec: AgentSpec, kt: KTables, gain: npt.NDArray[np.int64],
                   rng: npt.NDArray[np.uint64]) -> SimpleChooser:
    return SimpleChooser(kt, gain, rng, _RANDOM, 0.0)


def greedy_chooser(spec: AgentSpec, kt: KTables, gain: npt.NDArray[np.int64],
                   rng: npt.NDArray[np.uint64]) -> SimpleChooser:
    return SimpleChooser(kt, gain, rng, _GREEDY, spec.eps)


@dataclass
class MctsChooser:
    """The move choice of ``mcts:N``: a fresh UCT search per move, noisy in the first plies."""

    kt: KTables
    gain: npt.NDArray[np.int64]
    rng: npt.NDArray[np.uint64]
    sims: int
    greedy_playouts: bool
    c_uct: float = DEFAULT_C
    noise_plies: int = NOISE_PLIES
    last_value: float = 0.5

    def __post_init__(self) -> None:
        self._tree: Any = None

    def choose(self, state: npt.NDArray[np.uint64]) -> int:
        noise = int(state[H_NPLACED]) < self.noise_plies
        if self._tree is None:  # allocated on the first move and kept for the game (see k_mcts_in)
            self._tree = k_mcts_arrays(self.kt.nplace, self.sims)
        p, value = k_mcts_in(self.kt, self.gain, state, self.sims, self.c_uct, self.greedy_playouts, self.rng,
                             noise, SOLVE_LIMIT, max(2000, 20 * self.sims), self._tree)
        self.last_value = float(value)
        return int(p)


def mcts_chooser(spec: AgentSpec, kt: KTables, gain: npt.NDArray[np.int64],
                 rng: npt.NDArray[np.uint64]) -> MctsChooser:
    return MctsChooser(kt, gain, rng, spec.sims, spec.greedy_playouts)


def warm_up_simple(kt: KTables, gain: npt.NDArray[np.int64], rng: npt.NDArray[np.uint64]) -> None:
    """Compile (or load) the simple agents' kernel on a small position."""
    k_simple_move(kt, k_new_state(kt), gain, _GREEDY, 0.1, rng, np.empty(kt.nplace, dtype=np.int32))


def warm_up_mcts(kt: KTables, gain: npt.NDArray[np.int64], rng: npt.NDArray[np.uint64]) -> None:
    """Compile (or load) the MCTS kernel, with both kinds of playout, on a small position."""
    s = k_new_state(kt)
    tree = k_mcts_arrays(kt.nplace, 8)
    k_mcts_in(kt, gain, s, 8, DEFAULT_C, False, rng, True, SOLVE_LIMIT, 100, tree)
    k_mcts_in(kt, gain, s, 8, DEFAULT_C, True, rng, False, SOLVE_LIMIT, 100, tree)
