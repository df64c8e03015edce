"""The designer's one background-worker helper: off the GUI thread, progress, cancel, stale answers dropped."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("PySide6")

from designer.workers import BackgroundRunner, JobControl


def test_runner_delivers_only_the_latest_answer(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = BackgroundRunner()
    gate = threading.Event()
    main_thread = threading.get_ident()
    where: list[int] = []
    seen_cancel: list[bool] = []

    def slow(job: JobControl) -> object:
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
    runner = BackgroundRunner()

    def broken(_job: JobControl) -> object:
        raise ValueError("no legal move")

    with qtbot.waitSignal(runner.error, timeout=5000) as blocker:
        runner.request(broken)
    assert blocker.args == ["ValueError: no legal move"]


def test_progress_of_the_current_job_only(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = BackgroundRunner()
    seen: list[object] = []
    runner.progress.connect(seen.append)

    def counting(job: JobControl) -> object:
        for i in range(3):
            job.progress(i)
        return "done"

    with qtbot.waitSignal(runner.finished, timeout=5000):
        runner.request(counting)
    qtbot.wait(20)
    assert seen == [0, 1, 2]


def test_a_new_request_supersedes_the_running_one(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = BackgroundRunner()
    started = threading.Event()
    first_cancelled = threading.Event()

    def first(job: JobControl) -> object:
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
