"""Markdown balance report with PNG charts beside it (drawn by ``core.analysis.charts``, no window system).

The pictures are what hosts look at first: which first placements keep the game even,
each win rate against the fair band, where each seat covers and which symbols survive.
The designer's panel draws its charts with the same module.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from core.analysis import charts
from core.analysis.glossary import S1, defined, opening_words
from core.analysis.results import AnalysisReport, ChartData, fair_band, pct
from core.board.fileio import atomic_write_bytes, atomic_write_text
from core.board.geometry import cell_name
from core.board.model import Board

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ChartFn = Callable[[AnalysisReport, Board], "Figure"]


def _seat_difference(report: AnalysisReport, board: Board) -> Figure:
    rot = np.rot90(report.coverage_s2, 2)
    return charts.heatmaps_figure([("S1 coverage minus S2's rotated 180 degrees", report.coverage_s1 - rot)], board,
                                  cmap="coolwarm", vmin=-0.5, vmax=0.5)


CHARTS: dict[str, tuple[str, ChartFn]] = {
    "winrates": ("Win rates against the fair band", lambda r, b: charts.openings_chart(ChartData.of(r))),
    "raw": ("Without a swap", lambda r, b: charts.raw_chart(ChartData.of(r))),
    "openings": ("Tested openings (swap map)", charts.openings_figure),
    "coverage": ("Coverage by seat", lambda r, b: charts.heatmaps_figure(
        [("covered by S1's pieces", r.coverage_s1), ("covered by S2's pieces", r.coverage_s2)], b)),
    "seatdiff": ("Move-order effect (S1 against S2 rotated)", _seat_difference),
    "survival": ("Symbol survival", lambda r, b: charts.heatmaps_figure(
        [("symbol survives (share of games)", r.survival)], b, cmap="magma")),
    "margins": ("Score margins", lambda r, b: charts.margins_figure(r)),
}
"""The report's charts in reading order: file-name key, caption, builder."""


def check_report_path(path: str) -> None:
    """Fail before a long analysis when the report could not be written."""
    p = Path(path)
    if p.suffix.lower() not in (".md", ".markdown"):
        raise ValueError(f"{path}: the report is Markdown; give a file name ending in .md")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"{path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise ValueError(f"{path}: folder {parent} is not writable")


def _fmt(x: float | None, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.{digits}f}"


def markdown(report: AnalysisReport, board: Board, images: dict[str, str]) -> str:
    """The report text; ``images`` maps chart keys to file names relative to the report."""
    cfg = report.config
    title = report.board_name or "board"
    out = [f"# Balance analysis: {title}", ""]
    out.append(f"**Verdict: {report.verdict}** (decided by `{report.agent}`; seed {cfg.seed}"
               f"{'; a quick look only: never publish it' if cfg.quick else ''}; {report.elapsed:.0f} s)")
    out += ["", f"{defined(S1)}; here S1 places {report.s1_symbol}.", ""]
    out += [f"- {r}" for r in report.reasons]
    if report.warnings:
        out += ["", "## Warnings", ""] + [f"- {w}" for w in report.warnings]
    pie = report.pie
    out += ["", "## Pie rule (the verdict)", "",
            f"A board is balanced when at least {cfg.min_fair_openings} distinct first placements keep "
            f"P(S1 wins) within {pct(cfg.fair_low)}-{pct(cfg.fair_high)}, shown by two one-sided SPRTs "
            "(alpha = beta = 0.05). Every opening was screened with a short search; candidates were then played "
            f"out with `{pie.agent}`, moving towards 50% after each result.", "",
            f"Pie value {_fmt(pie.value)} (0.50 is perfect); {len(pie.fair)} fair of {pie.tested} tested; "
            f"{pie.screened} openings screened.", "",
            "| opening | S1 wins | 95% interval | games | status | screen | second player swaps |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for o in pie.openings:
        lo, hi = o.ci95
        swap = pct(o.swaps / o.games) if o.games else "n/a"
        status = opening_words(o.status, o.abandoned, o.disputed, o.v, (lo, hi), fair_band(report))
        screen = pct(o.screen_v) if o.refined_v is None else f"{pct(o.screen_v)}, refined {pct(o.refined_v)}"
        out.append(f"| {' '.join(o.names)} | {pct(o.v)} | {pct(lo)}-{pct(hi)} | {o.games} | {status} | "
                   f"{screen} | {swap} |")
    out += ["", "## Raw seat advantage (information, not the verdict)", "",
            f"Same agent in both seats, S1 = {report.s1_symbol} places first, no swap.", "",
            "| agent | games | S1 wins | 95% interval | SPRT | tie-break share | mean margin [95%] | length | "
            "legal per turn | mirror probe wins | its pie verdict |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, res in report.per_agent.items():
        raw = res.raw
        lo, hi = raw.ci95
        m = raw.margin
        out.append(f"| {name} | {raw.games} | {pct(raw.s1_win_rate)} | {pct(lo)}-{pct(hi)} | {raw.sprt} | "
                   f"{pct(raw.tie_break_share)} | {_fmt(m.mean)} [{_fmt(m.low)}, {_fmt(m.high)}] | "
                   f"{_fmt(raw.mean_length, 1)} | {_fmt(raw.legal_per_turn, 0)} | "
                   f"{pct(raw.mirror_win_rate) if raw.mirror_games else 'n/a'} of {raw.mirror_games} | "
                   f"{res.verdict} |")
    raw = report.raw
    out += ["", f"Type run-out ({raw.agent}): " + ", ".join(f"{t} {pct(v)}" for t, v in raw.runout.items())
            + f". The second player would swap in {pct(raw.swaps / raw.games) if raw.games else 'n/a'} of games"
            f"; {raw.distinct_games} distinct games of {raw.games}."]
    if raw.common_openings:
        out.append("Most common openings (games, second player swaps): "
                   + "; ".join(f"{' '.join(c)} ({n}, swaps {pct(k / n)})" for c, n, k in raw.common_openings) + ".")
    out += ["", "## Charts", ""]
    for key, (caption, _draw) in CHARTS.items():
        if key in images:
            out += [f"### {caption}", "", f"![{caption}]({images[key]})", ""]
    out += ["", f"Board: {board.size}x{board.size}, cells named {cell_name(0, board.size)} (top-left) to "
            f"{cell_name(board.size * board.size - 1, board.size)}. Agents: {', '.join(cfg.agents)}."]
    return "\n".join(out) + "\n"


def report_files(path: str) -> list[str]:
    """The files :func:`write_report` writes for ``path``: the Markdown file first, then its PNG charts."""
    p = Path(path)
    return [str(p), *(str(p.with_name(f"{p.stem}-{key}.png")) for key in CHARTS)]


class ReportWriteError(OSError):
    """One of the report's files could not be written: names that file and those written before it."""

    def __init__(self, path: str, cause: OSError, written: list[str]) -> None:
        super().__init__(cause.errno, cause.strerror, path)
        self.path = path
        self.cause = cause
        self.written = written


def write_report(report: AnalysisReport, path: str, board: Board) -> list[str]:
    """Write the Markdown file and its PNG charts (``<stem>-<chart>.png`` beside it); returns the paths
    (:func:`report_files`).  A file that cannot be written raises :class:`ReportWriteError` naming it."""
    p = Path(path)
    n = board.size
    assert report.coverage_s1.shape == (n, n)
    written: list[str] = []
    images: dict[str, str] = {}
    for key, (_caption, draw) in CHARTS.items():
        name = f"{p.stem}-{key}.png"
        target = p.with_name(name)
        try:
            atomic_write_bytes(target, charts.png_bytes(draw(report, board)))
        except OSError as exc:
            raise ReportWriteError(str(target), exc, written) from exc
        written.append(str(target))
        images[key] = name
    try:
        atomic_write_text(p, markdown(report, board, images))
    except OSError as exc:
        raise ReportWriteError(str(p), exc, written) from exc
    written.insert(0, str(p))
    return written
