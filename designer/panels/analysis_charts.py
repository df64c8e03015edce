"""The analysis panel's charts, drawn off the GUI thread into images.

matplotlib costs about half a second to import and a few hundred milliseconds to lay out and draw three
charts; on the GUI thread both froze the window.  Here each chart is a plain ``Figure`` drawn by the Agg
renderer (thread-safe for figures nobody else touches, no pyplot) into a ``QImage``, which the panel shows in
a label.  The panel asks for a width and gets images exactly that wide, so a chart can never push the panel
wider than its dock.

Order follows what a host needs: first what the verdict rests on (each opening tried, with its 95% range
against the 40-60% band), then the no-swap rate, then the score margins.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QImage

from designer.panels.analysis_text import OpeningView, _get, openings, raw_rate

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FAIR_BAND = (0.4, 0.6)
BAND_COLOUR = "#5cbf7a"
STATUS_STYLE: dict[str, tuple[str, str, str]] = {
    # status: (light colour, dark colour, legend text)
    "fair": ("#1d7a3a", "#6fdc8c", "shown close to even"),
    "unfair": ("#b3261e", "#ff8a80", "shown uneven"),
    "undecided": ("#555555", "#b8b8b8", "not clear yet"),
}
FONT = 8
MAX_ROWS = 12


@dataclass
class Charts:
    """Images of the three charts at one width and theme, and the figures they were drawn from (tests)."""

    width: int
    dark: bool
    images: list[QImage] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)


def _colours(dark: bool) -> tuple[str, str]:
    return ("#2b2d31", "#e6e6e6") if dark else ("#ffffff", "#222222")


def _style(fig: Figure, dark: bool) -> None:
    face, ink = _colours(dark)
    fig.set_facecolor(face)
    for ax in fig.axes:
        ax.set_facecolor(face)
        ax.tick_params(colors=ink, which="both", labelsize=FONT - 1)
        for spine in ax.spines.values():
            spine.set_color(ink)
        ax.title.set_color(ink)
        ax.xaxis.label.set_color(ink)
        ax.yaxis.label.set_color(ink)
        for text in ax.texts:
            text.set_color(ink)
    for legend in fig.legends:
        legend.get_frame().set_facecolor(face)
        for text in legend.get_texts():
            text.set_color(ink)


def _percent_axis(ax: Axes) -> None:
    ax.set_xlim(0, 1)
    ax.set_xticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.xaxis.set_major_formatter(lambda x, _pos: f"{x:.0%}")


def _figure(width_px: int, height_px: int, dpr: float) -> Figure:
    from matplotlib.figure import Figure

    dpi = 100.0
    return Figure(figsize=(width_px / dpi, height_px / dpi), dpi=dpi * dpr, layout="constrained")


def openings_chart(report: Any, width_px: int, dpr: float, dark: bool) -> Figure:
    """Each opening played out: the first mover's chance after it, with its 95% range, against the band."""
    rows: list[OpeningView] = sorted(openings(report)[:MAX_ROWS], key=lambda o: o.rate)
    fig = _figure(width_px, 92 + 19 * max(1, len(rows)), dpr)
    ax = fig.add_subplot(111)
    ax.axvspan(*FAIR_BAND, color=BAND_COLOUR, alpha=0.3)
    ax.axvline(0.5, color="0.5", lw=0.8, ls=":")
    ax.set_title("What the verdict rests on: each opening tried,\n"
                 "first mover's chance to win (line: likely range)", fontsize=FONT)
    if not rows:
        ax.text(0.5, 0.5, "no opening was played out", ha="center", va="center", fontsize=FONT,
                transform=ax.transAxes)
        ax.set_yticks([])
    for i, o in enumerate(rows):
        light, dark_colour, _ = STATUS_STYLE.get(o.status, STATUS_STYLE["undecided"])
        colour = dark_colour if dark else light
        ax.errorbar([o.rate], [i], xerr=[[o.rate - o.ci[0]], [o.ci[1] - o.rate]], fmt="o", color=colour,
                    capsize=3, ms=4, mfc=colour if o.status != "undecided" else "none", lw=1.2)
    if rows:
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([o.label for o in rows], fontsize=FONT - 1)
        ax.set_ylim(-0.7, len(rows) - 0.3)
    _percent_axis(ax)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", ls="", ms=4, color=(d if dark else light),
                      mfc=(d if dark else light) if status != "undecided" else "none", label=text)
               for status, (light, d, text) in STATUS_STYLE.items()]
    fig.legend(handles=handles, loc="outside lower center", ncol=3, fontsize=FONT - 1, frameon=False,
               handletextpad=0.2, columnspacing=0.8)
    _style(fig, dark)
    return fig


def raw_chart(report: Any, width_px: int, dpr: float, dark: bool) -> Figure:
    """The no-swap rate of the first mover with its 95% range (information, not the verdict)."""
    fig = _figure(width_px, 92, dpr)
    ax = fig.add_subplot(111)
    ax.axvspan(*FAIR_BAND, color=BAND_COLOUR, alpha=0.3)
    ax.axvline(0.5, color="0.5", lw=0.8, ls=":")
    found = raw_rate(report)
    colour = "#8cc4ff" if dark else "#1f5fa8"
    if found is not None:
        rate, ci, games = found
        lo, hi = ci if ci is not None else (rate, rate)
        ax.errorbar([rate], [0], xerr=[[rate - lo], [hi - rate]], fmt="o", color=colour, capsize=5, ms=5)
        ax.set_title(f"Without a swap (for information): the player who\nmoves first wins {rate:.0%} of {games} "
                     "games", fontsize=FONT)
    else:
        ax.set_title("Without a swap: no games reported", fontsize=FONT)
    ax.set_yticks([])
    ax.set_ylim(-1, 1)
    _percent_axis(ax)
    _style(fig, dark)
    return fig


def margins_chart(report: Any, width_px: int, dpr: float, dark: bool) -> Figure:
    """How far apart the scores end (first mover minus second player) in the no-swap games."""
    import numpy as np

    margins = [int(m) for m in (_get(_get(report, "raw"), "margins", None) or [])]
    fig = _figure(width_px, 170, dpr)
    ax = fig.add_subplot(111)
    zero_colour = "0.8" if dark else "0.3"
    if margins:
        lo_m, hi_m = min(margins), max(margins)
        bins: Any = np.arange(lo_m - 0.5, hi_m + 1.5, 1.0) if hi_m - lo_m <= 40 else 30
        ax.hist(margins, bins=bins, color="#9b6fd1", edgecolor="black", linewidth=0.4)
        ax.axvline(0, color=zero_colour, lw=0.8)
    else:
        ax.text(0.5, 0.5, "no margins reported", ha="center", va="center", fontsize=FONT, transform=ax.transAxes)
    ax.set_title("Score margin, first mover minus second\n(0 = a tie: the last to place wins it)", fontsize=FONT)
    ax.set_xlabel("symbols", fontsize=FONT - 1)
    ax.set_ylabel("games", fontsize=FONT - 1)
    _style(fig, dark)
    return fig


def to_image(fig: Figure, dpr: float) -> QImage:
    """Draw with Agg (no window system, any thread) into a QImage with the screen's pixel ratio."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()  # type: ignore[no-untyped-call]  # matplotlib leaves these two untyped
    buffer = canvas.buffer_rgba()  # type: ignore[no-untyped-call]
    height, width = buffer.shape[0], buffer.shape[1]
    image = QImage(bytes(buffer), width, height, 4 * width, QImage.Format.Format_RGBA8888).copy()
    image.setDevicePixelRatio(dpr)
    return image


def render_charts(report: Any, width_px: int, dpr: float, dark: bool) -> Charts:
    """All three charts for ``report`` at ``width_px`` logical pixels (called on a worker thread)."""
    width_px = max(160, width_px)
    charts = Charts(width_px, dark)
    for make in (openings_chart, raw_chart, margins_chart):
        fig = make(report, width_px, dpr, dark)
        charts.figures.append(fig)
        charts.images.append(to_image(fig, dpr))
    return charts
