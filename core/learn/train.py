"""Fitting the opening predictor to a data set and writing it as an integer model file with its manifest.

scikit-learn's multi-layer perceptron does the fitting (the optional ``train`` extra): a two-output regression (S1's
win as 0/1 and the margin over ``MARGIN_SCALE``) on squared error, so the win output estimates a probability without
a sigmoid, which the integer evaluation would need libm for.  The fitted floats are then rounded to fixed point; the
held-out figures are measured on the rounded model, the one that ships.

Samples: every game's position right after its opening (the one the analysis asks about) and ``extra`` more
positions of the same game at random plies.  Positions of one game are strongly correlated, so few per game: more
games, not more positions, make the model better.  The inputs do not change under the square's symmetries, so no
position is repeated turned or mirrored.  Boards whose index is a multiple of ``VALIDATE_EVERY`` are kept out of
the fit and give the validation figures.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import Any

import numpy as np
import numpy.typing as npt

from core.agents.summary import summary_of
from core.agents.value import FEATURES, FORMAT, INPUTS, VERSION
from core.engine.pieces import placement_table
from core.learn.data import SIZES as TRAINED_SIZES
from core.learn.data import Games

MARGIN_SCALE = 16
Q = 12
VALIDATE_EVERY = 10
HIDDEN = (32, 16)


class TrainError(ValueError):
    """Training that cannot start: no data, no scikit-learn."""


def position_arrays(games: Games, i: int, ply: int) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8],
                                                             npt.NDArray[np.int64], bool]:
    """(sym, ctype, supply left, S1 to move) of game ``i`` after ``ply`` placements (they alternate by symbol)."""
    n = int(games.size[i])
    table = placement_table(n)
    cells = games.cells[i, :n * n].astype(np.int8)
    first = int(games.first[i]) + 1  # cell code of S1's symbol
    sym = np.where(cells == first, 1, np.where(cells == 3 - first, 2, 0)).astype(np.int8)
    ctype = np.zeros(n * n, dtype=np.int8)
    supply = games.supply[i].astype(np.int64).copy()
    for p in games.moves[i, :ply]:
        t = int(table.ptype[p])
        ctype[table.cells[p]] = t + 1
        supply[t] -= 1
    return sym, ctype, supply, ply % 2 == 0


@dataclass
class Samples:
    x: npt.NDArray[np.int64]
    """[positions, FEATURES]: the model's integer inputs."""
    win: npt.NDArray[np.float64]
    margin: npt.NDArray[np.float64]
    opening: npt.NDArray[np.bool_]
    """The position right after the opening."""


def samples(games: Games, pick: npt.NDArray[np.bool_], extra: int, seed: int, outcome_weight: float = 1.0,
            progress: Callable[[int, int], None] | None = None) -> Samples:
    """Input rows of the picked games' positions (see the module docstring).

    The win label is ``outcome_weight`` times the game's result plus the rest times the search's own value of the
    position (where one was recorded): a single game's result is a coin flip's worth of noise about the chance,
    the search value a biased but quieter estimate of it.
    """
    rng = Random(seed)
    rows: list[npt.NDArray[np.int64]] = []
    win: list[float] = []
    margin: list[float] = []
    opening: list[bool] = []
    idx = np.flatnonzero(pick)
    for done, i in enumerate(idx):
        length = int((games.moves[i] >= 0).sum())
        if length < 1:
            continue
        plies = [1] + [rng.randrange(2, length + 1) for _ in range(extra) if length >= 2]
        n = int(games.size[i])
        for ply in plies:
            sym, ctype, supply, s1 = position_arrays(games, int(i), ply)
            result = 1.0 if games.winner[i] == 1 else 0.0
            value = float(games.values[i, ply]) if ply < games.values.shape[1] else float("nan")
            label = result if value != value else outcome_weight * result + (1 - outcome_weight) * value
            rows.append(summary_of(n, sym, ctype, supply, s1))
            win.append(label)
            margin.append(float(games.s1_score[i] - games.s2_score[i]) / MARGIN_SCALE)
            opening.append(ply == 1)
        if progress is not None and done % 2000 == 0:
            progress(done, len(idx))
    x = np.array(rows, dtype=np.int64).reshape(len(rows), FEATURES)
    return Samples(x, np.array(win), np.array(margin), np.array(opening, dtype=bool))


def quantize(coefs: list[npt.NDArray[np.float64]], intercepts: list[npt.NDArray[np.float64]],
             mean: npt.NDArray[np.float64], scale: npt.NDArray[np.float64]) -> dict[str, Any]:
    """Fixed-point weights (``core.agents.value``): layer 1 and its bias with 2q bits, the standardisation the fit
    used folded into them (so the evaluation takes the raw integer inputs); later weights q bits, their biases 2q."""
    def r(a: npt.NDArray[np.float64], bits: int) -> npt.NDArray[np.int64]:
        return np.rint(a * (1 << bits)).astype(np.int64)

    w1f = coefs[0] / scale[:, None]
    b1f = intercepts[0] - mean @ w1f
    return {"w1": r(w1f, 2 * Q), "b1": r(b1f, 2 * Q), "w2": r(coefs[1], Q), "b2": r(intercepts[1], 2 * Q),
            "w3": r(coefs[2], Q), "b3": r(intercepts[2], 2 * Q)}


def model_bytes(weights: dict[str, Any], extra_meta: dict[str, Any]) -> bytes:
    meta = {"format": FORMAT, "version": VERSION, "inputs": INPUTS, "sizes": list(TRAINED_SIZES), "q": Q,
            "margin_scale": MARGIN_SCALE, "hidden": list(HIDDEN), **extra_meta}
    buf = io.BytesIO()
    raw = np.frombuffer(json.dumps(meta, sort_keys=True).encode("utf-8"), dtype=np.uint8)
    np.savez_compressed(buf, meta=raw, **weights)
    return buf.getvalue()


@dataclass
class Fitted:
    weights: dict[str, Any]
    figures: dict[str, Any]


def fit(games: Games, seed: int, extra: int = 3, max_iter: int = 60, outcome_weight: float = 1.0,
        progress: Callable[[str], None] | None = None) -> Fitted:
    """Fit the network; the validation figures are measured on whole boards kept out."""
    try:
        from sklearn.neural_network import MLPRegressor
    except ImportError:
        raise TrainError("training needs scikit-learn: pip install -e '.[train]'") from None
    say = progress or (lambda _m: None)
    held = games.board % VALIDATE_EVERY == 0
    say(f"inputs of {int((~held).sum()):,} training games and {int(held.sum()):,} validation games")
    train = samples(games, ~held, extra, seed, outcome_weight)
    val = samples(games, held, 0, seed + 1)
    if len(train.win) == 0:
        raise TrainError("no training games: every board of the data is kept out for validation")
    say(f"fitting {HIDDEN} on {len(train.win):,} positions")
    x = train.x.astype(np.float64)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    net = MLPRegressor(hidden_layer_sizes=HIDDEN, activation="relu", solver="adam", alpha=1e-3, batch_size=512,
                       learning_rate_init=1e-3, max_iter=max_iter, early_stopping=True, validation_fraction=0.1,
                       n_iter_no_change=6, random_state=seed, shuffle=True)
    net.fit((x - mean) / scale, np.column_stack([train.win, train.margin]))
    weights = quantize(list(net.coefs_), list(net.intercepts_), mean, scale)
    figures = validation_figures(weights, val)
    figures["epochs"] = int(net.n_iter_)
    figures["training_positions"] = len(train.win)
    figures["training_games"] = int((~held).sum())
    return Fitted(weights, figures)


def integer_outputs(weights: dict[str, Any], s: Samples) -> npt.NDArray[np.int64]:
    """The shipped (integer) model's outputs for each sample, through the compiled kernel."""
    from core.agents.value import k_eval

    out = np.zeros((len(s.win), 2), dtype=np.int64)
    two = np.zeros(2, dtype=np.int64)
    w = weights
    for i in range(len(s.win)):
        k_eval(w["w1"], w["b1"], w["w2"], w["b2"], w["w3"], w["b3"], Q, np.ascontiguousarray(s.x[i]), two)
        out[i] = two
    return out


def validation_figures(weights: dict[str, Any], val: Samples) -> dict[str, Any]:
    """Brier score and log-loss of the integer model on the validation boards' opening positions."""
    y = val.win
    if not len(y):
        return {"validation_positions": 0, "brier": None, "brier_of_base_rate": None, "log_loss": None,
                "s1_win_rate": 0.0}
    raw = integer_outputs(weights, val)
    p = np.clip(raw[:, 0], 0, 1 << (2 * Q)) / (1 << (2 * Q))
    base = float(np.mean(y))
    pc = np.clip(p, 1e-3, 1 - 1e-3)
    return {
        "validation_positions": len(y),
        "brier": round(float(np.mean((p - y) ** 2)), 5),
        "brier_of_base_rate": round(float(np.mean((base - y) ** 2)), 5),
        "log_loss": round(float(-np.mean(y * np.log(pc) + (1 - y) * np.log(1 - pc))), 5),
        "s1_win_rate": round(base, 4),
    }


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
