"""``net:N``: the ``puct`` search with the learned value (``core.agents.value``) as its leaf evaluation.

At a leaf the search evaluates S1's win chance with the integer model (``k_inputs`` + ``k_eval_into``, clamped to
[0, 1]) and backs it up as a fractional win, mixed with the playout's result as ``mix * net + (1 - mix) *
playout`` (``mix`` 1 by default: the net alone; ``mix=0`` is the ``puct`` search exactly, tree for tree).
Proven and finished positions keep their exact result.  Everything else (priors, lazy children, solver, move
pick) is ``core.agents.puct``'s, imported, so the two searches differ only in the leaf value.

The inputs need the piece type covering each cell, which the kernel state does not hold: the searcher keeps
it for the root (the placements since its last call are read from the covered cells, the pieces of a position
it meets first are found by tiling its covered cells with the placements the supply allows) and each simulation
carries a copy along its path.  The evaluation is integer arithmetic, so a seed gives the same moves everywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from core.agents.levels import resolve
from core.agents.puct import (
    BUFFER,
    F_FIRST,
    F_KIDS,
    F_MOVE,
    F_NEXP,
    F_NEXT,
    F_NLEGAL,
    F_NVIS,
    F_PROOF,
    F_SIB,
    G_MEAN,
    G_PRIOR,
    G_WINS,
    G_ZSUM,
    LOSS,
    P_C,
    P_EPS,
    P_FPU,
    P_PLAYOUT,
    P_SOLVER,
    P_TAU,
    UNPROVEN,
    UNSCANNED,
    WIN,
    PuctSearch,
    PuctTree,
    _add_kid,
    _advance,
    _all_children_lose,
    _new_node,
    _scan,
    k_fast_greedy_playout,
)
from core.agents.spec import AgentSpec, PuctBudget, parse_net
from core.agents.summary import summary_tables
from core.agents.value import FEATURES, ValueModel, default_model, k_eval_into, k_inputs, symbols_of
from core.engine.kernels import (
    H_LAST,
    H_SUPPLY,
    H_TO_MOVE,
    KTables,
    k_apply,
    k_copy_state,
    k_new_state,
    k_random_playout,
    k_winner,
)
from core.engine.pieces import placement_table


@njit(cache=True, nogil=True)
def k_cover(kt: KTables, ctype: Any, p: int) -> None:
    """Placement ``p``'s type written into the piece types ``ctype``."""
    t = kt.ptype[p] + 1
    for i in range(4):
        ctype[kt.cells[p, i]] = t


@njit(cache=True, nogil=True)
def k_leaf_raw(kt: KTables, s: Any, sym: Any, ctype: Any, tabs: Any, w1: Any, b1: Any, w2: Any, b2: Any, w3: Any,
               b3: Any, q: int, x: Any, count: Any, supply: Any, two: Any, acc: Any, h2: Any) -> int:
    """S1's win chance at position ``s`` by the model with ``2q`` fractional bits, clamped to [0, 2**(2q)]: the
    leaf of every search that evaluates with the model (``net``, ``ab:eval=net|mix``).

    ``x``, ``count``, ``supply``, ``two``, ``acc`` and ``h2`` are the search's scratch: a leaf allocates nothing."""
    for t in range(4):
        supply[t] = int(s[H_SUPPLY + t])
    k_inputs(tabs, kt.size, sym, ctype, supply, int(s[H_TO_MOVE]) == kt.first, count, x)
    k_eval_into(w1, b1, w2, b2, w3, b3, q, x, two, acc, h2)
    return min(max(int(two[0]), 0), 1 << (2 * q))


@njit(cache=True, nogil=True)
def k_leaf_value(kt: KTables, s: Any, sym: Any, ctype: Any, tabs: Any, w1: Any, b1: Any, w2: Any, b2: Any, w3: Any,
                 b3: Any, q: int, x: Any, count: Any, supply: Any, two: Any, acc: Any, h2: Any) -> float:
    """S1's win chance at position ``s`` by the model, clamped to [0, 1] (an exact division by ``2**(2q)``)."""
    raw = k_leaf_raw(kt, s, sym, ctype, tabs, w1, b1, w2, b2, w3, b3, q, x, count, supply, two, acc, h2)
    return float(raw / (1 << (2 * q)))


@njit(cache=True, nogil=True)
def k_net_run(kt: KTables, gain: Any, expg: Any, gmask: Any, root: Any, ti: Any, tf: Any, tb: Any, tk: Any,
              nnodes: int, sims: int, params: Any, rng: Any, sym: Any, root_ctype: Any, tabs: Any, w1: Any,
              b1: Any, w2: Any, b2: Any, w3: Any, b3: Any, q: int, mix: float) -> int:
    """``core.agents.puct.k_puct_run`` with the leaf value ``mix * net + (1 - mix) * playout``.

    The selection, expansion and solver lines are the puct kernel's; what differs is marked ``# net``.
    """
    cap = ti.shape[0]
    legal = np.empty(kt.nplace, dtype=np.int32)
    bkey = np.empty(BUFFER, dtype=np.int64)
    lw = np.zeros(gmask.shape[2], dtype=np.uint64)
    path = np.empty(kt.nplace + 2, dtype=np.int32)
    s = np.empty_like(root)
    ctype = np.empty_like(root_ctype)  # net
    x = np.zeros(w1.shape[0], dtype=np.int64)  # net: the model's inputs
    count = np.zeros(kt.size * kt.size, dtype=np.int64)  # net
    supply = np.zeros(4, dtype=np.int64)  # net
    two = np.zeros(2, dtype=np.int64)  # net
    acc = np.empty(b1.shape[0], dtype=np.int64)  # net: the model's layer scratch, once per run
    h2 = np.empty(b2.shape[0], dtype=np.int64)  # net
    first = kt.first  # net
    c_puct = params[P_C]
    tau = params[P_TAU]
    fpu = params[P_FPU]
    greedy_playouts = params[P_PLAYOUT] > 0.5
    eps = params[P_EPS]
    solver = params[P_SOLVER] > 0.5
    for _sim in range(sims):
        if ti[0, F_PROOF] != UNPROVEN or nnodes >= cap:
            break
        k_copy_state(root, s)
        ctype[:] = root_ctype  # net
        node = 0
        depth = 0
        path[0] = 0
        while ti[node, F_PROOF] == UNPROVEN and ti[node, F_NLEGAL] > 0:
            if ti[node, F_NEXT] == UNSCANNED:
                _scan(kt, s, gain, expg, ti, tf, tb, node, 1 << 62, True, bkey)
            nv = ti[node, F_NVIS]
            sqrt_n = math.sqrt(nv + 1.0)
            zsum = tf[node, G_ZSUM]
            parent_q = 1.0 - tf[node, G_WINS] / nv if nv > 0 else 0.5
            best = -1
            best_u = -1e300
            kids = ti[node, F_KIDS]
            for i in range(ti[node, F_NEXP] - 1, -1, -1):
                c = tk[kids + i]
                pr = ti[c, F_PROOF]
                if pr == WIN and solver:
                    best = c
                    break
                if pr != LOSS or not solver:
                    n = ti[c, F_NVIS]
                    u = tf[c, G_MEAN] + c_puct * tf[c, G_PRIOR] * sqrt_n / (1.0 + n)
                    if u > best_u:
                        best_u = u
                        best = c
            nxt = ti[node, F_NEXT]
            if nxt >= 0 and (best < 0 or ti[best, F_PROOF] != WIN):
                prior = expg[int(s[H_TO_MOVE]), nxt] / zsum if tau > 0.0 else 1.0 / ti[node, F_NLEGAL]
                u = parent_q - fpu + c_puct * prior * sqrt_n
                if best < 0 or u > best_u:
                    if nnodes >= cap:
                        break
                    child = nnodes
                    nnodes += 1
                    _advance(kt, s, gain, expg, ti, tf, tb, node, bkey)
                    _add_kid(ti, tk, node, child)
                    ti[node, F_NEXP] += 1
                    k_apply(kt, s, nxt)
                    k_cover(kt, ctype, nxt)  # net
                    _new_node(kt, s, ti, tf, child, nxt, prior, rng)
                    ti[child, F_SIB] = ti[node, F_FIRST]
                    ti[node, F_FIRST] = child
                    depth += 1
                    path[depth] = child
                    node = child
                    break
            if best < 0:
                break
            k_apply(kt, s, ti[best, F_MOVE])
            k_cover(kt, ctype, ti[best, F_MOVE])  # net
            node = best
            depth += 1
            path[depth] = node
        pr = ti[node, F_PROOF]
        mover_here = int(s[H_TO_MOVE]) ^ 1
        exact = True  # net: a proven or finished position keeps its exact result
        net_s1 = 0.0
        if pr == WIN:
            winner = mover_here
        elif pr == LOSS:
            winner = mover_here ^ 1
        elif ti[node, F_NLEGAL] == 0:
            winner = k_winner(kt, s)
        else:
            exact = False
            if mix > 0.0:  # net: evaluated before the playout moves ``s`` on
                net_s1 = k_leaf_value(kt, s, sym, ctype, tabs, w1, b1, w2, b2, w3, b3, q, x, count, supply,
                                      two, acc, h2)
            winner = -1
            if mix < 1.0:
                if greedy_playouts:
                    k_fast_greedy_playout(kt, s, gmask, eps, rng, lw)
                else:
                    k_random_playout(kt, s, rng, legal)
                winner = k_winner(kt, s)
        mover = mover_here
        for d in range(depth, -1, -1):
            nd = path[d]
            ti[nd, F_NVIS] += 1
            if exact or mix == 0.0:
                if winner == mover:
                    tf[nd, G_WINS] += 1.0
            else:  # net
                share = net_s1 if mover == first else 1.0 - net_s1
                if mix < 1.0:
                    share = mix * share + (1.0 - mix) * (1.0 if winner == mover else 0.0)
                tf[nd, G_WINS] += share
            tf[nd, G_MEAN] = tf[nd, G_WINS] / ti[nd, F_NVIS]
            mover ^= 1
        if solver:
            for d in range(depth - 1, -1, -1):
                parent = path[d]
                child = path[d + 1]
                if ti[parent, F_PROOF] != UNPROVEN:
                    break
                cp = ti[child, F_PROOF]
                if cp == WIN:
                    ti[parent, F_PROOF] = LOSS
                elif cp == LOSS and _all_children_lose(ti, parent):
                    ti[parent, F_PROOF] = WIN
                else:
                    break
    return nnodes


# ---------------------------------------------------------------------------------- the root's piece types

MAX_TILING_STEPS = 200_000
"""Placements tried when tiling a position's covered cells before giving up (a position met in mid-game)."""


def tile_covered(kt: KTables, cells: set[int], counts: list[int], hint: int = -1,
                 around: npt.NDArray[np.int8] | None = None) -> list[int] | None:
    """Placements that cover exactly ``cells`` with ``counts[t]`` pieces of each type, no two of a type sharing
    an edge (nor one with a piece of ``around``, the types already known), ``hint`` tried first; or None.

    Why: the covered cells do not say which piece covers them, so the pieces are found again.
    """
    table = placement_table(kt.size)
    known = np.zeros(kt.size * kt.size, dtype=np.int8) if around is None else around.copy()
    steps = 0

    def solve(left: frozenset[int], need: list[int]) -> list[int] | None:
        nonlocal steps
        if not left:
            return [] if not any(need) else None
        cell = min(left)
        options = [p for p in table.covering[cell] if need[int(table.ptype[p])] > 0
                   and all(int(c) in left for c in table.cells[p])
                   and all(int(known[n]) != int(table.ptype[p]) + 1 for n in table.neighbours[p])]
        options.sort(key=lambda p: p != hint)
        for p in options:
            steps += 1
            if steps > MAX_TILING_STEPS:
                return None
            t = int(table.ptype[p])
            need[t] -= 1
            for c in table.cells[p]:
                known[int(c)] = t + 1
            rest = solve(left - {int(c) for c in table.cells[p]}, need)
            for c in table.cells[p]:
                known[int(c)] = 0
            need[t] += 1
            if rest is not None:
                return [p, *rest]
        return None

    return solve(frozenset(cells), list(counts))


class PieceTypes:
    """The piece type covering each cell of the positions a searcher is asked about (0 uncovered, 1-4 L I T S).

    Why kept between calls: in a game the placements since the last call are few, so only the newly covered cells
    are tiled; a position met first (or not after the last one) is tiled as a whole.  The searches with the learned
    value (``net``, ``ab:eval=net|mix``) need the types for the model's inputs."""

    def __init__(self, kt: KTables) -> None:
        self.kt = kt
        self.ctype: npt.NDArray[np.int8] = np.zeros(kt.size * kt.size, dtype=np.int8)
        self.cov: set[int] = set()

    def at(self, state: npt.NDArray[np.uint64]) -> npt.NDArray[np.int8]:
        kt = self.kt
        cov = {w * 64 + b for w in range(kt.ncw) for b in range(64) if int(state[kt.off_cov + w]) >> b & 1}
        used = [int(kt.supply[t]) - int(state[H_SUPPLY + t]) for t in range(4)]
        hint = int(state[H_LAST])
        found: list[int] | None = None
        base = self.ctype
        if self.cov <= cov and len(cov - self.cov) <= 8:
            have = [int(np.count_nonzero(base == t + 1)) // 4 for t in range(4)]
            found = tile_covered(kt, cov - self.cov, [u - h for u, h in zip(used, have, strict=True)], hint, base)
            base = base.copy()
        if found is None:
            base = np.zeros(kt.size * kt.size, dtype=np.int8)
            found = tile_covered(kt, cov, used, hint)
            if found is None:
                raise ValueError("the covered cells of this position are not placements the supply allows")
        for p in found:
            k_cover(kt, base, int(p))
        self.ctype, self.cov = base, cov
        return base

    def placed(self, move: int) -> None:
        """The searcher's own placement: known, so the next call tiles only the reply."""
        k_cover(self.kt, self.ctype, move)
        self.cov = self.cov | {int(c) for c in self.kt.cells[move]}


@dataclass
class NetSearch(PuctSearch):
    """A ``puct`` searcher whose leaves are valued by the model (mixed with playouts by ``mix``)."""

    model: ValueModel | None = None
    mix: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.threads > 1:
            raise ValueError("net searches on one core (threads=1)")
        if not 0.0 <= self.mix <= 1.0:
            raise ValueError(f"mix must be within 0..1, not {self.mix}")
        if self.model is None:
            self.model = default_model()
        self.model.check_size(self.kt.size)
        self._sym = symbols_of(self.kt)
        self._arrays = self.model.arrays()
        self._types = PieceTypes(self.kt)
        self._root: npt.NDArray[np.int8] | None = None

    def root_ctype(self, state: npt.NDArray[np.uint64]) -> npt.NDArray[np.int8]:
        """The piece type covering each cell of ``state`` (0 uncovered, 1-4 L I T S), kept between calls."""
        return self._types.at(state)

    def choose(self, state: npt.NDArray[np.uint64]) -> int:
        self._root = self.root_ctype(state)
        move = super().choose(state)
        if move >= 0:  # our own placement is known: the next call finds only the reply
            self._types.placed(move)
        return move

    def _run(self, state: npt.NDArray[np.uint64], tree: PuctTree, sims: int) -> int:
        root = self._root if self._root is not None else self.root_ctype(state)
        assert self.model is not None
        return int(k_net_run(self.kt, self._order, self._expg, self._gmask, state, tree.ti, tree.tf, tree.tb, tree.tk,
                             tree.nnodes, sims, self._params, self.rng, self._sym, root,
                             summary_tables(self.kt.size), *self._arrays,
                             self.model.q, float(self.mix)))

    def search(self, state: npt.NDArray[np.uint64], start: float | None = None) -> PuctTree:
        self._root = self.root_ctype(state)
        return super().search(state, start)


def net_search(text: str, kt: KTables, gain: npt.NDArray[np.int64], rng: npt.NDArray[np.uint64],
               model: ValueModel | None = None) -> NetSearch:
    """The searcher behind a ``net`` spec (the shipped model unless ``model`` is given)."""
    ns = parse_net(resolve(text))
    return NetSearch(kt, gain, rng, ns.puct.budget, params=ns.puct.params, model=model, mix=ns.mix)


def net_chooser(spec: AgentSpec, kt: KTables, gain: npt.NDArray[np.int64],
                rng: npt.NDArray[np.uint64]) -> NetSearch:
    """The move choice of a ``net`` spec (a row of the table in ``core.agents.spec``)."""
    return net_search(spec.text, kt, gain, rng)


def warm_up_net(kt: KTables, gain: npt.NDArray[np.int64], rng: npt.NDArray[np.uint64]) -> None:
    """Compile (or load) this module's kernels on a small board, with an all-zero model (no file needed)."""
    z2 = np.zeros((FEATURES, 1), dtype=np.int64)
    arrays = (z2, np.zeros(1, np.int64), np.zeros((1, 1), np.int64), np.zeros(1, np.int64),
              np.zeros((1, 2), np.int64), np.zeros(2, np.int64))
    for play, mix in ((0.0, 1.0), (1.0, 0.5)):
        search = PuctSearch(kt, gain, rng, PuctBudget(sims=8), params={"play": play})
        tree = PuctTree.with_capacity(10)
        root = k_new_state(kt)
        from core.agents.puct import k_puct_init

        tree.nnodes = int(k_puct_init(kt, gain, search._expg, root, tree.ti, tree.tf, rng))
        k_net_run(kt, gain, search._expg, search._gmask, root, tree.ti, tree.tf, tree.tb, tree.tk, tree.nnodes, 8,
                  search._params, rng, symbols_of(kt), np.zeros(kt.size * kt.size, dtype=np.int8),
                  summary_tables(kt.size), *arrays, 8, mix)


__all__ = ["NetSearch", "k_net_run", "net_chooser", "net_search", "tile_covered"]
