"""Evaluate many boards at once, on this machine's cores or on any ``concurrent.futures`` executor.

Both go through ``core.selfplay.runner.Runner``, which hands results back strictly in submission order, so the
search sees the same sequence whatever the number of workers; with evaluations that depend only on the board and
the master seed, the same seed gives the same boards on 1, 2 or 64 workers.  The executor form is for
``core.selfplay.cluster.DaskSession.executor``.
"""

from __future__ import annotations

import concurrent.futures as cf
import gc
import threading
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from core.selfplay.runner import RunCancelled, Runner

T = TypeVar("T")
R = TypeVar("R")


class BoardPool(Protocol):
    """``map`` runs ``fn`` on every item and returns the results in item order (RunCancelled when cancelled)."""

    workers: int

    def map(self, fn: Callable[[T], R], items: Sequence[T], on_result: Callable[[int, R], None] | None = None,
            cancel: threading.Event | None = None) -> list[R]: ...

    def close(self) -> None: ...


class RunnerPool:
    """The self-play process pool (``core.selfplay.runner.Runner``): spawned workers with the engine loaded once."""

    def __init__(self, workers: int = 0, inline: bool = False, executor: cf.Executor | None = None) -> None:
        self.runner = Runner(workers=workers, inline=inline, executor=executor)
        self.workers = self.runner.workers
        self._started = False

    def map(self, fn: Callable[[T], R], items: Sequence[T], on_result: Callable[[int, R], None] | None = None,
            cancel: threading.Event | None = None) -> list[R]:
        if not self._started:
            self.runner.start(cancel)
            self._started = True

        def each(i: int, r: R) -> bool:
            if on_result is not None:
                on_result(i, r)
            return False

        out = self.runner.run(fn, items, each, cancel)
        if len(out) != len(items):  # pragma: no cover - run() only stops early when asked to
            raise RunCancelled()
        return out

    def close(self) -> None:
        """Stop the workers now and release the pool's queues and semaphores before returning.

        ``terminate`` leaves the executor to the garbage collector; a command line that ends with ``os._exit``
        (as ``lits`` does on Ctrl-C) would then leave the semaphores to the resource tracker, which warns about
        them on stderr.  So the pool's manager thread is waited for and the executor collected here."""
        executor = self.runner._executor
        manager = getattr(executor, "_executor_manager_thread", None)  # it holds the queues until it ends
        self.runner.terminate()
        if manager is not None:
            manager.join(timeout=5.0)
        del executor, manager
        gc.collect()


class ExecutorPool(RunnerPool):
    """Any executor (a dask cluster's, a thread pool in tests) through the same runner: ``workers`` is how many
    evaluations it can run at once (the runner keeps twice that many in flight); the executor stays the caller's."""

    def __init__(self, executor: cf.Executor, workers: int) -> None:
        super().__init__(workers=max(1, workers), executor=executor)
