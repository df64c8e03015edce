"""Self-play on all cores: results in game-index order, early stops, prompt cancellation.

Reproducibility across worker counts rests on two rules: every game's seed is derived
from (master seed, question, game index) only (``core.selfplay.tasks.derive_seed``), and
results are consumed strictly in index order, so an early stop falls at the same game
whatever finished first.  Games that finished beyond the stop are thrown away.

The runner drives any ``concurrent.futures.Executor``.  By default it owns a pool of
spawned processes, and cancelling terminates them instead of waiting for the games in
flight, because one strong-agent game can take seconds.  An executor the caller supplies
(a dask client's, for instance) stays the caller's: the runner cancels what it submitted
and stops waiting, but never shuts the executor down.

This module does not import numba: the parent only plans games and reads results.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from core.selfplay.worker import (
    WarmUpProgress,
    init_worker,
    load_engine,
    warm_up,
    warm_up_after_first,
    warm_up_first,
)

T = TypeVar("T")
R = TypeVar("R")

POLL_SECONDS = 0.05
LAST_REPORT_SECONDS = 1.0
"""How long to wait for the warm-up's last progress message after its worker has finished."""


class CompileClock:
    """How long the first run's compile of the engine will take, from the warm-up steps that compiled so far.

    Why not from the warm-up's start: kernels already in numba's disk cache (another process compiled some, or an
    update changed only a few) load in a fraction of a second, so a compile timed from the start was promised as
    "about 10 s" and took a minute.  The clock starts at the step boundary where compiling began; the work before
    it came from the cache.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._mark: float | None = None
        self._base = 0
        self.started: float | None = None
        """When compiling began (None while everything so far came from the cache)."""

    def step(self, done: int, total: int, compiled: bool) -> float | None:
        """Record one warm-up report (``WarmUpProgress``'s arguments); the expected seconds of the whole compile,
        or None while nothing had to be compiled."""
        now = self._clock()
        if not compiled or self._mark is None:
            self._mark, self._base = now, done
            return None
        if self.started is None:
            self.started = self._mark
        share = (done - self._base) / max(1, total - self._base)
        return (now - self._mark) / max(share, 1e-9)

    def elapsed(self) -> float:
        """Seconds since compiling began (0 while it has not)."""
        return 0.0 if self.started is None else self._clock() - self.started


class RunCancelled(Exception):
    """The caller's cancel event was set; the runner's own workers are gone."""


def resolve_workers(workers: int) -> int:
    """0 means every core the process may use."""
    if workers < 0:
        raise ValueError(f"workers must be 0 (all cores) or more, not {workers}")
    if workers == 0:
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # pragma: no cover - not on Linux
            return max(1, os.cpu_count() or 1)
    return workers


class Runner:
    """Runs tasks on an executor and hands their results back in index order.

    ``workers`` sizes the default process pool, or says how many tasks a supplied
    ``executor`` can run at once (it sets how many are kept in flight).  ``inline=True``
    plays in the calling process (tests, tiny jobs); it still honours the cancel event
    between tasks.
    """

    def __init__(self, workers: int = 0, mp_context: str = "spawn", inline: bool = False,
                 executor: cf.Executor | None = None) -> None:
        if inline and executor is not None:
            raise ValueError("a runner is either inline or uses an executor, not both")
        self.workers = resolve_workers(workers)
        self.inline = inline
        self._ctx = multiprocessing.get_context(mp_context)
        self._owned = executor is None
        self._executor: cf.Executor | None = executor
        self._nice = 0  # how many nice levels the own pool's workers run below this process
        self._progress: Any = None  # the own pool's queue of warm-up progress messages
        self._first_done: Any = None  # the own pool's event: the first worker's warm-up is over
        self._submitted: set[cf.Future[Any]] = set()
        self._lock = threading.Lock()
        self._track = threading.Lock()  # guards _submitted, which done-callbacks change from other threads

    # -- lifecycle ----------------------------------------------------------------------
    def _pool(self) -> cf.Executor:
        with self._lock:
            if self._executor is None:
                if not self._owned:
                    raise RuntimeError("the runner was closed; its executor belongs to the caller")
                self._progress = self._ctx.Queue()
                self._first_done = self._ctx.Event()
                self._executor = cf.ProcessPoolExecutor(max_workers=self.workers, mp_context=self._ctx,
                                                        initializer=init_worker,
                                                        initargs=(self._progress, self._first_done, self._nice))
            return self._executor

    def _submit(self, pool: cf.Executor, fn: Callable[..., R], *args: Any) -> cf.Future[R]:
        future = pool.submit(fn, *args)
        with self._track:
            self._submitted.add(future)
        future.add_done_callback(self._forget)  # may run at once, so outside the lock
        return future

    def _forget(self, future: cf.Future[Any]) -> None:
        with self._track:
            self._submitted.discard(future)

    def start(self, cancel: threading.Event | None = None, progress: WarmUpProgress | None = None,
              nice: int = 0) -> None:
        """Start the workers and load the kernels in each, cancellable while it happens.

        ``nice`` > 0 runs the runner's own workers that many nice levels below this process (where the system
        allows it), so a window in this process keeps a CPU while they play; a supplied executor's workers
        are the caller's and keep their priority.

        One worker goes first: on the first run it compiles the kernels into numba's disk cache
        (one to two minutes), and the others then load them in a second instead of all compiling the
        same code at once.  The runner's own pool starts every process at once and the others
        wait for an event the first one sets; a supplied executor gets the rest after the first
        has finished.  ``progress`` sees the first worker's steps (own pool, or inline); its last
        argument says whether anything had to be compiled.
        """
        if self.inline:
            load_engine(progress)
            return
        self._nice = nice
        pool = self._pool()
        if self._owned:
            futures = [self._submit(pool, warm_up_first, progress is not None)]
            futures += [self._submit(pool, warm_up_after_first) for _ in range(self.workers - 1)]
            self._wait_all(futures, cancel, progress)
            return
        self._wait_all([self._submit(pool, warm_up)], cancel)
        self._wait_all([self._submit(pool, warm_up) for _ in range(self.workers - 1)], cancel)

    def worker_pids(self) -> list[int]:
        """Process ids of the runner's own pool (empty for a supplied executor)."""
        if not self._owned:
            return []
        procs: dict[int, Any] = getattr(self._executor, "_processes", None) or {}
        return [p.pid for p in procs.values() if p.pid is not None]

    def terminate(self) -> None:
        """Stop now: kill the runner's own workers (games in flight are lost); with a supplied executor,
        cancel what this runner submitted."""
        with self._track:
            submitted = list(self._submitted)
        for f in submitted:
            f.cancel()
        if not self._owned:
            return
        with self._lock:
            ex, self._executor = self._executor, None
            self._progress = self._first_done = None
        if ex is None:
            return
        procs = list((getattr(ex, "_processes", None) or {}).values())
        for p in procs:
            if p.is_alive():
                p.terminate()
        ex.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            p.join(timeout=2.0)
            if p.is_alive():
                p.kill()
                p.join(timeout=1.0)

    def close(self) -> None:
        """Finish: shut down the runner's own pool; a supplied executor is left running for its owner."""
        if not self._owned:
            return
        with self._lock:
            ex, self._executor = self._executor, None
            self._progress = self._first_done = None
        if ex is not None:
            ex.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is not None:
            self.terminate()
        else:
            self.close()

    # -- running ------------------------------------------------------------------------
    def _wait_all(self, futures: list[cf.Future[Any]], cancel: threading.Event | None,
                  progress: WarmUpProgress | None = None) -> None:
        pending = set(futures)
        finished = False
        while pending:
            if cancel is not None and cancel.is_set():
                self.terminate()
                raise RunCancelled()
            done, pending = cf.wait(pending, timeout=POLL_SECONDS)
            if progress is not None:
                finished = self._relay(progress, wait=0.0) or finished
            failed = [f for f in done if not f.cancelled() and f.exception() is not None]
            if failed:  # e.g. the first warm-up: the others would wait for it in vain
                self.terminate()
                failed[0].result()
        for f in futures:
            f.result()
        if progress is not None and not finished:
            self._relay(progress, wait=LAST_REPORT_SECONDS)

    def _relay(self, progress: WarmUpProgress, wait: float) -> bool:
        """Pass the warm-up's queued messages on (with ``wait``, until its last one arrives); True once the last
        one (done == total) was passed."""
        q = self._progress
        while q is not None:
            try:
                done, total, compiled = q.get(timeout=wait) if wait else q.get_nowait()
            except queue.Empty:
                return False
            progress(done, total, compiled)
            if done >= total:
                return True
        return False

    def run(self, fn: Callable[[T], R], items: Sequence[T],
            on_result: Callable[[int, R], bool] | None = None,
            cancel: threading.Event | None = None) -> list[R]:
        """Run ``fn`` on every item; ``on_result(i, r)`` sees results in index order and returns True to stop.

        Returns the results consumed, i.e. the prefix up to and including the stop.
        ``fn`` must be a top-level function of an importable module (spawned workers import it).
        """
        out: list[R] = []
        if not items:
            return out
        if self.inline:
            for i, item in enumerate(items):
                if cancel is not None and cancel.is_set():
                    raise RunCancelled()
                r = fn(item)
                out.append(r)
                if on_result is not None and on_result(i, r):
                    break
            return out
        pool = self._pool()
        # In flight at once: the own pool's workers each have one game and one more waits, so a worker never idles
        # on the parent; a supplied executor (a cluster across a network) gets a deeper queue.  Every game past a
        # sequential test's stop is thrown away, so a shallower queue wastes less (results are the same either way).
        window = self.workers + 1 if self._owned else max(2, self.workers * 2)
        futures: dict[cf.Future[R], int] = {}
        done: dict[int, R] = {}
        next_submit = 0
        next_take = 0
        stopped = False
        try:
            while next_take < len(items) and not stopped:
                if cancel is not None and cancel.is_set():
                    raise RunCancelled()
                while next_submit < len(items) and len(futures) < window:
                    futures[self._submit(pool, fn, items[next_submit])] = next_submit
                    next_submit += 1
                finished, _ = cf.wait(list(futures), timeout=POLL_SECONDS, return_when=cf.FIRST_COMPLETED)
                for f in finished:
                    idx = futures.pop(f)
                    done[idx] = f.result()
                while next_take in done:
                    r = done.pop(next_take)
                    out.append(r)
                    next_take += 1
                    if on_result is not None and on_result(next_take - 1, r):
                        stopped = True
                        break
        except BaseException:
            self.terminate()
            raise
        for f in futures:
            f.cancel()  # stragglers past an early stop: queued ones are dropped, running ones ignored
        return out

