"""What an analysis found: per-opening, pie, raw seat-advantage and per-agent results, and the whole report.

These frozen records are the one shape every reader uses (the command line, the Markdown report, the charts, the
designer).  ``to_json`` and ``from_json`` are the only place that maps them to the published keys of
``lits analyze --json`` (for example an opening's cell indices ``cells`` are published as cell names under
``"cells"``, and ``wins`` as ``"s1_wins"``); the JSON carries a ``schema`` number and, beside the published keys,
the counts a report needs to be read back whole, so ``from_json(to_json(r))`` gives ``r`` again.  Each result
gives its 95% interval beside every rate; the small text helpers here word rates and openings the same way in the
verdict, the command line and the Markdown report.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import enum
import json
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol, TypeVar, cast

import numpy as np
import numpy.typing as npt

from core.analysis.config import FAIR_BAND, AnalysisConfig, AnalysisProgress, EffortChoice
from core.analysis.stats import MeanCI, mean_ci, wilson
from core.board.geometry import parse_cell
from core.board.model import Board

Verdict = Literal["balanced", "lopsided", "inconclusive"]
OpeningStatus = Literal["fair", "unfair", "undecided"]
VERDICTS: tuple[Verdict, ...] = ("balanced", "lopsided", "inconclusive")
STATUSES: tuple[OpeningStatus, ...] = ("fair", "unfair", "undecided")
EFFORTS = ("quick", "standard", "thorough", "custom")
"""The work budgets a run may be given (:class:`BudgetRecord`); "custom" is any hand-set caps or time."""

SCHEMA = 2
"""Version of the JSON a report is written as.  1 is the JSON before the number was written (the published keys
only; it is read with the counts worked out from the published rates).  A newer number than this is refused."""

FloatGrid = npt.NDArray[np.float64]
JsonDict = dict[str, Any]


class ReportFormatError(ValueError):
    """A report's JSON is not one this version can read; the message names the key and what is wrong."""


# -- value equality: numpy grids and "no data" (nan) compare by value -----------------------------------------
def _same(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
                and bool(np.array_equal(a, b, equal_nan=True)))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


class _Record:
    """Equality by value for the frozen records: grids compare element-wise and nan (no data) equals nan, so a
    report read back from its JSON equals the one that was written."""

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name))
                   for f in dataclasses.fields(cast(Any, self)) if f.compare)

    __hash__ = None  # type: ignore[assignment]  # records hold lists and grids: not hashable

    def _freeze(self, **values: object) -> None:
        """Store normalised values on a frozen record (only from ``__post_init__``)."""
        for name, value in values.items():
            object.__setattr__(self, name, value)


# -- reading JSON with messages that name the key ----------------------------------------------------------------
T = TypeVar("T")


class _Reader:
    """One JSON object of a report, read key by key; every error names the key's path."""

    def __init__(self, data: object, path: str) -> None:
        if not isinstance(data, dict):
            raise ReportFormatError(f"{path or 'the report'}: expected an object, got {_kind(data)}")
        self.data: dict[str, Any] = data
        self.path = path

    def _where(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def get(self, key: str, kind: type[T] | tuple[type, ...], default: T | None = None) -> T:
        value = self.data.get(key)
        if value is None:
            if default is None:
                raise ReportFormatError(f"{self._where(key)}: missing")
            return default
        if isinstance(value, bool) and kind in (int, float):
            raise ReportFormatError(f"{self._where(key)}: expected a number, got {_kind(value)}")
        if kind is float and isinstance(value, int):
            return cast(T, float(value))
        if not isinstance(value, kind):
            raise ReportFormatError(f"{self._where(key)}: expected {_kind_name(kind)}, got {_kind(value)}")
        return cast(T, value)

    def number(self, key: str) -> float:
        """A rate or figure; JSON null (no data) reads as nan."""
        value = self.data.get(key)
        if value is None:
            return math.nan
        return self.get(key, float)

    def optional(self, key: str) -> float | None:
        value = self.data.get(key)
        return None if value is None else self.get(key, float)

    def sub(self, key: str) -> _Reader:
        return _Reader(self.data.get(key), self._where(key))

    def items(self, key: str) -> list[_Reader]:
        return [_Reader(item, f"{self._where(key)}[{i}]") for i, item in enumerate(self.get(key, list, []))]

    def strings(self, key: str) -> tuple[str, ...]:
        values = self.get(key, list, [])
        for i, v in enumerate(values):
            if not isinstance(v, str):
                raise ReportFormatError(f"{self._where(key)}[{i}]: expected text, got {_kind(v)}")
        return tuple(values)

    def ints(self, key: str) -> tuple[int, ...]:
        values = self.get(key, list, [])
        for i, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, int):
                raise ReportFormatError(f"{self._where(key)}[{i}]: expected a whole number, got {_kind(v)}")
        return tuple(values)

    def choice(self, key: str, choices: Sequence[str], default: str | None = None) -> str:
        value = self.get(key, str, default)
        if value not in choices:
            raise ReportFormatError(f"{self._where(key)}: {value!r} is not one of {', '.join(choices)}")
        return value

    def count(self, key: str, rate_key: str, games: int) -> int:
        """A count, or (in a schema-1 report, which published only the rate) the rate times the games."""
        if self.has(key):
            return self.get(key, int)
        rate = self.optional(rate_key)
        return round(rate * games) if rate is not None else 0


def _kind(value: object) -> str:
    return "null" if value is None else {bool: "true/false", int: "a number", float: "a number", str: "text",
                                         list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {int: "a whole number", float: "a number", str: "text", bool: "true/false", list: "a list",
             dict: "an object"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


# -- the records ----------------------------------------------------------------------------------------------------
class WinRate(_Record):
    """S1's win rate over ``games`` games and its 95% Wilson interval, for the results that count ``wins``."""

    wins: int
    games: int

    @property
    def v(self) -> float:
        return self.wins / self.games if self.games else math.nan

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)


@dataclass(frozen=True, eq=False)
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

    def to_json(self) -> JsonDict:
        low, high = self.ci95
        return {"agent": self.agent, "games": self.games, "s1_wins": self.wins, "v": _r(self.v),
                "ci95": [_r(low), _r(high)], "agrees": self.agrees, "complete": self.complete}

    @classmethod
    def from_json(cls, data: object, path: str = "check") -> CheckResult:
        j = _Reader(data, path)
        games = j.get("games", int)
        return cls(j.get("agent", str), j.count("s1_wins", "v", games), games, j.get("agrees", bool),
                   j.get("complete", bool, True))


@dataclass(frozen=True, eq=False)
class OpeningResult(WinRate):
    placement: int
    """Index of the opening in the board's placement table (-1: not recorded, in a schema-1 report)."""
    cells: Sequence[int]
    """Cell indices (row-major); the JSON publishes the names (:attr:`names`) under ``"cells"``."""
    names: Sequence[str]
    wins: int
    games: int
    status: OpeningStatus
    screen_v: float
    swaps: int = 0
    abandoned: bool = False
    """Left undecided before the cap because it was almost surely not going to be shown fair."""
    check: CheckResult | None = None
    """The first judge's check of an opening the deciding agent showed fair (the published ``check`` key)."""
    refined_v: float | None = None
    """S1's share in the deeper search that refined the screen before the pick (None: not refined), kept so a
    reader can see what the candidate order was based on."""
    judges: Sequence[CheckResult] = ()
    """Every judge's check in the order they played (the first is :attr:`check`); the opening's status is "fair"
    only if each agrees, and the judges after one that disputes it are not played."""
    predicted: float | None = None
    """The opening predictor's S1 chance for club after this opening (None: no model for the board), beside the
    measured rate; it decides nothing."""

    def __post_init__(self) -> None:
        judges = tuple(self.judges) or ((self.check,) if self.check is not None else ())
        self._freeze(cells=tuple(int(c) for c in self.cells), names=tuple(str(n) for n in self.names),
                     judges=judges, check=judges[0] if judges else None)

    @property
    def disputed(self) -> bool:
        """The deciding agent showed it fair, a judge did not confirm it."""
        return any(not j.agrees for j in self.judges)

    @property
    def disputed_by(self) -> list[CheckResult]:
        """The judges that did not confirm it."""
        return [j for j in self.judges if not j.agrees]

    @property
    def status_words(self) -> str:
        """The status as the tables print it: ``fair``, ``undecided (given up)``, ``undecided (disputed)``."""
        if self.disputed:
            return f"{self.status} (disputed)"
        return self.status + (" (given up)" if self.abandoned else "")

    def to_json(self) -> JsonDict:
        low, high = self.ci95
        return {"cells": list(self.names), "v": _r(self.v), "ci95": [_r(low), _r(high)], "games": self.games,
                "status": self.status, "abandoned": self.abandoned, "screen_v": _r(self.screen_v),
                "refined_v": _r(self.refined_v),
                "swap_rate": _r(self.swaps / self.games) if self.games else None,
                "check": self.check.to_json() if self.check is not None else None,
                "judges": [j.to_json() for j in self.judges],
                "placement": self.placement, "s1_wins": self.wins, "swaps": self.swaps,
                "predicted": _r(self.predicted)}

    @classmethod
    def from_json(cls, data: object, size: int, path: str = "opening") -> OpeningResult:
        """An opening as published; ``size`` (the board's) turns its cell names back into indices."""
        j = _Reader(data, path)
        names = j.strings("cells")
        try:
            cells = tuple(parse_cell(n, size) for n in names)
        except ValueError as exc:
            raise ReportFormatError(f"{path}.cells: {exc}") from None
        games = j.get("games", int)
        check = CheckResult.from_json(j.data["check"], f"{path}.check") if j.has("check") else None
        judges = tuple(CheckResult.from_json(c.data, c.path) for c in j.items("judges")) if j.has("judges") else ()
        return cls(j.get("placement", int, -1), cells, names, j.count("s1_wins", "v", games), games,
                   cast(OpeningStatus, j.choice("status", STATUSES)), j.number("screen_v"),
                   j.count("swaps", "swap_rate", games), j.get("abandoned", bool, False), check,
                   j.optional("refined_v"), judges, j.optional("predicted"))


@dataclass(frozen=True, eq=False)
class PieResult(_Record):
    agent: str
    screened: int
    openings: Sequence[OpeningResult] = ()
    check_agent: str = ""
    """The agent that cross-checked the openings this agent showed fair ("" = none)."""
    check_rule: str = ""
    """The check's sequential test ("standard" or "firm": ``core.analysis.config.CHECK_RULES``; "" = none)."""
    check_limit: int = 0
    """Most games the check played per opening (its test's last game; 0 = no check)."""
    judges: Sequence[str] = ()
    """Every judge's agent in the order they play (the first is :attr:`check_agent`)."""

    def __post_init__(self) -> None:
        judges = tuple(self.judges) or ((self.check_agent,) if self.check_agent else ())
        self._freeze(openings=tuple(self.openings), judges=judges)

    def adding(self, opening: OpeningResult) -> PieResult:
        """This result with one more opening played out."""
        return dataclasses.replace(self, openings=(*self.openings, opening))

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
    def undisputed(self) -> list[OpeningResult]:
        """Fair openings every judge confirmed (all the fair ones when disputed openings do not count fair)."""
        return [o for o in self.fair if not o.disputed]

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
        return [list(o.cells) for o in self.fair]

    @property
    def fair_names(self) -> list[list[str]]:
        """Cell names of each opening shown fair."""
        return [list(o.names) for o in self.fair]

    def to_json(self) -> JsonDict:
        return {
            "agent": self.agent, "value": _r(self.value), "fair_openings": self.fair_names,
            "tested": self.tested, "screened": self.screened,
            "fair_fraction": _r(len(self.fair) / self.tested) if self.tested else None,
            "not_shown_unfair": sum(o.status != "unfair" for o in self.openings),
            "games": self.games, "openings": [o.to_json() for o in self.openings],
            "check_agent": self.check_agent or None, "check_rule": self.check_rule or None,
            "check_limit": self.check_limit or None, "disputed": len(self.disputed),
            "undisputed": len(self.undisputed), "judges": list(self.judges),
        }

    @classmethod
    def from_json(cls, data: object, size: int, path: str = "pie") -> PieResult:
        j = _Reader(data, path)
        openings = tuple(OpeningResult.from_json(o.data, size, o.path) for o in j.items("openings"))
        judges = tuple(j.strings("judges")) if j.has("judges") else ()
        return cls(j.get("agent", str), j.get("screened", int), openings, j.get("check_agent", str, ""),
                   j.get("check_rule", str, ""), j.get("check_limit", int, 0), judges)


@dataclass(frozen=True, eq=False)
class RawResult(_Record):
    """Raw seat advantage and the LITS-specific figures from same-agent self-play without a forced opening."""

    agent: str
    games: int = 0
    s1_wins: int = 0
    sprt: str = "undecided"
    tie_breaks: int = 0
    margins: Sequence[int] = ()
    lengths: Sequence[int] = ()
    legal_per_turn: float = math.nan
    runout: Mapping[str, float] = field(default_factory=dict)
    swaps: int = 0
    swapper_wins: int = 0
    distinct_games: int = 0
    common_openings: Sequence[tuple[Sequence[str], int, int]] = ()
    """(cells, games, games in which the second player's agent chose to swap)."""
    mirror_games: int = 0
    mirror_full: int = 0
    mirror_wins: int = 0
    mirror_full_wins: int = 0
    """Probe games in which S2 answered every move with its mirror image and won."""

    def __post_init__(self) -> None:
        self._freeze(margins=tuple(int(m) for m in self.margins), lengths=tuple(int(n) for n in self.lengths),
                     runout=dict(self.runout),
                     common_openings=tuple((tuple(c), int(n), int(k)) for c, n, k in self.common_openings))

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

    def to_json(self) -> JsonDict:
        low, high = self.ci95
        mlow, mhigh = wilson(self.mirror_wins, self.mirror_games)
        return {
            "agent": self.agent, "games": self.games, "s1_win_rate": _r(self.s1_win_rate),
            "ci95": [_r(low), _r(high)], "sprt": self.sprt, "tie_break_share": _r(self.tie_break_share),
            "margins": list(self.margins), "margin": self.margin.as_dict(), "mean_length": _r(self.mean_length),
            "legal_per_turn": _r(self.legal_per_turn), "type_runout": {k: _r(v) for k, v in self.runout.items()},
            "swap_rate": _r(self.swaps / self.games) if self.games else None,
            "swapper_win_rate": _r(self.swapper_wins / self.swaps) if self.swaps else None,
            "distinct_games": self.distinct_games,
            "common_openings": [{"cells": list(c), "games": n, "swap_rate": _r(k / n), "swaps": k}
                                for c, n, k in self.common_openings],
            "mirror": {"games": self.mirror_games,
                       "success_rate": _r(self.mirror_success_rate),
                       "win_rate": _r(self.mirror_win_rate), "ci95": [_r(mlow), _r(mhigh)],
                       "full_mirror_win_rate": _r(self.mirror_full_wins / self.mirror_games)
                       if self.mirror_games else None,
                       "full": self.mirror_full, "wins": self.mirror_wins, "full_wins": self.mirror_full_wins},
            "s1_wins": self.s1_wins, "tie_breaks": self.tie_breaks, "lengths": list(self.lengths),
            "swaps": self.swaps, "swapper_wins": self.swapper_wins,
        }

    @classmethod
    def from_json(cls, data: object, path: str = "raw") -> RawResult:
        j = _Reader(data, path)
        games = j.get("games", int, 0)
        swaps = j.count("swaps", "swap_rate", games)
        runout = j.sub("type_runout") if j.has("type_runout") else None
        common = []
        for c in j.items("common_openings"):
            n = c.get("games", int)
            common.append((c.strings("cells"), n, c.count("swaps", "swap_rate", n)))
        mirror = j.sub("mirror") if j.has("mirror") else _Reader({}, f"{path}.mirror")
        mirror_games = mirror.get("games", int, 0)
        return cls(
            agent=j.get("agent", str), games=games, s1_wins=j.count("s1_wins", "s1_win_rate", games),
            sprt=j.get("sprt", str, "undecided"), tie_breaks=j.count("tie_breaks", "tie_break_share", games),
            margins=j.ints("margins"), lengths=j.ints("lengths"), legal_per_turn=j.number("legal_per_turn"),
            runout={k: runout.number(k) for k in runout.data} if runout is not None else {},
            swaps=swaps, swapper_wins=j.count("swapper_wins", "swapper_win_rate", swaps),
            distinct_games=j.get("distinct_games", int, 0), common_openings=common,
            mirror_games=mirror_games, mirror_full=mirror.count("full", "success_rate", mirror_games),
            mirror_wins=mirror.count("wins", "win_rate", mirror_games),
            mirror_full_wins=mirror.count("full_wins", "full_mirror_win_rate", mirror_games))


@dataclass(frozen=True, eq=False)
class AgentResult(_Record):
    agent: str
    verdict: Verdict
    reasons: Sequence[str]
    raw: RawResult
    pie: PieResult

    def __post_init__(self) -> None:
        self._freeze(reasons=tuple(self.reasons))

    def to_json(self) -> JsonDict:
        return {"verdict": self.verdict, "reasons": list(self.reasons), "pie": self.pie.to_json(),
                "raw": self.raw.to_json()}

    @classmethod
    def from_json(cls, agent: str, data: object, size: int, path: str) -> AgentResult:
        j = _Reader(data, path)
        return cls(agent, cast(Verdict, j.choice("verdict", VERDICTS)), j.strings("reasons"),
                   RawResult.from_json(j.data.get("raw"), f"{path}.raw"),
                   PieResult.from_json(j.data.get("pie"), size, f"{path}.pie"))


@dataclass(frozen=True, eq=False)
class BudgetRecord(_Record):
    """The work budget a run was given and how much of it the run used."""

    effort: str = "custom"
    """"quick", "standard", "thorough" (the named budgets) or "custom" (caps or a time limit set by hand)."""
    time_cap: float = 0.0
    """Seconds the run was allowed (0 = no time cap)."""
    stopped_by_time: bool = False
    """The time cap ended the run before its work was done."""
    games_done: int = 0
    games_planned: int = 0

    def to_json(self) -> JsonDict:
        return {"effort": self.effort, "time_cap": self.time_cap, "stopped_by_time": self.stopped_by_time,
                "games_done": self.games_done, "games_planned": self.games_planned}

    def words(self) -> str:
        """The plain sentence a cut run carries ("" when the planned work was done)."""
        if not self.stopped_by_time:
            return ""
        return (f"stopped by your time limit ({self.time_cap:g} s) after {self.games_done} of at most "
                f"{self.games_planned} planned games; this result depends on the machine's speed; run without "
                "--time to reproduce it")

    @classmethod
    def from_json(cls, data: object, path: str = "budget") -> BudgetRecord:
        j = _Reader(data, path)
        return cls(j.choice("effort", EFFORTS, "custom"), j.get("time_cap", float, 0.0),
                   j.get("stopped_by_time", bool, False), j.get("games_done", int, 0),
                   j.get("games_planned", int, 0))


def _grid(value: object, size: int, path: str) -> FloatGrid:
    try:
        grid = np.array([[math.nan if v is None else float(v) for v in row] for row in cast(list[Any], value)],
                        dtype=np.float64)
    except (TypeError, ValueError):
        raise ReportFormatError(f"{path}: expected {size} rows of {size} numbers") from None
    if grid.shape != (size, size):
        raise ReportFormatError(f"{path}: expected {size} rows of {size} numbers, got shape {grid.shape}")
    return grid


MACHINE_SETTINGS = ("workers", "inline")
"""``AnalysisConfig`` fields that say how a run used this machine, never what it found (the seeds make a result the
same on any number of workers): left out of the JSON, so the same analysis writes the same JSON anywhere."""


def _config_json(cfg: AnalysisConfig) -> JsonDict:
    def plain(value: object) -> object:
        if isinstance(value, enum.Enum):
            return value.value
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return value

    out: JsonDict = {}
    for f in dataclasses.fields(cfg):
        if f.name == "effort":  # one value, written as its three keys (quick, effort, judging)
            out.update(cfg.effort.to_json())
        elif f.name not in MACHINE_SETTINGS:
            out[f.name] = plain(getattr(cfg, f.name))
    return out


def _config_from_json(j: _Reader) -> AnalysisConfig:
    """The run's config; keys this version does not know are left out, missing ones take their defaults."""
    known = {f.name for f in dataclasses.fields(AnalysisConfig)} - set(MACHINE_SETTINGS) - {"effort"}
    if j.has("config"):
        raw = j.get("config", dict)
        if "race" not in raw:  # made before openings were raced: one at a time
            raw = {**raw, "race": 1}
        try:
            effort = EffortChoice.from_json(**{k: raw[k] for k in ("quick", "effort", "judging") if k in raw})
            return AnalysisConfig(effort=effort, **{k: v for k, v in raw.items() if k in known})
        except (TypeError, ValueError) as exc:
            raise ReportFormatError(f"config: {exc}") from None
    # schema 1: only the seed, quick mode and the time budget were published
    return AnalysisConfig(seed=j.get("seed", int, 0), effort=EffortChoice.from_json(j.get("quick", bool, False)),
                          time_budget=j.get("time_budget_s", float, 0.0))


@dataclass(frozen=True, eq=False)
class ModelUse(_Record):
    """Which opening predictor gave the ``predicted`` figures: its file's digest, or why there was none."""

    digest: str | None
    note: str = ""

    def to_json(self) -> JsonDict:
        return {"digest": self.digest, "predicts": "club's S1 win rate after each opening, no swap",
                "note": self.note or None}

    @classmethod
    def from_json(cls, data: object) -> ModelUse:
        if data is None:
            return cls(None, "")
        j = _Reader(data, "model")
        digest = j.data.get("digest")
        if digest is not None and not isinstance(digest, str):
            raise ReportFormatError("model.digest: expected text or null")
        note = j.data.get("note")
        return cls(digest, note if isinstance(note, str) else "")


@dataclass(frozen=True, eq=False)
class AnalysisReport(_Record):
    board_name: str
    size: int
    config: AnalysisConfig
    agent: str
    """The deciding agent (``AnalysisConfig.decider``), whose games give every opening's status and the verdict."""
    verdict: Verdict
    reasons: Sequence[str]
    warnings: Sequence[str]
    pie: PieResult
    raw: RawResult
    per_agent: Mapping[str, AgentResult]
    coverage_s1: FloatGrid
    coverage_s2: FloatGrid
    survival: FloatGrid
    """Per cell: share of games in which its symbol stayed uncovered (nan where the cell is empty)."""
    elapsed: float = 0.0
    s1_symbol: str = "O"
    screen: FloatGrid = field(default_factory=lambda: np.zeros(0))
    """Per placement index: the screen's estimate of P(S1 wins | that opening), -1 where illegal (for a swap map
    over every opening)."""
    budget: BudgetRecord = field(default_factory=BudgetRecord)
    """The work budget the run was given and what it used."""
    model: ModelUse = field(default_factory=lambda: ModelUse(None, ""))
    """The opening predictor whose values stand beside the openings (a verdict names it, though it decides nothing)."""

    PUBLISHED: ClassVar[tuple[str, ...]] = (
        "verdict", "reasons", "warnings", "pie", "raw", "per_agent", "agent", "deciding_agent", "board", "size",
        "s1", "seed", "quick", "time_budget_s", "elapsed_s", "effort", "heatmaps")
    """The keys of the ``--json`` contract (their meaning is documented in the README); the others are extras."""

    def __post_init__(self) -> None:
        grids = {}
        for name in ("coverage_s1", "coverage_s2", "survival", "screen"):
            grid = np.array(getattr(self, name), dtype=np.float64)
            grid.setflags(write=False)
            grids[name] = grid
        self._freeze(reasons=tuple(self.reasons), warnings=tuple(self.warnings), per_agent=dict(self.per_agent),
                     **grids)

    def to_json(self) -> JsonDict:
        """The CLI's JSON contract (:attr:`PUBLISHED`) plus the schema number, the whole config, the budget and the
        screen, which reading the report back needs."""
        return {
            "verdict": self.verdict, "reasons": list(self.reasons), "warnings": list(self.warnings),
            "pie": self.pie.to_json(), "raw": self.raw.to_json(),
            "per_agent": {name: res.to_json() for name, res in self.per_agent.items()},
            "agent": self.agent, "deciding_agent": self.agent, "board": self.board_name, "size": self.size,
            "s1": self.s1_symbol,
            "seed": self.config.seed, "quick": self.config.quick,
            "time_budget_s": self.config.time_budget or None, "elapsed_s": round(self.elapsed, 2),
            "effort": self.budget.effort,
            "heatmaps": {"coverage_s1": _grid_json(self.coverage_s1), "coverage_s2": _grid_json(self.coverage_s2),
                         "survival": _grid_json(self.survival)},
            "schema": SCHEMA, "config": _config_json(self.config), "budget": self.budget.to_json(),
            "screen": [_r(float(v), 4) for v in self.screen],
            "model": self.model.to_json(), "engines_disagree": self.engines_disagree,
        }

    @property
    def engines_disagree(self) -> bool:
        """Enough openings are fair for the deciding agent, but the judges dispute too many of them (thorough: every
        one): strong engines of different kinds judge this board differently, which more play would not settle."""
        cfg = self.config
        pie = self.pie
        return (self.verdict == "inconclusive" and len(pie.fair) >= cfg.min_fair_openings
                and len(pie.undisputed) < cfg.min_undisputed)

    @classmethod
    def from_json(cls, data: object) -> AnalysisReport:
        """A report from its JSON (``to_json``, ``lits analyze --json``, the designer's Save report JSON);
        raises :class:`ReportFormatError` naming the key for anything else."""
        j = _Reader(data, "")
        schema = j.get("schema", int, 1)
        if not 1 <= schema <= SCHEMA:
            raise ReportFormatError(f"schema: this report was written as schema {schema}; this version reads "
                                    f"1 to {SCHEMA} (update LITS Board Studio to read it)")
        size = j.get("size", int)
        if size < 1:
            raise ReportFormatError(f"size: expected a board size, got {size}")
        agent = j.get("agent", str)
        per_agent = {name: AgentResult.from_json(name, value, size, f"per_agent.{name}")
                     for name, value in j.get("per_agent", dict, {}).items()}
        maps = j.sub("heatmaps")
        screen = [math.nan if v is None else v for v in j.get("screen", list, [])]
        return cls(
            board_name=j.get("board", str, ""), size=size, config=_config_from_json(j), agent=agent,
            verdict=cast(Verdict, j.choice("verdict", VERDICTS)), reasons=j.strings("reasons"),
            warnings=j.strings("warnings"), pie=PieResult.from_json(j.data.get("pie"), size),
            raw=RawResult.from_json(j.data.get("raw")), per_agent=per_agent,
            coverage_s1=_grid(maps.data.get("coverage_s1"), size, "heatmaps.coverage_s1"),
            coverage_s2=_grid(maps.data.get("coverage_s2"), size, "heatmaps.coverage_s2"),
            survival=_grid(maps.data.get("survival"), size, "heatmaps.survival"),
            elapsed=j.get("elapsed_s", float, 0.0), s1_symbol=j.get("s1", str, "O"),
            screen=np.array(screen, dtype=np.float64),
            budget=BudgetRecord.from_json(j.data["budget"]) if j.has("budget")
            else BudgetRecord(j.choice("effort", EFFORTS, "custom")),
            model=ModelUse.from_json(j.data.get("model")))


def read_report(path: str | Path) -> AnalysisReport:
    """A report saved as JSON; raises ValueError naming the file and what is wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the report: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a report (not UTF-8 text)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    try:
        return AnalysisReport.from_json(data)
    except ReportFormatError as exc:
        raise ValueError(f"{path}: {exc}") from None


ProgressFn = Callable[[AnalysisProgress], None]


class Analyzer(Protocol):
    """What runs an analysis (``core.analysis.run.analyze``, or a test's stand-in): a board and a config in, a report
    out; ``progress`` hears about every step, setting ``cancel`` stops it with ``AnalysisCancelled``."""

    def __call__(self, board: Board, config: AnalysisConfig, *, progress: ProgressFn | None = None,
                 cancel: threading.Event | None = None, executor: cf.Executor | None = None,
                 executor_workers: int = 0) -> AnalysisReport: ...


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


# -- what the charts, the panel and the board show ------------------------------------------------------------------
@dataclass(frozen=True)
class JudgeView:
    """One judge's figures for an opening, as the board's hover shows them."""

    agent: str
    rate: float | None
    """The first mover's share of the judge's games (None: none played)."""
    games: int
    agrees: bool
    complete: bool = True


@dataclass(frozen=True)
class OpeningView:
    """One first placement that was played out, as the charts, the panel and the board show it."""

    cells: tuple[str, ...]
    """Cell names."""
    rate: float
    ci: tuple[float, float]
    games: int
    status: OpeningStatus
    check: str = ""
    """The cross-check in words (``mcts:8000 check 55% [40-69%] over 40 games: agrees``), "" when none ran."""
    disputed: bool = False
    """The deciding agent showed it fair and the cross-check did not confirm it."""
    screen_v: float = math.nan
    """The quick estimate (the screen's search) of the first mover's chance, before any game was played."""
    refined_v: float | None = None
    """The deeper search's estimate that picked it (None: not refined)."""
    check_agent: str = ""
    check_rate: float | None = None
    check_games: int = 0
    judges: tuple[JudgeView, ...] = ()
    """Every judge's figures, in the order they played (the first is the one above)."""
    predicted: float | None = None
    """The opening predictor's S1 chance for club play (None: no model for the board)."""

    @property
    def label(self) -> str:
        return " ".join(self.cells)


@dataclass(frozen=True)
class RawRate:
    """The first mover's no-swap win rate, its 95% interval and games."""

    rate: float
    ci: tuple[float, float]
    games: int


def check_words(check: CheckResult | None, counted: bool = False) -> str:
    """A cross-check in words, with whether it confirmed the opening ("" when none ran); ``counted``: a disputed
    opening still counts fair for the deciding agent (the thorough rule)."""
    if check is None or not check.games or not check.agent:
        return ""
    disputed = "disputed (counted fair for the deciding agent only)" if counted else "disputed, so not counted fair"
    return f"{check.words()}: {'agrees' if check.agrees else disputed}"


def opening_view(op: OpeningResult) -> OpeningView:
    check = op.check
    return OpeningView(tuple(op.names), op.v, op.ci95, op.games, op.status,
                       check_words(check, counted=op.status == "fair"), op.disputed,
                       op.screen_v, op.refined_v, check.agent if check is not None else "",
                       check.v if check is not None and check.games else None,
                       check.games if check is not None else 0,
                       tuple(JudgeView(j.agent, j.v if j.games else None, j.games, j.agrees, j.complete)
                             for j in op.judges), op.predicted)


def openings(report: AnalysisReport) -> list[OpeningView]:
    """The tested openings with a result, closest to even first."""
    out = [opening_view(op) for op in report.pie.openings if op.games]
    out.sort(key=lambda o: abs(o.rate - 0.5))
    return out


def raw_rate(report: AnalysisReport) -> RawRate | None:
    """The first mover's no-swap rate (None when no games were reported)."""
    raw = report.raw
    return RawRate(raw.s1_win_rate, raw.ci95, raw.games) if raw.games else None


def fair_band(report: AnalysisReport) -> tuple[float, float]:
    """The band the report was judged against."""
    return report.config.fair_low, report.config.fair_high


@dataclass(frozen=True)
class ChartData:
    """What the panel's charts draw, small and picklable (the chart process gets this, never the report)."""

    openings: tuple[OpeningView, ...]
    """Closest to even first."""
    raw: RawRate | None
    margins: tuple[int, ...]
    band: tuple[float, float] = FAIR_BAND

    @classmethod
    def of(cls, report: AnalysisReport) -> ChartData:
        return cls(tuple(openings(report)), raw_rate(report), tuple(report.raw.margins), fair_band(report))


def band_text(band: tuple[float, float] = FAIR_BAND) -> str:
    """``40-60%``: the fair band in words."""
    return f"{100 * band[0]:.0f}-{pct(band[1])}"


def ci_pct(low: float, high: float) -> str:
    """An interval the way the reasons print it, e.g. ``[15-33%]``."""
    return f"[{100 * low:.0f}-{100 * high:.0f}%]"


def describe_opening(o: OpeningResult) -> str:
    low, high = o.ci95
    check = "".join(f"; {j.words()}" for j in o.judges)
    return f"{' '.join(o.names)}, leaves S1 at {pct(o.v)} {ci_pct(low, high)} over {o.games} games{check}"
