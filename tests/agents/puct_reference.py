"""The ``puct`` kernels of commit ad04615 (before the kernels' speed work), kept as the slow reference that
``test_puct_speed_identity.py`` compares the optimised kernels with: same seed, same tree, same move.

Do not optimise this file: its worth is that it is the straightforward version (one legal-list scan per
expansion for the next move and one for the new node, priors looked up per child, the playout scanning every
word of every gain class).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from core.engine.kernels import (
    H_TO_MOVE,
    KTables,
    k_apply,
    k_copy_state,
    k_legal_list,
    k_rand,
    k_rand_below,
    k_random_playout,
    k_winner,
    popcount64,
)

# integer node fields (columns of PuctTree.ti)
F_MOVE = 0  # placement that led here (-1 at the root)
F_FIRST = 1  # first created child (-1: none)
F_SIB = 2  # next sibling
F_NVIS = 3  # visits
F_NLEGAL = 4  # legal placements here
F_NEXP = 5  # children created so far
F_NEXT = 6  # the next placement to create, in prior order (-1: all created)
F_SALT = 7  # per-node random order among equal gains
F_PROOF = 8  # +1 the player who moved here wins with best play, -1 loses, 0 unknown
NI = 9
# float node fields (columns of PuctTree.tf)
G_WINS = 0  # wins of the player who moved here
G_ZSUM = 1  # sum of exp(gain / tau) over the legal placements (prior normaliser)
NF = 2

# search parameters (entries of the params array the kernel reads)
P_C = 0  # PUCT exploration constant
P_TAU = 1  # prior temperature on the gain; <= 0 means flat priors
P_FPU = 2  # first-play urgency: an unexplored move's value = the node's value minus this
P_PLAYOUT = 3  # 0 random, 1 epsilon-greedy
P_EPS = 4  # random-move share of epsilon-greedy playouts
P_SOLVER = 5  # 1: back up proven wins and losses
NPARAMS = 6


UNPROVEN = 0
WIN = 1
LOSS = -1


@njit(cache=True, inline="always")
def _key(gain: Any, sym: int, p: int, salt: int) -> int:
    """Prior order of placement p: its gain first, then a per-node pseudo-random order (distinct per p)."""
    h = ((p * 2654435761) ^ salt) & 0xFFFFFFFF
    return (int(gain[sym, p]) + 16) * 4294967296 + h


@njit(cache=True, nogil=True)
def _scan_next(kt: KTables, s: Any, gain: Any, legal: Any, salt: int, below: int) -> int:
    """The legal placement with the largest key under ``below`` (-1: none): the next move to create."""
    n = k_legal_list(kt, s, legal)
    sym = int(s[H_TO_MOVE])
    best = -1
    best_key = -1
    for i in range(n):
        p = int(legal[i])
        k = _key(gain, sym, p, salt)
        if k < below and k > best_key:
            best_key = k
            best = p
    return best


@njit(cache=True, nogil=True)
def _init_node(kt: KTables, s: Any, gain: Any, expg: Any, legal: Any, ti: Any, tf: Any, node: int, move: int,
               rng: Any) -> None:
    """Fill a fresh node for position ``s`` (reached by ``move``): legal count, prior normaliser, first move."""
    n = k_legal_list(kt, s, legal)
    sym = int(s[H_TO_MOVE])
    ti[node, F_MOVE] = move
    ti[node, F_FIRST] = -1
    ti[node, F_SIB] = -1
    ti[node, F_NVIS] = 0
    ti[node, F_NLEGAL] = n
    ti[node, F_NEXP] = 0
    salt = int(k_rand(rng) >> np.uint64(33))
    ti[node, F_SALT] = salt
    tf[node, G_WINS] = 0.0
    if n == 0:
        ti[node, F_NEXT] = -1
        tf[node, G_ZSUM] = 1.0
        # the game is over: the player who moved here wins or loses for certain
        ti[node, F_PROOF] = WIN if k_winner(kt, s) != sym else LOSS
        return
    ti[node, F_PROOF] = UNPROVEN
    z = 0.0
    best = -1
    best_key = -1
    for i in range(n):
        p = int(legal[i])
        z += expg[sym, p]
        k = _key(gain, sym, p, salt)
        if k > best_key:
            best_key = k
            best = p
    tf[node, G_ZSUM] = z
    ti[node, F_NEXT] = best


@njit(cache=True, nogil=True)
def k_fast_greedy_playout(kt: KTables, s: Any, gmask: Any, eps: float, rng: Any) -> int:
    """Epsilon-greedy placements to the end of the game; returns how many were made.

    ``gmask[sym, g]`` is the placement bitset of gain ``MAX_GAIN - g`` for ``sym``, so the best legal gain is
    the first class that meets the legal set: no legal list is built, as in the random playout.
    """
    off_leg = kt.off_legal
    npw = kt.npw
    ngain = gmask.shape[1]
    n = 0
    while True:
        sym = int(s[H_TO_MOVE])
        total = 0
        g_pick = -1
        if eps > 0.0 and (k_rand(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0) < eps:
            for w in range(npw):
                total += popcount64(s[off_leg + w])
        else:
            for g in range(ngain):
                for w in range(npw):
                    total += popcount64(s[off_leg + w] & gmask[sym, g, w])
                if total > 0:
                    g_pick = g
                    break
        if total == 0:
            return n
        r = k_rand_below(rng, int(total))
        p = -1
        for w in range(npw):
            x = s[off_leg + w]
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
    legal = np.empty(kt.nplace, dtype=np.int32)
    _init_node(kt, root, gain, expg, legal, ti, tf, 0, -1, rng)
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
def k_puct_run(kt: KTables, gain: Any, expg: Any, gmask: Any, root: Any, ti: Any, tf: Any, nnodes: int, sims: int,
               params: Any, rng: Any) -> int:
    """Add up to ``sims`` simulations to the tree at node 0 (position ``root``); returns the node count.

    Stops early when the root is proven or the arrays are full.
    """
    cap = ti.shape[0]
    legal = np.empty(kt.nplace, dtype=np.int32)
    path = np.empty(kt.nplace + 2, dtype=np.int32)
    s = np.empty_like(root)
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
        node = 0
        depth = 0
        path[0] = 0
        while ti[node, F_PROOF] == UNPROVEN and ti[node, F_NLEGAL] > 0:
            nv = ti[node, F_NVIS]
            sqrt_n = math.sqrt(nv + 1.0)
            zsum = tf[node, G_ZSUM]
            sym = int(s[H_TO_MOVE])
            # the chooser's average so far (the node's value is stored for the player who moved into it)
            parent_q = 1.0 - tf[node, G_WINS] / nv if nv > 0 else 0.5
            best = -1
            best_u = -1e300
            c = ti[node, F_FIRST]
            while c >= 0:
                pr = ti[c, F_PROOF]
                if pr == WIN and solver:  # a proven win for the chooser
                    best = c
                    break
                if pr != LOSS or not solver:
                    n = ti[c, F_NVIS]
                    prior = expg[sym, ti[c, F_MOVE]] / zsum if tau > 0.0 else 1.0 / ti[node, F_NLEGAL]
                    u = tf[c, G_WINS] / n + c_puct * prior * sqrt_n / (1.0 + n)
                    if u > best_u:
                        best_u = u
                        best = c
                c = ti[c, F_SIB]
            nxt = ti[node, F_NEXT]
            if nxt >= 0 and (best < 0 or ti[best, F_PROOF] != WIN):
                prior = expg[sym, nxt] / zsum if tau > 0.0 else 1.0 / ti[node, F_NLEGAL]
                u = parent_q - fpu + c_puct * prior * sqrt_n
                if best < 0 or u > best_u:
                    # create the next child in prior order
                    if nnodes >= cap:
                        break
                    child = nnodes
                    nnodes += 1
                    ti[node, F_NEXT] = _scan_next(kt, s, gain, legal, ti[node, F_SALT],
                                                  _key(gain, sym, nxt, ti[node, F_SALT]))
                    ti[node, F_NEXP] += 1
                    k_apply(kt, s, nxt)
                    _init_node(kt, s, gain, expg, legal, ti, tf, child, nxt, rng)
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
                k_fast_greedy_playout(kt, s, gmask, eps, rng)
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
def k_puct_compact(ti: Any, tf: Any, src: int, ti2: Any, tf2: Any) -> int:
    """Copy the subtree under node ``src`` into ``ti2``/``tf2`` with ``src`` as node 0; returns its size."""
    old_of = np.empty(ti.shape[0], dtype=np.int32)
    old_of[0] = src
    for f in range(NI):
        ti2[0, f] = ti[src, f]
    for f in range(NF):
        tf2[0, f] = tf[src, f]
    ti2[0, F_SIB] = -1
    count = 1
    head = 0
    while head < count:
        old = old_of[head]
        prev = -1
        ti2[head, F_FIRST] = -1
        c = ti[old, F_FIRST]
        while c >= 0:
            nid = count
            count += 1
            old_of[nid] = c
            for f in range(NI):
                ti2[nid, f] = ti[c, f]
            for f in range(NF):
                tf2[nid, f] = tf[c, f]
            ti2[nid, F_SIB] = -1
            if prev < 0:
                ti2[head, F_FIRST] = nid
            else:
                ti2[prev, F_SIB] = nid
            prev = nid
            c = ti[c, F_SIB]
        head += 1
    return count
