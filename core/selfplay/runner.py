"""Self-play on all cores: seeded games, results in game-index order, early stops, prompt cancellation.

Reproducibility across worker counts rests on two rules: every game's seed is
derived from (master seed, question, game index) only, and results are consumed
strictly in index order, so an early stop falls at the same game whatever finished
first.  Games that finished beyond the stop are thrown away.

Cancelling terminates the worker processes instead of waiting for the games in
flight, because one strong-agent game can take seconds.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from core.board.model import Board, Symbol
from core.selfplay.worker import init_worker, warm_up

T = TypeVar("T")
R = TypeVar("R")

POLL_SECONDS = 0.05


class RunCancelled(Exception):
    """The caller's cancel event was set; the workers are gone."""


def derive_seed(master: int, *keys: int) -> int:
    """A game's own seed from the master seed and its coordinates (stable across runs and platforms)."""
    ss = np.random.SeedSequence([int(master) & 0xFFFFFFFF, (int(master) >> 32) & 0xFFFFFFFF, *[int(k) for k in keys]])
    return int(ss.generate_state(1, dtype=np.uint32)[0]) & 0x7FFFFFFF


@dataclass(frozen=True)
class BoardSpec:
    """The parts of a board a game needs, small and picklable for the workers."""

    size: int
    cells: str
    supply: tuple[int, int, int, int]
    first: str

    @classmethod
    def from_board(cls, board: Board) -> BoardSpec:
        return cls(board.size, "".join(s.value for s in board.cells), board.params.supply, board.params.first.value)

    @property
    def second(self) -> str:
        return Symbol(self.first).other.value


@dataclass(frozen=True)
class GameTask:
    """One seeded game: agent specs per seat, an optional forced opening, the mirror probe, the pie decision."""

    board: BoardSpec
    seed: int
    s1: str
    s2: str
    opening: int = -1
    mirror: bool = False
    pie: bool = False


@dataclass
class GameResult:
    """What one game says about the board, at seat level (S1 made placements 1, 3, 5, ...)."""

    s1_score: int
    s2_score: int
    winner: int  # 1 or 2
    tie_break: bool
    length: int
    legal_sum: int  # legal placements summed over the turns played
    legal_turns: int
    runout: tuple[int, ...]  # per type: 1 when its supply ran out
    coverage: bytes  # per cell: 0 uncovered, 1 covered by S1's piece, 2 by S2's
    moves: tuple[int, ...] = ()
    swapped: bool = False  # the second player's agent chose the pie swap
    mirror_moves: int = 0  # S2 placements that were the 180-degree image of S1's previous one
    mirror_all: bool = False  # S2 could mirror every time

    @property
    def s1_won(self) -> bool:
        return self.winner == 1


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
    """A process pool that runs tasks and hands their results back in index order.

    ``inline=True`` plays in the calling process (tests, tiny jobs); it still honours
    the cancel event between tasks.
    """

    def __init__(self, workers: int = 0, mp_context: str = "spawn", inline: bool = False) -> None:
        self.workers = resolve_workers(workers)
        self.inline = inline
        self._ctx = multiprocessing.get_context(mp_context)
        self._executor: cf.ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    # -- lifecycle ----------------------------------------------------------------------
    def _pool(self) -> cf.ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = cf.ProcessPoolExecutor(max_workers=self.workers, mp_context=self._ctx,
                                                     initializer=init_worker)
            return self._executor

    def start(self, cancel: threading.Event | None = None) -> None:
        """Spawn the workers and load the kernels in each, cancellable while it happens."""
        if self.inline:
            warm_up()
            return
        pool = self._pool()
        futures = [pool.submit(warm_up) for _ in range(self.workers)]
        self._wait_all(futures, cancel)

    def worker_pids(self) -> list[int]:
        ex = self._executor
        procs: dict[int, Any] = getattr(ex, "_processes", None) or {}
        return [p.pid for p in procs.values() if p.pid is not None]

    def terminate(self) -> None:
        """Kill the workers now; games in flight are lost."""
        with self._lock:
            ex, self._executor = self._executor, None
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
        with self._lock:
            ex, self._executor = self._executor, None
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
    def _wait_all(self, futures: list[cf.Future[Any]], cancel: threading.Event | None) -> None:
        pending = set(futures)
        while pending:
            if cancel is not None and cancel.is_set():
                self.terminate()
                raise RunCancelled()
            _done, pending = cf.wait(pending, timeout=POLL_SECONDS)
        for f in futures:
            f.result()

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
        window = max(2, self.workers * 2)
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
                    futures[pool.submit(fn, items[next_submit])] = next_submit
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
        except RunCancelled:
            self.terminate()
            raise
        except BaseException:
            self.terminate()
            raise
        for f in futures:
            f.cancel()  # stragglers past an early stop: queued ones are dropped, running ones ignored
        return out

