"""Every analysis chart, for both the Markdown report and the designer's analysis panel.

Each builder returns a matplotlib ``Figure`` (or draws into the one it is given, as the
panel's canvas needs).  Figures are made with the object API, never ``pyplot``: no global
backend switch, no figure registry to leak, so the same code runs headless for the report
and inside the Qt window.  matplotlib is imported on first use, not with this module.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from core.analysis.config import FAIR_BAND
from core.analysis.results import AnalysisReport, OpeningResult, pct
from core.board.geometry import column_name
from core.board.model import Board, Symbol

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

Grid = npt.NDArray[np.float64]
RateRow = tuple[str, float, float, float]
"""(label, rate, low, high) of one win rate with its 95% interval."""

LIGHT = {"face": "#ffffff", "ink": "#222222", "rate": "#1f5fa8", "zero": "0.3"}
DARK = {"face": "#2b2d31", "ink": "#e6e6e6", "rate": "#8cc4ff", "zero": "0.8"}
"""Chart colours per theme; on the dark face the light theme's dark blue marker and grey zero line vanish."""
BAND_COLOUR = "#5cbf7a"
MARGIN_COLOUR = "#9b6fd1"
PNG_DPI = 110


def _figure(width: float, height: float, layout: Literal["constrained"] | None = None) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout=layout)


def png_bytes(fig: Figure) -> bytes:
    """The figure as PNG, trimmed to its contents."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=PNG_DPI, bbox_inches="tight")
    return buf.getvalue()


def fair_band(report: AnalysisReport) -> tuple[float, float]:
    """The band the report was judged against (the default band for a report without its config)."""
    cfg = getattr(report, "config", None)
    return (cfg.fair_low, cfg.fair_high) if cfg is not None else FAIR_BAND


def _valid(x: float | None) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


# -- the pieces both surfaces draw -----------------------------------------------------------
def draw_rates(ax: Axes, rows: Sequence[RateRow], band: tuple[float, float], colour: str = LIGHT["rate"],
               labels: bool = True) -> None:
    """Win rates as points with their 95% intervals over the shaded fair band."""
    ax.axvspan(*band, color=BAND_COLOUR, alpha=0.3, label=f"fair band {pct(band[0])}-{pct(band[1])}")
    ax.axvline(0.5, color="0.5", lw=0.8, ls=":")
    for i, (_label, v, lo, hi) in enumerate(rows):
        ax.errorbar([v], [i], xerr=[[v - lo], [hi - v]], fmt="o", color=colour, capsize=5,
                    label="95% interval" if i == 0 else None)
    ax.set_xlim(0, 1)
    ax.set_ylim(max(len(rows), 1) - 0.5, -0.5)
    if labels:
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([r[0] for r in rows], fontsize=7)
    else:
        ax.set_yticks([])
    ax.xaxis.set_major_formatter(lambda x, _pos: f"{x:.0%}")


def draw_margins(ax: Axes, series: Sequence[tuple[str, Sequence[int]]], zero_colour: str = LIGHT["zero"]) -> None:
    """Histogram of score margins S1 - S2, one colour per agent; 0 is a level game."""
    drawn = [(name, list(m)) for name, m in series if m]
    if not drawn:
        ax.text(0.5, 0.5, "no margins reported", ha="center", va="center", fontsize=8, transform=ax.transAxes)
        return
    lo = min(min(m) for _, m in drawn)
    hi = max(max(m) for _, m in drawn)
    bins: Any = np.arange(lo - 0.5, hi + 1.5, 1.0) if hi - lo <= 40 else 30
    single = len(drawn) == 1
    for name, m in drawn:
        ax.hist(m, bins=bins, alpha=1.0 if single else 0.55, label=f"{name} ({len(m)} games)",
                color=MARGIN_COLOUR if single else None, edgecolor="black", linewidth=0.4)
    ax.axvline(0, color=zero_colour, lw=0.8)
    ax.set_ylabel("games", fontsize=8)
    if not single:
        ax.legend(fontsize=7)


def raw_rows(report: AnalysisReport) -> list[RateRow]:
    """S1's raw win rate (no swap) per agent that played raw games."""
    rows: list[RateRow] = []
    for name, res in report.per_agent.items():
        if res.raw.games:
            lo, hi = res.raw.ci95
            rows.append((f"raw S1, {name}", res.raw.s1_win_rate, lo, hi))
    return rows


def opening_rows(openings: Sequence[OpeningResult]) -> list[RateRow]:
    """S1's win rate after each tested opening."""
    return [(f"after {' '.join(o.names)}", o.v, *o.ci95) for o in openings if o.games]


def opening_grid(openings: Sequence[Any], size: int) -> Grid:
    """Per cell: the mean S1 win rate over the tested openings covering it (nan where none does)."""
    total = np.zeros(size * size)
    count = np.zeros(size * size)
    for o in openings:
        if getattr(o, "games", 1) and _valid(o.v):
            for c in o.cells:
                total[int(c)] += float(o.v)
                count[int(c)] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan).reshape(size, size)


def _board_axes(ax: Axes, board: Board) -> None:
    n = board.size
    ax.set_xticks(range(n))
    ax.set_xticklabels([column_name(c) for c in range(n)], fontsize=6)
    ax.set_yticks(range(n))
    ax.set_yticklabels([str(r + 1) for r in range(n)], fontsize=6)
    for cell, s in enumerate(board.cells):
        if s is not Symbol.EMPTY:
            r, c = divmod(cell, n)
            ax.text(c, r, s.value, ha="center", va="center", fontsize=7, color="black")


# -- the report's charts ---------------------------------------------------------------------
def heatmaps_figure(grids: Sequence[tuple[str, Grid]], board: Board, cmap: str = "viridis",
                    vmin: float = 0.0, vmax: float = 1.0) -> Figure:
    """Side-by-side per-cell maps with the board's symbols drawn on top."""
    fig = _figure(4.2 * len(grids), 4.0)
    axes = fig.subplots(1, len(grids), squeeze=False)[0]
    for ax, (title, grid) in zip(axes, grids, strict=True):
        im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=vmin, vmax=vmax)
        ax.set_title(title, fontsize=9)
        _board_axes(ax, board)
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    return fig


def openings_figure(report: AnalysisReport, board: Board) -> Figure:
    """The swap map: cells coloured by S1's win rate after the openings covering them, undecided ones hatched."""
    from matplotlib import colormaps
    from matplotlib.patches import Rectangle

    n = board.size
    fig = _figure(5.2, 5.0)
    ax = fig.subplots()
    cmap = colormaps["coolwarm"]
    ax.imshow(np.zeros((n, n)), cmap="Greys", vmin=0, vmax=1)
    im = ax.imshow(np.ma.masked_invalid(opening_grid(report.pie.openings, n)), cmap=cmap, vmin=0, vmax=1,
                   alpha=0.85)
    for o in report.pie.openings:
        if not o.games:
            continue
        for cell in o.cells:
            r, c = divmod(cell, n)
            ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="black", lw=0.6,
                                   hatch="//" if o.status == "undecided" else None))
        r, c = divmod(o.cells[0], n)
        ax.text(c, r, f"{100 * o.v:.0f}", ha="center", va="center", fontsize=6, color="black", weight="bold")
    _board_axes(ax, board)
    ax.set_title(f"tested openings ({report.pie.agent}): S1 win % (blue low, red high; hatched undecided)",
                 fontsize=8)
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    return fig


def win_rates_figure(report: AnalysisReport) -> Figure:
    """Every win rate with its 95% interval against the fair band: the tested openings and the raw rates."""
    rows = opening_rows(report.pie.openings) + raw_rows(report)
    fig = _figure(6.5, 0.35 * len(rows) + 1.2)
    ax = fig.subplots()
    draw_rates(ax, rows, fair_band(report), colour="black")
    ax.set_xlabel("P(S1 wins) with 95% Wilson interval")
    ax.legend(fontsize=7, loc="lower right")
    return fig


def margins_figure(report: AnalysisReport) -> Figure:
    fig = _figure(6.0, 3.2)
    ax = fig.subplots()
    draw_margins(ax, [(name, res.raw.margins) for name, res in report.per_agent.items()])
    ax.set_xlabel("score margin S1 - S2 (0 = level, decided by the last-mover rule)")
    return fig


# -- the designer panel's charts -------------------------------------------------------------
def summary_figure(report: AnalysisReport, fig: Figure | None = None, dark: bool = False) -> Figure:
    """The panel's two charts: S1's raw win rate against the fair band, and the score margins."""
    colours = DARK if dark else LIGHT
    fig = fig if fig is not None else _figure(4.2, 4.4, layout="constrained")
    fig.clear()
    ax1, ax2 = fig.subplots(2, 1, height_ratios=[1, 2])
    raw = report.raw
    rate = raw.s1_win_rate
    if _valid(rate):
        lo, hi = raw.ci95 if raw.ci95 is not None and len(raw.ci95) == 2 else (rate, rate)
        draw_rates(ax1, [("S1", rate, float(lo), float(hi))], fair_band(report), colour=colours["rate"],
                   labels=False)
        ax1.set_title(f"S1 wins {rate:.0%} [{lo:.0%}-{hi:.0%}]\nof {raw.games} games (no swap)", fontsize=9)
    else:
        draw_rates(ax1, [], fair_band(report), labels=False)
    ax1.tick_params(labelsize=8)
    ax1.legend(fontsize=7, loc="upper left", frameon=False)
    draw_margins(ax2, [("S1 - S2", list(raw.margins or []))], zero_colour=colours["zero"])
    ax2.set_title("Score margin S1 - S2\n(0 = tie, decided by last mover)", fontsize=9)
    ax2.set_xlabel("margin (symbols)", fontsize=8)
    ax2.tick_params(labelsize=8)
    apply_theme(fig, dark)
    return fig


def placeholder_figure(text: str, fig: Figure | None = None, dark: bool = False) -> Figure:
    """A figure that only says ``text`` (before the first analysis)."""
    fig = fig if fig is not None else _figure(4.2, 4.4, layout="constrained")
    fig.clear()
    ax = fig.add_subplot(111)
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=9)
    apply_theme(fig, dark)
    return fig


def apply_theme(fig: Figure, dark: bool) -> None:
    """Face and ink colours of a drawn figure for the window's light or dark theme."""
    colours = DARK if dark else LIGHT
    face, ink = colours["face"], colours["ink"]
    fig.set_facecolor(face)
    for ax in fig.axes:
        ax.set_facecolor(face)
        ax.tick_params(colors=ink, which="both")
        for spine in ax.spines.values():
            spine.set_color(ink)
        ax.title.set_color(ink)
        ax.xaxis.label.set_color(ink)
        ax.yaxis.label.set_color(ink)
        legend = ax.get_legend()
        if legend is not None:
            for text in legend.get_texts():
                text.set_color(ink)
        for text in ax.texts:
            text.set_color(ink)
