"""The learned value: club's chance that the first mover (S1) wins a position, in integer arithmetic.

Why integers: a verdict must be the same JSON on every machine, and floating-point evaluations differ between CPUs
(fused multiply-adds, vector widths, libm).  The model file holds integer weights; the evaluation adds and multiplies
64-bit integers and shifts, so it is exact on any machine, compiled or not (``tests/agents/value_reference.py``
repeats it in plain Python and the tests compare them bit for bit).

Position features (binary, S1's point of view) sit on a 14x14 canvas with the board centred in it, so one model
serves 10x10, 12x12 and 14x14 boards: per canvas cell one of *S1's symbol uncovered*, *S2's symbol uncovered*,
*covered by an L / I / T / S*, *off the board* (a cell outside a smaller board blocks pieces as a covered one does);
then the supply left per type (0-5 or more, one-hot) and whether S1 is to move.

The network: features -> H1 (ReLU) -> H2 (ReLU) -> 2 outputs (S1's win chance and the expected score margin S1 - S2
over ``margin_scale``).  Weights are fixed point with ``q`` fractional bits; the outputs come out with ``2q``.

The model file is a NumPy ``.npz`` read with ``allow_pickle=False`` (nothing is unpickled): arrays ``w1`` [F, H1],
``b1`` [H1], ``w2`` [H1, H2], ``b2`` [H2], ``w3`` [H2, 2], ``b3`` [2] (int64), and ``meta``, the UTF-8 bytes of a
JSON object (:data:`FORMAT`, version, canvas, sizes, q, margin_scale).
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from core.board.model import Board
from core.engine.kernels import H_SUPPLY, H_TO_MOVE, KTables, k_apply, k_new_state, kernel_tables

FORMAT = "lits-value"
VERSION = 1
CANVAS = 14
NCELL = CANVAS * CANVAS
KINDS = 7
"""Per canvas cell: S1 symbol, S2 symbol, covered by L, I, T, S, off the board."""
K_S1, K_S2, K_COV, K_OFF = 0, 1, 2, 6
SUPPLY_STATES = 6
F_SUPPLY = KINDS * NCELL
F_TO_MOVE = F_SUPPLY + 4 * SUPPLY_STATES
FEATURES = F_TO_MOVE + 1
MAX_ACTIVE = FEATURES
SIZES = (10, 12, 14)
Q_RANGE = (8, 16)
WEIGHT_LIMIT = 1 << 15
BIAS_LIMIT = 1 << 40
MAX_WIDTH = 128

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]


class ModelError(ValueError):
    """A model file that cannot be used: damaged, of another format or version, or not for this board size."""


@dataclass(frozen=True)
class ValueModel:
    """A loaded model: integer weights and what the file says about them."""

    w1: I64
    b1: I64
    w2: I64
    b2: I64
    w3: I64
    b3: I64
    q: int
    margin_scale: int
    sizes: tuple[int, ...]
    digest: str
    """SHA-256 of the model file's bytes: what a verdict names."""
    meta: dict[str, Any]

    def check_size(self, size: int) -> None:
        if size not in self.sizes:
            raise ModelError(f"the opening predictor was trained for {', '.join(f'{n}x{n}' for n in self.sizes)} "
                             f"boards, not {size}x{size}")

    def arrays(self) -> tuple[I64, I64, I64, I64, I64, I64]:
        return self.w1, self.b1, self.w2, self.b2, self.w3, self.b3


def _need(z: Any, name: str, path: str, ndim: int) -> I64:
    if name not in z.files:
        raise ModelError(f"{path}: not a model file of the opening predictor (no '{name}' array)")
    a = z[name]
    if a.dtype != np.int64 or a.ndim != ndim:
        raise ModelError(f"{path}: array '{name}' is {a.dtype} with {a.ndim} dimensions, not int64 with {ndim}")
    return np.ascontiguousarray(a)


def model_from_bytes(data: bytes, path: str) -> ValueModel:
    """Check and read a model file's bytes; every problem is a :class:`ModelError` naming ``path``."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            if "meta" not in z.files:
                raise ModelError(f"{path}: not a model file of the opening predictor (no 'meta' record)")
            try:
                meta = json.loads(bytes(z["meta"].astype(np.uint8)).decode("utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                raise ModelError(f"{path}: its 'meta' record is not readable JSON ({exc})") from None
            if not isinstance(meta, dict) or meta.get("format") != FORMAT:
                raise ModelError(f"{path}: not a model file of the opening predictor (format "
                                 f"{meta.get('format') if isinstance(meta, dict) else meta!r})")
            if meta.get("version") != VERSION:
                raise ModelError(f"{path}: a model of version {meta.get('version')!r}; this program reads version "
                                 f"{VERSION}: install the model that came with it")
            if meta.get("canvas") != CANVAS or meta.get("features") != FEATURES:
                raise ModelError(f"{path}: made for {meta.get('features')} features on a {meta.get('canvas')} "
                                 f"canvas; this program computes {FEATURES} on {CANVAS}")
            arrays = [_need(z, n, path, d) for n, d in (("w1", 2), ("b1", 1), ("w2", 2), ("b2", 1), ("w3", 2),
                                                        ("b3", 1))]
    except ModelError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, KeyError) as exc:
        raise ModelError(f"{path}: damaged or not a model file ({exc})") from None
    w1, b1, w2, b2, w3, b3 = arrays
    h1, h2 = w1.shape[1], w2.shape[1]
    if w1.shape[0] != FEATURES or b1.shape != (h1,) or w2.shape[0] != h1 or b2.shape != (h2,) \
            or w3.shape != (h2, 2) or b3.shape != (2,):
        raise ModelError(f"{path}: its layers do not fit together ({w1.shape}, {w2.shape}, {w3.shape})")
    q = meta.get("q")
    scale = meta.get("margin_scale")
    sizes = meta.get("sizes")
    if not isinstance(q, int) or not Q_RANGE[0] <= q <= Q_RANGE[1] or not isinstance(scale, int) or scale < 1 \
            or not isinstance(sizes, list) or not sizes or not all(s in SIZES for s in sizes):
        raise ModelError(f"{path}: its 'meta' record names no usable q, margin_scale or sizes")
    # With at most 201 active features, |weights| < 2**15, the biases that add to products < 2**40 and layers of
    # at most 128, every sum of the evaluation stays below 2**61: int64 never overflows, so the compiled kernel
    # and exact Python integers agree.
    small = max(int(np.abs(a).max(initial=0)) for a in (w1, b1, w2, w3))
    large = max(int(np.abs(a).max(initial=0)) for a in (b2, b3))
    if small >= WEIGHT_LIMIT or large >= BIAS_LIMIT or max(h1, h2) > MAX_WIDTH:
        raise ModelError(f"{path}: weights or layers beyond the fixed-point limits (damaged?)")
    return ValueModel(w1, b1, w2, b2, w3, b3, q, scale, tuple(sizes), hashlib.sha256(data).hexdigest(), meta)


def load_model(path: str | Path) -> ValueModel:
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ModelError(f"{p}: cannot read the model file ({exc.strerror or exc})") from None
    return model_from_bytes(data, str(p))


DEFAULT_MODEL = Path(__file__).resolve().parent.parent.parent / "resources" / "models" / "opening-predictor.npz"
"""The model that ships with the program (``resources/models``; installed as ``designer/resources/models``)."""


def default_model_path() -> Path:
    if DEFAULT_MODEL.exists():
        return DEFAULT_MODEL
    return Path(__file__).resolve().parent.parent.parent / "designer" / "resources" / "models" / DEFAULT_MODEL.name


@functools.cache
def default_model() -> ValueModel:
    return load_model(default_model_path())


# ------------------------------------------------------------------------------------------ features


@njit(cache=True, nogil=True)
def k_features(size: int, sym: I8, ctype: I8, supply: I64, s1_to_move: bool, out: I64) -> int:
    """Active feature indices of a position, ascending by kind then canvas cell; returns how many.

    ``sym[c]``: 0 none, 1 S1's symbol, 2 S2's; ``ctype[c]``: 0 uncovered, 1-4 covered by L, I, T, S.
    """
    off = (CANVAS - size) // 2
    n = 0
    for kind in range(KINDS):
        for r in range(CANVAS):
            br = r - off
            for c in range(CANVAS):
                bc = c - off
                inside = 0 <= br < size and 0 <= bc < size
                if kind == K_OFF:
                    hit = not inside
                elif not inside:
                    hit = False
                else:
                    cell = br * size + bc
                    t = ctype[cell]
                    if kind == K_S1:
                        hit = t == 0 and sym[cell] == 1
                    elif kind == K_S2:
                        hit = t == 0 and sym[cell] == 2
                    else:
                        hit = t == kind - K_COV + 1
                if hit:
                    out[n] = kind * NCELL + r * CANVAS + c
                    n += 1
    for t in range(4):
        k = supply[t]
        if k > SUPPLY_STATES - 1:
            k = SUPPLY_STATES - 1
        if k < 0:
            k = 0
        out[n] = F_SUPPLY + t * SUPPLY_STATES + k
        n += 1
    if s1_to_move:
        out[n] = F_TO_MOVE
        n += 1
    return n


@njit(cache=True, nogil=True)
def k_eval_into(w1: I64, b1: I64, w2: I64, b2: I64, w3: I64, b3: I64, q: int, feats: I64, n: int, out: I64,
                acc: I64, h2: I64) -> None:
    """Both outputs, with ``2q`` fractional bits, into ``out[0:2]``: integer adds, multiplies and shifts only.

    ``acc`` and ``h2`` are scratch of the two layers' widths: nothing is allocated, so the kernel runs without the
    GIL and without numba's allocator (which, on a thread that released the GIL, crashed a process that traced its
    memory with tracemalloc)."""
    h1n = b1.shape[0]
    for j in range(h1n):
        acc[j] = b1[j]
    for i in range(n):
        f = feats[i]
        for j in range(h1n):
            acc[j] += w1[f, j]
    h2n = b2.shape[0]
    for k in range(h2n):
        s = b2[k]
        for j in range(h1n):
            a = acc[j]
            if a > 0:
                s += a * w2[j, k]
        h2[k] = (s >> q) if s > 0 else 0
    for o in range(2):
        s = b3[o]
        for k in range(h2n):
            s += h2[k] * w3[k, o]
        out[o] = s


@njit(cache=True, nogil=True)
def k_eval(w1: I64, b1: I64, w2: I64, b2: I64, w3: I64, b3: I64, q: int, feats: I64, n: int,
           out: I64) -> None:
    """:func:`k_eval_into` with its own scratch (for callers that evaluate one position now and then)."""
    k_eval_into(w1, b1, w2, b2, w3, b3, q, feats, n, out, np.empty(b1.shape[0], dtype=np.int64),
                np.empty(b2.shape[0], dtype=np.int64))


@njit(cache=True, nogil=True)
def k_opening_values(w1: I64, b1: I64, w2: I64, b2: I64, w3: I64, b3: I64, q: int, size: int, sym: I8,
                     cells: Any, ptype: Any, left: I64, out: I64, feats: I64, ctype: I8, two: I64, acc: I64,
                     h2: I64) -> None:
    """``out[p]`` = S1's win chance (``2q`` bits) after each first placement ``p``, S2 to move.

    ``left`` holds the starting supply and ``ctype`` zeros on entry (both are restored); ``feats``, ``two``, ``acc``
    and ``h2`` are scratch (see :func:`opening_scratch`): the kernel allocates nothing."""
    for p in range(cells.shape[0]):
        t = ptype[p]
        for i in range(4):
            ctype[cells[p, i]] = t + 1
        left[t] -= 1
        n = k_features(size, sym, ctype, left, False, feats)
        k_eval_into(w1, b1, w2, b2, w3, b3, q, feats, n, two, acc, h2)
        out[p] = two[0]
        left[t] += 1
        for i in range(4):
            ctype[cells[p, i]] = 0


def opening_scratch(size: int, supply: I64, h1: int, h2: int) -> tuple[I64, I64, I8, I64, I64, I64]:
    """(left, feats, ctype, two, acc, h2) for :func:`k_opening_values`."""
    return (np.array(supply, dtype=np.int64), np.empty(MAX_ACTIVE, dtype=np.int64),
            np.zeros(size * size, dtype=np.int8), np.zeros(2, dtype=np.int64), np.empty(h1, dtype=np.int64),
            np.empty(h2, dtype=np.int64))


def symbols_of(kt: KTables) -> I8:
    """Per cell 0 none, 1 S1's symbol, 2 S2's, from a board's kernel tables."""
    n = kt.size * kt.size
    o = np.array([(int(kt.sym_o[c >> 6]) >> (c & 63)) & 1 for c in range(n)], dtype=np.int8)
    x = np.array([(int(kt.sym_x[c >> 6]) >> (c & 63)) & 1 for c in range(n)], dtype=np.int8)
    s1, s2 = (o, x) if kt.first == 0 else (x, o)
    return (s1 + 2 * s2).astype(np.int8)


def to_chance(model: ValueModel, raw: int | I64) -> Any:
    """Raw win output to a chance in [0, 1] (an exact division, so the same float everywhere)."""
    one = 1 << (2 * model.q)
    return np.clip(np.asarray(raw, dtype=np.int64), 0, one) / one


def opening_chances(board: Board, model: ValueModel | None = None) -> npt.NDArray[np.float64]:
    """Predicted S1 win chance under club after every first placement (placement-table order)."""
    m = model or default_model()
    m.check_size(board.size)
    kt = kernel_tables(board)
    out = np.zeros(kt.nplace, dtype=np.int64)
    left, feats, ctype, two, acc, h2 = opening_scratch(kt.size, kt.supply, m.w1.shape[1], m.w2.shape[1])
    k_opening_values(*m.arrays(), m.q, kt.size, symbols_of(kt), kt.cells, kt.ptype, left, out, feats, ctype, two,
                     acc, h2)
    return np.asarray(to_chance(m, out), dtype=np.float64)


def position_inputs(board: Board, moves: list[int]) -> tuple[I8, I8, I64, bool]:
    """(sym, ctype, supply left, S1 to move) after ``moves`` (legal placements in order) on ``board``."""
    kt = kernel_tables(board)
    s = k_new_state(kt)
    ctype = np.zeros(kt.size * kt.size, dtype=np.int8)
    for p in moves:
        k_apply(kt, s, p)
        for c in kt.cells[p]:
            ctype[int(c)] = int(kt.ptype[p]) + 1
    supply = np.array([int(s[H_SUPPLY + t]) for t in range(4)], dtype=np.int64)
    return symbols_of(kt), ctype, supply, int(s[H_TO_MOVE]) == kt.first


def position_value(board: Board, moves: list[int], model: ValueModel | None = None) -> tuple[int, int]:
    """Raw outputs (win, margin; ``2q`` fractional bits) of the position after ``moves``."""
    m = model or default_model()
    m.check_size(board.size)
    sym, ctype, supply, s1 = position_inputs(board, moves)
    feats = np.empty(MAX_ACTIVE, dtype=np.int64)
    n = k_features(board.size, sym, ctype, supply, s1, feats)
    out = np.zeros(2, dtype=np.int64)
    k_eval(*m.arrays(), m.q, feats, n, out)
    return int(out[0]), int(out[1])


FAIR_BAND = (0.4, 0.6)
"""The verdict's fair band for the first mover after an opening (``core.analysis``'s 40-60%)."""


@dataclass(frozen=True)
class Estimate:
    """What the predictor says of a board at a glance: a prediction for club play, never a verdict."""

    chances: npt.NDArray[np.float64]
    """Predicted S1 win chance after each first placement (placement-table order)."""
    best: int
    """The placement predicted nearest to even."""
    near_even: int
    """Placements predicted inside the fair band."""
    cells: npt.NDArray[np.float64]
    """Per cell, the chance of the placement covering it that is predicted nearest to even."""
    digest: str

    @property
    def best_chance(self) -> float:
        return float(self.chances[self.best])


def estimate(board: Board, model: ValueModel | None = None) -> Estimate:
    """The board's balance estimate from the model alone (tens of milliseconds on a 12x12 board)."""
    m = model or default_model()
    chances = opening_chances(board, m)
    distance = np.abs(chances - 0.5)
    best = int(np.argmin(distance))
    kt = kernel_tables(board)
    cells = np.full(kt.size * kt.size, np.nan)
    count = len(chances)
    covered = np.asarray(kt.cells[:count], dtype=np.int64).ravel()
    placement = np.repeat(np.arange(count), 4)
    # per cell the covering placement nearest to even (the lower index on a tie), in numpy: the designer computes
    # this on a worker thread after every edit, and a Python loop over every placement's cells held the GIL
    order = np.lexsort((placement, distance[placement], covered))
    first = np.unique(covered[order], return_index=True)[1]
    cells[covered[order][first]] = chances[placement[order][first]]
    inside = int(np.sum((chances >= FAIR_BAND[0]) & (chances <= FAIR_BAND[1])))
    return Estimate(chances, best, inside, cells.reshape(kt.size, kt.size), m.digest)
