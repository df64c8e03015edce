"""Compiled game kernels (numba) over the placement tables of ``core.engine.pieces``.

The Python :class:`core.engine.rules.GameState` applies placements through :func:`k_apply`
too, so the compiled playouts and the interactive game follow one implementation
of the incremental rules.  Compile results are cached on disk (``cache=True``).

Low-level API (for agents written in numba, e.g. ``core/agents/search.py``)
-------------------------------------------------------------------
``kt = kernel_tables(board)`` returns a :class:`KTables` named tuple (pass it to
every ``k_*`` function; it is hashable by numba as a tuple of arrays and ints).
Placement ``i`` is the ``i``-th row of ``core.engine.pieces.placement_table(size)``.

A game state is ONE flat ``uint64`` array of length ``kt.state_len``:

=======================  =========================================================
``s[H_NPLACED]``         placements made so far
``s[H_TO_MOVE]``         symbol to move: 0 = O, 1 = X
``s[H_LAST]``            symbol that made the last placement: 0 = O, 1 = X, 2 = none
``s[H_SUPPLY + t]``      pieces of type t (L, I, T, S order) still in the supply
``s[kt.off_cov:...]``    ``kt.ncw`` words: covered cells (bit = cell index)
``s[kt.off_rows:...]``   ``kt.size`` words: covered cells row by row (bit = column)
``s[kt.off_legal:...]``  ``kt.npw`` words: the legal placements now, i.e. those
                         sharing an edge with a placed piece (before the first
                         placement: every placement) and not blocked.
``s[kt.off_blk:...]``    ``kt.npw`` words: placements ruled out for good (overlap,
                         same type sharing an edge, 2x2, type out of supply); only grows
=======================  =========================================================

Legal = the words at ``off_legal`` (``touching & ~blocked`` over the two ranges gives the
same, as in the first layout).  Copy a state with ``dst[:] = src`` (or ``k_copy_state``).

Invariants after ``k_apply(p)``: blocked |= static block set of p (``dblk``) and,
per 2x2 window of p whose other cells earlier pieces partly covered, the placements
covering all its still-open cells (``dsub``); legal = (legal | placements touching p
(``dtch``)) & ~blocked.  Nothing else changes, so a state never needs to be recomputed.

Functions (all ``@njit``; ``kt`` first; the per-move ones are ``inline="always"`` so that
calling them from other njit code costs no call with the large ``kt`` tuple):

* ``k_new_state(kt) -> uint64[state_len]``: the start position.
* ``k_copy_state(src, dst)``: copy without allocating.
* ``k_legal_count(kt, s) -> int``; ``k_legal_list(kt, s, out) -> int``: writes legal
  placement indices ascending into ``out`` (int32/int64, length >= kt.nplace), returns how many.
* ``k_is_legal(kt, s, p) -> bool`` (False for an index outside 0..nplace-1).
* ``k_apply(kt, s, p)``: place placement ``p`` (must be legal; not re-checked).
* ``k_score(kt, s) -> (o, x)``: uncovered O and X symbols.
* ``k_winner(kt, s) -> int``: 0 = O, 1 = X for a finished game (higher score wins,
  a tie goes to the last placer, i.e. the side NOT to move).
* ``k_random_playout(kt, s, rng, moves) -> int``: play uniformly random legal
  placements until none is left, writing them into ``moves`` (length >= 64 suffices
  for supply <= 16 per type; use ``kt.nplace`` to be safe); returns how many.
* ``rng`` is a ``uint64[1]`` xorshift64* state: ``k_seed(seed) -> uint64[1]``,
  ``k_rand(rng) -> uint64``, ``k_rand_below(rng, n) -> int`` (uniform in 0..n-1).

Python wrappers: :func:`random_playouts`, :func:`playout_from` and :func:`playout_moves`.

Numba's disk cache does not notice when a function in ANOTHER file that a cached
function inlined has changed: after editing this module, delete the cache folder
(``.numba_cache`` in test runs) before timing or testing code in other modules.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple, Protocol

import numpy as np
import numpy.typing as npt
from numba import njit

from core.board.model import PIECE_TYPES, Board, Symbol
from core.engine.pieces import PlacementTable, placement_table

H_NPLACED = 0
H_TO_MOVE = 1
H_LAST = 2
H_SUPPLY = 3
HEADER = 8
NO_SYMBOL = 2

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


class KTables(NamedTuple):
    """Everything the kernels read: the size's placement tables plus this board's symbols and supply.

    The ``u*`` arrays are the incremental rule tables of ``core.engine.pieces`` repacked with
    unsigned indices (numba then skips negative-index handling in the hot loops).
    """

    size: int
    nplace: int
    """Number of placements (rows of the table)."""
    ncw: int
    """uint64 words in a cell bitset."""
    npw: int
    """uint64 words in a placement bitset."""
    off_cov: int
    off_rows: int
    off_legal: int
    off_blk: int
    state_len: int
    ptype: npt.NDArray[np.int8]
    """Type index (L, I, T, S) per placement."""
    cells: npt.NDArray[np.int16]
    """[nplace, 4] cells of each placement, ascending."""
    cell_words: U64
    """[nplace, ncw] each placement's cells as a cell bitset."""
    tmask: U64
    """[4, npw] placements of each type."""
    valid: U64
    """[npw] every placement."""
    sym_o: U64
    """ncw words: cells holding O."""
    sym_x: U64
    supply: I64
    """Starting supply per type."""
    first: int
    """Symbol that places first: 0 = O, 1 = X."""
    dblk: U64
    """[nplace, npw] each placement's static block set: overlap, same type sharing an edge, 2x2 with it alone."""
    dtch: U64
    """[nplace, npw] the placements sharing an edge with each placement (none overlapping it)."""
    uprc: U64
    """[nplace * 4] row << 8 | col of each cell of each placement."""
    upwin: U64
    """[nplace * 16] per 2x2 window of a placement: row | col << 8 | open-cell mask << 16 | 16 * window << 20."""
    pwin_n: npt.NDArray[np.int16]
    """Windows per placement (entries used in upwin)."""
    dsub: U64
    """[nwin * 16, npw] row 16 * window + mask: placements covering every window cell in mask and no other cell of
    the window (row 16 * window is empty)."""


def _cell_words(mask: int, ncw: int) -> U64:
    return np.frombuffer(mask.to_bytes(ncw * 8, "little"), dtype=np.uint64).copy()


def _pack_windows(tb: PlacementTable) -> U64:
    win = tb.pwin.astype(np.int64)
    first = tb.win_cells[np.maximum(win, 0), 0].astype(np.int64)
    row, col = first // tb.size, first % tb.size
    pack = row | (col << 8) | (tb.pwin_rest.astype(np.int64) << 16) | ((win * 16) << 20)
    return np.where(win >= 0, pack, 0).astype(np.uint64).ravel()


def _pack_cells(tb: PlacementTable) -> U64:
    cells = tb.cells.astype(np.int64)
    return (((cells // tb.size) << 8) | (cells % tb.size)).astype(np.uint64).ravel()


@functools.lru_cache(maxsize=64)
def _kernel_tables_cached(size: int, rows: tuple[str, ...], supply: tuple[int, ...], first: int) -> KTables:
    tb = placement_table(size)
    board = Board.from_rows(list(rows))
    off_cov = HEADER
    off_rows = off_cov + tb.ncw
    off_legal = off_rows + size
    off_blk = off_legal + tb.npw
    return KTables(
        size=size, nplace=tb.count, ncw=tb.ncw, npw=tb.npw, off_cov=off_cov, off_rows=off_rows,
        off_legal=off_legal, off_blk=off_blk, state_len=off_blk + tb.npw,
        ptype=tb.ptype, cells=tb.cells, cell_words=tb.cell_words, tmask=tb.tmask, valid=tb.valid,
        sym_o=_cell_words(board.symbol_mask(Symbol.O), tb.ncw), sym_x=_cell_words(board.symbol_mask(Symbol.X), tb.ncw),
        supply=np.array(supply, dtype=np.int64), first=first,
        dblk=tb.blk, dtch=tb.tch, uprc=_pack_cells(tb), upwin=_pack_windows(tb), pwin_n=tb.pwin_n,
        dsub=tb.sub,
    )


def kernel_tables(board: Board) -> KTables:
    """Kernel tables for a board (cached by its grid, supply and first player)."""
    first = 0 if board.params.first is Symbol.O else 1
    return _kernel_tables_cached(board.size, tuple(board.rows()), tuple(board.params.supply), first)


# ---------------------------------------------------------------------------------- primitives


@njit(cache=True, inline="always")
def popcount64(x: Any) -> Any:
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@njit(cache=True)
def k_seed(seed: int) -> U64:
    """A fresh RNG state from any integer seed (splitmix64 so nearby seeds diverge)."""
    z = np.uint64(seed & 0xFFFFFFFFFFFFFFFF) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    if z == 0:
        z = np.uint64(0x2545F4914F6CDD1D)
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = z
    return rng


@njit(cache=True, inline="always")
def k_rand(rng: U64) -> Any:
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True, inline="always")
def k_rand_below(rng: U64, n: int) -> int:
    """Uniform in 0..n-1 (n < 2**32) by multiply-shift of the top 32 bits."""
    r = k_rand(rng) >> np.uint64(32)
    return int((r * np.uint64(n)) >> np.uint64(32))


# ---------------------------------------------------------------------------------- state


@njit(cache=True)
def k_new_state(kt: KTables) -> U64:
    s = np.zeros(kt.state_len, dtype=np.uint64)
    s[H_NPLACED] = 0
    s[H_TO_MOVE] = kt.first
    s[H_LAST] = NO_SYMBOL
    for t in range(4):
        s[H_SUPPLY + t] = kt.supply[t]
    for w in range(kt.npw):
        s[kt.off_legal + w] = kt.valid[w]
    for t in range(4):
        if kt.supply[t] == 0:
            for w in range(kt.npw):
                s[kt.off_blk + w] |= kt.tmask[t, w]
                s[kt.off_legal + w] &= ~kt.tmask[t, w]
    return s


@njit(cache=True, inline="always")
def k_copy_state(src: U64, dst: U64) -> None:
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True, inline="always")
def k_is_legal(kt: KTables, s: U64, p: int) -> bool:
    if p < 0 or p >= kt.nplace:  # an index from outside (a file, a task) must not read past the legal words
        return False
    w = p >> 6
    bit = np.uint64(1) << np.uint64(p & 63)
    return bool((s[kt.off_legal + w] & bit) != 0)


@njit(cache=True, inline="always")
def k_legal_count(kt: KTables, s: U64) -> int:
    total = 0
    for w in range(kt.npw):
        total += popcount64(s[kt.off_legal + w])
    return int(total)


@njit(cache=True, inline="always")
def k_legal_list(kt: KTables, s: U64, out: Any) -> int:
    k = 0
    for w in range(kt.npw):
        x = s[kt.off_legal + w]
        while x != 0:
            low = x & (~x + np.uint64(1))
            out[k] = w * 64 + int(popcount64(low - np.uint64(1)))
            k += 1
            x ^= low
    return k


@njit(cache=True, inline="always")
def _window_row(kt: KTables, s: U64, pk: Any) -> Any:
    """The ``dsub`` row to block for one of p's windows (``upwin`` entry ``pk``, p's cells already in the rows): the
    placements covering its cells still open when earlier pieces covered some of the others; 0 (an empty row) when
    they covered none, as then p alone decides and its static block set has them."""
    three = np.uint64(3)
    r = np.uint64(kt.off_rows) + (pk & np.uint64(255))
    shift = (pk >> np.uint64(8)) & np.uint64(255)
    pre = ((s[r] >> shift) & three) | (((s[r + np.uint64(1)] >> shift) & three) << np.uint64(2))
    rest = (pk >> np.uint64(16)) & np.uint64(15)
    pre &= rest
    if pre == np.uint64(0):
        return np.uint64(0)
    return (pk >> np.uint64(20)) + (rest & ~pre)


@njit(cache=True, inline="always")
def k_apply(kt: KTables, s: U64, p: int) -> None:
    """Place ``p``: the blocked and legal words change in one pass over whole rows (see the module docstring).

    The 2x2 windows whose other cells earlier pieces partly covered are found first, and up to four of their rows
    are ORed in the same pass as p's own block set (a fifth or later, in 4% of placements, goes after it): whole
    rows of independent words run as vector instructions, where walking lists of nonzero words did not.
    """
    one = np.uint64(1)
    off_leg = kt.off_legal
    off_blk = kt.off_blk
    off_rows = np.uint64(kt.off_rows)
    npw = kt.npw
    up = np.uint64(p)
    for w in range(kt.ncw):
        s[kt.off_cov + w] |= kt.cell_words[p, w]
    if s[H_NPLACED] == 0:
        for w in range(npw):
            s[off_leg + w] = 0
    for q in range(4):
        rc = kt.uprc[up * np.uint64(4) + np.uint64(q)]
        s[off_rows + (rc >> np.uint64(8))] |= one << (rc & np.uint64(255))
    base = up * np.uint64(16)
    e0 = np.uint64(0)
    e1 = np.uint64(0)
    e2 = np.uint64(0)
    e3 = np.uint64(0)
    hits = 0
    for j in range(kt.pwin_n[p]):
        e = _window_row(kt, s, kt.upwin[base + np.uint64(j)])
        if e != np.uint64(0):
            if hits == 0:
                e0 = e
            elif hits == 1:
                e1 = e
            elif hits == 2:
                e2 = e
            elif hits == 3:
                e3 = e
            hits += 1
    # static: overlap, same type sharing an edge, 2x2 windows p alone leaves one way to fill; and the
    # placements p touches become reachable
    for w in range(npw):
        b = s[off_blk + w] | kt.dblk[p, w] | kt.dsub[e0, w] | kt.dsub[e1, w] | kt.dsub[e2, w] | kt.dsub[e3, w]
        s[off_blk + w] = b
        s[off_leg + w] = (s[off_leg + w] | kt.dtch[p, w]) & ~b
    if hits > 4:
        seen = 0
        for j in range(kt.pwin_n[p]):
            e = _window_row(kt, s, kt.upwin[base + np.uint64(j)])
            if e != np.uint64(0):
                seen += 1
                if seen > 4:
                    for w in range(npw):
                        s[off_blk + w] |= kt.dsub[e, w]
                        s[off_leg + w] &= ~kt.dsub[e, w]
    t = kt.ptype[p]
    s[H_SUPPLY + t] -= 1
    if s[H_SUPPLY + t] == 0:
        for w in range(npw):
            s[off_blk + w] |= kt.tmask[t, w]
            s[off_leg + w] &= ~kt.tmask[t, w]
    s[H_NPLACED] += 1
    s[H_LAST] = s[H_TO_MOVE]
    s[H_TO_MOVE] = one - s[H_TO_MOVE]


@njit(cache=True, inline="always")
def k_score(kt: KTables, s: U64) -> tuple[int, int]:
    o = 0
    x = 0
    for w in range(kt.ncw):
        free = ~s[kt.off_cov + w]
        o += popcount64(kt.sym_o[w] & free)
        x += popcount64(kt.sym_x[w] & free)
    return int(o), int(x)


@njit(cache=True, inline="always")
def k_winner(kt: KTables, s: U64) -> int:
    o, x = k_score(kt, s)
    if o > x:
        return 0
    if x > o:
        return 1
    return int(np.uint64(1) - s[H_TO_MOVE])


@njit(cache=True, inline="always")
def k_random_playout(kt: KTables, s: U64, rng: U64, moves: Any) -> int:
    n = 0
    off_leg = kt.off_legal
    npw = kt.npw
    while True:
        total = 0
        for w in range(npw):
            total += popcount64(s[off_leg + w])
        if total == 0:
            return n
        r = k_rand_below(rng, int(total))
        p = -1
        for w in range(npw):
            x = s[off_leg + w]
            c = int(popcount64(x))
            if r < c:
                for _ in range(r):
                    x &= x - np.uint64(1)
                low = x & (~x + np.uint64(1))
                p = w * 64 + int(popcount64(low - np.uint64(1)))
                break
            r -= c
        k_apply(kt, s, p)
        moves[n] = p
        n += 1


@njit(cache=True)
def _game_rng(seed: int, game: int) -> U64:
    """The RNG of game ``game`` in a batch seeded with ``seed`` (wrapping int64 arithmetic)."""
    return k_seed(seed * 1000003 + game)


@njit(cache=True, nogil=True)
def _many_playouts(kt: KTables, start: U64, n_games: int, seed: int, out: I64) -> None:
    """out[g] = (length, score_o, score_x, winner, last_mover) for game g."""
    s = np.empty_like(start)
    moves = np.empty(kt.nplace, dtype=np.int32)
    for g in range(n_games):
        k_copy_state(start, s)
        rng = _game_rng(seed, g)
        k_random_playout(kt, s, rng, moves)
        o, x = k_score(kt, s)
        out[g, 0] = s[H_NPLACED]
        out[g, 1] = o
        out[g, 2] = x
        out[g, 3] = k_winner(kt, s)
        out[g, 4] = s[H_LAST]


class PlayoutStats(NamedTuple):
    """Per-game arrays: ``length`` = placements in the finished game (those before ``playout_from``'s
    start included); winner and last_mover are 0 = O, 1 = X (last_mover 2 = nobody placed)."""

    length: I64
    score_o: I64
    score_x: I64
    winner: I64
    last_mover: I64


def _seed_arg(seed: int) -> int:
    """Any Python int as a non-negative int64 (seeds are hashed again inside)."""
    return int(seed) & 0x7FFFFFFFFFFFFFFF


def _stats(out: I64) -> PlayoutStats:
    return PlayoutStats(out[:, 0].copy(), out[:, 1].copy(), out[:, 2].copy(), out[:, 3].copy(), out[:, 4].copy())


def random_playouts(board: Board, n_games: int, seed: int = 0) -> PlayoutStats:
    """Uniformly random games from the start of ``board``; deterministic for a seed."""
    kt = kernel_tables(board)
    out = np.zeros((max(n_games, 0), 5), dtype=np.int64)
    _many_playouts(kt, k_new_state(kt), max(n_games, 0), _seed_arg(seed), out)
    return _stats(out)


class KernelStateSource(Protocol):
    """What :func:`playout_from` needs of a game state (``core.engine.rules.GameState`` is one), so the kernels
    never import the rules module that imports them."""

    @property
    def board(self) -> Board: ...

    def kernel_state(self) -> U64: ...


def playout_from(state: KernelStateSource, seed: int = 0) -> PlayoutStats:
    """One uniformly random continuation of a Python game state (the state itself is untouched)."""
    kt = kernel_tables(state.board)
    out = np.zeros((1, 5), dtype=np.int64)
    _many_playouts(kt, state.kernel_state(), 1, _seed_arg(seed), out)
    return _stats(out)


def playout_moves(board: Board, seed: int, game: int = 0, start: U64 | None = None) -> list[int]:
    """Placement indices of game ``game`` of ``random_playouts(board, n, seed)`` (or of ``playout_from``
    when ``start`` is that state's kernel state); lets tests replay the kernel's games in Python."""
    kt = kernel_tables(board)
    s = (k_new_state(kt) if start is None else start).copy()
    moves = np.empty(kt.nplace, dtype=np.int32)
    n = k_random_playout(kt, s, _game_rng(_seed_arg(seed), game), moves)
    return [int(m) for m in moves[:n]]


__all__ = [
    "HEADER",
    "H_LAST",
    "H_NPLACED",
    "H_SUPPLY",
    "H_TO_MOVE",
    "NO_SYMBOL",
    "PIECE_TYPES",
    "KTables",
    "PlayoutStats",
    "k_apply",
    "k_copy_state",
    "k_is_legal",
    "k_legal_count",
    "k_legal_list",
    "k_new_state",
    "k_rand",
    "k_rand_below",
    "k_random_playout",
    "k_score",
    "k_seed",
    "k_winner",
    "kernel_tables",
    "playout_from",
    "playout_moves",
    "random_playouts",
]
