"""``lits learn``: the opening predictor's training data, training and held-out figures.

Imported by ``lits --help``, so it loads nothing heavy at import.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import Any

from core.cli import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, CliError, summary
from core.selfplay.cluster import CLUSTER_HELP

MAX_SHARDS = 100_000


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "learn", help=summary("learn"),
        description="Make and check the learned opening predictor. `lits learn data` plays the deciding agent's "
                    "(club's) games on random boards that no analysis uses; `lits learn train` fits the model to "
                    "them; `lits learn eval` measures it on boards it never saw.")
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    d = sub.add_parser("data", help="play training games into a folder (resumable: run it again to go on)",
                       description="Play club's games on random anti-symmetric boards (10x10, 12x12 and 14x14, "
                                   "8-62%% of the cells holding a symbol), each after a sampled first placement, "
                                   "into --out. "
                                   "Shard K holds boards 32K..32K+31, 8 games each, and depends only on --seed and "
                                   "K: the same seed gives the same bytes on any machine and any number of "
                                   "workers. Ctrl-C keeps every finished shard; run the same command again to go "
                                   "on. Boards used by held-out figures (bundled, benchmark, held-out random) are "
                                   "never played.")
    d.add_argument("--out", required=True, metavar="DIR", help="folder for the shards (created if missing)")
    d.add_argument("--seed", type=int, default=1, metavar="S", help="data seed (default 1)")
    d.add_argument("--shards", type=int, default=400, metavar="N",
                   help="shards to have when done, 256 games each (default 400)")
    d.add_argument("--workers", type=int, default=0, metavar="K", help="worker processes (default 0 = all cores)")
    d.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)
    p.set_defaults(func=run)
    d.set_defaults(func=run_data)


def run(args: argparse.Namespace) -> int:  # pragma: no cover - argparse requires an action
    raise CliError("give an action: lits learn data|train|eval", EXIT_USAGE)


def run_data(args: argparse.Namespace, cancel: threading.Event | None = None) -> int:
    if not 1 <= args.shards <= MAX_SHARDS:
        raise CliError(f"--shards {args.shards}: give 1 to {MAX_SHARDS:,}", EXIT_USAGE)
    if args.workers < 0:
        raise CliError(f"--workers {args.workers}: give 0 (all cores) or more", EXIT_USAGE)
    from core.learn.data import DataError, Plan, open_folder
    from core.learn.play import play_data
    from core.selfplay.cluster import ClusterError, cluster_executor
    from core.selfplay.runner import RunCancelled

    folder = Path(args.out)
    plan = Plan(seed=args.seed, shards=args.shards)
    per_shard = plan.boards_per_shard * plan.games_per_board
    try:
        todo = open_folder(folder, plan)
    except (DataError, OSError) as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    done = plan.shards - len(todo)
    bar: Any = None
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=plan.shards * per_shard, initial=done * per_shard, unit="game", file=sys.stderr,
                   dynamic_ncols=True)

    def shard_done(_shard: int, games: int) -> None:
        nonlocal done
        done += 1
        if bar is not None:
            bar.update(games)

    interrupted = False
    try:
        with cluster_executor(args.cluster) as (executor, executor_workers):
            play_data(folder, plan, workers=executor_workers or args.workers, progress=shard_done, cancel=cancel,
                      executor=executor)
    except ClusterError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except DataError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except (KeyboardInterrupt, RunCancelled):
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    print(f"{folder}: {done} of {plan.shards} shards ({done * per_shard:,} games)"
          + (" - interrupted; run the same command again to go on" if interrupted else ""))
    return EXIT_INTERRUPTED if interrupted else EXIT_OK
