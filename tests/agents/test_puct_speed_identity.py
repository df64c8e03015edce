"""The optimised ``puct`` kernels search exactly as the straightforward ones did (``puct_reference.py``): for the
same position, parameters and seed they build the same tree (every node's move, links, visits, wins, proof and
salt), leave the random stream in the same state and pick the same move.  That is what keeps every Elo figure
measured with the kernel of commit ad04615 (docs/agents.md) valid for the current one.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tests.agents.puct_reference as ref
from core.agents import puct
from core.agents.search import gain_for
from core.board.boardfile import load_board
from core.board.model import Board
from core.engine.kernels import KTables, k_apply, k_legal_list, k_new_state, k_seed, kernel_tables
from tests.paths import BOARDS

# the fields both layouts share, by meaning
SAME_INT = ("F_MOVE", "F_FIRST", "F_SIB", "F_NVIS", "F_NLEGAL", "F_NEXP", "F_SALT", "F_PROOF")
PARAM_SETS: list[dict[str, float]] = [
    {},
    {"play": 0.0},
    {"tau": 0.0},
    {"solver": 0.0, "eps": 0.0},
    {"c": 1.5, "fpu": 0.2, "eps": 1.0},
    {"tau": 2.0, "fpu": -0.1},
]


def params_of(over: dict[str, float]) -> np.ndarray:
    return puct.kernel_params(over)


def random_position(kt: KTables, seed: int, plies: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    s = k_new_state(kt)
    legal = np.empty(kt.nplace, dtype=np.int32)
    for _ in range(plies):
        n = k_legal_list(kt, s, legal)
        if n <= 1:
            break
        k_apply(kt, s, int(legal[int(rng.integers(n))]))
    return s


class Pair:
    """The reference and the optimised tree, grown side by side from one position and seed."""

    def __init__(self, kt: KTables, state: np.ndarray, over: dict[str, float], seed: int, cap: int) -> None:
        self.kt, self.state = kt, state
        self.gain = gain_for(kt)
        self.expg = puct.prior_table(self.gain, {**puct.DEFAULT_PARAMS, **over}["tau"])
        self.gmask = puct.gain_masks(kt, self.gain)
        self.params = params_of(over)
        self.ref_t = (np.full((cap, ref.NI), -7, dtype=np.int32), np.zeros((cap, ref.NF)), k_seed(seed))
        self.new_t = (np.full((cap, puct.NI), -7, dtype=np.int32), np.zeros((cap, puct.NF)), k_seed(seed))
        self.tb = np.full((cap, puct.NB), -7, dtype=np.int32)
        self.tk = np.full(puct.KIDS_PER_NODE * cap + 1, -7, dtype=np.int32)
        self.tk[0] = 1
        self.n_ref = ref.k_puct_init(kt, self.gain, self.expg, state, *self.ref_t)
        self.n_new = puct.k_puct_init(kt, self.gain, self.expg, state, *self.new_t)

    def run(self, sims: int) -> None:
        ti, tf, rng = self.ref_t
        self.n_ref = ref.k_puct_run(self.kt, self.gain, self.expg, self.gmask, self.state, ti, tf, self.n_ref, sims,
                                    self.params, rng)
        ti, tf, rng = self.new_t
        self.n_new = puct.k_puct_run(self.kt, self.gain, self.expg, self.gmask, self.state, ti, tf, self.tb, self.tk,
                                     self.n_new, sims, self.params, rng)

    def check(self) -> None:
        assert self.n_new == self.n_ref
        n = self.n_ref
        (ti_r, tf_r, rng_r), (ti_n, tf_n, rng_n) = self.ref_t, self.new_t
        for name in SAME_INT:
            assert np.array_equal(ti_n[:n, getattr(puct, name)], ti_r[:n, getattr(ref, name)]), name
        assert np.array_equal(tf_n[:n, puct.G_WINS], tf_r[:n, ref.G_WINS])
        visited = ti_n[:n, puct.F_NVIS] > 0
        assert np.array_equal(tf_n[:n, puct.G_MEAN][visited],
                              tf_r[:n, ref.G_WINS][visited] / ti_r[:n, ref.F_NVIS][visited])
        # a node scanned by the optimised search knows the same next move and prior normaliser
        scanned = ti_n[:n, puct.F_NEXT] != puct.UNSCANNED
        assert np.array_equal(ti_n[:n, puct.F_NEXT][scanned], ti_r[:n, ref.F_NEXT][scanned])
        assert np.array_equal(tf_n[:n, puct.G_ZSUM][scanned], tf_r[:n, ref.G_ZSUM][scanned])
        unscanned = ~scanned
        assert np.all(ti_n[:n, puct.F_NVIS][unscanned] <= 1), "a node is scanned on its first expansion"
        # each node's child list is its linked list, oldest first
        for node in range(0, n, max(1, n // 50)):
            k = int(ti_n[node, puct.F_NEXP])
            kids = list(self.tk[ti_n[node, puct.F_KIDS]:][:k]) if k else []
            assert kids[::-1] == _children(ti_n, node, puct.F_FIRST, puct.F_SIB)
        assert self.tk[0] <= len(self.tk)
        assert rng_n[0] == rng_r[0]
        for noise in (False, True):
            pick_r = ref.k_puct_pick(ti_r, tf_r, noise, rng_r.copy())
            pick_n = puct.k_puct_pick(ti_n, tf_n, noise, rng_n.copy())
            assert pick_n == pick_r


BOARD_FILES = ("default.yaml", "sparse.yaml", "clustered.yaml")


@pytest.mark.parametrize("board_file", BOARD_FILES)
def test_same_tree_and_move_as_the_reference(board_file: str) -> None:
    kt = kernel_tables(load_board(BOARDS / board_file))
    for case in range(12):
        plies = (0, 3, 6, 9, 12, 15)[case % 6]
        state = random_position(kt, 1000 + case, plies)
        pair = Pair(kt, state, PARAM_SETS[case % len(PARAM_SETS)], seed=case, cap=1500)
        # several calls on one tree, as a timed search makes them
        for sims in (1, 2, 40, 300, 1200):
            pair.run(sims)
            pair.check()


def test_same_tree_on_small_boards_where_the_solver_proves_much() -> None:
    for case in range(24):
        board = Board.random(size=(4, 6, 8)[case % 3], pairs=3 + case % 5, seed=case)
        kt = kernel_tables(board)
        state = random_position(kt, case, case % 4)
        pair = Pair(kt, state, PARAM_SETS[case % len(PARAM_SETS)], seed=50 + case, cap=3000)
        for sims in (5, 500, 2000):
            pair.run(sims)
            pair.check()


def test_same_tree_when_the_arrays_fill_up() -> None:
    kt = kernel_tables(load_board(BOARDS / "default.yaml"))
    pair = Pair(kt, random_position(kt, 7, 8), {}, seed=3, cap=200)
    pair.run(1000)
    pair.check()
    assert pair.n_new == 200


def test_same_tree_after_keeping_a_subtree() -> None:
    kt = kernel_tables(load_board(BOARDS / "default.yaml"))
    pair = Pair(kt, random_position(kt, 11, 6), {}, seed=5, cap=4000)
    pair.run(1500)
    pair.check()
    ti_r = pair.ref_t[0]
    child = int(ti_r[0, ref.F_FIRST])
    best = max(_children(ti_r, 0, ref.F_FIRST, ref.F_SIB), key=lambda c: int(ti_r[c, ref.F_NVIS]))
    assert child >= 0
    move = int(ti_r[best, ref.F_MOVE])
    sub = pair.state.copy()
    k_apply(kt, sub, move)
    ti, tf, rng = pair.ref_t
    ti2, tf2 = np.full_like(ti, -7), np.zeros_like(tf)
    pair.n_ref = ref.k_puct_compact(ti, tf, best, ti2, tf2)
    pair.ref_t = (ti2, tf2, rng)
    ti, tf, rng = pair.new_t
    ti2, tf2, tb2, tk2 = np.full_like(ti, -7), np.zeros_like(tf), np.full_like(pair.tb, -7), np.full_like(pair.tk, -7)
    pair.n_new = puct.k_puct_compact(ti, tf, pair.tb, best, ti2, tf2, tb2, tk2)
    pair.new_t, pair.tb, pair.tk = (ti2, tf2, rng), tb2, tk2
    pair.state = sub
    pair.check()
    pair.run(1500)
    pair.check()


def _children(ti: Any, node: int, first: int, sib: int) -> list[int]:
    out = []
    c = int(ti[node, first])
    while c >= 0:
        out.append(c)
        c = int(ti[c, sib])
    return out
