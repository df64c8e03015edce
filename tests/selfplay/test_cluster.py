"""Self-play on a real dask LocalCluster on loopback (two worker processes), compared with this machine's pool."""

from __future__ import annotations

import os

import pytest

from core.board.model import Board
from core.selfplay.cluster import ClusterError, ClusterSpec, DaskSession, cluster_from, parse_cluster
from core.selfplay.runner import Runner
from core.selfplay.tasks import BoardSpec, GameTask, derive_seed
from core.selfplay.worker import play_game


def test_addresses_parse_or_are_refused_with_the_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_cluster("local:3") == ClusterSpec(None, 3)
    assert parse_cluster(" tcp://10.0.0.5:8786 ") == ClusterSpec("tcp://10.0.0.5:8786")
    assert parse_cluster("tls://sched.example:8786/").address == "tls://sched.example:8786"
    for bad in ("local:0", "local:x", "10.0.0.5:8786", "http://x:1", "local:9999"):
        with pytest.raises(ClusterError) as info:
            parse_cluster(bad)
        assert f"cannot use cluster {bad!r}" in str(info.value)  # the value named, wherever it was typed
        assert "local:N" in str(info.value) or "1 to 256 workers" in str(info.value)
    monkeypatch.setenv("LITS_CLUSTER", "local:2")
    assert cluster_from(None) == ClusterSpec(None, 2)
    assert cluster_from("tcp://h:1") == ClusterSpec("tcp://h:1")
    monkeypatch.delenv("LITS_CLUSTER")
    assert cluster_from(None) is None


def _tasks(n: int) -> list[GameTask]:
    spec = BoardSpec.from_board(Board.random(size=8, pairs=12, seed=4))
    # Identical tasks twice on purpose: with pure submissions dask would run one and share its result.
    tasks = [GameTask(spec, derive_seed(9, 1, i), "greedy:0.2", "mcts:30", pie=True) for i in range(n)]
    return tasks + tasks[:3]


@pytest.fixture(scope="module")
def session() -> DaskSession:
    pytest.importorskip("distributed")
    with DaskSession(parse_cluster("local:2")) as s:
        yield s  # type: ignore[misc]


def test_cluster_games_equal_the_process_pool(session: DaskSession) -> None:
    tasks = _tasks(16)
    inline = Runner(inline=True).run(play_game, tasks)
    futures = [session.executor.submit(play_game, t) for t in tasks]
    remote = [f.result(timeout=120) for f in futures]
    assert remote == inline
    assert len({r.moves for r in remote}) > 10
    assert session.worker_count() == 2


def test_every_worker_loaded_the_engine_once_on_start(session: DaskSession) -> None:
    loaded = session.client.run(lambda: "core.agents.agent" in __import__("sys").modules)
    assert len(loaded) == 2 and all(loaded.values())
    pids = session.client.run(os.getpid)
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()


def test_runner_on_the_cluster_equals_the_process_pool(session: DaskSession) -> None:
    tasks = _tasks(24)
    with Runner(workers=2) as pool:
        local = pool.run(play_game, tasks)
    remote = Runner(executor=session.executor, workers=session.worker_count()).run(play_game, tasks)
    assert remote == local


def test_cancel_drops_the_queued_games_on_the_cluster(session: DaskSession) -> None:
    import threading

    spec = BoardSpec.from_board(Board.random(size=12, pairs=20, seed=8))
    tasks = [GameTask(spec, derive_seed(3, 1, i), "mcts:3000", "mcts:3000") for i in range(40)]
    cancel = threading.Event()
    seen: list[int] = []

    def first_then_cancel(i: int, _r: object) -> bool:
        seen.append(i)
        cancel.set()
        return False

    runner = Runner(executor=session.executor, workers=session.worker_count())
    from core.selfplay.runner import RunCancelled

    with pytest.raises(RunCancelled):
        runner.run(play_game, tasks, on_result=first_then_cancel, cancel=cancel)
    # The scheduler forgets the cancelled games: nothing of ours is left queued or running shortly after.
    import time

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        processing = session.client.processing()
        if not any(processing.values()):
            break
        time.sleep(0.2)
    assert not any(session.client.processing().values()), session.client.processing()
    assert seen and len(seen) < len(tasks)


def test_a_killed_worker_has_its_games_run_again_with_the_same_result() -> None:
    pytest.importorskip("distributed")
    import signal
    import threading

    tasks = _tasks(30)
    expected = Runner(inline=True).run(play_game, tasks)
    with DaskSession(parse_cluster("local:2")) as s:
        pids = list(s.client.run(os.getpid).values())
        done: list[int] = []

        def kill_after_a_few(i: int, _r: object) -> bool:
            done.append(i)
            if len(done) == 5:
                os.kill(pids[0], signal.SIGKILL)  # a worker dies mid-run; the nanny starts a new one
            return False

        got = Runner(executor=s.executor, workers=2).run(play_game, tasks, on_result=kill_after_a_few,
                                                         cancel=threading.Event())
        assert got == expected
        assert pids[0] not in s.client.run(os.getpid).values()


def test_duel_on_the_cluster_equals_the_process_pool(session: DaskSession) -> None:
    from core.selfplay.duel import run_duel

    board = Board.random(size=8, pairs=12, seed=2)
    local = run_duel(board, "greedy", "mcts:30", 6, seed=4, workers=2)
    remote = run_duel(board, "greedy", "mcts:30", 6, seed=4, executor=session.executor,
                      executor_workers=session.worker_count())
    def games(pairs: list) -> list[tuple[object, ...]]:  # type: ignore[type-arg]
        return [(r.a_as_s1, r.a_as_s2, r.a_moves, r.b_moves) for r in pairs]  # the clocks may differ

    assert games(remote) == games(local) and len(local) == 6


def test_openings_on_the_cluster_equal_the_process_pool(session: DaskSession) -> None:
    from core.analysis.openings import OpeningsConfig, legal_openings, play_openings

    board = Board.random(size=8, pairs=12, seed=6)
    cfg = OpeningsConfig(agent="greedy:0.1", games=30, seed=2, workers=2)
    openings = legal_openings(board)[:3]
    local = play_openings(board, openings, cfg)
    remote = play_openings(board, openings, cfg, executor=session.executor, executor_workers=session.worker_count())
    assert [r.to_json() for r in remote] == [r.to_json() for r in local] and len(local) == 3


def test_a_checkpointed_swap_map_resumes_on_the_cluster(session: DaskSession, tmp_path: object) -> None:
    """Half the openings on the process pool into a checkpoint, the rest resumed on the cluster: the same map."""
    from pathlib import Path

    from core.analysis.openings import OpeningsConfig, legal_openings, play_openings

    board = Board.random(size=8, pairs=12, seed=6)
    cfg = OpeningsConfig(agent="greedy:0.1", games=30, seed=3, workers=2)
    openings = legal_openings(board)[:4]
    fresh = play_openings(board, openings, cfg)
    checkpoint = Path(str(tmp_path)) / "map.jsonl"
    play_openings(board, openings[:2], cfg, checkpoint=checkpoint)
    assert len(checkpoint.read_text().splitlines()) >= 2
    resumed = play_openings(board, openings, cfg, checkpoint=checkpoint, executor=session.executor,
                            executor_workers=session.worker_count())
    assert [r.to_json() for r in resumed] == [r.to_json() for r in fresh]
