"""The generator's evaluators: a cheap screen for every candidate and the full analysis for the finalists.

An evaluator is any callable ``Board -> Figures``.  The two here are frozen dataclasses so they pickle to worker
processes (and dask workers), and each seeds its games from the master seed and the board's own grid, so the
figures for a board never depend on which worker computed them or when.  Tests pass plain scoring functions
of known optimum instead.

- :class:`ScreenEvaluator`: a greedy-only analysis with small budgets (a 30-simulation opening screen, 100 games
  per question, 8 candidate openings), played inside one worker: about half a second of one core on 12x12.
- :class:`AnalysisEvaluator`: ``core.analysis`` at the deciding level (``greedy`` beside it, as ``lits analyze``
  does, so strength dependence is reported), also inside one worker: finalists are judged side by side.

Levels: an agent spec (``greedy``, ``mcts:N``, ... as ``lits analyze --agent`` takes) or, once
``core.agents.levels`` exists, a named level (``casual``, ``club``, ``expert``), looked up at run time.
"""

from __future__ import annotations

import math
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from core.agents.spec import SPEC_HELP, AgentSpecError, parse_agent
from core.analysis.results import AnalysisReport
from core.analysis.run import AnalysisConfig, analyze
from core.board.model import Board
from core.generate.figures import Figures, play_score
from core.generate.layout import grid_key, layout_of, pairs_of
from core.selfplay.tasks import derive_seed

Evaluator = Callable[[Board], Figures]

_SCREEN_KEY, _JUDGE_KEY = 11, 12
DEFAULT_LEVEL = AnalysisConfig().agents[-1]
"""The agent that decides ``lits analyze`` by default decides here too."""


class LevelError(ValueError):
    """A level that is neither an agent spec nor a named level; the message lists what is accepted."""


def accepted_levels_help() -> str:
    return f"an agent spec or a level: {SPEC_HELP.removeprefix('agent specs: ')}"


def resolve_level(text: str) -> str:
    """The agent spec text of a level: ``parse_agent`` reads agent specs and the named levels alike."""
    try:
        return parse_agent(text.strip().lower()).text
    except AgentSpecError:
        raise LevelError(f"unknown level {text!r}: give {accepted_levels_help()}") from None


def board_seed(master: int, key: int, board: Board) -> int:
    """A board's own seed: the same board gets the same games whichever worker evaluates it."""
    grid = grid_key(layout_of(board)) if board.is_antisymmetric() else "".join(s.value for s in board.cells)
    return derive_seed(master, key, zlib.crc32(grid.encode()), board.size)


def figures_from_report(report: AnalysisReport, board: Board, seconds: float, keep_analysis: bool) -> Figures:
    """The documented score's inputs, read from an analysis of ``board``."""
    pie, raw = report.pie, report.raw
    spread = float(np.std(raw.margins)) if raw.margins else math.nan
    mirror = raw.mirror_full_wins / raw.mirror_games if raw.mirror_games else math.nan
    needed = report.config.min_fair_openings
    score = play_score(len(pie.fair), needed, pie.value, raw.tie_break_share, spread, mirror)
    games = sum(r.pie.games + r.raw.games + r.raw.mirror_games for r in report.per_agent.values())
    analysis = None
    if keep_analysis:
        analysis = report.to_json()
        analysis.pop("heatmaps", None)
    return Figures(
        score=score, pairs=pairs_of(layout_of(board)) if board.is_antisymmetric() else 0,
        verdict=report.verdict, level=report.agent, fair_openings=pie.fair_names, tested=pie.tested,
        pie_value=pie.value, tie_break_share=raw.tie_break_share if raw.games else None,
        margin_spread=None if math.isnan(spread) else spread, mirror_win_rate=None if math.isnan(mirror) else mirror,
        warnings=list(report.warnings), reasons=list(report.reasons), games=games, seconds=seconds,
        analysis=analysis,
    )


@dataclass(frozen=True)
class ScreenEvaluator:
    """The cheap filter: a small greedy-only analysis in this process (the generator runs it inside a worker)."""

    seed: int = 0
    screen_sims: int = 30
    games: int = 100
    candidates: int = 8
    mirror_games: int = 20

    def config(self, board: Board) -> AnalysisConfig:
        return AnalysisConfig(agents=["greedy"], seed=board_seed(self.seed, _SCREEN_KEY, board), inline=True,
                              games=self.games, screen_sims=self.screen_sims, max_candidates=self.candidates,
                              mirror_games=self.mirror_games)

    def __call__(self, board: Board) -> Figures:
        start = time.monotonic()
        report = analyze(board, self.config(board))
        return figures_from_report(report, board, time.monotonic() - start, keep_analysis=False)


@dataclass(frozen=True)
class AnalysisEvaluator:
    """The full analysis at the deciding level (``greedy`` beside it unless the level is a cheap agent)."""

    level: str = DEFAULT_LEVEL
    seed: int = 0
    games: int = AnalysisConfig().games
    inline: bool = True
    """Play inside the calling process: the generator judges several finalists at once, one per worker."""
    workers: int = 1

    def agents(self) -> list[str]:
        spec = parse_agent(self.level)
        return [spec.text] if spec.cheap else ["greedy", spec.text]

    def config(self, board: Board) -> AnalysisConfig:
        return AnalysisConfig(agents=self.agents(), seed=board_seed(self.seed, _JUDGE_KEY, board), games=self.games,
                              inline=self.inline, workers=self.workers)

    def __call__(self, board: Board) -> Figures:
        start = time.monotonic()
        report = analyze(board, self.config(board))
        return figures_from_report(report, board, time.monotonic() - start, keep_analysis=True)
