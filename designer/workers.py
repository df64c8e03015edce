"""Long work off the GUI thread, with progress, Cancel and stale answers dropped.

A search or an analysis can take seconds to minutes; on the GUI thread it would freeze the window and the clocks.
:class:`BackgroundRunner` runs one job at a time on a private thread pool. Each job gets a :class:`JobControl`
to report progress and to poll for cancellation; every request carries a token, so an answer that arrives after
the request was superseded (undo, new game, a new analysis, window closed) is dropped instead of being applied to
the wrong state. Results and progress cross threads as queued Qt signals.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal


class JobControl:
    """Handed to the work function: ``progress(x)`` reports, ``cancelled`` is set by :meth:`BackgroundRunner.cancel`."""

    def __init__(self, token: int, relay: _Relay) -> None:
        self.token = token
        self.cancelled = threading.Event()
        self._relay = relay

    def progress(self, value: object) -> None:
        self._relay.progressed.emit(self.token, value)


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

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
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
        self._control = JobControl(self._token, self._relay)
        self._pool.start(_Job(self._control, work, self._relay))
        return self._token

    def cancel(self) -> None:
        """Ask the running work to stop and forget it: whatever it still sends is dropped."""
        if self._control is not None:
            self._control.cancelled.set()
        self._control = None
        self._token += 1

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
        if self._current(token):
            self.progress.emit(value)
