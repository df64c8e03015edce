"""The generator's evaluators: a cheap screen for every candidate and the full analysis for the finalists.

An evaluator is any callable ``Board -> Figures``.  The two here are frozen dataclasses so they pickle to worker
processes (and dask workers), and each seeds its games from the master seed and the board's own grid, so the
figures for a board never depend on which worker computed them or when.  Tests pass plain scoring functions
of known optimum instead.

- :class:`ScreenEvaluator`: a greedy-only analysis with small budgets (a 30-simulation opening screen, 100 games
  per question, 8 candidate openings), played inside one worker: about half a second of one core on 12x12.
- :class:`AnalysisEvaluator`: ``core.analysis`` at the deciding level (``greedy`` beside it, as ``lits analyze``
  does, so strength dependence is reported), also inside one worker: finalists are judged side by side.  A timed
  run gives each finalist a time budget (:meth:`AnalysisEvaluator.timed`) and first measures the level's cost
  with :class:`LevelProbe` (:meth:`AnalysisEvaluator.probe`).

Levels: an agent spec (``greedy``, ``mcts:N``, ... as ``lits analyze --agent`` takes) or, once
``core.agents.levels`` exists, a named level (``casual``, ``club``, ``expert``), looked up at run time.
"""

from __future__ import annotations

import math
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from core.agents.spec import parse_agent
from core.analysis.config import MIN_TIME, STANDARD_CHECK, TIME_SIDE_SHARE
from core.analysis.results import AnalysisReport
from core.analysis.run import AnalysisConfig, analyze
from core.analysis.stats import pair_expected_remaining
from core.analysis.verdict import sprt_pair
from core.board.model import Board
from core.generate.config import LevelError as LevelError
from core.generate.config import accepted_levels_help as accepted_levels_help
from core.generate.config import resolve_level as resolve_level
from core.generate.figures import Figures, play_score
from core.generate.layout import grid_key, layout_of, pairs_of
from core.generate.plan import ProbeResult
from core.selfplay.tasks import BoardSpec, GameTask, derive_seed
from core.selfplay.worker import play_games

Evaluator = Callable[[Board], Figures]

_SCREEN_KEY, _JUDGE_KEY, _PROBE_KEY = 11, 12, 13
CHECK_SHARE = 0.6
"""Share of its most games a cross-check plays on average for an opening at 50-60% for the check agent (its
sequential test: 28-37 of 60, ``core.analysis.config.CHECK_GAMES``)."""
DEFAULT_LEVEL = AnalysisConfig().agents[-1]
"""The agent that decides ``lits analyze`` by default decides here too."""


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
        # no cross-check: the screen only ranks candidates, and a strong check per fair opening would cost more
        # than the whole greedy screen (the finalists' analysis checks as ``lits analyze`` does)
        return AnalysisConfig(agents=["greedy"], seed=board_seed(self.seed, _SCREEN_KEY, board), inline=True,
                              games=self.games, screen_sims=self.screen_sims, max_candidates=self.candidates,
                              mirror_games=self.mirror_games, check_agent="")

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
    time_budget: float = 0.0
    """Seconds each board's analysis may take (``AnalysisConfig.time_budget``); 0 leaves the game caps in charge."""

    def agents(self) -> list[str]:
        spec = parse_agent(self.level)
        return [spec.text] if spec.cheap else ["greedy", spec.text]

    def config(self, board: Board) -> AnalysisConfig:
        # the standard check whatever a finalist's budget: the generator plans each finalist's games for it
        # (check_games_needed); its published figures hold for that check
        return AnalysisConfig(agents=self.agents(), seed=board_seed(self.seed, _JUDGE_KEY, board), games=self.games,
                              inline=self.inline, workers=self.workers, time_budget=self.time_budget,
                              check_rule=STANDARD_CHECK.name)

    def timed(self, seconds: float) -> AnalysisEvaluator:
        """The same judge with a time budget per board (never below what the analysis accepts)."""
        return replace(self, time_budget=max(MIN_TIME, seconds))

    def probe(self, games: int) -> LevelProbe:
        return LevelProbe(self, games)

    def games_needed(self) -> float:
        """Level games the quickest decided ``balanced`` verdict takes: the openings it needs shown fair, each at
        the SPRTs' expected games for an opening at exactly 50%, and the share a timed analysis leaves to the
        seat-advantage and mirror games."""
        cfg = AnalysisConfig(agents=self.agents(), games=self.games)
        per_opening = pair_expected_remaining(sprt_pair(cfg), 0.5)
        return cfg.min_fair_openings * per_opening / (1.0 - TIME_SIDE_SHARE)

    def check_games_needed(self) -> float:
        """One judge's games of the quickest ``balanced`` verdict: one check per opening it needs shown fair, each
        stopped by its sequential test (about 30-37 of ``check_games``)."""
        cfg = AnalysisConfig(agents=self.agents(), games=self.games)
        return cfg.min_fair_openings * CHECK_SHARE * cfg.check_games if cfg.checker else 0.0

    def __call__(self, board: Board) -> Figures:
        start = time.monotonic()
        report = analyze(board, self.config(board))
        return figures_from_report(report, board, time.monotonic() - start, keep_analysis=True)


@dataclass(frozen=True)
class LevelProbe:
    """Measures, inside one worker, what a finalist's analysis at the judge's level costs here and now: ``games``
    timed games of the level, one game of the cross-check agent, then its fixed part (the analysis with the weaker
    agent only: opening screen, ``greedy`` games).  The generator runs one per worker at once, so the machine's
    load is in the figures.  Every part is measured even when the games alone show the budget is too short: a
    refusal must name the budget that really does (a probe cut short named a lower bound, and each run with the
    budget it named was refused again with a larger one)."""

    judge: AnalysisEvaluator
    games: int

    def __call__(self, board: Board) -> ProbeResult:
        spec = parse_agent(self.judge.level)
        base = replace(self.judge, time_budget=0.0)
        needed = base.games_needed()
        spec_text = spec.fixed_work().text  # timed as the analysis plays it
        tasks = [GameTask(BoardSpec.from_board(board), derive_seed(base.seed, _PROBE_KEY, i), spec_text, spec_text,
                          pie=board.params.pie) for i in range(max(1, self.games))]
        start = time.monotonic()
        play_games(tasks)
        played = len(tasks)
        per_game = (time.monotonic() - start) / played
        for check in base.config(board).checkers:  # each judge's games, counted in games of the level
            start = time.monotonic()
            seed = derive_seed(base.seed, _PROBE_KEY, 1 << 20)
            play_games([GameTask(BoardSpec.from_board(board), seed, check, check)])
            needed += base.check_games_needed() * (time.monotonic() - start) / max(per_game, 1e-9)
        agents = [spec.text] if spec.cheap else ["greedy"]
        cfg = AnalysisConfig(agents=agents, seed=board_seed(base.seed, _PROBE_KEY, board), games=base.games,
                             inline=True, workers=1, check_agent="")
        start = time.monotonic()
        analyze(board, cfg)
        overhead = time.monotonic() - start
        return ProbeResult(overhead=overhead, game_seconds=per_game, games=played, games_needed=needed,
                           min_budget=MIN_TIME)
