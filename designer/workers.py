"""Long work off the GUI thread, typed: a result, progress, a typed error and Cancel, with stale answers dropped.

A search or an analysis can take seconds to minutes; on the GUI thread it would freeze the window and the clocks.
:class:`Worker` runs one job at a time on a private thread pool. Each job gets a :class:`Control` to report
progress and to poll for cancellation; every request carries a token, so an answer that arrives after the request
was superseded (undo, new game, a new analysis, window closed) is dropped instead of being applied to the wrong
state. Results, progress and errors cross threads as queued Qt signals.

``Worker[T, P]`` is typed by its result ``T`` and its progress value ``P``; :meth:`Worker.on_done`,
:meth:`Worker.on_failed` and :meth:`Worker.on_progress` connect slots that mypy checks against them. What can go
wrong is told apart by exception, never by a sentinel result: the work raises :class:`Refused` for a request it
cannot do as asked (the host reads its words as they are) and :class:`Cancelled` when it noticed a cancel; anything
else it raises arrives as a :class:`JobError` naming the exception.

Work that must not share the window's GIL (drawing charts or pictures with matplotlib) runs in a
:class:`HelperProcess`: one spawned process, started on first use, at :data:`HELPER_NICE` below the window and
replaced when it died; a Worker's job waits for it with :meth:`HelperProcess.call`.

A worker made with ``progress_interval`` coalesces progress: the work may report thousands of times a second,
but only the newest value is kept, at most one signal waits in the GUI thread's queue, and the window sees at
most one value per interval (the last one of a burst always arrives). Each value handled on the GUI thread
repaints and may re-lay out widgets, so an uncoalesced stream of them is what stalls a window.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import threading
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Generic, ParamSpec, TypeVar

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from core.selfplay.worker import start_helper

T = TypeVar("T")
"""What a job returns."""
P = TypeVar("P")
"""What a job reports as progress."""
R = TypeVar("R")
Args = ParamSpec("Args")

_NOTHING = object()

HELPER_NICE = 10
"""How many nice levels the designer's helper processes (analysis workers, chart drawing) run below the window.
On two cores two busy workers otherwise take the CPU the event loop needs to answer within a frame; lower
priority still lets them use every idle cycle."""


class Cancelled(Exception):
    """Raised by work that noticed it was cancelled (:meth:`Control.check`): only ``cancelled`` is signalled."""


class Refused(Exception):
    """Raised by work that cannot do what it was asked (a time too short, a level the engine refuses): its words
    are advice for the host and arrive as a :class:`JobError` without an exception name."""


@dataclass(frozen=True)
class JobError:
    """Why a job ended without a result: the words, and the exception's name (empty when the work refused)."""

    message: str
    kind: str = ""

    @property
    def refused(self) -> bool:
        """The work refused the request (:class:`Refused`): advice for the host, not a fault."""
        return not self.kind

    @classmethod
    def of(cls, exc: BaseException) -> JobError:
        if isinstance(exc, Refused):
            return cls(str(exc))
        return cls(str(exc), type(exc).__name__)

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}" if self.kind else self.message


class Control(Generic[P]):
    """Handed to the work: ``progress(x)`` reports, ``cancelled`` is set by :meth:`Worker.cancel`."""

    def __init__(self, token: int, relay: _Relay, coalesce: bool = False) -> None:
        self.token = token
        self.cancelled = threading.Event()
        self._relay = relay
        self._coalesce = coalesce
        self._lock = threading.Lock()
        self._latest: object = _NOTHING
        self._posted = False

    def progress(self, value: P) -> None:
        if not self._coalesce:
            self._relay.progressed.emit(self.token, value)
            return
        with self._lock:
            self._latest = value
            if self._posted:  # a signal is already on its way; it will pick up this newer value
                return
            self._posted = True
        self._relay.progressed.emit(self.token, _NOTHING)

    def check(self) -> None:
        """Raise :class:`Cancelled` once the request was cancelled (for work that polls between steps)."""
        if self.cancelled.is_set():
            raise Cancelled

    def take_progress(self) -> object:
        """The newest value not yet delivered (``_NOTHING`` if none); the next report posts a signal again."""
        with self._lock:
            value, self._latest, self._posted = self._latest, _NOTHING, False
        return value


JobControl = Control[object]
"""The control of work whose progress is of any type (a ``Worker[T, object]``)."""


class _Relay(QObject):
    """Lives on the GUI thread; queued signals carry results across threads safely."""

    done = Signal(int, object)
    failed = Signal(int, object)
    stopped = Signal(int)
    progressed = Signal(int, object)


class _Job(QRunnable, Generic[T, P]):
    def __init__(self, control: Control[P], work: Callable[[Control[P]], T], relay: _Relay) -> None:
        super().__init__()
        self.control = control
        self.work = work
        self.relay = relay
        self.setAutoDelete(True)

    def run(self) -> None:
        try:
            result = self.work(self.control)
        except Cancelled:
            self.relay.stopped.emit(self.control.token)
            return
        except Exception as exc:  # reported in words; a worker thread must never die silently
            self.relay.failed.emit(self.control.token, JobError.of(exc))
            return
        self.relay.done.emit(self.control.token, result)


class Worker(QObject, Generic[T, P]):
    """Runs one piece of work at a time off the GUI thread; only the latest request's signals are delivered."""

    finished = Signal(object)
    """The result (a ``T``) of the current request; connect typed slots with :meth:`on_done`."""
    failed = Signal(object)
    """A :class:`JobError`: the current request raised instead of returning."""
    progress = Signal(object)
    """A ``P`` the current request reported."""
    cancelled = Signal()
    """The current request's work raised :class:`Cancelled` (a request dropped by :meth:`cancel` says nothing)."""

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
        self._relay.stopped.connect(self._on_stopped)
        self._relay.progressed.connect(self._on_progress)
        self._token = 0
        self._control: Control[P] | None = None

    # -- typed connections ----------------------------------------------------------------------------------
    def on_done(self, slot: Callable[[T], object]) -> None:
        self.finished.connect(slot)

    def on_failed(self, slot: Callable[[JobError], object]) -> None:
        self.failed.connect(slot)

    def on_progress(self, slot: Callable[[P], object]) -> None:
        self.progress.connect(slot)

    def on_cancelled(self, slot: Callable[[], object]) -> None:
        self.cancelled.connect(slot)

    # -- requests -------------------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._control is not None

    def request(self, work: Callable[[Control[P]], T]) -> int:
        """Start ``work`` (it must only touch its own copies of the data); supersedes any earlier request."""
        self.cancel()
        self._token += 1
        control: Control[P] = Control(self._token, self._relay, coalesce=self.progress_interval > 0)
        self._control = control
        self._pool.start(_Job(control, work, self._relay))
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

    # -- delivery on the GUI thread -------------------------------------------------------------------------
    def _current(self, token: int) -> bool:
        return self._control is not None and token == self._control.token

    def _on_done(self, token: int, result: object) -> None:
        if self._current(token):
            self._control = None
            self.finished.emit(result)

    def _on_failed(self, token: int, failure: object) -> None:
        if self._current(token) and isinstance(failure, JobError):
            self._control = None
            self.failed.emit(failure)

    def _on_stopped(self, token: int) -> None:
        if self._current(token):
            self._control = None
            self.cancelled.emit()

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


class HelperProcess:
    """One spawned helper process, :data:`HELPER_NICE` levels below the window: started on first use (or by
    :meth:`submit` of a warm-up), replaced when it died.  Thread-safe; call :meth:`call` from a Worker's job."""

    def __init__(self, died: str, nice: int = HELPER_NICE) -> None:
        """``died`` is the sentence a request gets when the process stopped under it."""
        self.died = died
        self.nice = nice
        self._lock = threading.Lock()
        self._pool: cf.ProcessPoolExecutor | None = None

    def _executor(self) -> cf.ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = cf.ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                                    initializer=start_helper, initargs=(self.nice,))
            return self._pool

    def _forget(self, pool: cf.ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is pool:
                self._pool = None

    def _start(self, fn: Callable[Args, R], *args: Args.args,
               **kwargs: Args.kwargs) -> tuple[cf.Future[R], cf.ProcessPoolExecutor]:
        pool = self._executor()
        try:
            return pool.submit(fn, *args, **kwargs), pool
        except (BrokenProcessPool, RuntimeError):  # known dead (or shut down): a new process takes the request
            self._forget(pool)
        pool = self._executor()
        return pool.submit(fn, *args, **kwargs), pool

    def submit(self, fn: Callable[Args, R], *args: Args.args, **kwargs: Args.kwargs) -> cf.Future[R]:
        """Run ``fn`` (a top-level function: the process imports its module) in the process; returns at once."""
        return self._start(fn, *args, **kwargs)[0]

    def call(self, fn: Callable[Args, R], *args: Args.args, **kwargs: Args.kwargs) -> R:
        """Run ``fn`` in the process and wait for its result; a process that died under it raises RuntimeError
        with :attr:`died` (the next request starts a new process)."""
        future, pool = self._start(fn, *args, **kwargs)
        try:
            return future.result()
        except BrokenProcessPool:
            self._forget(pool)
            raise RuntimeError(self.died) from None

    def pids(self) -> list[int]:
        """Process id of the helper (none before the first use)."""
        with self._lock:
            procs: dict[int, multiprocessing.Process] = getattr(self._pool, "_processes", None) or {}
            return [p.pid for p in procs.values() if p.pid is not None]

    def shutdown(self, wait: bool = True) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=wait, cancel_futures=True)
