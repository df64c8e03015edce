"""The designer's one background-worker helper: off the GUI thread, progress, cancel, stale answers dropped."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("PySide6")

from designer.workers import Control, HelperProcess, JobError, Refused, Worker


def test_runner_delivers_only_the_latest_answer(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner: Worker[str, None] = Worker()
    gate = threading.Event()
    main_thread = threading.get_ident()
    where: list[int] = []
    seen_cancel: list[bool] = []

    def slow(job: Control[None]) -> str:
        where.append(threading.get_ident())
        gate.wait(5)
        seen_cancel.append(job.cancelled.is_set())
        return "stale"

    runner.request(slow)
    runner.cancel()
    gate.set()
    with qtbot.waitSignal(runner.finished, timeout=5000) as blocker:
        runner.request(lambda _job: "fresh")
    assert blocker.args == ["fresh"]
    assert where and where[0] != main_thread
    assert seen_cancel == [True], "the superseded job was told to stop"
    assert not runner.busy


def test_runner_reports_errors_in_words(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner: Worker[str, None] = Worker()

    def broken(_job: Control[None]) -> str:
        raise ValueError("no legal move")

    with qtbot.waitSignal(runner.failed, timeout=5000) as blocker:
        runner.request(broken)
    assert [str(e) for e in blocker.args] == ["ValueError: no legal move"]


def test_progress_of_the_current_job_only(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner: Worker[str, int] = Worker()
    seen: list[int] = []
    runner.on_progress(seen.append)

    def counting(job: Control[int]) -> str:
        for i in range(3):
            job.progress(i)
        return "done"

    with qtbot.waitSignal(runner.finished, timeout=5000):
        runner.request(counting)
    qtbot.wait(20)
    assert seen == [0, 1, 2]


def test_a_new_request_supersedes_the_running_one(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner: Worker[str, None] = Worker()
    started = threading.Event()
    first_cancelled = threading.Event()

    def first(job: Control[None]) -> str:
        started.set()
        job.cancelled.wait(5)
        if job.cancelled.is_set():
            first_cancelled.set()
        return "first"

    runner.request(first)
    assert started.wait(5)
    with qtbot.waitSignal(runner.finished, timeout=5000) as blocker:
        runner.request(lambda _job: "second")
    assert blocker.args == ["second"]
    assert first_cancelled.is_set()


# ---------------------------------------------------------------------------- the typed form


def test_a_typed_worker_delivers_its_result_progress_and_a_typed_error(qtbot) -> None:  # type: ignore[no-untyped-def]
    worker: Worker[int, str] = Worker()
    results: list[int] = []
    steps: list[str] = []
    failures: list[JobError] = []
    worker.on_done(results.append)
    worker.on_progress(steps.append)
    worker.on_failed(failures.append)

    def count(job: Control[str]) -> int:
        job.progress("half")
        return 42

    with qtbot.waitSignal(worker.finished, timeout=5000):
        worker.request(count)
    qtbot.wait(20)
    assert results == [42] and steps == ["half"] and failures == []

    def broken(_job: Control[str]) -> int:
        raise ValueError("no legal move")

    with qtbot.waitSignal(worker.failed, timeout=5000):
        worker.request(broken)
    assert failures == [JobError("no legal move", "ValueError")] and not failures[0].refused
    assert str(failures[0]) == "ValueError: no legal move"  # the words a host reads


def test_a_refusal_arrives_in_its_own_words_and_a_cancel_the_work_noticed_says_so(qtbot) -> None:  # type: ignore[no-untyped-def]
    worker: Worker[int, None] = Worker()
    failures: list[JobError] = []
    stopped: list[bool] = []
    worker.on_failed(failures.append)
    worker.on_cancelled(lambda: stopped.append(True))

    def refuses(_job: Control[None]) -> int:
        raise Refused("The time is too short: give at least 90 s.")

    with qtbot.waitSignal(worker.failed, timeout=5000):
        worker.request(refuses)
    assert failures[0].refused and str(failures[0]) == "The time is too short: give at least 90 s."
    gate = threading.Event()

    def polls(job: Control[None]) -> int:
        gate.wait(5)
        job.cancelled.set()  # as a cancel from inside the work (the run's own stop), noticed at the next check
        job.check()
        return 1

    with qtbot.waitSignal(worker.cancelled, timeout=5000):
        worker.request(polls)
        gate.set()
    assert stopped == [True] and not worker.busy and len(failures) == 1


def test_a_helper_process_answers_and_is_replaced_when_it_died() -> None:
    import multiprocessing
    import os

    process = HelperProcess("the helper stopped; it is restarted for the next request", nice=0)
    try:
        assert process.pids() == []
        first = process.call(os.getpid)
        assert first != os.getpid() and process.pids() == [first]
        for child in multiprocessing.active_children():
            if child.pid == first:
                child.kill()
                child.join(10)
        try:  # the death is noticed by this request (it says so) or before it (a new process answers)
            again = process.call(os.getpid)
        except RuntimeError as exc:
            assert str(exc) == "the helper stopped; it is restarted for the next request"
            again = process.call(os.getpid)
        assert again not in (first, os.getpid()) and process.pids() == [again]
    finally:
        process.shutdown()
    assert process.pids() == []
