"""What an analysis found: per-opening, pie, raw seat-advantage and per-agent results, and the whole report.

Each result type gives its 95% interval beside every rate and its own part of the JSON
contract of ``lits analyze --json``; the small text helpers here word rates and openings
the same way in the verdict, the command line and the Markdown report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from core.analysis.config import FAIR_BAND, AnalysisConfig
from core.analysis.stats import MeanCI, mean_ci, wilson

Verdict = Literal["balanced", "lopsided", "inconclusive"]
OpeningStatus = Literal["fair", "unfair", "undecided"]

FloatGrid = npt.NDArray[np.float64]


class WinRate:
    """S1's win rate over ``games`` games and its 95% Wilson interval, for the results that count ``wins``."""

    wins: int
    games: int

    @property
    def v(self) -> float:
        return self.wins / self.games if self.games else math.nan

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)


@dataclass
class CheckResult(WinRate):
    """The cross-check of one opening the deciding agent showed fair: another agent's games from it."""

    agent: str
    wins: int
    games: int
    agrees: bool
    """The check does not show the opening one-sided (nor could its remaining games have)."""
    complete: bool = True
    """False when the time budget ended the check before its outcome was certain (then it does not agree)."""

    def words(self) -> str:
        """``mcts:8000 check 55% [40-69%] over 40 games``."""
        if not self.games:
            return f"{self.agent} check not played (your time limit came first)"
        low, high = self.ci95
        unfinished = ", cut short by your time limit" if not self.complete else ""
        return f"{self.agent} check {pct(self.v)} {ci_pct(low, high)} over {self.games} games{unfinished}"

    def to_json(self) -> dict[str, Any]:
        low, high = self.ci95
        return {"agent": self.agent, "games": self.games, "s1_wins": self.wins, "v": _r(self.v),
                "ci95": [_r(low), _r(high)], "agrees": self.agrees, "complete": self.complete}


@dataclass
class OpeningResult(WinRate):
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
    check: CheckResult | None = None
    """The cross-check of an opening the deciding agent showed fair (its status is "fair" only if it agrees)."""
    refined_v: float | None = None
    """S1's share in the deeper search that refined the screen before the pick (None: not refined), kept so a
    reader can see what the candidate order was based on."""

    @property
    def disputed(self) -> bool:
        """The deciding agent showed it fair, the cross-check did not confirm it."""
        return self.check is not None and not self.check.agrees

    @property
    def status_words(self) -> str:
        """The status as the tables print it: ``fair``, ``undecided (given up)``, ``undecided (disputed)``."""
        if self.disputed:
            return f"{self.status} (disputed)"
        return self.status + (" (given up)" if self.abandoned else "")

    def to_json(self) -> dict[str, Any]:
        low, high = self.ci95
        return {"cells": self.names, "v": _r(self.v), "ci95": [_r(low), _r(high)], "games": self.games,
                "status": self.status, "abandoned": self.abandoned, "screen_v": _r(self.screen_v),
                "refined_v": _r(self.refined_v),
                "swap_rate": _r(self.swaps / self.games) if self.games else None,
                "check": self.check.to_json() if self.check is not None else None}


@dataclass
class PieResult:
    agent: str
    screened: int
    openings: list[OpeningResult] = field(default_factory=list)
    check_agent: str = ""
    """The agent that cross-checked the openings this agent showed fair ("" = none)."""
    check_rule: str = ""
    """The check's sequential test ("standard" or "firm": ``core.analysis.config.CHECK_RULES``; "" = none)."""
    check_limit: int = 0
    """Most games the check played per opening (its test's last game; 0 = no check)."""

    @property
    def disputed(self) -> list[OpeningResult]:
        return [o for o in self.openings if o.disputed]

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
            "check_agent": self.check_agent or None, "check_rule": self.check_rule or None,
            "check_limit": self.check_limit or None, "disputed": len(self.disputed),
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


@dataclass(frozen=True)
class BudgetRecord:
    """How much of the planned work a run did, and whether the host's time cap cut it (then, and only then, the
    result depends on the machine's speed and load)."""

    effort: str = "custom"
    time_cap: float = 0.0
    stopped_by_time: bool = False
    games_done: int = 0
    games_planned: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"effort": self.effort, "time_cap": self.time_cap, "stopped_by_time": self.stopped_by_time,
                "games_done": self.games_done, "games_planned": self.games_planned}

    def words(self) -> str:
        """The plain sentence a cut run carries ("" when the planned work was done)."""
        if not self.stopped_by_time:
            return ""
        return (f"stopped by your time limit ({self.time_cap:g} s) after {self.games_done} of at most "
                f"{self.games_planned} planned games; this result depends on the machine's speed; run without "
                "--time to reproduce it")


@dataclass
class AnalysisReport:
    board_name: str
    size: int
    config: AnalysisConfig
    agent: str
    """The deciding agent (``AnalysisConfig.decider``), whose games give every opening's status and the verdict."""
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
    budget: BudgetRecord = field(default_factory=BudgetRecord)
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
            "agent": self.agent, "deciding_agent": self.agent, "board": self.board_name, "size": self.size,
            "s1": self.s1_symbol,
            "seed": self.config.seed, "quick": self.config.quick,
            "time_budget_s": self.config.time_budget or None, "elapsed_s": round(self.elapsed, 2),
            "effort": self.budget.effort, "budget": self.budget.to_json(),
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
    """A share as a whole percentage; "n/a" for a share of nothing (never "nan%")."""
    if x is None or math.isnan(x):
        return "n/a"
    return f"{100 * x:.0f}%"


# -- reading a report that may be the dataclasses or their to_json() dict -------------------------
def get_field(obj: Any, name: str, default: Any = None) -> Any:
    """Read a report field from the dataclasses above or from a plain dict (a loaded JSON report)."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def as_number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


@dataclass
class OpeningView:
    """One first placement that was played out, as the charts and the panel show it."""

    cells: list[str]
    rate: float
    ci: tuple[float, float]
    games: int
    status: str
    check: str = ""
    """The cross-check in words (``mcts:8000 check 55% [40-69%] over 40 games: agrees``), "" when none ran."""
    disputed: bool = False
    """The deciding agent showed it fair and the cross-check did not confirm it."""

    @property
    def label(self) -> str:
        return " ".join(self.cells)


def check_words(check: Any) -> str:
    """A cross-check (a :class:`CheckResult` or its JSON) in words, with whether it confirmed the opening."""
    if check is None:
        return ""
    games = int(get_field(check, "games", 0) or 0)
    wins = int(get_field(check, "s1_wins", get_field(check, "wins", 0)) or 0)
    agent = str(get_field(check, "agent", "") or "")
    if not games or not agent:
        return ""
    result = CheckResult(agent, wins, games, bool(get_field(check, "agrees", False)),
                         bool(get_field(check, "complete", True)))
    return f"{result.words()}: {'agrees' if result.agrees else 'disputed, so not counted fair'}"


def openings(report: Any) -> list[OpeningView]:
    """The tested openings with a result, closest to even first."""
    out: list[OpeningView] = []
    for op in get_field(get_field(report, "pie"), "openings", None) or []:
        games = int(get_field(op, "games", 0) or 0)
        rate = as_number(get_field(op, "v"))
        if not games or rate is None:
            continue
        ci = get_field(op, "ci95") or (rate, rate)
        names = get_field(op, "names") or get_field(op, "cells") or []
        check = get_field(op, "check")
        out.append(OpeningView([str(n) for n in names], rate, (float(ci[0]), float(ci[1])), games,
                               str(get_field(op, "status", "undecided")), check_words(check),
                               check is not None and not get_field(check, "agrees", False)))
    out.sort(key=lambda o: abs(o.rate - 0.5))
    return out


def raw_rate(report: Any) -> tuple[float, tuple[float, float] | None, int] | None:
    """The first mover's no-swap rate, its 95% interval and games (None when no games were reported)."""
    raw = get_field(report, "raw")
    rate = as_number(get_field(raw, "s1_win_rate"))
    if rate is None:
        return None
    ci = get_field(raw, "ci95")
    interval = (float(ci[0]), float(ci[1])) if ci is not None and len(ci) == 2 else None
    return rate, interval, int(get_field(raw, "games", 0) or 0)


def fair_band(report: Any) -> tuple[float, float]:
    """The band the report was judged against (the default band for a report without its config)."""
    cfg = get_field(report, "config")
    low, high = as_number(get_field(cfg, "fair_low")), as_number(get_field(cfg, "fair_high"))
    return (low, high) if low is not None and high is not None else FAIR_BAND


def band_text(band: tuple[float, float] = FAIR_BAND) -> str:
    """``40-60%``: the fair band in words."""
    return f"{100 * band[0]:.0f}-{pct(band[1])}"


def ci_pct(low: float, high: float) -> str:
    """An interval the way the reasons print it, e.g. ``[15-33%]``."""
    return f"[{100 * low:.0f}-{100 * high:.0f}%]"


def describe_opening(o: OpeningResult) -> str:
    low, high = o.ci95
    check = f"; {o.check.words()}" if o.check is not None else ""
    return f"{' '.join(o.names)}, leaves S1 at {pct(o.v)} {ci_pct(low, high)} over {o.games} games{check}"
