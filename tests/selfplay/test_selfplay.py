"""The self-play runner: reproducible across worker counts, early stops in index order, prompt cancellation."""

from __future__ import annotations

import concurrent.futures as cf
import os
import threading
import time

import pytest

from core.board.model import Board
from core.selfplay.runner import RunCancelled, Runner, resolve_workers
from core.selfplay.tasks import BoardSpec, GameResult, GameTask, derive_seed
from core.selfplay.worker import play_game


def _alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_derive_seed_is_stable_and_spreads() -> None:
    assert derive_seed(0, 1, 2) == derive_seed(0, 1, 2)
    seeds = {derive_seed(7, 1, i) for i in range(1000)}
    assert len(seeds) == 1000
    assert derive_seed(7, 1, 5) != derive_seed(8, 1, 5)
    assert derive_seed(2**40 + 3, 1) != derive_seed(3, 1)


def _tasks(n: int, agent: str = "greedy:0.2") -> list[GameTask]:
    spec = BoardSpec.from_board(Board.random(size=8, pairs=12, seed=4))
    return [GameTask(spec, derive_seed(5, 1, i), agent, agent, pie=True) for i in range(n)]


def test_runner_is_reproducible_across_worker_counts() -> None:
    tasks = _tasks(24) + _tasks(4, "mcts:40")
    with Runner(workers=1) as one:
        a = one.run(play_game, tasks)
    with Runner(workers=2) as two:
        b = two.run(play_game, tasks)
    inline = Runner(inline=True).run(play_game, tasks)
    assert a == b == inline
    assert len({r.moves for r in a}) > 20  # the seeds really differ


def test_early_stop_falls_on_the_same_game_for_any_worker_count() -> None:
    tasks = _tasks(40)

    def stopper(seen: list[int]) -> object:
        def stop(i: int, r: GameResult) -> bool:
            seen.append(i)
            return sum(1 for _ in seen) >= 3 and r.s1_won
        return stop

    outs = []
    for workers in (1, 2):
        seen: list[int] = []
        with Runner(workers=workers) as runner:
            outs.append(runner.run(play_game, tasks, stopper(seen)))  # type: ignore[arg-type]
        assert seen == list(range(len(seen)))  # strictly in index order
    assert outs[0] == outs[1]
    assert 3 <= len(outs[0]) < 40


def test_cancel_terminates_workers_promptly() -> None:
    # each of these games takes many seconds, so only termination can stop them quickly
    tasks = _tasks(4, "mcts:200000")
    runner = Runner(workers=2)
    runner.start()
    pids = runner.worker_pids()
    assert len(pids) == 2 and all(_alive(p) for p in pids)
    cancel = threading.Event()
    timer = threading.Timer(1.0, cancel.set)
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(RunCancelled):
        runner.run(play_game, tasks, cancel=cancel)
    elapsed = time.monotonic() - t0
    timer.cancel()
    assert elapsed < 4.0
    deadline = time.monotonic() + 3.0
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids), "worker processes survived the cancel"


def test_inline_runner_honours_cancel() -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(RunCancelled):
        Runner(inline=True).run(play_game, _tasks(3), cancel=cancel)


def test_worker_errors_reach_the_caller() -> None:
    spec = BoardSpec.from_board(Board.random(size=8, pairs=12, seed=4))
    bad = [GameTask(spec, 1, "greedy", "greedy", opening=10**6)]
    with Runner(workers=1) as runner, pytest.raises((ValueError, IndexError)):
        runner.run(play_game, bad)


def test_resolve_workers() -> None:
    assert resolve_workers(3) == 3
    assert resolve_workers(0) >= 1
    assert resolve_workers(0) <= (os.cpu_count() or 1)
    with pytest.raises(ValueError, match="workers"):
        resolve_workers(-1)


class _RecordingExecutor(cf.ThreadPoolExecutor):
    """A caller's own executor that remembers every future it handed out."""

    def __init__(self, workers: int) -> None:
        super().__init__(max_workers=workers)
        self.futures: list[cf.Future[object]] = []

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
        future = super().submit(fn, *args, **kwargs)
        self.futures.append(future)
        return future


def test_a_supplied_executor_plays_the_same_games_and_stays_open() -> None:
    tasks = _tasks(12) + _tasks(2, "mcts:30")
    inline = Runner(inline=True).run(play_game, tasks)
    with _RecordingExecutor(2) as ex:
        with Runner(workers=2, executor=ex) as runner:
            runner.start()
            assert runner.worker_pids() == []  # not the runner's processes
            assert runner.run(play_game, tasks) == inline
            seen: list[int] = []
            stopped = runner.run(play_game, tasks, lambda i, r: seen.append(i) is None and i == 4)
        assert stopped == inline[:5] and seen == [0, 1, 2, 3, 4]
        assert len(ex.futures) >= len(tasks) + 2  # the warm-ups and the games really went through it
        assert ex.submit(sum, [1, 2]).result(timeout=5) == 3  # closing the runner left the executor open


def test_cancel_with_a_supplied_executor_drops_the_queued_work() -> None:
    gate = threading.Event()
    cancel = threading.Event()
    with _RecordingExecutor(1) as ex:
        runner = Runner(workers=1, executor=ex)
        timer = threading.Timer(0.3, cancel.set)
        timer.start()
        t0 = time.monotonic()
        with pytest.raises(RunCancelled):
            runner.run(lambda _item: gate.wait(10), list(range(6)), cancel=cancel)
        assert time.monotonic() - t0 < 2.0  # did not wait for the blocked task
        running, queued = ex.futures[0], ex.futures[1:]
        assert queued and all(f.cancelled() for f in queued)
        assert not running.cancelled()  # a supplied executor's running work is its owner's to stop
        gate.set()
        assert running.result(timeout=5) is True
        assert ex.submit(sum, [2, 3]).result(timeout=5) == 5
    with pytest.raises(ValueError, match="inline"):
        Runner(inline=True, executor=cf.ThreadPoolExecutor(1))


def test_start_warms_one_worker_first_and_relays_its_steps() -> None:
    """On a first run the first worker compiles the engine alone; the others start after it and load its cache."""
    steps: list[tuple[int, int, bool]] = []
    with Runner(workers=2) as runner:
        runner.start(progress=lambda *step: steps.append(step))
        assert len(runner.worker_pids()) == 2
    total = steps[-1][1]
    assert steps[0] == (0, total, False) and steps[-1][0] == total  # from the first step to the last, in order
    assert [d for d, _t, _c in steps] == sorted(d for d, _t, _c in steps) and len(steps) >= 3
    assert not any(compiled for _d, _t, compiled in steps)  # the suite runs with the disk cache filled

    done_at: dict[int, float] = {}
    submitted_at: list[float] = []

    class Timed(_RecordingExecutor):
        def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
            submitted_at.append(time.monotonic())
            future = super().submit(fn, *args, **kwargs)
            index = len(submitted_at) - 1
            future.add_done_callback(lambda _f: done_at.__setitem__(index, time.monotonic()))
            return future

    with Timed(3) as ex:
        Runner(workers=3, executor=ex).start()
    assert len(submitted_at) == 3
    assert done_at[0] <= submitted_at[1] <= submitted_at[2]  # the rest wait for the first


def test_inline_start_reports_the_same_steps() -> None:
    steps: list[tuple[int, int, bool]] = []
    Runner(inline=True).start(progress=lambda *step: steps.append(step))
    assert steps[0][0] == 0 and steps[-1][0] == steps[-1][1] and len(steps) >= 3
