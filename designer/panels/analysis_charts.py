"""The analysis panel's charts, drawn off the GUI thread into images.

The figures come from :mod:`core.analysis.charts` (the same builders the Markdown report uses); this
module only draws them.  matplotlib costs about half a second to import and a few hundred milliseconds to
lay out and draw three charts; on the GUI thread both froze the window.  So each figure is drawn by the
Agg renderer (thread-safe for figures nobody else touches, no pyplot) into a ``QImage`` on a worker, and
the panel shows it in a label.  The panel asks for a width and gets images exactly that wide, so a chart
can never push the panel wider than its dock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtGui import QImage

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from core.analysis.results import AnalysisReport

MIN_WIDTH = 160


@dataclass
class Charts:
    """Images of the panel's charts at one width and theme, and the figures they were drawn from (tests)."""

    width: int
    dark: bool
    images: list[QImage] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)


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


def render_charts(report: AnalysisReport, width_px: int, dpr: float, dark: bool) -> Charts:
    """The panel's charts for ``report`` at ``width_px`` logical pixels (called on a worker thread)."""
    from core.analysis.charts import PANEL_CHARTS

    width_px = max(MIN_WIDTH, width_px)
    charts = Charts(width_px, dark)
    for make in PANEL_CHARTS:
        fig = make(report, width_px, dpr, dark)
        charts.figures.append(fig)
        charts.images.append(to_image(fig, dpr))
    return charts
