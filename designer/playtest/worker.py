"""Agent moves computed on a thread pool, with the answer sent back as a Qt signal.

A search can take seconds; running it on the GUI thread would freeze the
clocks and the window.  Each request carries a token so an answer that arrives
after the position changed (undo, new game, window closed) is recognised as
stale and dropped instead of being played on the wrong position.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal


class _Relay(QObject):
    """Lives on the GUI thread; queued signals carry results across threads safely."""

    done = Signal(int, object)
    failed = Signal(int, str)


class _Job(QRunnable):
    def __init__(self, token: int, work: Callable[[], object], relay: _Relay) -> None:
        super().__init__()
        self.token = token
        self.work = work
        self.relay = relay
        self.setAutoDelete(True)

    def run(self) -> None:
        try:
            result = self.work()
        except Exception as exc:  # the window reports it in words; a worker thread must never die silently
            self.relay.failed.emit(self.token, f"{type(exc).__name__}: {exc}")
            return
        self.relay.done.emit(self.token, result)


class AgentRunner(QObject):
    """Runs one piece of work at a time off the GUI thread; only the latest request's answer is delivered."""

    finished = Signal(object)
    """The result of the current request."""
    error = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._relay = _Relay(self)
        self._relay.done.connect(self._on_done)
        self._relay.failed.connect(self._on_failed)
        self._token = 0
        self._busy = False

    @property
    def busy(self) -> bool:
        return self._busy

    def request(self, work: Callable[[], object]) -> int:
        """Start ``work`` (which must only touch its own copies of the game); returns the request's token."""
        self._token += 1
        self._busy = True
        self._pool.start(_Job(self._token, work, self._relay))
        return self._token

    def cancel(self) -> None:
        """Forget the pending request; its answer will be dropped when it arrives."""
        self._token += 1
        self._busy = False

    def wait(self, msecs: int = 30_000) -> bool:
        """Block until running work ends (used when the window closes)."""
        return bool(self._pool.waitForDone(msecs))

    def _on_done(self, token: int, result: object) -> None:
        if token == self._token:
            self._busy = False
            self.finished.emit(result)

    def _on_failed(self, token: int, message: str) -> None:
        if token == self._token:
            self._busy = False
            self.error.emit(message)
