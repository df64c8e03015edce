"""Long work off the GUI thread, with progress, Cancel and stale answers dropped.

A search or an analysis can take seconds to minutes; on the GUI thread it would freeze the window and the clocks.
:class:`BackgroundRunner` runs one job at a time on a private thread pool. Each job gets a :class:`JobControl`
to report progress and to poll for cancellation; every request carries a token, so an answer that arrives after
the request was superseded (undo, new game, a new analysis, window closed) is dropped instead of being applied to
the wrong state. Results and progress cross threads as queued Qt signals.

A runner made with ``progress_interval`` coalesces progress: the work may report thousands of times a second,
but only the newest value is kept, at most one signal waits in the GUI thread's queue, and the window sees at
most one value per interval (the last one of a burst always arrives). Each value handled on the GUI thread
repaints and may re-lay out widgets, so an uncoalesced stream of them is what stalls a window.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

_NOTHING = object()

HELPER_NICE = 10
"""How many nice levels the designer's helper processes (analysis workers, chart drawing) run below the window.
On two cores two busy workers otherwise take the CPU the event loop needs to answer within a frame; lower
priority still lets them use every idle cycle."""


class JobControl:
    """Handed to the work function: ``progress(x)`` reports, ``cancelled`` is set by :meth:`BackgroundRunner.cancel`."""

    def __init__(self, token: int, relay: _Relay, coalesce: bool = False) -> None:
        self.token = token
        self.cancelled = threading.Event()
        self._relay = relay
        self._coalesce = coalesce
        self._lock = threading.Lock()
        self._latest: object = _NOTHING
        self._posted = False

    def progress(self, value: object) -> None:
        if not self._coalesce:
            self._relay.progressed.emit(self.token, value)
            return
        with self._lock:
            self._latest = value
            if self._posted:  # a signal is already on its way; it will pick up this newer value
                return
            self._posted = True
        self._relay.progressed.emit(self.token, _NOTHING)

    def take_progress(self) -> object:
        """The newest value not yet delivered (``_NOTHING`` if none); the next report posts a signal again."""
        with self._lock:
            value, self._latest, self._posted = self._latest, _NOTHING, False
        return value


class _Relay(QObject):
    """Lives on the GUI thread; queued signals carry results across threads safely."""

    done = Signal(int, object)
    failed = Signal(int, str)
    progressed = Signal(int, object)


class _Job(QRunnable):
    def __init__(self, control: JobControl, work: Callable[[JobControl], object], relay: _Relay) -> None:
        super().__init__()
        self.control = control
        self.work = work
        self.relay = relay
        self.setAutoDelete(True)

    def run(self) -> None:
        try:
            result = self.work(self.control)
        except Exception as exc:  # reported in words; a worker thread must never die silently
            self.relay.failed.emit(self.control.token, f"{type(exc).__name__}: {exc}")
            return
        self.relay.done.emit(self.control.token, result)


class BackgroundRunner(QObject):
    """Runs one piece of work at a time off the GUI thread; only the latest request's signals are delivered."""

    finished = Signal(object)
    """The result of the current request."""
    error = Signal(str)
    progress = Signal(object)

    def __init__(self, parent: QObject | None = None, progress_interval: float = 0.0) -> None:
        """``progress_interval`` > 0 coalesces progress to at most one value per that many seconds."""
        super().__init__(parent)
        self.progress_interval = progress_interval
        self._delivered_at = -float("inf")
        self._progress_timer = QTimer(self)
        self._progress_timer.setSingleShot(True)
        self._progress_timer.timeout.connect(self._deliver_progress)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._relay = _Relay(self)
        self._relay.done.connect(self._on_done)
        self._relay.failed.connect(self._on_failed)
        self._relay.progressed.connect(self._on_progress)
        self._token = 0
        self._control: JobControl | None = None

    @property
    def busy(self) -> bool:
        return self._control is not None

    def request(self, work: Callable[[JobControl], object]) -> int:
        """Start ``work`` (it must only touch its own copies of the data); supersedes any earlier request."""
        self.cancel()
        self._token += 1
        self._control = JobControl(self._token, self._relay, coalesce=self.progress_interval > 0)
        self._pool.start(_Job(self._control, work, self._relay))
        return self._token

    def cancel(self) -> None:
        """Ask the running work to stop and forget it: whatever it still sends is dropped."""
        if self._control is not None:
            self._control.cancelled.set()
        self._control = None
        self._token += 1
        self._progress_timer.stop()

    def wait(self, msecs: int = 30_000) -> bool:
        """Block until running work ends (used when the window closes)."""
        return bool(self._pool.waitForDone(msecs))

    def _current(self, token: int) -> bool:
        return self._control is not None and token == self._control.token

    def _on_done(self, token: int, result: object) -> None:
        if self._current(token):
            self._control = None
            self.finished.emit(result)

    def _on_failed(self, token: int, message: str) -> None:
        if self._current(token):
            self._control = None
            self.error.emit(message)

    def _on_progress(self, token: int, value: object) -> None:
        if not self._current(token):
            return
        if value is not _NOTHING:  # not coalesced: every value as it came
            self.progress.emit(value)
            return
        wait = self._delivered_at + self.progress_interval - time.monotonic()
        if wait > 0:
            if not self._progress_timer.isActive():
                self._progress_timer.start(max(1, round(wait * 1000)))
            return
        self._deliver_progress()

    def _deliver_progress(self) -> None:
        control = self._control
        if control is None:
            return
        value = control.take_progress()
        if value is not _NOTHING:
            self._delivered_at = time.monotonic()
            self.progress.emit(value)
