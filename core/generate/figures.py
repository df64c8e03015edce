"""What an evaluator says about a board, and the one documented score the generator ranks boards by.

The score (0 worst, 1 best) is a weighted sum of five terms, each within 0..1, minus a density penalty:

    score = 0.40 F + 0.20 P + 0.15 (1 - T) + 0.15 M + 0.10 (1 - W) - 0.05 D

- F: fair openings at the deciding level: distinct first placements the analysis showed fair (S1 within 40-60%),
  divided by the number the ``balanced`` verdict needs (3), at most 1;
- P: the pie value (the played opening closest to even, min(v, 1 - v)) divided by 0.5, so 1 is an opening at 50%;
- T: the share of the deciding level's games decided by the last-mover tie rule (games whose symbols did not matter);
- M: the spread of score margins (standard deviation of S1's minus S2's uncovered symbols) divided by
  ``MARGIN_SPREAD_FULL`` (3 symbols), at most 1: games won by different amounts, not all by one symbol or level;
- W: the mirror probe's win rate (S2 answering every move with its 180-degree image and winning);
- D: pairs outside the host's density range (0 inside; the search only leaves it when improving a board that
  starts outside).

A term the evaluator could not measure (no games) counts as its worst value.  Plain Python, no engine imports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

WEIGHTS: dict[str, float] = {"fair": 0.40, "pie": 0.20, "ties": 0.15, "margins": 0.15, "mirror": 0.10}
"""Weights of the score's terms (they sum to 1)."""
DENSITY_PENALTY = 0.05
"""Subtracted per pair outside the density range."""
MARGIN_SPREAD_FULL = 3.0
"""Standard deviation of score margins (symbols) at which the margin term is full."""
FAIR_NEEDED = 3
"""Fair openings a ``balanced`` verdict needs (``AnalysisConfig.min_fair_openings``; the evaluators pass theirs)."""


def play_score(fair: int, needed: int, pie_value: float | None, tie_share: float | None,
               margin_spread: float | None, mirror_rate: float | None) -> float:
    """The four play terms of the documented score (the density penalty is the search's, see ``density_penalty``)."""

    def unit(x: float | None, full: float = 1.0) -> float | None:
        """x / full clipped to 0..1; None when the figure was not measured."""
        if x is None or math.isnan(x):
            return None
        return min(max(x / full, 0.0), 1.0)

    f = min(max(fair, 0) / max(needed, 1), 1.0)
    pv, tv, mv, wv = unit(pie_value, 0.5), unit(tie_share), unit(margin_spread, MARGIN_SPREAD_FULL), unit(mirror_rate)
    p = 0.0 if pv is None else pv
    t = 0.0 if tv is None else 1.0 - tv
    m = 0.0 if mv is None else mv
    w = 0.0 if wv is None else 1.0 - wv
    return (WEIGHTS["fair"] * f + WEIGHTS["pie"] * p + WEIGHTS["ties"] * t + WEIGHTS["margins"] * m
            + WEIGHTS["mirror"] * w)


def density_penalty(pairs_outside: int) -> float:
    return DENSITY_PENALTY * max(0, pairs_outside)


def _share(x: float | None, unknown: str) -> str:
    """A share as a whole percentage, or ``unknown`` when there is none (never "nan%")."""
    return unknown if x is None or math.isnan(x) else f"{100 * x:.0f}%"


@dataclass
class Figures:
    """An evaluator's answer for one board: its score and, for real analyses, the evidence behind it."""

    score: float
    pairs: int
    verdict: str | None = None
    """``balanced`` / ``lopsided`` / ``inconclusive`` from an analysis; None from a plain scoring function."""
    level: str = ""
    """The agent whose games decided (empty for a plain scoring function)."""
    fair_openings: list[list[str]] = field(default_factory=list)
    tested: int = 0
    pie_value: float | None = None
    tie_break_share: float | None = None
    margin_spread: float | None = None
    mirror_win_rate: float | None = None
    warnings: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    games: int = 0
    seconds: float = 0.0
    analysis: dict[str, Any] | None = None
    """The analysis JSON (without heatmaps) for the report beside a board file; None for screens."""

    def to_json(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None or math.isnan(x) else round(float(x), 4)

        out: dict[str, Any] = {
            "score": r(self.score), "verdict": self.verdict, "level": self.level, "pairs": self.pairs,
            "fair_openings": self.fair_openings, "tested_openings": self.tested, "pie_value": r(self.pie_value),
            "tie_break_share": r(self.tie_break_share), "margin_spread": r(self.margin_spread),
            "mirror_win_rate": r(self.mirror_win_rate), "warnings": self.warnings, "reasons": self.reasons,
            "games": self.games, "seconds": round(self.seconds, 2),
        }
        if self.analysis is not None:
            out["analysis"] = self.analysis
        return out

    def summary(self) -> str:
        """One line for notes, logs and the designer's gallery."""

        def pct(x: float | None) -> str:
            return _share(x, "n/a")

        parts = [f"score {self.score:.3f}"]
        if self.verdict is not None:
            parts.insert(0, f"{self.verdict} ({self.level})" if self.level else self.verdict)
            parts.append(f"{len(self.fair_openings)} fair of {self.tested} tested openings")
            parts.append(f"tie rule {pct(self.tie_break_share)}")
            spread = "n/a" if self.margin_spread is None else f"{self.margin_spread:.1f}"
            parts.append(f"margin spread {spread}")
            parts.append(f"mirror wins {pct(self.mirror_win_rate)}")
        parts.append(f"{self.pairs} pairs")
        return ", ".join(parts)

    def host_words(self) -> str:
        """The same evidence in a host's words (the designer's dialogs): no score decimals or statisticians' terms."""

        def pct(x: float | None) -> str:
            return _share(x, "an unknown share")

        parts = [f"rated {round(100 * self.score)} of 100"]
        if self.verdict is not None:
            parts.insert(0, f"{self.verdict} for {self.level} play" if self.level else self.verdict)
            parts.append(f"{len(self.fair_openings)} of {self.tested} first placements tried keep the game close")
            parts.append(f"{pct(self.tie_break_share)} of games are won on the tie rule (symbols did not decide)")
            parts.append(f"a copycat second player wins {pct(self.mirror_win_rate)} of its games")
        parts.append(f"{self.pairs} symbol pairs")
        return "; ".join(parts)
