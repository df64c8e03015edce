"""The analysis panel's charts as images, drawn in a helper process.

The figures come from :mod:`core.analysis.charts` (the same builders the Markdown report uses).  They are drawn
by matplotlib's Agg renderer in :mod:`designer.panels.chart_process` (a process of its own, so that 0.4 s of
matplotlib never holds the GIL the window's thread needs), and this module turns the pixels into ``QImage``\\ s
on the panel's chart worker thread.  The panel asks for a width and gets images exactly that wide, so a chart
can never push the panel wider than its dock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from PySide6.QtGui import QImage

from core.analysis.results import AnalysisReport, ChartData
from designer.panels.chart_process import ChartProcess, draw_figures
from designer.workers import HELPER_NICE

if TYPE_CHECKING:
    from matplotlib.figure import Figure

MIN_WIDTH = 160
CHART_PROCESS = ChartProcess(HELPER_NICE)
"""The application's one chart-drawing process (started on first use, ends with the application)."""


@dataclass
class Charts:
    """Images of the panel's charts at one width and theme, and the process that drew them."""

    width: int
    dark: bool
    dpr: float = 1.0
    images: list[QImage] = field(default_factory=list)
    pid: int = 0
    """The process that drew the images (not the window's)."""
    data: ChartData = field(default_factory=lambda: ChartData((), None, ()))
    """What they were drawn from."""

    @cached_property
    def figures(self) -> list[Figure]:
        """The figures behind the images, drawn again in this process on request: for inspecting what the panel
        shows (tests); the panel itself never needs them, so the window's process never imports matplotlib."""
        return draw_figures(self.data, self.width, self.dpr, self.dark)


def to_image(width: int, height: int, rgba: bytes, dpr: float) -> QImage:
    """RGBA pixels as a QImage with the screen's pixel ratio (owning a copy of the pixels)."""
    image = QImage(rgba, width, height, 4 * width, QImage.Format.Format_RGBA8888).copy()
    image.setDevicePixelRatio(dpr)
    return image


def render_charts(report: AnalysisReport, width_px: int, dpr: float, dark: bool) -> Charts:
    """The panel's charts for ``report`` at ``width_px`` logical pixels (called on a worker thread, which waits
    for the chart process without holding the GIL)."""
    width_px = max(MIN_WIDTH, width_px)
    data = ChartData.of(report)
    drawn = CHART_PROCESS.draw(data, width_px, dpr, dark)
    return Charts(width_px, dark, dpr, [to_image(w, h, rgba, dpr) for w, h, rgba in drawn.images], drawn.pid,
                  data)
