"""A stronger search, ``puct``: Monte Carlo tree search guided by the symbol gain of each placement.

What it adds to ``mcts:N`` (each kept because duels showed it pays; see the README's strength ladder):

* **priors**: a placement's symbol gain is a constant per board, so ``P(m) ~ exp(gain / tau)`` is a free
  prior; children are chosen by PUCT, ``Q + c * P * sqrt(N) / (1 + n)``.  Children are created lazily in
  prior order (gain, then a per-node random order), so the tree holds one node per simulation and a node
  never stores its whole move list: one scan of the legal list, made when the node is first expanded (most
  nodes never are), finds its next BUFFER moves;
* **playouts** random or epsilon-greedy on the gain;
* **MCTS-Solver**: terminal positions are proven wins or losses, and proofs are backed up (a move into a
  proven loss for the opponent proves the parent; a node whose every move loses is proven).  Proven moves
  are chosen or avoided outright and proven nodes need no playout;
* **budgets** in simulations, in seconds per move, or both (whichever ends first).  A time budget runs the
  search in chunks between which Python reads the clock, so its games are not reproducible; simulation
  budgets are.

The tree lives in arrays owned by :class:`PuctTree`; the kernel only adds simulations to it, which is what
lets Python stop on a clock.  Speed (``tests/benchmarks/bench_puct_speed.py``) comes from doing less per
simulation, never from searching differently: ``tests/agents/test_puct_speed_identity.py`` checks that the
trees are the ones the straightforward kernels (``tests/agents/puct_reference.py``) build.
"""

from __future__ import annotations

import decimal
import functools
import json
import math
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from core.agents.levels import resolve
from core.agents.search import MAX_GAIN, k_solve
from core.agents.shipped import MODELS, shipped_path
from core.agents.spec import NOISE_PLIES, PUCT_DEFAULTS, SOLVE_LIMIT, AgentSpec, PuctBudget, parse_puct
from core.engine.kernels import (
    H_NPLACED,
    H_SUPPLY,
    H_TO_MOVE,
    KTables,
    k_apply,
    k_copy_state,
    k_legal_count,
    k_legal_list,
    k_new_state,
    k_rand,
    k_rand_below,
    k_random_playout,
    k_seed,
    k_winner,
    popcount64,
)
from core.engine.pieces import placement_table

# integer node fields (columns of PuctTree.ti; the three the PUCT loop reads of every child come first)
F_SIB = 0  # next sibling
F_NVIS = 1  # visits
F_PROOF = 2  # +1 the player who moved here wins with best play, -1 loses, 0 unknown
F_MOVE = 3  # placement that led here (-1 at the root)
F_FIRST = 4  # first created child (-1: none)
F_NLEGAL = 5  # legal placements here
F_NEXP = 6  # children created so far
F_NEXT = 7  # the next placement to create, in prior order (-1: all created, UNSCANNED: not known yet)
F_SALT = 8  # per-node random order among equal gains
F_KIDS = 9  # where the node's children are listed in PuctTree.tk (oldest first), -1: none yet
F_KCAP = 10  # room in that list
NI = 11
# float node fields (columns of PuctTree.tf; the two the PUCT loop reads first)
G_MEAN = 0  # G_WINS / F_NVIS, kept by the backup (one division per node on the path, not per child looked at)
G_PRIOR = 1  # the prior of the move that led here (fixed when the node is created)
G_WINS = 2  # wins of the player who moved here
G_ZSUM = 3  # sum of exp(gain / tau) over the legal placements (prior normaliser; set with the first scan)
NF = 4
# the move buffer of a node (columns of PuctTree.tb): kept apart so the PUCT loop's rows stay small
B_POS = 0  # index of F_NEXT in the buffer
B_LEN = 1  # moves in the buffer (BUFFER: maybe more below the last one)
B_MOVES = 2  # BUFFER columns: the next placements to create, in prior order
BUFFER = 8
NB = B_MOVES + BUFFER
KIDS_PER_NODE = 8
"""PuctTree.tk holds this many entries per node (plus one): every child list, grown by doubling from 4, fits
(a list of k children takes at most 4k + 4 entries over its life; the k sum to fewer than the nodes)."""

UNSCANNED = -2
"""F_NEXT of a node whose legal list was not scanned yet: most nodes are leaves that are never expanded, so the
scan (prior normaliser, first moves in prior order) waits for the node's first expansion."""

# search parameters (entries of the params array the kernel reads)
P_C = 0  # PUCT exploration constant
P_TAU = 1  # prior temperature on the gain; <= 0 means flat priors
P_FPU = 2  # first-play urgency: an unexplored move's value = the node's value minus this
P_PLAYOUT = 3  # 0 random, 1 epsilon-greedy
P_EPS = 4  # random-move share of epsilon-greedy playouts
P_SOLVER = 5  # 1: back up proven wins and losses
P_STOP = 6  # > 0: stop once the root's most visited move leads the next by more than this share of the sims left
P_LEFT = 7  # simulations the search has left after this kernel call (a budget run in chunks)
NPARAMS = 8
STOP_EVERY = 16
"""With ``stop``, the root's two most visited children are compared every this many simulations."""

DEFAULT_PARAMS = PUCT_DEFAULTS

UNPROVEN = 0
WIN = 1
LOSS = -1


@njit(cache=True, inline="always")
def _key(gain: Any, sym: int, p: int, salt: int) -> int:
    """Prior order of placement p: its gain first, then a per-node pseudo-random order (distinct per p)."""
    h = ((p * 2654435761) ^ salt) & 0xFFFFFFFF
    return (int(gain[sym, p]) + 16) * 4294967296 + h


@njit(cache=True, nogil=True)
def _new_node(kt: KTables, s: Any, ti: Any, tf: Any, node: int, move: int, prior: float, rng: Any) -> None:
    """Fill a fresh node for position ``s`` (reached by ``move``); its legal list is scanned later (``_scan``)."""
    n = k_legal_count(kt, s)
    ti[node, F_MOVE] = move
    ti[node, F_FIRST] = -1
    ti[node, F_SIB] = -1
    ti[node, F_NVIS] = 0
    ti[node, F_NLEGAL] = n
    ti[node, F_NEXP] = 0
    ti[node, F_SALT] = int(k_rand(rng) >> np.uint64(33))
    ti[node, F_KIDS] = -1
    ti[node, F_KCAP] = 0
    tf[node, G_WINS] = 0.0
    tf[node, G_MEAN] = 0.0
    tf[node, G_ZSUM] = 1.0
    tf[node, G_PRIOR] = prior
    if n == 0:
        ti[node, F_NEXT] = -1
        # the game is over: the player who moved here wins or loses for certain
        ti[node, F_PROOF] = WIN if k_winner(kt, s) != int(s[H_TO_MOVE]) else LOSS
        return
    ti[node, F_NEXT] = UNSCANNED
    ti[node, F_PROOF] = UNPROVEN


@njit(cache=True, nogil=True)
def _scan(kt: KTables, s: Any, gain: Any, expg: Any, ti: Any, tf: Any, tb: Any, node: int, below: int,
          with_z: bool, bkey: Any) -> None:
    """Fill the node's buffer with the (up to BUFFER) legal placements of largest key under ``below``, largest
    first, and point F_NEXT at the first (-1: none); with ``with_z`` also set the prior normaliser.

    One scan of the legal set serves BUFFER expansions (it used to be one scan per expansion).
    """
    off_leg = kt.off_legal
    sym = int(s[H_TO_MOVE])
    salt = ti[node, F_SALT]
    z = 0.0
    cnt = 0
    for w in range(kt.npw):
        x = s[off_leg + w]
        while x != 0:
            low = x & (~x + np.uint64(1))
            x ^= low
            p = w * 64 + int(popcount64(low - np.uint64(1)))
            if with_z:
                z += expg[sym, p]
            k = _key(gain, sym, p, salt)
            if k >= below or (cnt == BUFFER and k <= bkey[BUFFER - 1]):
                continue
            # insertion into the buffer, kept in descending key order
            j = cnt if cnt < BUFFER else BUFFER - 1
            while j > 0 and bkey[j - 1] < k:
                bkey[j] = bkey[j - 1]
                tb[node, B_MOVES + j] = tb[node, B_MOVES + j - 1]
                j -= 1
            bkey[j] = k
            tb[node, B_MOVES + j] = p
            if cnt < BUFFER:
                cnt += 1
    if with_z:
        tf[node, G_ZSUM] = z
    tb[node, B_POS] = 0
    tb[node, B_LEN] = cnt
    ti[node, F_NEXT] = tb[node, B_MOVES] if cnt > 0 else -1


@njit(cache=True, nogil=True)
def _advance(kt: KTables, s: Any, gain: Any, expg: Any, ti: Any, tf: Any, tb: Any, node: int, bkey: Any) -> None:
    """Move F_NEXT on to the placement after it in prior order (``s`` is the node's position)."""
    pos = tb[node, B_POS] + 1
    if pos < tb[node, B_LEN]:
        tb[node, B_POS] = pos
        ti[node, F_NEXT] = tb[node, B_MOVES + pos]
    elif tb[node, B_LEN] == BUFFER:
        _scan(kt, s, gain, expg, ti, tf, tb, node,
              _key(gain, int(s[H_TO_MOVE]), ti[node, F_NEXT], ti[node, F_SALT]), False, bkey)
    else:
        ti[node, F_NEXT] = -1


@njit(cache=True, nogil=True)
def k_fast_greedy_playout(kt: KTables, s: Any, gmask: Any, eps: float, rng: Any, lw: Any) -> int:
    """Epsilon-greedy placements to the end of the game; returns how many were made.

    ``gmask[sym, g]`` is the placement bitset of gain ``MAX_GAIN - g`` for ``sym``, so the best legal gain is
    the first class that meets the legal set: no legal list is built, as in the random playout.  The legal
    words are copied into ``lw`` (uint64, ``gmask.shape[2]`` long: a multiple of 8 words, the tail zero), so the
    class tests run over whole vector registers; a class is counted only once it is known to meet the legal set.
    """
    off_leg = kt.off_legal
    npw = kt.npw
    npad = gmask.shape[2]
    ngain = gmask.shape[1]
    for w in range(npw, npad):
        lw[w] = 0
    n = 0
    while True:
        sym = int(s[H_TO_MOVE])
        for w in range(npw):
            lw[w] = s[off_leg + w]
        total = 0
        g_pick = -1
        if eps > 0.0 and (k_rand(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0) < eps:
            for w in range(npad):
                total += popcount64(lw[w])
        else:
            for g in range(ngain):
                meet = np.uint64(0)
                for w in range(npad):
                    meet |= lw[w] & gmask[sym, g, w]
                if meet != 0:
                    for w in range(npad):
                        total += popcount64(lw[w] & gmask[sym, g, w])
                    g_pick = g
                    break
        if total == 0:
            return n
        r = k_rand_below(rng, int(total))
        p = -1
        for w in range(npw):
            x = lw[w]
            if g_pick >= 0:
                x &= gmask[sym, g_pick, w]
            c = int(popcount64(x))
            if r < c:
                for _ in range(r):
                    x &= x - np.uint64(1)
                low = x & (~x + np.uint64(1))
                p = w * 64 + int(popcount64(low - np.uint64(1)))
                break
            r -= c
        k_apply(kt, s, p)
        n += 1


@njit(cache=True, nogil=True)
def k_puct_init(kt: KTables, gain: Any, expg: Any, root: Any, ti: Any, tf: Any, rng: Any) -> int:
    """Start a tree at ``root``; returns the node count (1)."""
    _new_node(kt, root, ti, tf, 0, -1, 1.0, rng)
    return 1


@njit(cache=True, nogil=True)
def _all_children_lose(ti: Any, node: int) -> bool:
    if ti[node, F_NEXT] >= 0:
        return False
    c = ti[node, F_FIRST]
    while c >= 0:
        if ti[c, F_PROOF] != LOSS:
            return False
        c = ti[c, F_SIB]
    return True


@njit(cache=True, nogil=True)
def _add_kid(ti: Any, tk: Any, node: int, child: int) -> None:
    """Append ``child`` to the node's child list in ``tk`` (``tk[0]``: entries in use), moving the list to a
    twice larger place when it is full."""
    k = ti[node, F_NEXP]
    if k == ti[node, F_KCAP]:
        new_cap = max(4, 2 * k)
        start = tk[0]
        tk[0] = start + new_cap
        old = ti[node, F_KIDS]
        for i in range(k):
            tk[start + i] = tk[old + i]
        ti[node, F_KIDS] = start
        ti[node, F_KCAP] = new_cap
    tk[ti[node, F_KIDS] + k] = child


@njit(cache=True, nogil=True)
def _root_lead(ti: Any, tk: Any) -> int:
    """Visits of the root's most visited child minus those of the next (a child not yet created has none)."""
    a = 0
    b = 0
    kids = ti[0, F_KIDS]
    for i in range(ti[0, F_NEXP]):
        v = ti[tk[kids + i], F_NVIS]
        if v > a:
            b = a
            a = v
        elif v > b:
            b = v
    return a - b


@njit(cache=True, nogil=True)
def k_puct_run(kt: KTables, gain: Any, expg: Any, gmask: Any, root: Any, ti: Any, tf: Any, tb: Any, tk: Any,
               nnodes: int, sims: int, params: Any, rng: Any) -> int:
    """Add up to ``sims`` simulations to the tree at node 0 (position ``root``); returns the node count.

    The PUCT loop reads each node's children from its list in ``tk``, newest first (the order of the linked
    list F_FIRST/F_SIB, which the rest of the code walks): the addresses of the children are then known before
    their rows are read, instead of one row at a time.  Stops early when the root is proven or the arrays are
    full.
    """
    cap = ti.shape[0]
    legal = np.empty(kt.nplace, dtype=np.int32)
    bkey = np.empty(BUFFER, dtype=np.int64)
    lw = np.zeros(gmask.shape[2], dtype=np.uint64)
    path = np.empty(kt.nplace + 2, dtype=np.int32)
    s = np.empty_like(root)
    c_puct = params[P_C]
    tau = params[P_TAU]
    fpu = params[P_FPU]
    greedy_playouts = params[P_PLAYOUT] > 0.5
    eps = params[P_EPS]
    solver = params[P_SOLVER] > 0.5
    stop = params[P_STOP]
    left = params[P_LEFT]
    for _sim in range(sims):
        if ti[0, F_PROOF] != UNPROVEN or nnodes >= cap:
            break
        if stop > 0.0 and _sim > 0 and _sim % STOP_EVERY == 0 and _root_lead(ti, tk) > stop * (sims - _sim + left):
            break
        k_copy_state(root, s)
        node = 0
        depth = 0
        path[0] = 0
        while ti[node, F_PROOF] == UNPROVEN and ti[node, F_NLEGAL] > 0:
            if ti[node, F_NEXT] == UNSCANNED:
                _scan(kt, s, gain, expg, ti, tf, tb, node, 1 << 62, True, bkey)
            nv = ti[node, F_NVIS]
            sqrt_n = math.sqrt(nv + 1.0)
            zsum = tf[node, G_ZSUM]
            # the chooser's average so far (the node's value is stored for the player who moved into it)
            parent_q = 1.0 - tf[node, G_WINS] / nv if nv > 0 else 0.5
            best = -1
            best_u = -1e300
            kids = ti[node, F_KIDS]
            for i in range(ti[node, F_NEXP] - 1, -1, -1):
                c = tk[kids + i]
                pr = ti[c, F_PROOF]
                if pr == WIN and solver:  # a proven win for the chooser
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
                    # create the next child in prior order
                    if nnodes >= cap:
                        break
                    child = nnodes
                    nnodes += 1
                    _advance(kt, s, gain, expg, ti, tf, tb, node, bkey)
                    _add_kid(ti, tk, node, child)
                    ti[node, F_NEXP] += 1
                    k_apply(kt, s, nxt)
                    _new_node(kt, s, ti, tf, child, nxt, prior, rng)
                    ti[child, F_SIB] = ti[node, F_FIRST]
                    ti[node, F_FIRST] = child
                    depth += 1
                    path[depth] = child
                    node = child
                    break
            if best < 0:
                break  # every created child is lost and nothing is left to create (proof pending below)
            k_apply(kt, s, ti[best, F_MOVE])
            node = best
            depth += 1
            path[depth] = node
        # result of the simulation: the winning symbol
        pr = ti[node, F_PROOF]
        mover_here = int(s[H_TO_MOVE]) ^ 1  # the symbol that moved into ``node``
        if pr == WIN:
            winner = mover_here
        elif pr == LOSS:
            winner = mover_here ^ 1
        elif ti[node, F_NLEGAL] == 0:
            winner = k_winner(kt, s)
        else:
            if greedy_playouts:
                k_fast_greedy_playout(kt, s, gmask, eps, rng, lw)
            else:
                k_random_playout(kt, s, rng, legal)
            winner = k_winner(kt, s)
        # back up: each node's wins count for the player who moved into it
        mover = mover_here
        for d in range(depth, -1, -1):
            nd = path[d]
            ti[nd, F_NVIS] += 1
            if winner == mover:
                tf[nd, G_WINS] += 1.0
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
                    ti[parent, F_PROOF] = LOSS  # the player to move here has a winning move
                elif cp == LOSS and _all_children_lose(ti, parent):
                    ti[parent, F_PROOF] = WIN  # every move from here loses
                else:
                    break
    return nnodes


@njit(cache=True, nogil=True)
def k_puct_pick(ti: Any, tf: Any, noise: bool, rng: Any) -> tuple[int, float]:
    """The move to play from the root and the root's value for the side to move."""
    c = ti[0, F_FIRST]
    if c < 0:
        return -1, 0.5
    # a proven win is played at once; proven losses only when nothing else is left
    most = -1
    best = -1
    best_q = -1.0
    c = ti[0, F_FIRST]
    while c >= 0:
        if ti[c, F_PROOF] == WIN:
            return ti[c, F_MOVE], 1.0
        c = ti[c, F_SIB]
    for pass_ in range(2):
        c = ti[0, F_FIRST]
        while c >= 0:
            if pass_ == 1 or ti[c, F_PROOF] != LOSS:
                n = ti[c, F_NVIS]
                q = tf[c, G_WINS] / n if n > 0 else 0.0
                if n > most or (n == most and q > best_q):
                    most = n
                    best = c
                    best_q = q
            c = ti[c, F_SIB]
        if best >= 0:
            break
    pick = best
    if noise and most > 0:
        # visit-weighted (temperature 0.5) choice among unproven children searched at least half as much
        total = 0.0
        c = ti[0, F_FIRST]
        while c >= 0:
            v = ti[c, F_NVIS]
            if 2 * v >= most and v > 0 and ti[c, F_PROOF] != LOSS:
                total += float(v) * float(v)
            c = ti[c, F_SIB]
        r = (k_rand(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0) * total
        c = ti[0, F_FIRST]
        while c >= 0:
            v = ti[c, F_NVIS]
            if 2 * v >= most and v > 0 and ti[c, F_PROOF] != LOSS:
                r -= float(v) * float(v)
                if r <= 0.0:
                    pick = c
                    break
            c = ti[c, F_SIB]
    nv = ti[0, F_NVIS]
    value = 1.0 - tf[0, G_WINS] / nv if nv > 0 else 0.5
    if ti[0, F_PROOF] == WIN:
        value = 0.0
    elif ti[0, F_PROOF] == LOSS:
        value = 1.0
    return ti[pick, F_MOVE], value


@njit(cache=True, nogil=True)
def k_puct_compact(ti: Any, tf: Any, tb: Any, src: int, ti2: Any, tf2: Any, tb2: Any, tk2: Any) -> int:
    """Copy the subtree under node ``src`` into ``ti2``/``tf2``/``tb2`` with ``src`` as node 0, and its child
    lists into a fresh ``tk2``; returns its size."""
    old_of = np.empty(ti.shape[0], dtype=np.int32)
    old_of[0] = src
    _copy_node(ti, tf, tb, src, ti2, tf2, tb2, 0)
    tk2[0] = 1
    count = 1
    head = 0
    while head < count:
        old = old_of[head]
        prev = -1
        ti2[head, F_FIRST] = -1
        k = ti[old, F_NEXP]
        if k > 0:
            ti2[head, F_KIDS] = tk2[0]
            ti2[head, F_KCAP] = max(4, k)
            tk2[0] += max(4, k)
        c = ti[old, F_FIRST]
        while c >= 0:
            nid = count
            count += 1
            old_of[nid] = c
            _copy_node(ti, tf, tb, c, ti2, tf2, tb2, nid)
            k -= 1
            tk2[ti2[head, F_KIDS] + k] = nid  # the list runs oldest first, the linked list newest first
            if prev < 0:
                ti2[head, F_FIRST] = nid
            else:
                ti2[prev, F_SIB] = nid
            prev = nid
            c = ti[c, F_SIB]
        head += 1
    return count


@njit(cache=True, nogil=True)
def _copy_node(ti: Any, tf: Any, tb: Any, old: int, ti2: Any, tf2: Any, tb2: Any, new: int) -> None:
    for f in range(NI):
        ti2[new, f] = ti[old, f]
    for f in range(NF):
        tf2[new, f] = tf[old, f]
    if ti[old, F_NEXT] != UNSCANNED:
        for f in range(NB):
            tb2[new, f] = tb[old, f]
    ti2[new, F_SIB] = -1
    ti2[new, F_KIDS] = -1
    ti2[new, F_KCAP] = 0


# ---------------------------------------------------------------------------------- Python side


def kernel_params(options: dict[str, float]) -> npt.NDArray[np.float64]:
    """The array ``k_puct_run`` reads (P_C .. P_LEFT), from search options over :data:`DEFAULT_PARAMS`; the search
    sets P_STOP and P_LEFT per call, so they start at 0 (no stop)."""
    p = {**DEFAULT_PARAMS, **options}
    out = np.zeros(NPARAMS, dtype=np.float64)
    out[[P_C, P_TAU, P_FPU, P_PLAYOUT, P_EPS, P_SOLVER]] = [p["c"], p["tau"], p["fpu"], p["play"], p["eps"],
                                                            p["solver"]]
    return out


def prior_table(gain: npt.NDArray[np.int64], tau: float) -> npt.NDArray[np.float64]:
    """exp(gain / tau) per symbol and placement (all ones for flat priors)."""
    if tau <= 0:
        return np.ones(gain.shape, dtype=np.float64)
    return np.exp(gain.astype(np.float64) / tau)


PRIOR_FEATURES = ("own covered", "opponent covered", "own next to it", "opponent next to it", "empty next to it",
                  "L", "I", "T", "cells on the edge", "distance from the centre", "blocked placements",
                  "touching placements", "covers no symbol", "covers both")
"""What the learned prior weighs (``prior=learned``): static facts of a placement for the symbol to move, so the
score is a constant per board and children are still created in prior order by ``_key``."""
SCORE_SCALE = 8
"""Learned score units per nat of the fitted logit (the score is an integer: ``_key`` orders by it)."""
SCORE_MIN = -16
"""The lowest score ``_key`` orders correctly (its ``gain + 16`` must not be negative)."""
SCORE_MAX = 4096
"""The highest (``_key`` holds up to 2**30; a board's scores are shifted to start at SCORE_MIN and capped here)."""


def placement_features(kt: KTables) -> npt.NDArray[np.float64]:
    """f[sym, p, k]: feature ``PRIOR_FEATURES[k]`` of placement p for ``sym`` (0 = O, 1 = X) to move."""
    n = kt.size
    npl = kt.nplace
    cells = np.arange(n * n)
    bits = np.uint64(1) << (cells & 63).astype(np.uint64)
    has_o = (kt.sym_o[cells >> 6] & bits) != 0
    has_x = (kt.sym_x[cells >> 6] & bits) != 0
    cover = np.zeros((npl, n, n), dtype=bool)
    rows = np.repeat(np.arange(npl), 4)
    flat = kt.cells.astype(np.int64).ravel()
    cover[rows, flat // n, flat % n] = True
    near = np.zeros_like(cover)
    near[:, 1:, :] |= cover[:, :-1, :]
    near[:, :-1, :] |= cover[:, 1:, :]
    near[:, :, 1:] |= cover[:, :, :-1]
    near[:, :, :-1] |= cover[:, :, 1:]
    near &= ~cover
    cover2 = cover.reshape(npl, n * n)
    near2 = near.reshape(npl, n * n)
    o_cov, x_cov = cover2 @ has_o.astype(np.float64), cover2 @ has_x.astype(np.float64)
    o_near, x_near = near2 @ has_o.astype(np.float64), near2 @ has_x.astype(np.float64)
    empty_near = near2.sum(axis=1) - o_near - x_near
    r, c = flat // n, flat % n
    edge = ((r == 0) | (r == n - 1) | (c == 0) | (c == n - 1)).reshape(npl, 4).sum(axis=1).astype(np.float64)
    mid = (n - 1) / 2
    dist = (np.maximum(np.abs(r - mid), np.abs(c - mid)).reshape(npl, 4).mean(axis=1)) / mid
    blocked = _popcounts(kt.dblk).astype(np.float64)
    touching = _popcounts(kt.dtch).astype(np.float64)
    blocked /= max(float(blocked.mean()), 1.0)
    touching /= max(float(touching.mean()), 1.0)
    ptype = kt.ptype.astype(np.int64)
    out = np.zeros((2, npl, len(PRIOR_FEATURES)), dtype=np.float64)
    for sym, (own_c, opp_c, own_n, opp_n) in enumerate(((o_cov, x_cov, o_near, x_near),
                                                         (x_cov, o_cov, x_near, o_near))):
        out[sym] = np.column_stack([own_c, opp_c, own_n, opp_n, empty_near, ptype == 0, ptype == 1, ptype == 2,
                                    edge, dist, blocked, touching, (own_c + opp_c) == 0,
                                    (own_c > 0) & (opp_c > 0)])
    return out


def _popcounts(words: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
    """Set bits of each row of a [rows, words] bitset."""
    as_bytes = np.ascontiguousarray(words).view(np.uint8).reshape(words.shape[0], -1)
    out: npt.NDArray[np.int64] = np.unpackbits(as_bytes, axis=1).sum(axis=1, dtype=np.int64)
    return out


def raw_scores(feats: npt.NDArray[np.float64], weights: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """``rint(features . weights * SCORE_SCALE)`` over the last axis, the terms added one at a time in a fixed order
    (IEEE multiplies and adds, no BLAS product), so the integers are the same on every machine."""
    acc = np.zeros(feats.shape[:-1], dtype=np.float64)
    for k in range(feats.shape[-1]):
        acc = acc + feats[..., k] * weights[k]
    out: npt.NDArray[np.int64] = np.rint(acc * SCORE_SCALE).astype(np.int64)
    return out


def learned_scores(kt: KTables, weights: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """score[sym, p]: the learned logit ``features . weights`` in SCORE_SCALE units, as an integer per symbol
    shifted so the board's lowest is SCORE_MIN (a shift changes no prior) and capped at SCORE_MAX."""
    feats = placement_features(kt)
    if weights.shape != (len(PRIOR_FEATURES),):
        raise ValueError(f"the learned prior has {weights.shape} weights, not {len(PRIOR_FEATURES)}")
    return shifted_scores(raw_scores(feats, weights))


def shifted_scores(raw: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Integer scores shifted so that each row's (last axis) lowest is SCORE_MIN, which ``_key`` needs and which
    changes no prior, and capped at SCORE_MAX."""
    out: npt.NDArray[np.int64] = np.minimum(raw - raw.min(axis=-1, keepdims=True) + SCORE_MIN, SCORE_MAX)
    return out


def learned_prior_table(score: npt.NDArray[np.int64], tau: float) -> npt.NDArray[np.float64]:
    """exp(logit * 0.5 / tau) per symbol and placement: ``tau`` = 0.5 (the default) is the fitted policy itself,
    and tau scales it as it scales the gain prior (all ones for flat priors)."""
    if tau <= 0:
        return np.ones(score.shape, dtype=np.float64)
    values, where = np.unique(score, return_inverse=True)
    table = np.array([_exact_exp(int(v) - SCORE_MIN, float(tau)) for v in values], dtype=np.float64)
    out: npt.NDArray[np.float64] = table[where.reshape(score.shape)]
    return out


POSITION_FEATURES = ("threats it rules out", "chances it rules out", "threats it opens", "chances it opens",
                     "share of the threats ruled out", "share of the chances ruled out")
"""What the position prior (``prior=position``) weighs beside PRIOR_FEATURES, in the position a search starts
from: a *threat* is a placement that would cover symbols of the side to move (it counts them), a *chance* one that
would cover the opponent's.  *Rules out*: legal now, impossible once the placement is made (its static block set);
*opens*: neither legal nor ruled out now, and touching the placement, so legal once it is made."""
POSITION_PRIOR_FEATURES = PRIOR_FEATURES + POSITION_FEATURES


@njit(cache=True, nogil=True)
def k_position_counts(kt: KTables, s: Any, opn: Any, masks: Any, out: Any) -> None:
    """out[p] = (O, X) symbols the legal placements p rules out would cover, then (O, X) symbols the placements p
    opens would cover; integers only.  ``opn[p]``: the placements p's touch makes reachable and does not rule out;
    ``masks[k, c]``: the placements covering exactly c + 1 symbols of kind k (0 = O, 1 = X).  A placement already
    ruled out counts nothing: no search from ``s`` can make it."""
    npl = kt.nplace
    npw = kt.npw
    for p in range(npl):
        out[p, 0] = 0
        out[p, 1] = 0
        out[p, 2] = 0
        out[p, 3] = 0
        if (s[kt.off_blk + (p >> 6)] >> np.uint64(p & 63)) & np.uint64(1):
            continue
        for w in range(npw):
            legal = s[kt.off_legal + w]
            m = kt.dblk[p, w] & legal
            f = opn[p, w] & ~legal & ~s[kt.off_blk + w]
            if m == 0 and f == 0:
                continue
            for k in range(2):
                for c in range(4):
                    out[p, k] += (c + 1) * popcount64(m & masks[k, c, w])
                    out[p, 2 + k] += (c + 1) * popcount64(f & masks[k, c, w])


_BOARD_PARTS: dict[tuple[int, bytes, bytes], tuple[Any, Any, Any, Any]] = {}


def _board_parts(kt: KTables) -> tuple[Any, Any, Any, Any]:
    """A board's static features, the symbols each placement covers, the placements each one opens and the
    masks of placements by symbols covered: a searcher is made per game, and these depend on the board alone."""
    key = (kt.size, kt.sym_o.tobytes(), kt.sym_x.tobytes())
    parts = _BOARD_PARTS.get(key)
    if parts is None:
        static = placement_features(kt)
        cov = np.ascontiguousarray(static[0][:, :2].astype(np.int64))
        masks = np.zeros((2, 4, kt.npw), dtype=np.uint64)
        for k in range(2):
            for c in range(4):
                for q in np.flatnonzero(cov[:, k] == c + 1):
                    masks[k, c, q >> 6] |= np.uint64(1) << np.uint64(q & 63)
        parts = (static, cov, np.ascontiguousarray(kt.dtch & ~kt.dblk), masks)
        if len(_BOARD_PARTS) >= 8:
            _BOARD_PARTS.clear()
        _BOARD_PARTS[key] = parts
    return parts


class PositionPrior:
    """The prior of ``prior=position``: PRIOR_FEATURES and POSITION_FEATURES of every placement in the position a
    search starts from, weighed into integer scores as ``learned_scores`` does (the whole search uses them)."""

    def __init__(self, kt: KTables, weights: npt.NDArray[np.float64], tau: float) -> None:
        if weights.shape != (len(POSITION_PRIOR_FEATURES),):
            raise ValueError(f"the position prior has {weights.shape} weights, not {len(POSITION_PRIOR_FEATURES)}")
        self.kt = kt
        self.weights = weights
        self.tau = tau
        self.static, self.cov, self.opn, self.masks = _board_parts(kt)
        # the static terms of raw_scores' sum, added in its order: a search adds the position's terms to them
        self._static_sum = np.zeros(self.static.shape[:-1], dtype=np.float64)
        for k in range(len(PRIOR_FEATURES)):
            self._static_sum = self._static_sum + self.static[..., k] * weights[k]
        self._exp = np.empty(0, dtype=np.float64)
        self._counts = np.empty((kt.nplace, 4), dtype=np.int64)
        self._legal = np.empty(kt.nplace, dtype=np.int32)

    def _position_terms(self, s: npt.NDArray[np.uint64]) -> npt.NDArray[np.float64]:
        """[sym, p, k]: POSITION_FEATURES[k] of placement p for ``sym`` to move in ``s``."""
        c = self._counts
        k_position_counts(self.kt, s, self.opn, self.masks, c)
        legal = np.zeros(self.kt.nplace, dtype=np.int64)
        n = int(k_legal_list(self.kt, s, self._legal))
        legal[self._legal[:n]] = 1
        total = legal @ self.cov  # integers: the same on every machine
        out = np.empty((2, self.kt.nplace, len(POSITION_FEATURES)), dtype=np.float64)
        for sym in range(2):
            own, opp = sym, 1 - sym
            out[sym, :, 0] = c[:, own]
            out[sym, :, 1] = c[:, opp]
            out[sym, :, 2] = c[:, 2 + own]
            out[sym, :, 3] = c[:, 2 + opp]
            out[sym, :, 4] = c[:, own] / max(int(total[own]), 1)
            out[sym, :, 5] = c[:, opp] / max(int(total[opp]), 1)
        return out

    def features(self, s: npt.NDArray[np.uint64]) -> npt.NDArray[np.float64]:
        """f[sym, p, k]: feature ``POSITION_PRIOR_FEATURES[k]`` of placement p for ``sym`` to move in ``s``."""
        return np.concatenate([self.static, self._position_terms(s)], axis=2)

    def tables(self, s: npt.NDArray[np.uint64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """The creation order (integer scores) and the prior table of a search from ``s``: ``raw_scores`` of
        ``features(s)``, bit for bit, with the static terms summed once per board."""
        terms = self._position_terms(s)
        acc = self._static_sum
        base = len(PRIOR_FEATURES)
        for k in range(len(POSITION_FEATURES)):
            acc = acc + terms[..., k] * self.weights[base + k]
        score = shifted_scores(np.rint(acc * SCORE_SCALE).astype(np.int64))
        if self.tau <= 0:
            return score, np.ones(score.shape, dtype=np.float64)
        top = int(score.max()) - SCORE_MIN + 1
        if len(self._exp) < top:  # learned_prior_table's values, kept for every score seen so far
            self._exp = np.array([_exact_exp(k, float(self.tau)) for k in range(top)], dtype=np.float64)
        return score, self._exp[score - SCORE_MIN]


@functools.lru_cache(maxsize=1 << 14)
def _exact_exp(steps: int, tau: float) -> float:
    """exp(steps / SCORE_SCALE * 0.5 / tau) correctly rounded (decimal arithmetic), the same bits on every machine.

    Why not numpy: its exp takes a vector path where the CPU has AVX-512 and differs in the last bit from the
    correctly rounded value for about 5% of these arguments, so priors and then moves could differ by machine."""
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        x = decimal.Decimal(steps) / decimal.Decimal(SCORE_SCALE) * (decimal.Decimal("0.5") / decimal.Decimal(tau))
        return float(x.exp())


PRIOR_FORMAT = 1
PRIOR_KIND = "puct-prior"
MAX_PRIOR_WEIGHT = 64.0
"""A weight beyond this (nats per unit of a feature) is a damaged file, not a fit."""
DEFAULT_PRIOR = MODELS / "puct-prior.json"
"""The learned prior's weights that ship with the program (made by ``lits learn prior``; installed as
``designer/resources/models``)."""
POSITION_PRIOR_KIND = "puct-position-prior"
DEFAULT_POSITION_PRIOR = MODELS / "puct-prior-position.json"
"""The position prior's weights that ship with the program (``lits learn prior --position``)."""


class PriorFileError(ValueError):
    """A weights file of the learned prior that cannot be used (the message names the file)."""


def prior_weights_from_text(text: str, name: str, kind: str = PRIOR_KIND) -> npt.NDArray[np.float64]:
    """The weights in a learned prior's file, in the order of its kind's features (PRIOR_FEATURES, or
    POSITION_PRIOR_FEATURES for the position prior); PriorFileError naming ``name`` if not."""
    features = POSITION_PRIOR_FEATURES if kind == POSITION_PRIOR_KIND else PRIOR_FEATURES
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise PriorFileError(f"{name}: not readable JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("kind") != kind:
        raise PriorFileError(f"{name}: not a weights file of the {'position' if kind != PRIOR_KIND else 'learned'} "
                             f"puct prior (no kind {kind!r})")
    if doc.get("format") != PRIOR_FORMAT or doc.get("scale") != SCORE_SCALE:
        raise PriorFileError(f"{name}: format {doc.get('format')!r}, scale {doc.get('scale')!r}; this program "
                             f"reads format {PRIOR_FORMAT}, scale {SCORE_SCALE}")
    weights = doc.get("weights")
    if not isinstance(weights, dict) or set(weights) != set(features):
        have = sorted(weights) if isinstance(weights, dict) else weights
        raise PriorFileError(f"{name}: 'weights' must name each feature once ({', '.join(features)}), "
                             f"not {have!r}")
    out = np.empty(len(features), dtype=np.float64)
    for k, feature in enumerate(features):
        v = weights[feature]
        if isinstance(v, bool) or not isinstance(v, int | float) or not abs(v) <= MAX_PRIOR_WEIGHT:
            raise PriorFileError(f"{name}: weight {feature!r} is {v!r}, not a number within "
                                 f"-{MAX_PRIOR_WEIGHT:g}..{MAX_PRIOR_WEIGHT:g}")
        out[k] = float(v)
    return out


def load_prior_weights(path: str | Path, kind: str = PRIOR_KIND) -> npt.NDArray[np.float64]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PriorFileError(f"{p}: cannot read the weights file ({getattr(exc, 'strerror', None) or exc})") from None
    return prior_weights_from_text(text, str(p), kind)


def default_prior_path() -> Path:
    return shipped_path(DEFAULT_PRIOR.name)


@functools.cache
def default_prior_weights() -> npt.NDArray[np.float64]:
    return load_prior_weights(default_prior_path())


@functools.cache
def default_position_prior_weights() -> npt.NDArray[np.float64]:
    return load_prior_weights(shipped_path(DEFAULT_POSITION_PRIOR.name), POSITION_PRIOR_KIND)


def gain_masks(kt: KTables, gain: npt.NDArray[np.int64]) -> npt.NDArray[np.uint64]:
    """gmask[sym, g, w]: placement bitset (word w) of the placements worth ``MAX_GAIN - g`` to ``sym``; the words
    are padded with zeros to a multiple of 8 (whole vector registers for the playout's class tests)."""
    key = (kt.nplace, gain.tobytes())
    cached = _MASKS.get(key)
    if cached is not None:
        return cached
    out = np.zeros((2, 2 * MAX_GAIN + 1, -(-kt.npw // 8) * 8), dtype=np.uint64)
    for sym in range(2):
        for p in range(kt.nplace):
            g = MAX_GAIN - int(gain[sym, p])
            out[sym, g, p >> 6] |= np.uint64(1) << np.uint64(p & 63)
    if len(_MASKS) > 16:
        _MASKS.clear()
    _MASKS[key] = out
    return out


_MASKS: dict[tuple[int, bytes], npt.NDArray[np.uint64]] = {}


Clock = Callable[[], float]

MIN_CHUNK = 32
"""Simulations per kernel call under a time budget at first; later chunks aim at CHUNK_SECONDS."""
CHUNK_SECONDS = 0.02
MAX_CHUNK = 1 << 14
TIME_TOLERANCE = 0.05
"""A time budget may be overrun by one chunk: about CHUNK_SECONDS, at most this (plus the root solver)."""


@dataclass
class PuctTree:
    """The search tree's arrays; they grow (by copying) when a timed search needs more nodes."""

    ti: npt.NDArray[np.int32]
    tf: npt.NDArray[np.float64]
    nnodes: int = 0
    tb: npt.NDArray[np.int32] = field(default_factory=lambda: np.empty((0, NB), dtype=np.int32))
    """The move buffers (rows as ``ti``; only the kernels that grow the tree read them)."""
    tk: npt.NDArray[np.int32] = field(default_factory=lambda: np.ones(1, dtype=np.int32))
    """The child lists (``tk[0]``: entries in use; only the kernels that grow the tree read them)."""

    @classmethod
    def with_capacity(cls, cap: int) -> PuctTree:
        tk = np.empty(KIDS_PER_NODE * cap + 1, dtype=np.int32)
        tk[0] = 1
        return cls(np.empty((cap, NI), dtype=np.int32), np.empty((cap, NF), dtype=np.float64), 0,
                   np.empty((cap, NB), dtype=np.int32), tk)

    @property
    def capacity(self) -> int:
        return int(self.ti.shape[0])

    def ensure(self, free: int) -> None:
        if self.nnodes + free <= self.capacity:
            return
        cap = max(2 * self.capacity, self.nnodes + free)
        ti = np.empty((cap, NI), dtype=np.int32)
        tf = np.empty((cap, NF), dtype=np.float64)
        tb = np.empty((cap, NB), dtype=np.int32)
        ti[: self.nnodes] = self.ti[: self.nnodes]
        tf[: self.nnodes] = self.tf[: self.nnodes]
        tb[: self.nnodes] = self.tb[: self.nnodes]
        tk = np.empty(KIDS_PER_NODE * cap + 1, dtype=np.int32)
        tk[: self.tk[0]] = self.tk[: self.tk[0]]
        self.ti, self.tf, self.tb, self.tk = ti, tf, tb, tk

    @property
    def root_visits(self) -> int:
        return int(self.ti[0, F_NVIS])

    @property
    def root_proof(self) -> int:
        return int(self.ti[0, F_PROOF])


@dataclass
class PuctSearch:
    """One seeded searcher bound to a board; ``choose`` runs a search from a kernel state."""

    kt: KTables
    gain: npt.NDArray[np.int64]
    rng: npt.NDArray[np.uint64]
    budget: PuctBudget
    params: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_PARAMS))
    noise_plies: int = NOISE_PLIES
    clock: Clock = time.perf_counter
    last_value: float = 0.5
    last_sims: int = 0
    prior_weights: npt.NDArray[np.float64] | None = None
    """The learned prior's weights for ``prior=learned`` (default: the shipped file's)."""

    def __post_init__(self) -> None:
        p = {**DEFAULT_PARAMS, **self.params}
        unknown = set(p) - set(DEFAULT_PARAMS)
        if unknown:
            raise ValueError(f"unknown search parameters {sorted(unknown)}")
        self._params = kernel_params(p)
        self._stop = float(p["stop"])
        self._bank_cap = round(p["bank"] * self.budget.sims)
        self._bank = 0
        self._game_ply = -1
        self.threads = int(p["threads"])
        self._reuse = p["reuse"] > 0.5 and self.threads == 1
        self._helpers: list[PuctSearch] = []
        self._prev: tuple[PuctTree, npt.NDArray[np.uint64], int] | None = None
        # the prior and the creation order read ``_order``; the playouts always read the gain (``_gmask``)
        self._position: PositionPrior | None = None
        if p["prior"] > 1.5:
            weights = default_position_prior_weights() if self.prior_weights is None else self.prior_weights
            self._position = PositionPrior(self.kt, weights, p["tau"])
            self._order, self._expg = self._position.tables(k_new_state(self.kt))
        elif p["prior"] > 0.5:
            weights = default_prior_weights() if self.prior_weights is None else self.prior_weights
            self._order = learned_scores(self.kt, weights)
            self._expg = learned_prior_table(self._order, p["tau"])
        else:
            self._order = self.gain
            self._expg = prior_table(self.gain, p["tau"])
        self._gmask = gain_masks(self.kt, self.gain)

    def choose(self, state: npt.NDArray[np.uint64]) -> int:
        """A legal placement for the side to move, or -1 when the game is over."""
        start = self.clock()
        legal = np.empty(self.kt.nplace, dtype=np.int32)
        n_root = int(k_legal_list(self.kt, state, legal))
        self.last_sims = 0
        if n_root == 0:
            self.last_value = 0.0
            return -1
        if n_root == 1:
            self.last_value = 0.5
            return int(legal[0])
        if n_root <= SOLVE_LIMIT:
            remaining = int(sum(int(state[H_SUPPLY + t]) for t in range(4)))
            budget = max(2000, 20 * self.budget.sims) if self.budget.sims else 200_000
            res, best = k_solve(self.kt, state, budget, min(remaining, 60))
            if res == 1:
                self.last_value = 1.0
                return int(best)
        noise = int(state[H_NPLACED]) < self.noise_plies
        if self.threads > 1:
            ti, tf = self._search_parallel(state, start)
            move, value = k_puct_pick(ti, tf, noise, self.rng)
            self.last_value = float(value)
            return int(move)
        tree = self.search(state, start)
        move, value = k_puct_pick(tree.ti, tree.tf, noise, self.rng)
        self.last_value = float(value)
        if self._reuse:
            self._prev = (tree, state.copy(), int(move))
        return int(move)

    def _search_parallel(self, state: npt.NDArray[np.uint64],
                         start: float) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]:
        """Root parallel: ``threads`` independent searches of the whole budget at once (the kernels release the
        GIL, so each gets a core), merged into one root whose children sum their visits and wins.

        Each helper searcher draws its random stream from this one's when first needed, so with a simulation
        budget the merged root, and the move, depend only on the seed, never on how the threads interleave.
        """
        while len(self._helpers) < self.threads - 1:
            self._helpers.append(PuctSearch(self.kt, self.gain, k_seed(int(k_rand(self.rng)) >> 1), self.budget,
                                            params={**self.params, "threads": 1.0}, noise_plies=self.noise_plies,
                                            clock=self.clock, prior_weights=self.prior_weights))
        searchers = [self, *self._helpers]
        with ThreadPoolExecutor(max_workers=len(searchers)) as pool:
            trees = list(pool.map(lambda sr: sr.search(state.copy(), start), searchers))
        ti, tf = merge_roots(trees)
        self.last_sims = int(ti[0, F_NVIS])
        return ti, tf

    def _reused(self, state: npt.NDArray[np.uint64], extra: int) -> PuctTree | None:
        """The subtree of the last search that starts at ``state`` (our move and one reply later), or None."""
        prev, self._prev = self._prev, None
        if prev is None:
            return None
        tree, before, mine = prev
        if int(state[H_NPLACED]) != int(before[H_NPLACED]) + 2:
            return None
        after = before.copy()
        k_apply(self.kt, after, mine)
        cov = slice(self.kt.off_cov, self.kt.off_cov + self.kt.ncw)
        if np.any(after[cov] & ~state[cov]):
            return None
        new = state[cov] & ~after[cov]
        cells = [w * 64 + b for w in range(self.kt.ncw) for b in range(64) if int(new[w]) >> b & 1]
        reply = placement_table(self.kt.size).index_of(cells) if len(cells) == 4 else None
        if reply is None:
            return None
        node = _child_with_move(tree.ti, 0, mine)
        node = _child_with_move(tree.ti, node, reply) if node >= 0 else -1
        if node < 0 or tree.ti[node, F_NVIS] == 0:
            return None
        out = PuctTree.with_capacity(tree.nnodes + extra + 2)
        out.nnodes = int(k_puct_compact(tree.ti, tree.tf, tree.tb, node, out.ti, out.tf, out.tb, out.tk))
        return out

    def search(self, state: npt.NDArray[np.uint64], start: float | None = None) -> PuctTree:
        """Run the budget from ``state`` and return the tree (node 0 is ``state``)."""
        if start is None:
            start = self.clock()
        b = self.budget
        timed = b.seconds > 0
        if self._position is not None:
            self._order, self._expg = self._position.tables(state)
        total = b.sims + self._banked(state) if b.sims else 0
        cap = total + 2 if (total and not timed) else 4096
        reused = self._reused(state, cap) if self._reuse else None
        if reused is not None:
            tree = reused
        else:
            tree = PuctTree.with_capacity(cap)
            tree.nnodes = int(k_puct_init(self.kt, self._order, self._expg, state, tree.ti, tree.tf, self.rng))
        # the noisy pick reads the whole visit spread, so a search ends early only after those plies; a search
        # bounded by time alone has no count of simulations left to compare the lead with
        noisy = int(state[H_NPLACED]) < self.noise_plies
        self._params[P_STOP] = 0.0 if noisy or not b.sims else self._stop
        self._params[P_LEFT] = 0.0
        before = tree.root_visits
        if not timed:
            tree.nnodes = self._run(state, tree, total)
        else:
            deadline = start + b.seconds
            chunk = MIN_CHUNK
            done = 0
            while tree.root_proof == UNPROVEN:
                todo = chunk if not total else min(chunk, total - done)
                if todo <= 0:
                    break
                tree.ensure(todo + 1)
                self._params[P_LEFT] = float(total - done - todo) if total else 0.0
                visits = tree.root_visits
                t0 = self.clock()
                tree.nnodes = self._run(state, tree, todo)
                now = self.clock()
                done += todo
                left = deadline - now
                if left <= 0 or tree.root_visits - visits < todo:  # out of time, or stopped early
                    break
                rate = todo / max(now - t0, 1e-6)
                chunk = int(max(MIN_CHUNK, min(rate * min(CHUNK_SECONDS, left), 4 * chunk, MAX_CHUNK)))
        if self._bank_cap:
            self._bank = min(self._bank_cap, max(0, self._bank + b.sims - (tree.root_visits - before)))
        self.last_sims = tree.root_visits
        return tree

    def _banked(self, state: npt.NDArray[np.uint64]) -> int:
        """The simulations earlier searches of this game left unused (``bank``); a new game starts with none."""
        if not self._bank_cap:
            return 0
        ply = int(state[H_NPLACED])
        if ply <= self._game_ply:
            self._bank = 0
        self._game_ply = ply
        return self._bank

    def _run(self, state: npt.NDArray[np.uint64], tree: PuctTree, sims: int) -> int:
        return int(k_puct_run(self.kt, self._order, self._expg, self._gmask, state, tree.ti, tree.tf, tree.tb,
                              tree.tk, tree.nnodes, sims, self._params, self.rng))

    def wants_swap(self, state: npt.NDArray[np.uint64], opening: int, searched: bool = False) -> bool:
        """Pie decision, as for ``mcts``: swap when the side to move expects to win less than half the time."""
        if not searched:
            self.choose(state)
        return self.last_value < 0.5


def merge_roots(trees: list[PuctTree]) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]:
    """One root whose children are the union of the trees' root children, visits and wins summed (a proof is
    exact, so any tree's proof of a move or of the root holds for all), in the layout ``k_puct_pick`` reads."""
    moves: dict[int, list[int]] = {}
    wins: dict[int, float] = {}
    root_proof = UNPROVEN
    for tree in trees:
        if int(tree.ti[0, F_PROOF]) != UNPROVEN:
            root_proof = int(tree.ti[0, F_PROOF])
        for c in children(tree.ti, 0):
            m = int(tree.ti[c, F_MOVE])
            entry = moves.setdefault(m, [0, UNPROVEN])
            entry[0] += int(tree.ti[c, F_NVIS])
            if int(tree.ti[c, F_PROOF]) != UNPROVEN:
                entry[1] = int(tree.ti[c, F_PROOF])
            wins[m] = wins.get(m, 0.0) + float(tree.tf[c, G_WINS])
    order = sorted(moves)
    ti = np.full((len(order) + 1, NI), -1, dtype=np.int32)
    tf = np.zeros((len(order) + 1, NF), dtype=np.float64)
    ti[0, F_FIRST] = 1 if order else -1
    ti[0, F_NVIS] = sum(int(t.ti[0, F_NVIS]) for t in trees)
    tf[0, G_WINS] = sum(float(t.tf[0, G_WINS]) for t in trees)
    ti[0, F_PROOF] = root_proof
    for i, m in enumerate(order, start=1):
        ti[i, F_MOVE] = m
        ti[i, F_NVIS], ti[i, F_PROOF] = moves[m]
        ti[i, F_SIB] = i + 1 if i < len(order) else -1
        tf[i, G_WINS] = wins[m]
    return ti, tf


def root_share(tree: PuctTree) -> float:
    """The share of the search's simulations won by the player who moved into the root (1 or 0 when proven)."""
    proof = tree.root_proof
    if proof != UNPROVEN:
        return 1.0 if proof == WIN else 0.0
    visits = tree.root_visits
    return float(tree.tf[0, G_WINS]) / visits if visits else 0.5


def children(ti: npt.NDArray[np.int32], node: int) -> Iterator[int]:
    """The created children of ``node``, newest first (its F_FIRST/F_SIB list), for code outside the kernels."""
    c = int(ti[node, F_FIRST])
    while c >= 0:
        yield c
        c = int(ti[c, F_SIB])


def _child_with_move(ti: npt.NDArray[np.int32], node: int, move: int) -> int:
    return next((c for c in children(ti, node) if int(ti[c, F_MOVE]) == move), -1)


def puct_search(text: str, kt: KTables, gain: npt.NDArray[np.int64], rng: npt.NDArray[np.uint64]) -> PuctSearch:
    """The searcher behind a ``puct`` spec or a level that stands for one, on the caller's random stream."""
    ps = parse_puct(resolve(text))
    return PuctSearch(kt, gain, rng, ps.budget, params=ps.params)


def puct_chooser(spec: AgentSpec, kt: KTables, gain: npt.NDArray[np.int64],
                 rng: npt.NDArray[np.uint64]) -> PuctSearch:
    """The move choice of a ``puct`` spec or a level (a row of the table in ``core.agents.spec``)."""
    return puct_search(spec.text, kt, gain, rng)


def warm_up_puct(kt: KTables, gain: npt.NDArray[np.int64], rng: npt.NDArray[np.uint64]) -> None:
    """Compile (or load) the kernels of this module on a small start position."""
    k_puct_warm_up(kt, gain, k_new_state(kt), rng)


def k_puct_warm_up(kt: KTables, gain: npt.NDArray[np.int64], root: npt.NDArray[np.uint64],
                   rng: npt.NDArray[np.uint64]) -> None:
    """Compile (or load) the kernels of this module on a small position."""
    for play in (0.0, 1.0):
        s = PuctSearch(kt, gain, rng, PuctBudget(sims=8), params={"play": play})
        s.choose(root)


__all__ = ["DEFAULT_PARAMS", "PuctBudget", "PuctSearch", "PuctTree", "kernel_params", "merge_roots", "parse_puct",
           "puct_search", "root_share"]
