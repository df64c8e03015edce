"""A board card's figures: the analysis's verdict, the skill figure, fairness at each strength and the game the
board gives, each placed against a reference set of boards.

Everything is a function of (board, card settings, seed): the analysis is :func:`core.analysis.run.analyze`
with the card's effort and seed (so its verdict is the one ``lits analyze BOARD --seed S`` gives), the weaker
levels' games on the drawn openings are ``core.analysis.openings.play_openings`` with a fixed count (``lits
openings BOARD --opening CELLS --agent LEVEL --games N --seed S``), and the skill games are
:mod:`core.card.skill`.  Each keeps its games in index order, so a card is the same on 1 or 2 workers.
"""

from __future__ import annotations

import functools
import json
import math
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from core import __version__
from core.agents.levels import level_of
from core.agents.spec import parse_agent
from core.analysis.config import AnalysisCancelled, AnalysisProgress
from core.analysis.results import AnalysisReport, OpeningResult, _r
from core.analysis.stats import wilson
from core.board.model import Board
from core.card.config import MAX_OPENINGS, CardConfig
from core.card.skill import SkillGame

ProgressFn = Callable[[AnalysisProgress], None]
CARD_KIND = "lits board card"
CARD_SCHEMA = 1
REFERENCE_FILE = Path(__file__).with_name("reference.json")
"""The reference boards' figures, measured once (how: its ``made_by``; ``tests/benchmarks/bench_card.py``)."""

COMPARED: dict[str, tuple[str, str, str]] = {
    "skill": ("skill.score", "the better player scores more", "the better player scores less"),
    "fairness_gap": ("fairness.gap", "fairness drifts further from even at some strength",
                     "fairness stays nearer to even across strengths"),
    "placements": ("game.placements_per_game", "games run longer", "games are shorter"),
    "choice": ("game.legal_per_turn", "a player has more placements to choose from",
               "a player has fewer placements to choose from"),
    "tie_rule": ("game.tie_rule_share", "the tie rule decides more games", "the tie rule decides fewer games"),
    "margin": ("game.margin", "games are won by more points", "games are won by fewer points"),
    "first_mover": ("game.first_mover.s1_rate", "the first mover wins more often without the pie rule",
                    "the first mover wins less often without the pie rule"),
}
"""Figures placed against the reference boards: (JSON path, words when higher, words when lower)."""


class CardError(ValueError):
    """Settings or a board a card cannot be measured for, said plainly."""


@functools.lru_cache(maxsize=1)
def source_commit() -> str | None:
    """The git commit of the code that measured a card (None outside a checkout), so it says what it ran."""
    here = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(["git", "-C", str(here), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    text = out.stdout.strip()
    return text if out.returncode == 0 and text else None


def get(data: dict[str, Any], path: str) -> Any:
    """``get(card, "game.first_mover.s1_rate")``: a figure by its dotted path."""
    value: Any = data
    for key in path.split("."):
        value = value[key] if isinstance(value, dict) else None
    return value


def drawn_openings(report: AnalysisReport) -> list[OpeningResult]:
    """The openings a card draws and plays at every level: the fair ones, else the tested nearest to even."""
    fair = report.pie.fair[:MAX_OPENINGS]
    if fair:
        return fair
    played = [o for o in report.pie.openings if o.games]
    return sorted(played, key=lambda o: (abs(o.v - 0.5), o.placement))[:MAX_OPENINGS]


def skill_figure(pairs: Sequence[tuple[SkillGame, SkillGame]], strong: str, weak: str) -> dict[str, Any]:
    """Score of the stronger level with its Wilson interval, and the weaker player's "1 game in N"."""
    games = [g for pair in pairs for g in pair]
    n = len(games)
    wins = sum(g.strong_won for g in games)
    score = wins / n if n else math.nan
    low, high = wilson(wins, n)

    def one_in(s: float) -> float | None:
        return None if s >= 1.0 else _r(1.0 / (1.0 - s), 1)

    from core.analysis.elo import elo_of

    elo = elo_of(score) if n else None
    return {
        "strong": strong, "weak": weak, "pairs": len(pairs), "games": n, "strong_wins": wins,
        "score": _r(score), "ci95": [_r(low), _r(high)],
        "weak_wins": n - wins, "upset_one_in": one_in(score), "upset_one_in_ci95": [one_in(low), one_in(high)],
        "elo": None if elo is None else round(elo, 1),
        "swaps": sum(g.swapped for g in games),
        "strong_opening_wins": sum(g.strong_won for g in games if g.strong_opened),
        "strong_answering_wins": sum(g.strong_won for g in games if not g.strong_opened),
    }


def game_figure(report: AnalysisReport) -> dict[str, Any]:
    """The game the board gives, from the deciding level's games without a forced opening (the raw games)."""
    raw = report.raw
    low, high = raw.ci95
    margins = [abs(m) for m in raw.margins]
    return {
        "agent": raw.agent, "games": raw.games,
        "placements_per_game": _r(raw.mean_length, 2), "legal_per_turn": _r(raw.legal_per_turn, 1),
        "tie_rule_share": _r(raw.tie_break_share), "margin": _r(sum(margins) / len(margins), 2) if margins else None,
        "runout": {k: _r(v) for k, v in raw.runout.items()},
        "first_mover": {"s1_rate": _r(raw.s1_win_rate), "ci95": [_r(low), _r(high)], "games": raw.games},
    }


def _rate(wins: int, games: int) -> dict[str, Any]:
    low, high = wilson(wins, games)
    return {"s1_rate": _r(wins / games) if games else None, "ci95": [_r(low), _r(high)], "games": games,
            "s1_wins": wins}


def fairness_figure(report: AnalysisReport, openings: Sequence[OpeningResult], levels: Sequence[str],
                    played: dict[str, list[tuple[int, int]]]) -> dict[str, Any]:
    """S1's rate after each drawn opening at each level; ``played[level]`` = (wins, games) per opening for the
    levels other than the deciding one, whose rates come from the analysis's own games."""
    decider = parse_agent(report.agent).text
    rows: list[dict[str, Any]] = []
    for k, o in enumerate(openings):
        rates: dict[str, dict[str, Any]] = {}
        for level in levels:
            if parse_agent(level).text == decider:
                rates[level] = _rate(o.wins, o.games)
            else:
                wins, games = played[level][k]
                rates[level] = _rate(wins, games)
        rows.append({"cells": list(o.names), "status": o.status, "rates": rates})
    gap: float | None = None
    by_level = {}
    for level in levels:
        vals = [r["rates"][level]["s1_rate"] for r in rows if r["rates"][level]["s1_rate"] is not None]
        mean = sum(vals) / len(vals) if vals else None
        by_level[level] = _r(mean)
        if mean is not None:
            gap = max(gap or 0.0, abs(mean - 0.5))
    return {"levels": list(levels), "openings": rows, "mean_s1_rate": by_level, "gap": _r(gap),
            "drawn": "fair" if report.pie.fair else "nearest"}


def verdict_figure(report: AnalysisReport, board: Board, openings: Sequence[OpeningResult]) -> dict[str, Any]:
    level = level_of(report.agent)
    return {
        "verdict": report.verdict, "agent": report.agent, "strength": level.name if level else report.agent,
        "judges": list(report.pie.judges), "fair": len(report.pie.fair), "tested": report.pie.tested,
        "undisputed": len(report.pie.undisputed), "engines_disagree": report.engines_disagree,
        "drawn": [{"cells": list(o.names), "cell_indices": [int(c) for c in o.cells], "status": o.status,
                   "s1_rate": _r(o.v), "games": o.games} for o in openings],
        "reasons": list(report.reasons),
    }


def load_reference(path: Path = REFERENCE_FILE) -> dict[str, Any] | None:
    """The shipped reference figures, or None when the file is missing (a card then says so)."""
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data


def compare(card: dict[str, Any], reference: dict[str, Any] | None) -> dict[str, Any]:
    """Each compared figure's place among the reference boards: how many lie below and above it."""
    if not reference or not reference.get("boards"):
        return {"boards": 0, "made_by": None, "figures": {}}
    boards: dict[str, dict[str, Any]] = reference["boards"]
    out: dict[str, Any] = {}
    for key, (path, _more, _less) in COMPARED.items():
        value = get(card, path)
        values = [float(b[key]) for b in boards.values() if b.get(key) is not None]
        if value is None or not values:
            continue
        below = sum(v < float(value) for v in values)
        above = sum(v > float(value) for v in values)
        out[key] = {"value": value, "below": below, "above": above, "boards": len(values),
                    "range": [min(values), max(values)]}
    return {"boards": len(boards), "made_by": reference.get("made_by"), "effort": reference.get("effort"),
            "seed": reference.get("seed"), "commit": reference.get("commit"), "figures": out}


def reference_row(card: dict[str, Any]) -> dict[str, Any]:
    """One board's row of the reference file: the compared figures only."""
    return {key: get(card, path) for key, (path, _m, _l) in COMPARED.items()}


def measure_card(board: Board, cfg: CardConfig, path: str = "", progress: ProgressFn | None = None,
                 cancel: threading.Event | None = None,
                 reference: dict[str, Any] | bool | None = True) -> dict[str, Any]:
    """The whole card as JSON data; raises :class:`AnalysisCancelled` when ``cancel`` is set and
    :class:`CardError` for a board no match can use or settings out of range.  ``reference``: True for the
    shipped file, a loaded one, or None/False for none."""
    from core.analysis.openings import OpeningsConfig, board_fingerprint, play_openings
    from core.analysis.run import analyze
    from core.board.validation import Severity, playability
    from core.card.skill import run_skill
    from core.selfplay.runner import RunCancelled

    try:
        cfg.check()
    except ValueError as exc:
        raise CardError(str(exc)) from None
    unplayable = [p.message for p in playability(board) if p.severity is Severity.ERROR]
    if unplayable:
        raise CardError(f"no match can be played on this board: {unplayable[0]}")
    started = time.monotonic()
    commit = source_commit()  # the code that starts the card, read before a long run (the checkout may move on)
    acfg = cfg.analysis
    acfg.seed, acfg.workers, acfg.inline = cfg.seed, cfg.workers, cfg.inline
    report = analyze(board, acfg, progress=progress, cancel=cancel)
    analysed = time.monotonic()
    openings = drawn_openings(report)
    decider = parse_agent(report.agent).text
    played: dict[str, list[tuple[int, int]]] = {}
    for level in cfg.levels:
        if parse_agent(level).text == decider or not openings:
            continue
        ocfg = OpeningsConfig(agent=level, games=cfg.level_games, seed=cfg.seed, workers=cfg.workers,
                              inline=cfg.inline, fixed=True)
        recs = play_openings(board, [o.placement for o in openings], ocfg, progress=progress, cancel=cancel)
        played[level] = [(r.s1_wins, r.games) for r in recs]

    levels_done = time.monotonic()

    def on_pair(i: int, _r: tuple[SkillGame, SkillGame]) -> bool:
        if progress is not None:
            progress(AnalysisProgress("skill", i + 1, cfg.pairs, f"{cfg.strong} against {cfg.weak}: pair {i + 1} "
                                                                 f"of {cfg.pairs}"))
        return False

    try:
        pairs = run_skill(board, cfg.strong, cfg.weak, cfg.pairs, cfg.seed, cfg.workers, cfg.inline, on_pair, cancel)
    except RunCancelled as exc:
        raise AnalysisCancelled("card cancelled") from exc
    card: dict[str, Any] = {
        "kind": CARD_KIND, "schema": CARD_SCHEMA,
        "board": {"name": board.name, "file": path or None, "size": board.size,
                  "fingerprint": board_fingerprint(board), "pie": board.params.pie,
                  "first": board.params.first.value},
        "measured_at": {**cfg.work(), "version": __version__, "commit": commit, "workers": cfg.workers},
        "verdict": verdict_figure(report, board, openings),
        "skill": skill_figure(pairs, cfg.strong, cfg.weak),
        "fairness": fairness_figure(report, openings, cfg.levels, played),
        "game": game_figure(report),
    }
    ref = load_reference() if reference is True else (reference or None)
    card["reference"] = compare(card, ref)
    now = time.monotonic()
    card["elapsed_s"] = round(now - started, 1)
    card["timings_s"] = {"analysis": round(analysed - started, 1), "levels": round(levels_done - analysed, 1),
                         "skill": round(now - levels_done, 1)}
    return card


def figures_only(card: dict[str, Any]) -> dict[str, Any]:
    """The card without what depends on the machine (time, workers): what a seed must reproduce."""
    out: dict[str, Any] = json.loads(json.dumps(card))
    out.pop("elapsed_s", None)
    out.pop("timings_s", None)
    out.get("measured_at", {}).pop("workers", None)
    return out


def recompute_command(card: dict[str, Any], board_path: str = "BOARD.yaml") -> str:
    """The command that gives the same card again (any worker count)."""
    m = card["measured_at"]
    effort = "" if m["effort"] == "standard" else f" --effort {m['effort']}"
    return f"lits card {board_path} --seed {m['seed']}{effort} --json"

