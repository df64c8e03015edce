"""The learned value: club's chance that the first mover (S1) wins a position, in integer arithmetic.

Why integers: a verdict must be the same JSON on every machine, and floating-point evaluations differ between CPUs
(fused multiply-adds, vector widths, libm).  The model file holds integer weights; the evaluation adds and multiplies
64-bit integers and shifts, so it is exact on any machine, compiled or not (``tests/agents/value_reference.py``
repeats it in plain Python and the tests compare them bit for bit).

Inputs: the position's 20 integer summary features (:mod:`core.agents.summary`: symbols left, how many placements
still reach each side's symbols, the gains of the legal placements, the supply).  On boards no one trained on they
predicted club's rate after an opening far better than one input per cell and piece did (``docs/predictor.md``), and
they do not change under the square's symmetries, so one model serves 10x10, 12x12 and 14x14 boards (the sizes it
was trained on; other sizes are refused).

The network: inputs -> H1 (ReLU) -> H2 (ReLU) -> 2 outputs (S1's win chance and the expected score margin S1 - S2
over ``margin_scale``).  Fixed point: layer 1's weights and bias carry ``2q`` fractional bits (the inputs are raw
counts of very different ranges, so their weights need the finer grid) and its output is shifted down to ``q``; the
later weights carry ``q`` bits and the biases that add to products ``2q``; the outputs come out with ``2q``.

The model file is a NumPy ``.npz`` read with ``allow_pickle=False`` (nothing is unpickled): arrays ``w1`` [F, H1],
``b1`` [H1], ``w2`` [H1, H2], ``b2`` [H2], ``w3`` [H2, 2], ``b3`` [2] (int64), and ``meta``, the UTF-8 bytes of a
JSON object (:data:`FORMAT`, version, inputs, sizes, q, margin_scale).
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from core.agents.shipped import MODELS, shipped_path
from core.agents.summary import NSUMMARY, SUMMARY_MAX, SUMMARY_NAMES, k_summary, summary_of, summary_tables
from core.board.model import Board
from core.engine.kernels import H_SUPPLY, H_TO_MOVE, KTables, k_apply, k_new_state, kernel_tables

FORMAT = "lits-value"
VERSION = 2
FEATURES = NSUMMARY
INPUTS = list(SUMMARY_NAMES)
SIZES = (10, 12, 14)
"""The board sizes a model file may name (boards have even sizes; `lits learn data` plays these)."""
Q_RANGE = (8, 16)
MAX_WIDTH = 128
SUM_LIMIT = 1 << 62
"""Every partial sum of the evaluation stays below this (checked when a file is read), so int64 never overflows."""

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
            if meta.get("inputs") != INPUTS:
                raise ModelError(f"{path}: made for the inputs {meta.get('inputs')}; this program computes "
                                 f"{', '.join(INPUTS)}")
            arrays = [_need(z, n, path, d) for n, d in (("w1", 2), ("b1", 1), ("w2", 2), ("b2", 1), ("w3", 2),
                                                        ("b3", 1))]
    except ModelError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, zlib.error, EOFError, KeyError) as exc:
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
    if max(h1, h2) > MAX_WIDTH or sum_bound(w1, b1, w2, b2, w3, b3, q) >= SUM_LIMIT:
        raise ModelError(f"{path}: weights or layers beyond the fixed-point limits (damaged?)")
    return ValueModel(w1, b1, w2, b2, w3, b3, q, scale, tuple(sizes), hashlib.sha256(data).hexdigest(), meta)


def sum_bound(w1: I64, b1: I64, w2: I64, b2: I64, w3: I64, b3: I64, q: int) -> int:
    """The largest magnitude any partial sum of :func:`k_eval_into` can reach, for inputs within
    :data:`~core.agents.summary.SUMMARY_MAX`, in exact Python integers: below 2**62 the int64 evaluation cannot
    overflow, so the compiled kernel and the plain reference agree on every position."""
    xs = [int(v) for v in SUMMARY_MAX]
    a1 = [abs(int(b1[j])) + sum(x * abs(int(w1[i, j])) for i, x in enumerate(xs)) for j in range(b1.shape[0])]
    h1 = [v >> q for v in a1]
    a2 = [abs(int(b2[k])) + sum(h * abs(int(w2[j, k])) for j, h in enumerate(h1)) for k in range(b2.shape[0])]
    h2 = [v >> q for v in a2]
    a3 = [abs(int(b3[o])) + sum(h * abs(int(w3[k, o])) for k, h in enumerate(h2)) for o in range(2)]
    return max(a1 + a2 + a3, default=0)


def load_model(path: str | Path) -> ValueModel:
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ModelError(f"{p}: cannot read the model file ({exc.strerror or exc})") from None
    return model_from_bytes(data, str(p))


DEFAULT_MODEL = MODELS / "opening-predictor.npz"
"""The model that ships with the program (``resources/models``; installed as ``designer/resources/models``)."""


def default_model_path() -> Path:
    return shipped_path(DEFAULT_MODEL.name)


@functools.cache
def default_model() -> ValueModel:
    return load_model(default_model_path())


# ------------------------------------------------------------------------------------------ evaluation


@njit(cache=True, nogil=True)
def k_eval_into(w1: I64, b1: I64, w2: I64, b2: I64, w3: I64, b3: I64, q: int, x: I64, out: I64, acc: I64,
                h2: I64) -> None:
    """Both outputs, with ``2q`` fractional bits, into ``out[0:2]`` from the inputs ``x``: integer adds, multiplies
    and shifts only.

    ``acc`` and ``h2`` are scratch of the two layers' widths: nothing is allocated, so the kernel runs without the
    GIL and without numba's allocator (which, on a thread that released the GIL, crashed a process that traced its
    memory with tracemalloc)."""
    h1n = b1.shape[0]
    for j in range(h1n):
        acc[j] = b1[j]
    for i in range(x.shape[0]):
        v = x[i]
        if v != 0:
            for j in range(h1n):
                acc[j] += v * w1[i, j]
    for j in range(h1n):
        a = acc[j]
        acc[j] = (a >> q) if a > 0 else 0
    h2n = b2.shape[0]
    for k in range(h2n):
        s = b2[k]
        for j in range(h1n):
            s += acc[j] * w2[j, k]
        h2[k] = (s >> q) if s > 0 else 0
    for o in range(2):
        s = b3[o]
        for k in range(h2n):
            s += h2[k] * w3[k, o]
        out[o] = s


@njit(cache=True, nogil=True)
def k_eval(w1: I64, b1: I64, w2: I64, b2: I64, w3: I64, b3: I64, q: int, x: I64, out: I64) -> None:
    """:func:`k_eval_into` with its own scratch (for callers that evaluate one position now and then)."""
    k_eval_into(w1, b1, w2, b2, w3, b3, q, x, out, np.empty(b1.shape[0], dtype=np.int64),
                np.empty(b2.shape[0], dtype=np.int64))


@njit(cache=True, nogil=True)
def k_inputs(tabs: Any, size: int, sym: I8, ctype: I8, supply: I64, s1_to_move: bool, count: I64, x: I64) -> None:
    """The model's inputs of a position into ``x`` (``tabs``: :func:`~core.agents.summary.summary_tables` of the
    size; ``count`` scratch of a cell per board cell)."""
    k_summary(*tabs, size, sym, ctype, supply, s1_to_move, count, x)  # type: ignore[call-arg]  # numba's stub


@njit(cache=True, nogil=True)
def k_opening_values(w1: I64, b1: I64, w2: I64, b2: I64, w3: I64, b3: I64, q: int, tabs: Any, size: int, sym: I8,
                     cells: Any, ptype: Any, left: I64, out: I64, x: I64, ctype: I8, count: I64, two: I64,
                     acc: I64, h2: I64) -> None:
    """``out[p]`` = S1's win chance (``2q`` bits) after each first placement ``p``, S2 to move.

    ``tabs`` is :func:`~core.agents.summary.summary_tables` of the size; ``left`` holds the starting supply and
    ``ctype`` zeros on entry (both are restored); ``x``, ``count``, ``two``, ``acc`` and ``h2`` are scratch (see
    :func:`opening_scratch`): the kernel allocates nothing."""
    for p in range(cells.shape[0]):
        t = ptype[p]
        for i in range(4):
            ctype[cells[p, i]] = t + 1
        left[t] -= 1
        k_inputs(tabs, size, sym, ctype, left, False, count, x)
        k_eval_into(w1, b1, w2, b2, w3, b3, q, x, two, acc, h2)
        out[p] = two[0]
        left[t] += 1
        for i in range(4):
            ctype[cells[p, i]] = 0


def opening_scratch(size: int, supply: I64, h1: int, h2: int) -> tuple[I64, I64, I8, I64, I64, I64, I64]:
    """(left, x, ctype, count, two, acc, h2) for :func:`k_opening_values`."""
    return (np.array(supply, dtype=np.int64), np.zeros(FEATURES, dtype=np.int64),
            np.zeros(size * size, dtype=np.int8), np.zeros(size * size, dtype=np.int64),
            np.zeros(2, dtype=np.int64), np.empty(h1, dtype=np.int64), np.empty(h2, dtype=np.int64))


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
    left, x, ctype, count, two, acc, h2 = opening_scratch(kt.size, kt.supply, m.w1.shape[1], m.w2.shape[1])
    k_opening_values(*m.arrays(), m.q, summary_tables(kt.size), kt.size, symbols_of(kt), kt.cells, kt.ptype, left,
                     out, x, ctype, count, two, acc, h2)
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
    out = np.zeros(2, dtype=np.int64)
    k_eval(*m.arrays(), m.q, summary_of(board.size, sym, ctype, supply, s1), out)
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
