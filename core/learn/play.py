"""Playing a data set's shards on the process pool or a dask cluster, resumable shard by shard."""

from __future__ import annotations

import concurrent.futures as cf
import threading
from collections.abc import Callable
from pathlib import Path

from core.learn.data import OpeningSource, Plan, open_folder, reserved_cells, shard_tasks, to_games, write_shard
from core.selfplay.runner import Runner
from core.selfplay.tasks import GameResult, GameTask
from core.selfplay.worker import play_games

ShardDone = Callable[[int, int], None]
"""``(shard, games in it)`` after each shard is on disk."""


def play_data(folder: Path, plan: Plan, workers: int = 0, progress: ShardDone | None = None,
              cancel: threading.Event | None = None, inline: bool = False,
              executor: cf.Executor | None = None, openings: OpeningSource | None = None) -> int:
    """Play every missing shard; returns how many were played.  Each shard is written whole when its games are
    done, so an interruption loses at most the shard in flight.  ``openings`` narrows the first placements the
    games start after (``shard_tasks``)."""
    todo = open_folder(folder, plan)
    if not todo:
        return 0
    reserved = reserved_cells()
    runner = Runner(workers=workers, inline=inline, executor=executor)
    played = 0
    with runner:
        runner.start(cancel)
        for shard in todo:
            per_board = shard_tasks(plan, shard, reserved, openings)
            results: list[list[GameResult]] = runner.run(play_games, per_board, cancel=cancel)
            tasks: list[GameTask] = [t for board in per_board for t in board]
            flat = [r for board in results for r in board]
            boards = [shard * plan.boards_per_shard + b for b, games in enumerate(per_board) for _ in games]
            write_shard(folder, shard, to_games(tasks, flat, boards))
            played += 1
            if progress is not None:
                progress(shard, len(tasks))
    return played
