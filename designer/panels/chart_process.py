"""The analysis panel's charts are drawn in a helper process, not on a thread of the window's process.

Drawing the three charts is about 0.4 s of matplotlib, almost all of it Python.  On a worker thread it shared
the GIL with the GUI thread: every Python slot, paint and timer of the window waited up to a switch interval
(5 ms) for the GIL and then ran at half speed, so the window stalled 40-80 ms at a time while the charts of a
finished analysis were drawn (measured with ``tests/gui/designer_probe.py --stalls``).  In their own process the
charts take a CPU but never the GIL, and matplotlib is never imported by the window's process at all.

The process is spawned on first use (or by :func:`prepare` when an analysis starts, so it has imported
matplotlib by the time the result is in), runs :data:`designer.workers.HELPER_NICE` levels below the window,
and lives as long as the application; a process that died is replaced on the next request.  Nothing here
imports Qt: the spawned process loads only this module, the report's records (``core.analysis.results``), numpy
and matplotlib.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.analysis.results import ChartData
from core.selfplay.worker import start_helper

if TYPE_CHECKING:
    from matplotlib.figure import Figure


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
    """One helper process that draws charts; created on first use, replaced when it died."""

    def __init__(self, nice: int) -> None:
        self.nice = nice
        self._lock = threading.Lock()
        self._pool: cf.ProcessPoolExecutor | None = None

    def _executor(self) -> cf.ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = cf.ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                                    initializer=start_helper, initargs=(self.nice,))
            return self._pool

    def _submit(self, fn: Callable[..., Any], *args: Any) -> tuple[cf.Future[Any], cf.ProcessPoolExecutor]:
        """Submit to the process, starting a new one when the old one is known to be dead."""
        pool = self._executor()
        try:
            return pool.submit(fn, *args), pool
        except BrokenProcessPool:
            self._forget(pool)
        pool = self._executor()
        return pool.submit(fn, *args), pool

    def _forget(self, pool: cf.ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is pool:
                self._pool = None

    def prepare(self) -> None:
        """Start the process and let it import matplotlib now (returns at once; call it off the GUI thread,
        since starting a process takes a few milliseconds)."""
        self._submit(_load)

    def draw(self, data: ChartData, width_px: int, dpr: float, dark: bool) -> Drawn:
        """Draw the charts of ``data`` in the process and wait for them (call it on a worker thread)."""
        future, pool = self._submit(draw, data, width_px, dpr, dark)
        try:
            result: Drawn = future.result()
        except BrokenProcessPool:
            self._forget(pool)
            raise RuntimeError("the chart drawing process stopped unexpectedly; it is restarted for the next "
                               "result") from None
        return result

    def pids(self) -> list[int]:
        """Process ids of the chart process (none before the first use)."""
        with self._lock:
            procs: dict[int, Any] = getattr(self._pool, "_processes", None) or {}
            return [p.pid for p in procs.values() if p.pid is not None]

    def shutdown(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
