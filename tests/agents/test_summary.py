"""The summary features: the compiled kernel against the plain reference, the engine's legal set, symmetry, and
positions worked out by hand."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from random import Random

import numpy as np
import numpy.typing as npt
import pytest
from numba import njit

from core.agents.summary import (
    MAX_PLACEMENTS,
    NSUMMARY,
    SUMMARY_MAX,
    SUMMARY_NAMES,
    k_summary,
    summary_of,
    summary_tables,
)
from core.board.model import Board, GameParams, Symbol
from core.engine.kernels import playout_moves
from core.engine.pieces import PIECE_TYPES, placement_table
from core.engine.rules import GameState, Placement
from tests.agents import summary_reference as ref

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
F = {name: i for i, name in enumerate(SUMMARY_NAMES)}


@dataclass(frozen=True)
class Position:
    size: int
    sym: npt.NDArray[np.int8]
    ctype: npt.NDArray[np.int8]
    supply: npt.NDArray[np.int64]
    s1_to_move: bool
    legal: tuple[int, ...]
    """The engine's legal placement indices."""


def symbols(board: Board) -> npt.NDArray[np.int8]:
    first = board.params.first
    return np.array([1 if s is first else 2 if s is first.other else 0 for s in board.cells], dtype=np.int8)


@functools.cache
def game_positions(size: int, games: int, seed: int) -> tuple[Position, ...]:
    """Every position of ``games`` random compiled games on random anti-symmetric boards (varied density, supply and
    first player), with the engine's legal set."""
    rng = Random(seed)
    out = []
    for g in range(games):
        supply = (5, 5, 5, 5) if g % 3 == 0 else tuple(rng.randint(0, 5) for _ in range(4))
        if sum(supply) == 0:
            supply = (1, 0, 2, 0)
        params = GameParams(supply=supply, first=Symbol.O if g % 2 == 0 else Symbol.X)  # type: ignore[arg-type]
        board = Board.random(size, pairs=rng.randint(0, size * size // 2), seed=seed * 1000 + g, params=params)
        state = GameState(board)
        sym = symbols(board)
        ctype = np.zeros(size * size, dtype=np.int8)
        moves = playout_moves(board, seed=seed, game=g)
        for k in range(len(moves) + 1):
            left = np.array([state.supply_left(t) for t in PIECE_TYPES], dtype=np.int64)
            legal = tuple(int(i) for i in state.legal_placements().indices())
            out.append(Position(size, sym, ctype.copy(), left, state.to_move is board.params.first, legal))
            if k < len(moves):
                p = Placement.from_index(moves[k], size)
                state.push(p)
                for c in p.cells:
                    ctype[c] = PIECE_TYPES.index(p.ptype) + 1
    return tuple(out)


def kernel(pos: Position) -> list[int]:
    return [int(x) for x in summary_of(pos.size, pos.sym, pos.ctype, pos.supply, pos.s1_to_move)]


def reference(pos: Position) -> list[int]:
    return ref.summary(pos.size, pos.sym.tolist(), pos.ctype.tolist(), pos.supply.tolist(), pos.s1_to_move)


GAMES = {10: 40, 12: 30, 14: 20}


@pytest.mark.parametrize("size", [10, 12, 14])
def test_kernel_equals_reference_feature_for_feature(size: int) -> None:
    positions = game_positions(size, GAMES[size], seed=size)
    assert len(positions) > 300
    for i, pos in enumerate(positions):
        got, want = kernel(pos), reference(pos)
        if got != want:
            diff = {name: (g, w) for name, g, w in zip(SUMMARY_NAMES, got, want, strict=True) if g != w}
            pytest.fail(f"position {i} on {size}x{size}: kernel vs reference {diff}")


@pytest.mark.parametrize("size", [10, 14])
def test_first_placements_equal_the_reference(size: int) -> None:
    """Openings are where the kernel visits only the placements near the one piece."""
    board = Board.random(size, pairs=size * 2, seed=5)
    sym = symbols(board)
    tb = placement_table(size)
    for p in range(0, tb.count, 37):
        ctype = np.zeros(size * size, dtype=np.int8)
        ctype[tb.cells[p]] = tb.ptype[p] + 1
        supply = np.array([5, 5, 5, 5], dtype=np.int64)
        supply[tb.ptype[p]] -= 1
        pos = Position(size, sym, ctype, supply, False, ())
        assert kernel(pos) == reference(pos), p


@pytest.mark.parametrize("size", [10, 12, 14])
def test_legal_is_the_engines_legal_set(size: int) -> None:
    positions = game_positions(size, GAMES[size], seed=size)
    for pos in positions[::8]:
        assert tuple(ref.legal_placements(size, pos.ctype.tolist(), pos.supply.tolist())) == pos.legal
    for pos in positions:
        assert kernel(pos)[F["n_legal"]] == len(pos.legal)


@pytest.mark.parametrize("size", [10, 12, 14])
def test_summary_max_bounds_every_position(size: int) -> None:
    for pos in game_positions(size, GAMES[size], seed=size):
        feats = kernel(pos)
        assert all(abs(f) <= m for f, m in zip(feats, SUMMARY_MAX, strict=True)), feats


def test_summary_max_derivation() -> None:
    assert len(SUMMARY_MAX) == len(SUMMARY_NAMES) == NSUMMARY == 20
    counts = [placement_table(n).count for n in (10, 12, 14)]
    assert max(counts) == counts[-1] == MAX_PLACEMENTS
    assert max(len(placement_table(14).covering[c]) for c in range(14 * 14)) == 72  # the packed count's 8 bits hold it


def transforms(grid: npt.NDArray[np.int8]) -> list[npt.NDArray[np.int8]]:
    out = []
    for flip in (False, True):
        g = grid.T if flip else grid
        for k in range(4):
            out.append(np.ascontiguousarray(np.rot90(g, k)).reshape(-1))
    return out


@pytest.mark.parametrize("size", [10, 12, 14])
def test_invariant_under_the_eight_symmetries(size: int) -> None:
    for pos in game_positions(size, GAMES[size], seed=size)[::7]:
        want = kernel(pos)
        syms = transforms(pos.sym.reshape(size, size))
        ctypes = transforms(pos.ctype.reshape(size, size))
        for s, c in zip(syms, ctypes, strict=True):
            assert [int(x) for x in summary_of(size, s, c, pos.supply, pos.s1_to_move)] == want


def test_scratch_on_entry_does_not_matter_and_holds_the_counts_after() -> None:
    pos = game_positions(12, GAMES[12], seed=12)[3]
    tables = summary_tables(12)
    first = np.zeros(NSUMMARY, dtype=np.int64)
    count = np.zeros(144, dtype=np.int64)
    k_summary(*tables, 12, pos.sym, pos.ctype, pos.supply, pos.s1_to_move, count, first)
    again = np.zeros(NSUMMARY, dtype=np.int64)
    garbage = np.random.default_rng(0).integers(-(1 << 62), 1 << 62, size=144, dtype=np.int64)
    k_summary(*tables, 12, pos.sym, pos.ctype, pos.supply, pos.s1_to_move, garbage, again)
    assert first.tolist() == again.tolist()
    opened = ref.open_placements(12, pos.ctype.tolist(), pos.supply.tolist())
    assert garbage.tolist() == count.tolist() == ref.cell_counts(12, opened)


@njit(cache=False, nogil=True)
def _sum_inside_a_kernel(place: I64, fstart: I64, full: I64, size: int, sym: I8, ctype: I8, supply: I64, count: I64,
                         out: I64) -> int:
    total = 0
    for s1 in (True, False):
        k_summary(place, fstart, full, size, sym, ctype, supply, s1, count, out)
        total += out[17]
    return int(total)


def test_callable_from_another_kernel() -> None:
    pos = game_positions(10, GAMES[10], seed=10)[5]
    out = np.zeros(NSUMMARY, dtype=np.int64)
    count = np.zeros(100, dtype=np.int64)
    assert _sum_inside_a_kernel(*summary_tables(10), 10, pos.sym, pos.ctype, pos.supply, count, out) == 1
    assert out.tolist()[:17] == kernel(pos)[:17]


# ------------------------------------------------------------------------------------- by hand


def empty(size: int) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    return np.zeros(size * size, dtype=np.int8), np.zeros(size * size, dtype=np.int8)


def test_empty_board_every_placement_is_open_and_legal() -> None:
    sym, ctype = empty(10)
    # 10x10: L 8 orientations x 8x9 spots, I 2 x 7x10, T 4 x 8x9, S 4 x 8x9
    total = 8 * 72 + 2 * 70 + 4 * 72 + 4 * 72
    feats = summary_of(10, sym, ctype, [5, 5, 5, 5], True)
    assert feats.tolist() == [0, 0, 0, total, 0, 0, 0, 0, 0, 0, 0, total, 0, 0, 0, 20, 4, 1, 10, 0]


def test_one_symbol_in_the_middle_of_an_empty_board() -> None:
    sym, ctype = empty(10)
    sym[4 * 10 + 4] = 1
    feats = summary_of(10, sym, ctype, [5, 5, 5, 5], False)
    # all 18 fixed orientations x 4 cells of each fit around (4, 4): 72 placements cover it, each with gain 1
    assert feats[F["expo1"]] == 8 and feats[F["few1"]] == 0 and feats[F["safe1"]] == 0
    assert (feats[F["gain_max"]], feats[F["gain_min"]], feats[F["gain_sum"]]) == (1, 0, 72)
    assert (feats[F["score_diff"]], feats[F["s1_to_move"]]) == (1, 0)


def test_a_symbol_walled_in_is_safe() -> None:
    sym, ctype = empty(10)
    sym[0] = 1  # a1 corner: every tetromino on it also covers b1 or a2
    sym[99] = 2
    ctype[[1, 2, 3, 11]] = 1  # an L on (0,1) (0,2) (0,3) (1,1)
    ctype[[10, 20, 30, 40]] = 2  # an I on (1,0) .. (4,0)
    supply = np.array([4, 4, 5, 5], dtype=np.int64)
    feats = summary_of(10, sym, ctype, supply, True)
    assert feats[F["safe1"]] == 1 and feats[F["expo1"]] == 0 and feats[F["s1_unc"]] == 1
    assert feats[F["safe2"]] == 0 and feats[F["expo2"]] > 0 and feats[F["dead"]] >= 1
    assert (feats[F["supply_left"]], feats[F["types_left"]], feats[F["parity"]]) == (18, 4, 0)
    assert feats.tolist() == ref.summary(10, sym.tolist(), ctype.tolist(), supply.tolist(), True)


def test_a_type_out_of_supply_opens_nothing() -> None:
    sym, ctype = empty(10)
    feats = summary_of(10, sym, ctype, [0, 5, 5, 5], True)
    assert feats[F["n_open"]] == feats[F["n_legal"]] == 2 * 70 + 4 * 72 + 4 * 72  # I, T and S only
    assert (feats[F["supply_left"]], feats[F["types_left"]], feats[F["parity"]]) == (15, 3, 1)
    none = summary_of(10, sym, ctype, [0, 0, 0, 0], True)
    assert none[F["n_open"]] == none[F["n_legal"]] == 0 and none[F["dead"]] == 100
    assert (none[F["gain_max"]], none[F["gain_min"]], none[F["gain_sum"]]) == (0, 0, 0)


def test_bad_input_is_named() -> None:
    sym, ctype = empty(10)
    with pytest.raises(ValueError, match="100 symbols"):
        summary_of(10, sym[:50], ctype, [5, 5, 5, 5], True)
    with pytest.raises(ValueError, match="4 counts"):
        summary_of(10, sym, ctype, [5, 5, 5], True)
    ctype[23] = 5
    with pytest.raises(ValueError, match=r"cell 23 \(row 3, column 4\) has cover type 5; a cover type is 0..4"):
        summary_of(10, sym, ctype, [5, 5, 5, 5], True)
