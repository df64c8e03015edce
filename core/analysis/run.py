"""Is this board lopsided? Self-play statistics and a verdict that rests on the pie rule.

The raw seat advantage (S1's win rate with the same agent in both seats) grows with
agent strength, so it is reported as information only.  The verdict asks the
pie-rule question instead: is there a first placement after which the game is
close to even?  Every opening gets a short MCTS search (the screen); candidates are
then played out with each agent, chosen by calibrating the screen against the results
so far (:class:`CandidatePicker`), each decided by the SPRT pair (fair / unfair /
undecided at the cap), and the board is ``balanced`` when enough distinct openings
are shown fair.

Budget (why the defaults fit the time goals on 2 cores): a game of ``mcts:1000``
costs about 0.1 s of one core on an idle machine, so each opening is capped at
``games`` (160), a search agent's whole pie phase at five times that (800), its raw
seat-advantage run at 60 games and its mirror probe at 10; the pie phase stops as
soon as ``min_fair_openings`` are shown fair, the SPRT stops an opening after ~100
games when it is near 50% and after ~20-60 when it is clearly one-sided, and
:func:`futile` gives up on openings stuck between.  That is 15-30 s on the 2-core
machine at a normal load and leaves room for a busy one.  Quick mode caps MCTS at 100
simulations and the pie phase at 400 games.
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from core.agents.spec import AgentKind, AgentSpec, parse_agent
from core.analysis.stats import MeanCI, SprtPair, mean_ci, wilson
from core.board.geometry import cell_name
from core.board.model import PIECE_TYPES, Board, Symbol
from core.board.validation import Severity, validate
from core.engine.pieces import placement_table
from core.selfplay.runner import RunCancelled, Runner
from core.selfplay.tasks import BoardSpec, GameResult, GameTask, derive_seed
from core.selfplay.worker import play_games, screen_openings

Verdict = Literal["balanced", "lopsided", "inconclusive"]
OpeningStatus = Literal["fair", "unfair", "undecided"]

FloatGrid = npt.NDArray[np.float64]

# phase keys for derive_seed: each question gets its own stream of seeds
_RAW, _MIRROR, _SCREEN, _PIE = 1, 2, 3, 4
QUICK_SIMS = 100
MAX_GAMES = 100_000
"""Upper limit for ``games`` (every game of a question is planned up front, so a huge cap exhausts memory)."""
SCREEN_TOTAL_SIMS = 400_000
"""Cap on the screen's simulations summed over all openings (the 12x12 default needs 395,200)."""


class AnalysisCancelled(Exception):
    """The caller asked to stop; no partial verdict is given."""


@dataclass
class AnalysisProgress:
    phase: str
    done: int
    total: int
    message: str


@dataclass
class AnalysisConfig:
    """What to play and when to decide.  Thresholds are documented where they are used."""

    agents: list[str] = field(default_factory=lambda: ["greedy", "mcts:1000"])
    games: int = 160
    """Cap on the games spent on one question (one opening, or the raw seat advantage of one agent)."""
    seed: int = 0
    workers: int = 0
    """Worker processes; 0 uses every core."""
    quick: bool = False
    """Smaller budgets (MCTS capped at QUICK_SIMS simulations, fewer games) for a first look in seconds."""
    min_fair_openings: int = 3
    """Distinct openings that must be shown fair for ``balanced``."""
    fair_low: float = 0.4
    fair_high: float = 0.6
    """The fair band for P(S1 wins); the SPRTs test its edges plus/minus ``sprt_margin``."""
    sprt_margin: float = 0.05
    max_candidates: int = 12
    """Openings played out with each agent (chosen by the candidate picker)."""
    futility_games: int = 40
    """Games after which an opening that is clearly not even (but not yet shown unfair) is given up."""
    screen_sims: int = 200
    """Simulations of the short search that estimates every opening in the screen."""
    pie_games: int = 0
    """Cap on a search agent's games over all tested openings; 0 means five times ``games``
    (cheap agents always get ``games`` x ``max_candidates``)."""
    strong_raw_games: int = 60
    """Cap for the raw seat-advantage games of a search agent (cheap agents use ``games``)."""
    mirror_games: int = 40
    """Mirror-probe games per cheap agent (search agents use a quarter, at least 10)."""
    tie_break_warning: float = 0.5
    """Warn when more than this share of games is decided by the last-mover tie rule."""
    mirror_warning: float = 0.5
    """Warn when the mirror probe wins more than this share of its games."""
    min_verdict_games: int = 30
    """Never give a decided verdict from fewer pie games than this."""
    inline: bool = False
    """Play in this process instead of worker processes (tests)."""

    def effective(self) -> AnalysisConfig:
        """The budgets actually used (quick mode shrinks them)."""
        if not self.quick:
            return self
        agents = []
        for text in self.agents:
            spec = parse_agent(text)
            agents.append(spec.with_sims(min(spec.sims, QUICK_SIMS)).text if spec.kind is AgentKind.MCTS else spec.text)
        return replace(
            self, agents=agents, games=min(self.games, 120), max_candidates=min(self.max_candidates, 8),
            screen_sims=min(self.screen_sims, 60), pie_games=min(self.pie_budget, 400),
            strong_raw_games=min(self.strong_raw_games, 20), mirror_games=min(self.mirror_games, 20),
        )

    @property
    def pie_budget(self) -> int:
        return self.pie_games if self.pie_games > 0 else 5 * self.games

    def check(self) -> None:
        if not self.agents:
            raise ValueError("give at least one agent")
        for text in self.agents:
            parse_agent(text)
        if not 10 <= self.games <= MAX_GAMES:
            raise ValueError(f"games must be at least 10 and at most {MAX_GAMES} per question, not {self.games}")
        if not 0.0 < self.fair_low < 0.5 < self.fair_high < 1.0:
            raise ValueError(f"the fair band {self.fair_low}-{self.fair_high} must contain 0.5")
        if not 0.0 < self.sprt_margin < min(self.fair_low, 1.0 - self.fair_high):
            raise ValueError(f"sprt_margin {self.sprt_margin} must be above 0 and keep the tested rates "
                             f"{self.fair_low} - margin and {self.fair_high} + margin within 0..1")
        if self.min_fair_openings < 1:
            raise ValueError("min_fair_openings must be at least 1")
        if self.max_candidates < 1:
            raise ValueError("max_candidates must be at least 1")
        if self.workers < 0:
            raise ValueError("workers must be 0 (all cores) or more")


# -- results ---------------------------------------------------------------------------------
@dataclass
class OpeningResult:
    placement: int
    cells: list[int]
    names: list[str]
    wins: int
    games: int
    status: OpeningStatus
    screen_v: float
    swaps: int = 0
    abandoned: bool = False
    """Left undecided before the cap because it was almost surely not going to be shown fair."""

    @property
    def v(self) -> float:
        return self.wins / self.games if self.games else math.nan

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    def to_json(self) -> dict[str, Any]:
        low, high = self.ci95
        return {"cells": self.names, "v": _r(self.v), "ci95": [_r(low), _r(high)], "games": self.games,
                "status": self.status, "abandoned": self.abandoned, "screen_v": _r(self.screen_v),
                "swap_rate": _r(self.swaps / self.games) if self.games else None}


@dataclass
class PieResult:
    agent: str
    screened: int
    openings: list[OpeningResult] = field(default_factory=list)

    @property
    def tested(self) -> int:
        return len(self.openings)

    @property
    def fair(self) -> list[OpeningResult]:
        return [o for o in self.openings if o.status == "fair"]

    @property
    def value(self) -> float | None:
        played = [o for o in self.openings if o.games]
        return max(min(o.v, 1.0 - o.v) for o in played) if played else None

    @property
    def best(self) -> OpeningResult | None:
        played = [o for o in self.openings if o.games]
        return max(played, key=lambda o: (min(o.v, 1.0 - o.v), -o.placement)) if played else None

    @property
    def games(self) -> int:
        return sum(o.games for o in self.openings)

    @property
    def fair_openings(self) -> list[list[int]]:
        """Cell indices of each opening shown fair."""
        return [o.cells for o in self.fair]

    @property
    def fair_names(self) -> list[list[str]]:
        """Cell names of each opening shown fair."""
        return [o.names for o in self.fair]

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent, "value": _r(self.value), "fair_openings": self.fair_names,
            "tested": self.tested, "screened": self.screened,
            "fair_fraction": _r(len(self.fair) / self.tested) if self.tested else None,
            "not_shown_unfair": sum(o.status != "unfair" for o in self.openings),
            "games": self.games, "openings": [o.to_json() for o in self.openings],
        }


@dataclass
class RawResult:
    """Raw seat advantage and the LITS-specific figures from same-agent self-play without a forced opening."""

    agent: str
    games: int = 0
    s1_wins: int = 0
    sprt: str = "undecided"
    tie_breaks: int = 0
    margins: list[int] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    legal_per_turn: float = math.nan
    runout: dict[str, float] = field(default_factory=dict)
    swaps: int = 0
    swapper_wins: int = 0
    distinct_games: int = 0
    common_openings: list[tuple[list[str], int, int]] = field(default_factory=list)
    """(cells, games, games in which the second player's agent chose to swap)."""
    mirror_games: int = 0
    mirror_full: int = 0
    mirror_wins: int = 0
    mirror_full_wins: int = 0
    """Probe games in which S2 answered every move with its mirror image and won."""

    @property
    def s1_win_rate(self) -> float:
        return self.s1_wins / self.games if self.games else math.nan

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson(self.s1_wins, self.games)

    @property
    def tie_break_share(self) -> float:
        return self.tie_breaks / self.games if self.games else math.nan

    @property
    def margin(self) -> MeanCI:
        return mean_ci([float(m) for m in self.margins])

    @property
    def mean_length(self) -> float:
        return float(np.mean(self.lengths)) if self.lengths else math.nan

    @property
    def mirror_success_rate(self) -> float:
        """Share of probe games in which S2 could answer every move with its mirror image."""
        return self.mirror_full / self.mirror_games if self.mirror_games else math.nan

    @property
    def mirror_win_rate(self) -> float:
        return self.mirror_wins / self.mirror_games if self.mirror_games else math.nan

    def to_json(self) -> dict[str, Any]:
        low, high = self.ci95
        mlow, mhigh = wilson(self.mirror_wins, self.mirror_games)
        return {
            "agent": self.agent, "games": self.games, "s1_win_rate": _r(self.s1_win_rate),
            "ci95": [_r(low), _r(high)], "sprt": self.sprt, "tie_break_share": _r(self.tie_break_share),
            "margins": self.margins, "margin": self.margin.as_dict(), "mean_length": _r(self.mean_length),
            "legal_per_turn": _r(self.legal_per_turn), "type_runout": {k: _r(v) for k, v in self.runout.items()},
            "swap_rate": _r(self.swaps / self.games) if self.games else None,
            "swapper_win_rate": _r(self.swapper_wins / self.swaps) if self.swaps else None,
            "distinct_games": self.distinct_games,
            "common_openings": [{"cells": c, "games": n, "swap_rate": _r(k / n)} for c, n, k in self.common_openings],
            "mirror": {"games": self.mirror_games,
                       "success_rate": _r(self.mirror_success_rate),
                       "win_rate": _r(self.mirror_win_rate), "ci95": [_r(mlow), _r(mhigh)],
                       "full_mirror_win_rate": _r(self.mirror_full_wins / self.mirror_games)
                       if self.mirror_games else None},
        }


@dataclass
class AgentResult:
    agent: str
    verdict: Verdict
    reasons: list[str]
    raw: RawResult
    pie: PieResult

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "reasons": self.reasons, "pie": self.pie.to_json(), "raw": self.raw.to_json()}


@dataclass
class AnalysisReport:
    board_name: str
    size: int
    config: AnalysisConfig
    agent: str
    """The strongest agent, whose results are the verdict."""
    verdict: Verdict
    reasons: list[str]
    warnings: list[str]
    pie: PieResult
    raw: RawResult
    per_agent: dict[str, AgentResult]
    coverage_s1: FloatGrid
    coverage_s2: FloatGrid
    survival: FloatGrid
    """Per cell: share of games in which its symbol stayed uncovered (nan where the cell is empty)."""
    elapsed: float = 0.0
    s1_symbol: str = "O"
    screen: FloatGrid = field(default_factory=lambda: np.zeros(0))
    """Per placement index: the screen's estimate of P(S1 wins | that opening), -1 where illegal
    (for a swap map over every opening; not in the JSON)."""

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON contract (keys verdict, reasons, warnings, pie, raw, per_agent) plus extras."""
        return {
            "verdict": self.verdict, "reasons": self.reasons, "warnings": self.warnings,
            "pie": self.pie.to_json(), "raw": self.raw.to_json(),
            "per_agent": {name: res.to_json() for name, res in self.per_agent.items()},
            "agent": self.agent, "board": self.board_name, "size": self.size, "s1": self.s1_symbol,
            "seed": self.config.seed, "quick": self.config.quick, "elapsed_s": round(self.elapsed, 2),
            "heatmaps": {"coverage_s1": _grid_json(self.coverage_s1), "coverage_s2": _grid_json(self.coverage_s2),
                         "survival": _grid_json(self.survival)},
        }


def _r(x: float | None, digits: int = 4) -> float | None:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return None
    return round(float(x), digits)


def _grid_json(grid: FloatGrid) -> list[list[float | None]]:
    return [[_r(float(v), 3) for v in row] for row in grid]


def pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def ci_pct(low: float, high: float) -> str:
    """An interval the way the reasons print it, e.g. ``[15-33%]``."""
    return f"[{100 * low:.0f}-{100 * high:.0f}%]"


def describe_opening(o: OpeningResult) -> str:
    low, high = o.ci95
    return f"{' '.join(o.names)}, leaves S1 at {pct(o.v)} {ci_pct(low, high)} over {o.games} games"


# -- verdict ---------------------------------------------------------------------------------
def decide(pie: PieResult, cfg: AnalysisConfig) -> tuple[Verdict, list[str]]:
    """The verdict and its reasons in plain words, from the pie analysis alone."""
    band = f"{pct(cfg.fair_low)}-{pct(cfg.fair_high)}"
    reasons: list[str] = []
    if not pie.openings:
        if pie.screened == 0:
            return "inconclusive", ["no opening placement could be tested: the board has no legal first placement"]
        if cfg.games < cfg.min_verdict_games:
            return "inconclusive", [f"no opening was played out: the cap of {cfg.games} games per opening is below "
                                    f"the {cfg.min_verdict_games} games any verdict needs (raise the game budget: "
                                    "--games on the command line, Games in the designer)"]
        return "inconclusive", [f"no opening of the {pie.screened} screened was played out (the game budget "
                                "ran out first)"]
    fair = pie.fair
    best = pie.best
    total = pie.games
    if total < cfg.min_verdict_games:
        return "inconclusive", [f"only {total} games were played in the pie analysis; at least "
                                f"{cfg.min_verdict_games} are needed before any verdict"]
    if len(fair) >= cfg.min_fair_openings:
        reasons.append(f"{len(fair)} distinct first placements keep the game within {band} for S1 "
                       f"(needed {cfg.min_fair_openings}), so the second player faces a real swap decision")
        for o in fair[:3]:
            reasons.append(f"fair opening: {describe_opening(o)}")
        return "balanced", reasons
    confident_outside = all(o.games and (o.ci95[1] < cfg.fair_low or o.ci95[0] > cfg.fair_high)
                            for o in pie.openings)
    all_unfair = all(o.status == "unfair" for o in pie.openings)
    if best is not None and (all_unfair or confident_outside):
        reasons.append(f"no first placement keeps the game within {band}: the best, {describe_opening(best)}")
        chosen = f"chosen as the closest to even in a screen of {pie.screened}"
        if all_unfair:
            reasons.append(f"all {pie.tested} openings played out ({chosen}) were shown unfair, so the player who "
                           "chooses a side after the first placement wins easily")
        else:
            shown_unfair = sum(o.status == "unfair" for o in pie.openings)
            reasons.append(f"{shown_unfair} of {pie.tested} openings played out ({chosen}) were shown unfair and "
                           f"every one's 95% interval lies outside {band}, so the pie value is below "
                           f"{pct(cfg.fair_low)} with confidence: the player who chooses a side after the first "
                           "placement wins easily")
        return "lopsided", reasons
    undecided = [o for o in pie.openings if o.status == "undecided"]
    given_up = sum(o.abandoned for o in undecided)
    detail = f" ({given_up} given up early as clearly not even)" if given_up else ""
    shown = {0: "no opening", 1: "only 1 opening"}.get(len(fair), f"only {len(fair)} openings")
    reasons.append(f"{shown} shown fair within {band} (need {cfg.min_fair_openings}); "
                   f"{len(undecided)} of {pie.tested} tested stayed undecided{detail}, "
                   f"{pie.games} games in all (cap {cfg.games} per opening)")
    if best is not None:
        reasons.append(f"closest to even: {describe_opening(best)}")
    return "inconclusive", reasons


# -- running ---------------------------------------------------------------------------------
ProgressFn = Callable[[AnalysisProgress], None]


class _Session:
    """One analysis run: the pool, the progress reporting and the cancel checks in one place."""

    def __init__(self, board: Board, cfg: AnalysisConfig, progress: ProgressFn | None,
                 cancel: threading.Event | None) -> None:
        self.board = board
        self.spec = BoardSpec.from_board(board)
        self.cfg = cfg
        self.progress = progress
        self.cancel = cancel
        self.runner = Runner(workers=cfg.workers, inline=cfg.inline)
        self.table = placement_table(board.size)

    def report(self, phase: str, done: int, total: int, message: str) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise RunCancelled()
        if self.progress is not None:
            self.progress(AnalysisProgress(phase, done, total, message))

    def names(self, placement: int) -> list[str]:
        return [cell_name(int(c), self.board.size) for c in self.table.cells[placement]]

    def play(self, tasks: Sequence[GameTask], cheap: bool, phase: str, message: str,
             stop: Callable[[int, GameResult], bool] | None = None) -> list[GameResult]:
        """Play tasks in index order; cheap agents go in batches so process traffic does not dominate."""
        batch = 25 if cheap else 1
        chunks = [list(tasks[i:i + batch]) for i in range(0, len(tasks), batch)]
        results: list[GameResult] = []
        total = len(tasks)

        def on_chunk(_i: int, chunk: list[GameResult]) -> bool:
            for r in chunk:
                results.append(r)
                self.report(phase, len(results), total, message)
                if stop is not None and stop(len(results) - 1, r):
                    return True
            return False

        self.runner.run(play_games, chunks, on_chunk, self.cancel)
        return results


def _strength(spec: AgentSpec) -> tuple[int, int]:
    return spec.strength


def analyze(board: Board, config: AnalysisConfig, progress: ProgressFn | None = None,
            cancel: threading.Event | None = None) -> AnalysisReport:
    """Run the whole analysis; raises AnalysisCancelled when ``cancel`` is set (workers are stopped)."""
    config.check()
    cfg = config.effective()
    start = time.monotonic()
    session = _Session(board, cfg, progress, cancel)
    try:
        session.report("start", 0, 1, "starting worker processes and loading the compiled agents")
        session.runner.start(cancel)
        return _analyze(session, start)
    except RunCancelled as exc:
        session.runner.terminate()
        raise AnalysisCancelled("analysis cancelled") from exc
    finally:
        session.runner.terminate()


def _analyze(s: _Session, start: float) -> AnalysisReport:
    cfg = s.cfg
    board = s.board
    specs = sorted((parse_agent(a) for a in dict.fromkeys(cfg.agents)), key=_strength)
    warnings: list[str] = []
    problems = validate(board)
    errors = [p.message for p in problems if p.severity is Severity.ERROR]
    if errors:
        warnings.append(f"the board is not valid for a match ({errors[0]}); figures describe it as it is")

    screen = _screen(s)
    per_agent: dict[str, AgentResult] = {}
    raw_results: dict[str, list[GameResult]] = {}
    for spec in specs:
        raw, games = _raw(s, spec)
        raw_results[spec.text] = games
        _mirror(s, spec, raw)
        pie = _pie(s, spec, screen)
        verdict, reasons = decide(pie, cfg)
        per_agent[spec.text] = AgentResult(spec.text, verdict, reasons, raw, pie)

    main = per_agent[specs[-1].text]
    verdict, reasons = main.verdict, list(main.reasons)
    if len(specs) > 1:
        reasons.append(f"verdict from the strongest agent, {main.agent}")
    warnings += side_warnings(per_agent, main.agent, cfg)
    if not board.params.pie:
        low, high = main.raw.ci95
        warnings.append(f"this board is played without the pie rule, but the verdict assumes the second player "
                        f"may swap; without it S1 simply wins {pct(main.raw.s1_win_rate)} {ci_pct(low, high)} "
                        f"({main.agent}, raw seat advantage)")
    cov1, cov2, surv = _heatmaps(board, raw_results[main.agent])
    s.report("done", 1, 1, f"verdict: {verdict}")
    return AnalysisReport(
        board_name=board.name, size=board.size, config=cfg, agent=main.agent, verdict=verdict, reasons=reasons,
        warnings=warnings, pie=main.pie, raw=main.raw, per_agent=per_agent, coverage_s1=cov1, coverage_s2=cov2,
        survival=surv, elapsed=time.monotonic() - start, s1_symbol=board.params.first.value, screen=screen,
    )


def side_warnings(per_agent: dict[str, AgentResult], strongest: str, cfg: AnalysisConfig) -> list[str]:
    """What a host should know beside the verdict: strength dependence, tie-break games, the mirror."""
    warnings: list[str] = []
    decided = {name: r.verdict for name, r in per_agent.items() if r.verdict != "inconclusive"}
    if len(set(decided.values())) > 1:
        warnings.append("strength-dependent: the verdict differs between agents ("
                        + ", ".join(f"{n}: {v}" for n, v in decided.items())
                        + f"); trust the strongest, {strongest}")
    for name, res in per_agent.items():
        raw = res.raw
        if raw.games and raw.tie_break_share > cfg.tie_break_warning:
            warnings.append(f"{pct(raw.tie_break_share)} of {name} games end level and are decided by the "
                            "last-mover tie rule: symbols matter little on this board")
        # only games in which S2 really mirrored every move speak for the mirror strategy (in the others
        # the mirror image was illegal at some point and S2's agent played on by itself)
        if raw.mirror_games >= 10 and raw.mirror_full_wins / raw.mirror_games > cfg.mirror_warning:
            low, high = wilson(raw.mirror_full_wins, raw.mirror_games)
            warnings.append(f"mirror strategy: answering each {name} move with its 180-degree image wins "
                            f"{pct(raw.mirror_full_wins / raw.mirror_games)} {ci_pct(low, high)} of "
                            f"{raw.mirror_games} games")
    return warnings


SCREEN_TASKS = 16
"""The screen is split into about this many tasks whatever the worker count: each task's search draws
from its own seeded stream, so the split must not depend on ``--workers`` (16 is the split two workers
used to get, which keeps earlier published results)."""


def _screen_list(s: _Session, openings: list[int], sims: int, stage: int, message: str) -> FloatGrid:
    per_task = max(8, len(openings) // SCREEN_TASKS + 1)
    items = [(s.spec, tuple(openings[lo:lo + per_task]), sims, derive_seed(s.cfg.seed, _SCREEN, stage, i))
             for i, lo in enumerate(range(0, len(openings), per_task))]
    parts: list[FloatGrid] = []

    def on(_i: int, vals: FloatGrid) -> bool:
        parts.append(vals)
        s.report("screen", sum(len(v) for v in parts), len(openings), message)
        return False

    s.runner.run(screen_openings, items, on, s.cancel)
    return np.concatenate(parts) if parts else np.zeros(0)


def _screen(s: _Session) -> FloatGrid:
    """Estimated P(S1 wins | opening) for every placement (-1 where illegal), from a short search each."""
    cfg = s.cfg
    count = s.table.count
    # big boards have many more openings: keep the screen's total work near that of the 12x12 default
    sims = max(20, min(cfg.screen_sims, SCREEN_TOTAL_SIMS // max(1, count)))
    return _screen_list(s, list(range(count)), sims, 0,
                        f"screening {count} openings with a {sims}-simulation search each")


PRIOR_SLOPE = 1.7
"""How much P(S1 wins) under ``mcts:1000`` moves per unit of the screen's estimate.

Measured on boards/dense.yaml: 24 random openings, each screened with a 200-simulation
search and played 24 times by ``mcts:1000``; the outcomes spread about 1.7 times as wide
as the screen values (correlation 0.88) and sat about 0.15 lower.
"""
SLOPE_RANGE = (0.5, 4.0)


class CandidatePicker:
    """Chooses the next opening to play out by calibrating the screen against the results so far.

    The screen (a short search per opening) and the playing agent agree well on the order
    of openings but not on the level (a strong S1 gets more out of a good opening and
    less out of a poor one).  So the picker fits ``v = a + b * screen`` to the openings
    already played (weighted by games; with one point the slope is :data:`PRIOR_SLOPE`)
    and next tries the untested opening whose screen value the fit maps closest to 50%.
    """

    def __init__(self, screen: FloatGrid, seed: int) -> None:
        self.screen = screen
        self.legal = [p for p in range(len(screen)) if screen[p] >= 0]
        self.tie = {p: derive_seed(seed, _SCREEN, 99, p) for p in self.legal}
        self.target = 0.5
        self.tested: set[int] = set()
        self.points: list[tuple[float, float, int]] = []

    def next(self) -> int | None:
        pool = [p for p in self.legal if p not in self.tested]
        if not pool:
            return None
        p = min(pool, key=lambda q: (abs(float(self.screen[q]) - self.target), self.tie[q]))
        self.tested.add(p)
        return p

    def feedback(self, p: int, v: float, games: int) -> None:
        """Add an opening's result (share of S1 wins over ``games``) and move the target."""
        if games <= 0 or math.isnan(v):
            return
        self.points.append((float(self.screen[p]), v, games))
        w = np.array([g for _, _, g in self.points], dtype=np.float64)
        x = np.array([s for s, _, _ in self.points])
        y = np.array([v for _, v, _ in self.points])
        mx = float(np.average(x, weights=w))
        my = float(np.average(y, weights=w))
        sxx = float(np.sum(w * (x - mx) ** 2))
        slope = PRIOR_SLOPE
        if len(self.points) >= 2 and sxx > 1e-6:
            # shrink towards the prior while the screen values of the points are close together
            fitted = float(np.sum(w * (x - mx) * (y - my))) / sxx
            strength = sxx / (sxx + float(np.sum(w)) * 0.01)
            slope = strength * fitted + (1 - strength) * PRIOR_SLOPE
        slope = min(max(slope, SLOPE_RANGE[0]), SLOPE_RANGE[1])
        self.target = mx + (0.5 - my) / slope


def _raw(s: _Session, spec: AgentSpec) -> tuple[RawResult, list[GameResult]]:
    cfg = s.cfg
    cap = cfg.games if spec.cheap else min(cfg.games, cfg.strong_raw_games)
    tasks = [GameTask(s.spec, derive_seed(cfg.seed, _RAW, spec.key, i), spec.text, spec.text,
                      pie=s.board.params.pie)
             for i in range(cap)]
    pair = _pair(cfg)

    def track(_i: int, r: GameResult) -> bool:
        pair.update(r.s1_won)  # the SPRT class is information here; all games are kept for the heatmaps
        return False

    res = s.play(tasks, spec.cheap, "raw", f"{spec.text}: raw seat advantage (same agent both seats)", track)
    raw = RawResult(agent=spec.text, games=len(res), s1_wins=sum(r.s1_won for r in res), sprt=pair.status)
    _fill_raw(s, raw, res)
    return raw, res


def _fill_raw(s: _Session, raw: RawResult, res: list[GameResult]) -> None:
    raw.tie_breaks = sum(r.tie_break for r in res)
    raw.margins = [r.s1_score - r.s2_score for r in res]
    raw.lengths = [r.length for r in res]
    turns = sum(r.legal_turns for r in res)
    raw.legal_per_turn = sum(r.legal_sum for r in res) / turns if turns else math.nan
    # a type the board does not supply at all cannot run out; it is left out rather than shown as 100%
    supply = s.board.params.supply
    raw.runout = {t: (sum(r.runout[i] for r in res) / len(res) if res else math.nan)
                  for i, t in enumerate(PIECE_TYPES) if supply[i] > 0}
    raw.swaps = sum(r.swapped for r in res)
    # the swapper takes over S1's seat, so a swapper wins when S1 wins
    raw.swapper_wins = sum(r.swapped and r.s1_won for r in res)
    raw.distinct_games = len({r.moves for r in res})
    openings = Counter(r.moves[0] for r in res if r.moves)
    swaps = Counter(r.moves[0] for r in res if r.moves and r.swapped)
    raw.common_openings = [(s.names(p), n, swaps[p]) for p, n in openings.most_common(3)]


def _mirror(s: _Session, spec: AgentSpec, raw: RawResult) -> None:
    cfg = s.cfg
    n = cfg.mirror_games if spec.cheap else max(10, cfg.mirror_games // 4)
    tasks = [GameTask(s.spec, derive_seed(cfg.seed, _MIRROR, spec.key, i), spec.text, spec.text, mirror=True)
             for i in range(n)]
    res = s.play(tasks, spec.cheap, "mirror", f"{spec.text}: mirror probe (S2 answers with the 180-degree image)")
    raw.mirror_games = len(res)
    raw.mirror_full = sum(r.mirror_all for r in res)
    raw.mirror_wins = sum(not r.s1_won for r in res)
    raw.mirror_full_wins = sum(r.mirror_all and not r.s1_won for r in res)


def futile(wins: int, games: int, cfg: AnalysisConfig) -> bool:
    """Stop playing an opening that will almost surely not be shown fair, to spend the games elsewhere.

    After ``futility_games`` games, an opening whose 95% interval excludes 50% but still reaches
    into the fair band sits where the SPRTs are slowest; it is left undecided.  Openings
    whose interval lies wholly outside the band are played on, because the SPRT will soon
    show them unfair, which the ``lopsided`` verdict needs.  Only the budget is affected:
    "fair" and "unfair" still come from the SPRTs alone.
    """
    if games < cfg.futility_games:
        return False
    low, high = wilson(wins, games)
    excludes_even = low > 0.5 or high < 0.5
    touches_band = high >= cfg.fair_low and low <= cfg.fair_high
    return excludes_even and touches_band


def _pair(cfg: AnalysisConfig) -> SprtPair:
    m = cfg.sprt_margin
    return SprtPair.with_levels(high=(cfg.fair_high - m, cfg.fair_high + m), low=(cfg.fair_low + m, cfg.fair_low - m))


def _pie(s: _Session, spec: AgentSpec, screen: FloatGrid) -> PieResult:
    cfg = s.cfg
    pie = PieResult(agent=spec.text, screened=int(np.sum(screen >= 0)))
    budget = cfg.pie_budget if not spec.cheap else cfg.games * cfg.max_candidates
    picker = CandidatePicker(screen, cfg.seed)
    for rank in range(cfg.max_candidates):
        pick = picker.next()
        if pick is None:
            break
        p = pick
        cap = min(cfg.games, budget - pie.games)
        if cap < cfg.min_verdict_games:
            break
        pair = _pair(cfg)
        tasks = [GameTask(s.spec, derive_seed(cfg.seed, _PIE, spec.key, p, i), spec.text, spec.text, opening=p,
                          pie=s.board.params.pie) for i in range(cap)]
        msg = (f"{spec.text}: opening {rank + 1} of {cfg.max_candidates}, {' '.join(s.names(p))} "
               f"(fair so far: {len(pie.fair)})")

        def decided(_i: int, r: GameResult, pair: SprtPair = pair) -> bool:
            if pair.update(r.s1_won) != "undecided":
                return True
            return futile(pair.successes, pair.trials, cfg)

        res = s.play(tasks, spec.cheap, "pie", msg, decided)
        status: OpeningStatus = {"inside": "fair", "outside": "unfair"}.get(pair.status, "undecided")  # type: ignore[assignment]
        pie.openings.append(OpeningResult(
            placement=p, cells=[int(c) for c in s.table.cells[p]], names=s.names(p),
            wins=sum(r.s1_won for r in res), games=len(res), status=status, screen_v=float(screen[p]),
            swaps=sum(r.swapped for r in res), abandoned=status == "undecided" and len(res) < cap))
        picker.feedback(p, pie.openings[-1].v, len(res))
        if len(pie.fair) >= cfg.min_fair_openings:
            break
    return pie


def _heatmaps(board: Board, games: list[GameResult]) -> tuple[FloatGrid, FloatGrid, FloatGrid]:
    n = board.size
    if not games:
        empty = np.full((n, n), np.nan)
        return empty, empty.copy(), empty.copy()
    cov = np.stack([np.frombuffer(r.coverage, dtype=np.uint8) for r in games])
    cov1 = (cov == 1).mean(axis=0).reshape(n, n)
    cov2 = (cov == 2).mean(axis=0).reshape(n, n)
    has_symbol = np.array([c is not Symbol.EMPTY for c in board.cells])
    surv = np.where(has_symbol, (cov == 0).mean(axis=0), np.nan).reshape(n, n)
    return cov1, cov2, surv
