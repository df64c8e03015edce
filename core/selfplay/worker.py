"""What runs in a worker process: top-level functions a spawned process can import by name.

Each imports the compiled engine (``core.selfplay.game``, numba) inside its body, so the
parent process, which only plans games and reads their results, never loads numba by
importing this module.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from core.selfplay.tasks import BoardSpec, GameResult, GameTask

ScreenItem = tuple["BoardSpec", tuple[int, ...], int, int]
"""(board, openings, simulations per opening, seed) for one screen task."""


def play_game(task: GameTask) -> GameResult:
    """One game of a task."""
    from core.selfplay.game import play_task

    return play_task(task)


def play_games(tasks: Sequence[GameTask]) -> list[GameResult]:
    """A batch of games in one worker call, for agents so fast that process traffic would dominate."""
    from core.selfplay.game import play_task

    return [play_task(t) for t in tasks]


def screen_openings(item: ScreenItem) -> npt.NDArray[np.float64]:
    """Cheap S1 win share after each listed opening (-1 for an illegal one)."""
    from core.selfplay.game import screen

    spec, openings, sims, seed = item
    return screen(spec, openings, sims, seed)


def init_worker() -> None:
    """Workers leave Ctrl-C to the parent, which stops them itself (no traceback per worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def warm_up() -> int:
    """Load (or compile) the kernels once per worker so the first game is not charged for it."""
    from core.agents.search import warm_up as load_kernels

    load_kernels()
    return os.getpid()
