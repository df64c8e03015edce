"""The analysis panel's charts are drawn in a helper process, not on a thread of the window's process.

Drawing the three charts is about 0.4 s of matplotlib, almost all of it Python.  On a worker thread it shared
the GIL with the GUI thread: every Python slot, paint and timer of the window waited up to a switch interval
(5 ms) for the GIL and then ran at half speed, so the window stalled 40-80 ms at a time while the charts of a
finished analysis were drawn (measured with ``tests/gui/designer_probe.py --stalls``).  In their own process the
charts take a CPU but never the GIL, and matplotlib is never imported by the window's process at all.

The process is the designer's one kind of helper process (:class:`designer.workers.HelperProcess`): spawned on
first use (or by :func:`prepare` when an analysis starts, so it has imported matplotlib by the time the result is
in), :data:`designer.workers.HELPER_NICE` levels below the window, alive as long as the application, and replaced
on the next request when it died.  Nothing the spawned process loads imports Qt: it loads only this module, the
report's records (``core.analysis.results``), numpy and matplotlib.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.analysis.results import ChartData

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from designer.workers import HelperProcess


@dataclass(frozen=True)
class Drawn:
    """The charts as raw RGBA rows (width, height, bytes per image) and the process that drew them."""

    pid: int
    images: list[tuple[int, int, bytes]]


def draw_figures(data: ChartData, width_px: int, dpr: float, dark: bool) -> list[Figure]:
    """The panel's charts for ``data`` (``ChartData.of(report)``: small and picklable), drawn by Agg (laid out)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from core.analysis.charts import PANEL_CHARTS

    figures = []
    for make in PANEL_CHARTS:
        fig = make(data, width_px, dpr, dark)
        FigureCanvasAgg(fig).draw()  # type: ignore[no-untyped-call]  # matplotlib leaves it untyped
        figures.append(fig)
    return figures


def draw(data: ChartData, width_px: int, dpr: float, dark: bool) -> Drawn:
    """In the chart process: the charts as RGBA pixels."""
    images = []
    for fig in draw_figures(data, width_px, dpr, dark):
        buffer = fig.canvas.buffer_rgba()  # type: ignore[attr-defined]
        images.append((int(buffer.shape[1]), int(buffer.shape[0]), bytes(buffer)))
    return Drawn(os.getpid(), images)


def _load() -> int:
    """Import what drawing needs, so the first chart does not wait for it."""
    import matplotlib.backends.backend_agg  # noqa: F401

    import core.analysis.charts  # noqa: F401

    return os.getpid()


class ChartProcess:
    """The chart drawing process: a :class:`designer.workers.HelperProcess`, made on first use.

    The helper class is imported when the process is first needed, not with this module: the spawned process
    imports this module to find :func:`draw`, and must not load Qt with it.
    """

    def __init__(self, nice: int) -> None:
        self.nice = nice
        """Set before the first use (the process is started at that priority)."""
        self._lock = threading.Lock()
        self._process: HelperProcess | None = None

    def _helper(self) -> HelperProcess:
        from designer.workers import HelperProcess

        with self._lock:
            if self._process is None:
                self._process = HelperProcess("the chart drawing process stopped unexpectedly; it is restarted "
                                              "for the next result", nice=self.nice)
            return self._process

    def prepare(self) -> None:
        """Start the process and let it import matplotlib now (returns at once; call it off the GUI thread,
        since starting a process takes a few milliseconds)."""
        self._helper().submit(_load)

    def draw(self, data: ChartData, width_px: int, dpr: float, dark: bool) -> Drawn:
        """Draw the charts of ``data`` in the process and wait for them (call it on a worker thread)."""
        return self._helper().call(draw, data, width_px, dpr, dark)

    def pids(self) -> list[int]:
        """Process ids of the chart process (none before the first use)."""
        with self._lock:
            process = self._process
        return [] if process is None else process.pids()

    def shutdown(self) -> None:
        with self._lock:
            process, self._process = self._process, None
        if process is not None:
            process.shutdown(wait=True)
