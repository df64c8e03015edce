"""Every analysis chart, for both the Markdown report and the designer's analysis panel.

Each builder returns a matplotlib ``Figure`` made with the object API, never ``pyplot``: no global
backend switch, no figure registry to leak, so the same code runs headless for the report and on the
panel's worker thread (which draws it into an image).  matplotlib is imported on first use, not with
this module.  The report's own charts take the :class:`~core.analysis.results.AnalysisReport`; the panel's charts
take its :class:`~core.analysis.results.ChartData` (small and picklable, for the designer's chart process), and the
Markdown report draws them from the same data.  Colours and words of an opening's class come from
:mod:`core.analysis.palette`, which the designer's board layer uses too.

The panel's order follows what a host needs: first what the verdict rests on (each opening tried, with
its 95% range against the fair band), then the no-swap rate, then the score margins.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from core.analysis.palette import BAND_COLOUR, STATUS_STYLE
from core.analysis.results import AnalysisReport, ChartData, OpeningResult, pct
from core.board.geometry import column_name
from core.board.model import Board, Symbol

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

Grid = npt.NDArray[np.float64]

LIGHT = {"face": "#ffffff", "ink": "#222222", "rate": "#1f5fa8", "zero": "0.3"}
DARK = {"face": "#2b2d31", "ink": "#e6e6e6", "rate": "#8cc4ff", "zero": "0.8"}
"""Chart colours per theme; on the dark face the light theme's dark blue marker and grey zero line vanish."""
MARGIN_COLOUR = "#9b6fd1"
PNG_DPI = 110
FONT = 8
MAX_ROWS = 12
"""The openings chart shows at most this many openings (the closest to even)."""
REPORT_WIDTH_PX = 650
"""Width of the panel-style charts in the report, in pixels at 100 dpi."""


def _figure(width: float, height: float, layout: Literal["constrained"] | None = None, dpi: float = 100.0) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout=layout, dpi=dpi)


def _pixel_figure(width_px: int, height_px: int, dpr: float) -> Figure:
    """A figure ``width_px`` logical pixels wide, drawn at the screen's pixel ratio ``dpr``."""
    return _figure(width_px / 100.0, height_px / 100.0, layout="constrained", dpi=100.0 * dpr)


def png_bytes(fig: Figure) -> bytes:
    """The figure as PNG, trimmed to its contents."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=PNG_DPI, bbox_inches="tight")
    return buf.getvalue()


def _valid(x: float | None) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


# -- the pieces both surfaces draw -----------------------------------------------------------
def draw_band(ax: Axes, band: tuple[float, float]) -> None:
    """The shaded fair band and the dotted 50% line every rate is read against."""
    ax.axvspan(*band, color=BAND_COLOUR, alpha=0.3, label=f"fair band {100 * band[0]:.0f}-{pct(band[1])}")
    ax.axvline(0.5, color="0.5", lw=0.8, ls=":")


def _percent_axis(ax: Axes) -> None:
    ax.set_xlim(0, 1)
    ax.set_xticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
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


def opening_grid(openings: Sequence[OpeningResult], size: int) -> Grid:
    """Per cell: the mean S1 win rate over the tested openings covering it (nan where none does)."""
    total = np.zeros(size * size)
    count = np.zeros(size * size)
    for o in openings:
        if o.games and _valid(o.v):
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


def margins_figure(report: AnalysisReport) -> Figure:
    fig = _figure(6.0, 3.2)
    ax = fig.subplots()
    draw_margins(ax, [(name, res.raw.margins) for name, res in report.per_agent.items()])
    ax.set_xlabel("score margin S1 - S2 (0 = level, decided by the last-mover rule)")
    return fig


# -- the charts the panel shows and the report repeats -----------------------------------------
def openings_title(shown: int, tried: int) -> str:
    """The openings chart's title, true for the rows it shows: every opening tried, or the nearest to even of
    them when there are more than :data:`MAX_ROWS`."""
    which = ("each opening tried" if shown >= tried
             else f"the {shown} openings nearest to even of {tried} tried")
    return f"What the verdict rests on: {which},\nfirst mover's chance to win (line: likely range)"


def openings_chart(data: ChartData, width_px: int = REPORT_WIDTH_PX, dpr: float = 1.0,
                   dark: bool = False) -> Figure:
    """Each opening played out: the first mover's chance after it, with its 95% range, against the band."""
    rows = sorted(data.openings[:MAX_ROWS], key=lambda o: o.rate)
    fig = _pixel_figure(width_px, 92 + 19 * max(1, len(rows)), dpr)
    ax = fig.add_subplot(111)
    draw_band(ax, data.band)
    ax.set_title(openings_title(len(rows), len(data.openings)), fontsize=FONT)
    if not rows:
        ax.text(0.5, 0.5, "no opening was played out", ha="center", va="center", fontsize=FONT,
                transform=ax.transAxes)
        ax.set_yticks([])
    for i, o in enumerate(rows):
        colour = STATUS_STYLE.get(o.status, STATUS_STYLE["undecided"]).colour(dark)
        ax.errorbar([o.rate], [i], xerr=[[o.rate - o.ci[0]], [o.ci[1] - o.rate]], fmt="o", color=colour,
                    capsize=3, ms=4, mfc=colour if o.status != "undecided" else "none", lw=1.2)
    if rows:
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([o.label for o in rows], fontsize=FONT - 1)
        ax.set_ylim(-0.7, len(rows) - 0.3)
    _percent_axis(ax)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", ls="", ms=4, color=style.colour(dark),
                      mfc=style.colour(dark) if status != "undecided" else "none", label=style.short)
               for status, style in STATUS_STYLE.items()]
    fig.legend(handles=handles, loc="outside lower center", ncol=3, fontsize=FONT - 1, frameon=False,
               handletextpad=0.2, columnspacing=0.8)
    ax.tick_params(labelsize=FONT - 1)
    apply_theme(fig, dark)
    return fig


def raw_chart(data: ChartData, width_px: int = REPORT_WIDTH_PX, dpr: float = 1.0,
              dark: bool = False) -> Figure:
    """The no-swap rate of the first mover with its 95% range (information, not the verdict)."""
    fig = _pixel_figure(width_px, 92, dpr)
    ax = fig.add_subplot(111)
    draw_band(ax, data.band)
    found = data.raw
    colour = (DARK if dark else LIGHT)["rate"]
    if found is not None:
        rate, (lo, hi), games = found.rate, found.ci, found.games
        ax.errorbar([rate], [0], xerr=[[rate - lo], [hi - rate]], fmt="o", color=colour, capsize=5, ms=5)
        ax.set_title(f"Without a swap (for information): the player who\nmoves first wins {rate:.0%} of {games} "
                     "games", fontsize=FONT)
    else:
        ax.set_title("Without a swap: no games reported", fontsize=FONT)
    ax.set_yticks([])
    ax.set_ylim(-1, 1)
    _percent_axis(ax)
    ax.tick_params(labelsize=FONT - 1)
    apply_theme(fig, dark)
    return fig


def margins_chart(data: ChartData, width_px: int = REPORT_WIDTH_PX, dpr: float = 1.0,
                  dark: bool = False) -> Figure:
    """How far apart the scores end (first mover minus second player) in the no-swap games."""
    margins = list(data.margins)
    fig = _pixel_figure(width_px, 170, dpr)
    ax = fig.add_subplot(111)
    draw_margins(ax, [("S1 - S2", margins)], zero_colour=(DARK if dark else LIGHT)["zero"])
    ax.set_title("Score margin, first mover minus second\n(0 = a tie: the last to place wins it)", fontsize=FONT)
    ax.set_xlabel("symbols", fontsize=FONT - 1)
    ax.set_ylabel("games", fontsize=FONT - 1)
    ax.tick_params(labelsize=FONT - 1)
    apply_theme(fig, dark)
    return fig


PANEL_CHARTS = (openings_chart, raw_chart, margins_chart)
"""The panel's charts in the order it shows them."""


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
    for legend in fig.legends:
        legend.get_frame().set_facecolor(face)
        for text in legend.get_texts():
            text.set_color(ink)
