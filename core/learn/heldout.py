"""Held-out figures of the opening predictor: predicted against measured club S1 rates on boards never trained on.

Boards: the benchmark's ten (the five bundled ones and its five random 12x12 boards) and the held-out random set of
``core.learn.data.heldout_boards``.  Per board, ``near`` openings the model ranks nearest to even (the ones the
analysis would play first) and ``spread`` drawn at random among the rest; each played ``games`` times by club, no swap,
seeds from (seed, board, opening, game) alone, so the figures repeat on any machine and any number of workers.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from random import Random
from typing import Any

import numpy as np
import numpy.typing as npt

from core.agents.value import ValueModel, opening_chances
from core.board.model import Board
from core.learn.data import AGENT, BENCHMARK_RANDOM
from core.selfplay.runner import Runner
from core.selfplay.tasks import BoardSpec, GameResult, GameTask, derive_seed
from core.selfplay.worker import play_games

_PHASE_EVAL = 74
EVEN_BAND = (0.45, 0.55)
TOP = 20


def benchmark_boards(root: Path) -> list[Board]:
    from core.board.boardfile import load_board

    out = []
    for name in ("default", "dense", "sparse", "clustered", "original-10x10"):
        b = load_board(root / "boards" / f"{name}.yaml")
        b.name = name
        out.append(b)
    for seed, pairs in BENCHMARK_RANDOM:
        b = Board.random(12, pairs=pairs, seed=seed)
        b.name = f"random-{seed}-{pairs}p"
        out.append(b)
    return out


@dataclass(frozen=True)
class Measured:
    board: str
    size: int
    opening: int
    predicted: float
    wins: int
    games: int
    top: bool
    """Among the board's TOP openings the model ranks nearest to even."""

    @property
    def rate(self) -> float:
        return self.wins / self.games


def choose_openings(pred: np.ndarray, near: int, spread: int, rng: Random) -> list[int]:
    """``spread`` openings drawn at random (whatever the model says, so any model's figures can use them), then
    the ``near`` the model ranks nearest to even that are not drawn already."""
    drawn = rng.sample(range(len(pred)), min(spread, len(pred)))
    return drawn + [p for p in nearest_even(pred) if p not in drawn][:near]


def nearest_even(pred: np.ndarray) -> list[int]:
    """Every opening, the one predicted nearest to 50% first (ties by placement index)."""
    return sorted(range(len(pred)), key=lambda p: (abs(float(pred[p]) - 0.5), p))


def top_openings(pred: np.ndarray) -> set[int]:
    return set(nearest_even(pred)[:TOP])


Known = dict[str, int]
"""Club's S1 wins per ``board|opening|seed|games`` already measured: a game's seed depends on those alone, so a
measurement made for one model serves every other model that picks the same opening."""


def key_of(board: Board, opening: int, seed: int, games: int, agent: str = AGENT) -> str:
    cells = "".join(s.value for s in board.cells)
    return f"{board.size}:{cells}|{opening}|{seed}|{games}" + ("" if agent == AGENT else f"|{agent}")


def measure(model: ValueModel, boards: list[Board], games: int, seed: int, near: int = 5, spread: int = 5,
            workers: int = 0, executor: cf.Executor | None = None, cancel: threading.Event | None = None,
            progress: Callable[[int, int], None] | None = None, known: Known | None = None,
            inline: bool = False, agent: str = AGENT, play_new: bool = True) -> list[Measured]:
    """Measure the chosen openings of each board (those in ``known`` are not played again; new ones are added
    to it; with ``play_new`` False none are played, so models are compared on the same measured openings); the
    rows are every opening of these boards measured so far at this seed and game count, each with this model's
    prediction, so openings measured for another model count too."""
    known = {} if known is None else known
    preds = [opening_chances(board, model) for board in boards]
    plan = [(bi, p) for bi, board in enumerate(boards)
            for p in choose_openings(preds[bi], near, spread, Random(derive_seed(seed, _PHASE_EVAL, bi)))]
    todo = [(bi, p) for bi, p in plan if play_new and key_of(boards[bi], p, seed, games, agent) not in known]
    items = [[GameTask(BoardSpec.from_board(boards[bi]), derive_seed(seed, _PHASE_EVAL, p, g), agent, agent,
                       opening=p) for g in range(games)] for bi, p in todo]

    def on(j: int, res: list[GameResult]) -> bool:
        bi, p = todo[j]
        known[key_of(boards[bi], p, seed, games, agent)] = sum(r.winner == 1 for r in res)
        if progress is not None:
            progress(len(plan) - len(todo) + j + 1, len(plan))
        return False

    if items:
        with Runner(workers=workers, executor=executor, inline=inline) as runner:
            runner.start(cancel)
            runner.run(play_games, items, on, cancel)
    rows = []
    for bi, board in enumerate(boards):
        top = top_openings(preds[bi])
        for p in range(len(preds[bi])):
            wins = known.get(key_of(board, p, seed, games, agent))
            if wins is not None:
                rows.append(Measured(board.name, board.size, p, float(preds[bi][p]), wins, games, p in top))
    return rows


def correlation(xs: list[float], ys: list[float]) -> float | None:
    if len(xs) < 3:
        return None
    x, y = np.array(xs), np.array(ys)
    if x.std() == 0 or y.std() == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def figures(rows: list[Measured]) -> dict[str, Any]:
    """Correlation (all, and per size), a calibration table in tenths, and how the near-even ones rank."""
    def corr(sel: list[Measured]) -> float | None:
        c = correlation([r.predicted for r in sel], [r.rate for r in sel])
        return None if c is None else round(c, 3)

    table = []
    for lo in np.arange(0.0, 1.0, 0.1):
        sel = [r for r in rows if lo <= r.predicted < lo + 0.1 or (lo >= 0.9 and r.predicted == 1.0)]
        if sel:
            games = sum(r.games for r in sel)
            table.append({"predicted": f"{lo:.1f}-{lo + 0.1:.1f}", "openings": len(sel),
                          "mean_predicted": round(float(np.mean([r.predicted for r in sel])), 3),
                          "measured": round(sum(r.wins for r in sel) / games, 3), "games": games})
    even = [r for r in rows if EVEN_BAND[0] <= r.rate <= EVEN_BAND[1]]
    sizes = sorted({r.size for r in rows})
    se = [math.sqrt(max(r.rate * (1 - r.rate), 1e-9) / r.games) for r in rows]
    return {
        "openings": len(rows), "boards": len({r.board for r in rows}),
        "games_per_opening": rows[0].games if rows else 0,
        "correlation": corr(rows), "correlation_by_size": {str(n): corr([r for r in rows if r.size == n])
                                                           for n in sizes},
        "mean_abs_error": round(float(np.mean([abs(r.predicted - r.rate) for r in rows])), 4) if rows else None,
        "mean_sampling_se": round(float(np.mean(se)), 4) if rows else None,
        "calibration": table,
        "measured_even": len(even), "measured_even_in_top20": sum(r.top for r in even),
    }



_PHASE_BASELINE = 75
NEAR_EVEN = (0.25, 0.75)
"""The openings whose measured rate lies here are those an analysis's candidates come from: how well a predictor
orders them is what saves deciding games (over all openings, far-off ones make every predictor look good)."""


def baseline_values(boards: list[Board], rows: list[Measured], seed: int, screen_sims: Callable[[int], int],
                    refine_sims: int) -> tuple[list[float], list[float]]:
    """The analysis's own cheap predictors for each measured opening: the screen's short search (``screen_sims``
    of the board's number of placements, as the analysis sizes it) and the refinement's deeper one, each with a
    seed from (seed, opening) alone."""
    from core.engine.pieces import placement_table
    from core.selfplay.game import refine, screen

    screened: dict[tuple[str, int], float] = {}
    refined: dict[tuple[str, int], float] = {}
    for board in boards:
        openings = [r.opening for r in rows if r.board == board.name]
        if not openings:
            continue
        spec = BoardSpec.from_board(board)
        sims = screen_sims(placement_table(board.size).count)
        for p in openings:  # one screen call per opening: its seed covers the whole call
            screened[board.name, p] = float(screen(spec, (p,), sims, derive_seed(seed, _PHASE_BASELINE, 0, p))[0])
        values = refine(spec, tuple((p, derive_seed(seed, _PHASE_BASELINE, 1, p)) for p in openings), refine_sims)
        refined.update(((board.name, p), float(v)) for p, v in zip(openings, values, strict=True))
    return [screened[r.board, r.opening] for r in rows], [refined[r.board, r.opening] for r in rows]


def compare_predictors(rows: list[Measured], values: dict[str, list[float]]) -> dict[str, dict[str, float | None]]:
    """Per predictor (values in the order of ``rows``): its correlation with the measured rate over all openings,
    within boards (each board's mean taken out, as a candidate order sees them) and within boards over the openings
    measured in :data:`NEAR_EVEN`."""
    rates = np.array([r.rate for r in rows])
    boards = [r.board for r in rows]
    near = np.array([NEAR_EVEN[0] <= r.rate <= NEAR_EVEN[1] for r in rows])

    def within(x: npt.NDArray[np.float64], keep: npt.NDArray[np.bool_]) -> float | None:
        dx: list[float] = []
        dy: list[float] = []
        for name in dict.fromkeys(boards):
            sel = np.array([b == name for b in boards]) & keep
            if sel.sum() >= 2:
                dx += list(x[sel] - x[sel].mean())
                dy += list(rates[sel] - rates[sel].mean())
        c = correlation(dx, dy)
        return None if c is None else round(c, 3)

    out: dict[str, dict[str, float | None]] = {}
    for name, xs in values.items():
        x = np.array(xs, dtype=np.float64)
        c = correlation(list(x), list(rates))
        out[name] = {"all": None if c is None else round(c, 3),
                     "within_board": within(x, np.ones(len(rows), dtype=bool)),
                     "near_even_within_board": within(x, near)}
    return out
