"""A learned prior for the ``puct`` search: a linear score of static placement features, fitted to the moves the
deciding agent chose in its own games (``prior=learned`` in a puct spec).

The fit is a conditional logit: in each sampled position, a softmax of ``features . weights`` over the legal
placements, the placement the agent played the label; or, with a teacher, the share of a search's root visits each
legal placement got (a soft label that also says how close the second-best placements came).  The features
(``core.agents.puct.placement_features``) are constants of the board, so the score is one integer per (symbol to
move, placement) and the search creates its children in prior order exactly as it does with the symbol gain.
Boards whose index is a multiple of ``HOLD_OUT_EVERY`` are never fitted on; the figures of :func:`compare` are
measured on them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import Any

import numpy as np
import numpy.typing as npt

from core.agents.levels import resolve
from core.agents.puct import (
    F_MOVE,
    F_NVIS,
    POSITION_PRIOR_FEATURES,
    POSITION_PRIOR_KIND,
    PRIOR_FEATURES,
    PRIOR_KIND,
    SCORE_SCALE,
    PositionPrior,
    PuctSearch,
    children,
    parse_puct,
    placement_features,
    raw_scores,
    shifted_scores,
)
from core.agents.search import gain_table
from core.engine.kernels import H_TO_MOVE, KTables, k_apply, k_legal_list, k_new_state, k_seed, kernel_tables
from core.learn.data import Games

HOLD_OUT_EVERY = 10
L2 = 1e-4
"""A small ridge on the weights: some features are rare on some boards (``covers both`` on sparse ones)."""
FORMAT = 1

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
U64 = npt.NDArray[np.uint64]


class PriorError(ValueError):
    """A weights file that cannot be used, or data that cannot be fitted (the message names it)."""


@dataclass
class Positions:
    """Sampled positions as index arrays into one table of feature rows (a row per board, symbol and placement),
    so a position's legal placements cost an integer each."""

    table: F64
    """[rows, features] the feature rows."""
    gain: I64
    """[rows] the symbol gain of each row."""
    block: I64
    """[blocks + 1] where each (board, symbol) block of rows starts (learned scores are shifted per block)."""
    idx: I64
    """The legal placements' rows, position after position."""
    start: I64
    """[positions + 1] where each position's rows start in ``idx``."""
    label: I64
    """[positions] the played placement's place in ``idx``."""
    target: F64 | None = None
    """[len(idx)] a teacher's visit share of each legal placement (a position's shares sum to 1), or None: fit
    the played placements."""

    def __len__(self) -> int:
        return len(self.label)


Teacher = Callable[[U64, I32], F64]
"""The visit shares of a position's legal placements (state, legal list) -> shares in the list's order."""


def sample_positions(games: Games, pick: npt.NDArray[np.bool_], per_game: int, seed: int,
                     progress: Callable[[int, int], None] | None = None,
                     teacher: Callable[[int, KTables, I64], Teacher] | None = None,
                     position: bool = False) -> Positions:
    """Up to ``per_game`` positions (after the opening, two or more legal placements) of each picked game, at
    plies drawn from ``seed``; games of one board share its feature rows.  ``teacher(board, tables, gain)`` gives
    the board's teacher, whose shares become the positions' targets.  With ``position`` the rows are the position
    prior's (POSITION_PRIOR_FEATURES), one block of rows per position, since they depend on it."""
    rng = Random(seed)
    shares: list[F64] = []
    table: list[F64] = []
    gains: list[I64] = []
    block = [0]
    idx: list[I64] = []
    label: list[int] = []
    start = [0]
    rows = 0
    used = 0
    chosen = np.flatnonzero(pick)
    by_board: dict[int, list[int]] = {}
    for g in chosen:
        by_board.setdefault(int(games.board[g]), []).append(int(g))
    for done, (_board, members) in enumerate(sorted(by_board.items())):
        kt = kernel_tables(games.board_of(members[0]))
        gain = gain_table(kt)
        base = rows
        at_position = PositionPrior(kt, np.zeros(len(POSITION_PRIOR_FEATURES)), 0.5) if position else None
        if at_position is None:
            feats = placement_features(kt)
            for sym in range(2):
                table.append(feats[sym])
                gains.append(gain[sym])
                rows += kt.nplace
                block.append(rows)
        legal = np.empty(kt.nplace, dtype=np.int32)
        teach = teacher(int(games.board[members[0]]), kt, gain) if teacher is not None else None
        for i in members:
            moves = games.game_moves(i)
            plies = set(rng.sample(range(1, len(moves)), min(per_game, len(moves) - 1))) if len(moves) > 1 else set()
            s = k_new_state(kt)
            for ply, m in enumerate(moves):
                if ply in plies:
                    n = int(k_legal_list(kt, s, legal))
                    where = np.flatnonzero(legal[:n] == m)
                    if len(where) != 1:
                        raise PriorError(f"game {i} (board {games.board[i]}): placement {m} at ply {ply} is not "
                                         "legal; the data does not replay")
                    if n >= 2:
                        sym = int(s[H_TO_MOVE])
                        if at_position is not None:
                            table.append(at_position.features(s)[sym][legal[:n]])
                            gains.append(gain[sym][legal[:n]])
                            idx.append(rows + np.arange(n, dtype=np.int64))
                            rows += n
                            block.append(rows)
                        else:
                            idx.append(base + sym * kt.nplace + legal[:n].astype(np.int64))
                        label.append(used + int(where[0]))
                        used += n
                        if teach is not None:
                            shares.append(teach(s, legal[:n]))
                        start.append(used)
                k_apply(kt, s, m)
        if progress is not None:
            progress(done + 1, len(by_board))
    if not label:
        raise PriorError("no positions to fit: the picked games have none with two or more legal placements")
    return Positions(np.concatenate(table), np.concatenate(gains), np.array(block, dtype=np.int64),
                     np.concatenate(idx), np.array(start, dtype=np.int64), np.array(label, dtype=np.int64),
                     np.concatenate(shares) if teacher is not None else None)


def search_teacher(spec: str, seed: int) -> Callable[[int, KTables, I64], Teacher]:
    """A teacher from a ``puct`` spec or level with a simulation budget: each board's searcher is seeded by
    ``seed`` and the board's index, so the shares are the same on any machine."""
    parsed = parse_puct(resolve(spec))
    if parsed.budget.seconds > 0 or not parsed.budget.sims:
        raise PriorError(f"teacher {spec!r}: give a simulation budget without a time limit (puct:N), so the "
                         "shares do not depend on the machine's speed")
    params = {**parsed.params, "threads": 1.0, "reuse": 0.0}

    def for_board(board: int, kt: KTables, gain: I64) -> Teacher:
        search = PuctSearch(kt, gain, k_seed(seed * 1_000_003 + board), parsed.budget, params=params)

        def teach(state: U64, legal: I32) -> F64:
            tree = search.search(state)
            where = {int(m): k for k, m in enumerate(legal)}
            out = np.zeros(len(legal), dtype=np.float64)
            for c in children(tree.ti, 0):
                out[where[int(tree.ti[c, F_MOVE])]] = tree.ti[c, F_NVIS]
            total = out.sum()
            if total <= 0:
                raise PriorError(f"teacher {spec!r} visited no placement of a position")
            shares: F64 = out / total
            return shares

        return teach

    return for_board


def _shifted(data: Positions, z_rows: F64) -> tuple[F64, I64, F64, F64]:
    """(each legal row's logit minus its position's highest, rows per position, each position's sum of exp, each
    legal row's exp): the shared steps of a stable softmax per position."""
    z = z_rows[data.idx]
    counts = np.diff(data.start)
    top = np.maximum.reduceat(z, data.start[:-1])
    z = z - np.repeat(top, counts)
    e = np.exp(z)
    return z, counts, np.add.reduceat(e, data.start[:-1]), e


def _log_softmax(data: Positions, z_rows: F64) -> tuple[F64, F64]:
    """(log-likelihood of each position's label, each legal row's probability) for row logits ``z_rows``."""
    z, counts, sums, e = _shifted(data, z_rows)
    return z[data.label] - np.log(sums), e / np.repeat(sums, counts)


def _cross_entropy(data: Positions, z_rows: F64) -> tuple[F64, F64]:
    """(each position's cross-entropy of the targets, each legal row's probability) for row logits ``z_rows``."""
    assert data.target is not None
    z, counts, sums, e = _shifted(data, z_rows)
    logp = z - np.repeat(np.log(sums), counts)
    return -np.add.reduceat(data.target * logp, data.start[:-1]), e / np.repeat(sums, counts)


def nll(w: F64, data: Positions, table: F64) -> tuple[float, F64]:
    """Mean negative log-likelihood of ``table . w`` (plus the ridge) and its gradient; with targets, the mean
    cross-entropy of the targets."""
    rows = len(table)
    n = len(data)
    if data.target is not None:
        ce, p = _cross_entropy(data, table @ w)
        g_rows = np.bincount(data.idx, weights=p - data.target, minlength=rows)
        return float(ce.mean() + L2 * w @ w), table.T @ g_rows / n + 2 * L2 * w
    ll, p = _log_softmax(data, table @ w)
    g_rows = np.bincount(data.idx, weights=p, minlength=rows) - np.bincount(data.idx[data.label], minlength=rows)
    return float(-ll.mean() + L2 * w @ w), table.T @ g_rows / n + 2 * L2 * w


def fit_weights(data: Positions, table: F64 | None = None, max_iter: int = 200) -> F64:
    """The weights of least mean negative log-likelihood (L-BFGS from zero: deterministic)."""
    from scipy.optimize import minimize

    tab = data.table if table is None else table
    res: Any = minimize(nll, np.zeros(tab.shape[1]), args=(data, tab), jac=True, method="L-BFGS-B",
                        options={"maxiter": max_iter})
    return np.asarray(res.x, dtype=np.float64)


def score_rows(data: Positions, w: F64) -> I64:
    """The integer score of every row, as ``core.agents.puct.learned_scores`` computes it per board."""
    raw = raw_scores(data.table, w)
    out = np.empty_like(raw)
    for a, b in zip(data.block[:-1], data.block[1:], strict=True):
        out[a:b] = shifted_scores(raw[a:b])
    return out


@dataclass(frozen=True)
class Figures:
    """How well row logits predict the played placement."""

    log_likelihood: float
    """Mean log-probability of the played placement."""
    top1: float
    top5: float
    """Share of positions whose played placement is among the 1 (5) highest; ties split evenly (expected share
    under a random order among equals, as the search breaks them)."""
    cross_entropy: float | None = None
    """Mean cross-entropy of the teacher's visit shares (positions with a teacher only)."""

    def row(self) -> dict[str, float]:
        out = {"log_likelihood": round(self.log_likelihood, 4), "top1": round(self.top1, 4),
               "top5": round(self.top5, 4)}
        if self.cross_entropy is not None:
            out["cross_entropy"] = round(self.cross_entropy, 4)
        return out


def figures(data: Positions, z_rows: F64) -> Figures:
    ll, _p = _log_softmax(data, z_rows)
    z = z_rows[data.idx]
    counts = np.diff(data.start)
    mine = np.repeat(z[data.label], counts)
    seg = np.repeat(np.arange(len(data)), counts)
    above = np.bincount(seg, weights=(z > mine).astype(np.float64), minlength=len(data))
    ties = np.bincount(seg, weights=(z == mine).astype(np.float64), minlength=len(data))

    def top(k: int) -> float:
        return float(np.mean(np.clip((k - above) / ties, 0.0, 1.0)))

    ce = float(_cross_entropy(data, z_rows)[0].mean()) if data.target is not None else None
    return Figures(float(ll.mean()), top(1), top(5), ce)


def gain_logits(data: Positions, tau: float) -> F64:
    return data.gain.astype(np.float64) / tau


def learned_logits(data: Positions, w: F64) -> F64:
    """The logits the search uses at the default tau: the integer score over SCORE_SCALE."""
    return score_rows(data, w).astype(np.float64) / SCORE_SCALE


def fitted_tau(data: Positions) -> float:
    """The gain prior's temperature of greatest likelihood (of the targets, with a teacher)."""
    beta = fit_weights(data, data.gain.astype(np.float64).reshape(-1, 1))[0]
    if beta <= 0:
        raise PriorError("the gain does not predict the played placements (fitted 1/tau <= 0)")
    return float(1.0 / beta)


def split(games: Games) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """(training games, held-out games) by board index."""
    held = games.board % HOLD_OUT_EVERY == 0
    return ~held, held


def compare(train: Positions, held: Positions, static: F64 | None = None) -> dict[str, Any]:
    """Fit the learned weights and the gain's tau on ``train``; the three priors' figures on ``held`` (and, for the
    position prior's rows, the figures of the static weights ``static`` on the same positions)."""
    w = fit_weights(train)
    tau = fitted_tau(train)
    extra = {}
    if static is not None:
        n = len(PRIOR_FEATURES)
        only = Positions(np.ascontiguousarray(held.table[:, :n]), held.gain, held.block, held.idx, held.start,
                         held.label, held.target)
        extra["learned_static"] = figures(only, learned_logits(only, static))
    return {
        **extra,
        "weights": w,
        "tau": tau,
        "gain_tau_0.5": figures(held, gain_logits(held, 0.5)),
        "gain_tau_fitted": figures(held, gain_logits(held, tau)),
        "learned": figures(held, learned_logits(held, w)),
        "training_positions": len(train),
        "held_out_positions": len(held),
    }


# ------------------------------------------------------------------------------------------ the weights file


def weights_document(w: F64, meta: dict[str, Any], position: bool = False) -> str:
    """The weights file's text: the features by name with their weights, and what made them."""
    names = POSITION_PRIOR_FEATURES if position else PRIOR_FEATURES
    body = {"format": FORMAT, "kind": POSITION_PRIOR_KIND if position else PRIOR_KIND, "scale": SCORE_SCALE,
            "weights": {name: round(float(v), 6) for name, v in zip(names, w, strict=True)}, **meta}
    return json.dumps(body, indent=2) + "\n"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
