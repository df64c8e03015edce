"""What runs in a worker process: top-level functions a spawned process can import by name.

Each imports the compiled engine (``core.selfplay.game``, numba) inside its body, so the
parent process, which only plans games and reads their results, never loads numba by
importing this module.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from core.selfplay.tasks import BoardSpec, GameResult, GameTask

WarmUpProgress = Callable[[int, int, bool], None]
"""``(work done, total work, compiled so far)``: see ``core.agents.agent.warm_up``."""

FIRST_WAIT_SECONDS = 1800.0
"""How long the other workers wait for the first one to compile before they go ahead on their own."""

_progress_queue: Any = None
"""In a worker of the runner's own pool: where the warm-up reports its steps to the parent."""
_first_done: Any = None
"""In a worker of the runner's own pool: set once the first worker's warm-up has filled the disk cache."""

ScreenItem = tuple["BoardSpec", tuple[int, ...], int, int]
"""(board, openings, simulations per opening, seed) for one screen task."""
RefineItem = tuple["BoardSpec", tuple[tuple[int, int], ...], int]
"""(board, (opening, seed) pairs, simulations per opening) for one refinement task."""


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


def refine_openings(item: RefineItem) -> npt.NDArray[np.float64]:
    """A guided search's S1 share after each listed opening (-1 for an illegal one)."""
    from core.selfplay.game import refine

    spec, openings, sims = item
    return refine(spec, openings, sims)


def predict_openings(spec: BoardSpec) -> tuple[str, list[float]] | str:
    """The opening predictor's S1 chance after every first placement and the model's digest, or why there is
    none (no model installed, a damaged one, a board size it was not trained for)."""
    from core.agents.value import ModelError, default_model, opening_chances

    try:
        model = default_model()
        return model.digest, [float(v) for v in opening_chances(spec.to_board(), model)]
    except ModelError as exc:
        return str(exc)


def lower_priority(steps: int) -> None:
    """Make this process ``steps`` nice levels kinder to the others (a window's event loop, say); quietly
    nothing where the system has no nice levels or refuses."""
    if steps <= 0:
        return
    with contextlib.suppress(AttributeError, OSError):  # Windows has no os.nice; a sandbox may forbid it
        os.nice(steps)


def exit_with_parent() -> None:
    """End this process as soon as its parent does.

    A pool's worker waits for its next task on a queue it holds both ends of, so a parent that was killed or
    crashed (no chance to send the pool's stop) left it waiting for ever, holding its memory: a lingering
    ``python`` per worker after every crash of the designer or a killed ``lits analyze``.  The parent's sentinel
    becomes readable when the parent ends, however it ends."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    sentinel = parent.sentinel

    def watch() -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def start_helper(nice: int = 0) -> None:
    """Initializer of every helper process (pool workers, chart drawing, the Host window's pictures): Ctrl-C is
    left to the parent, which stops its helpers itself (no traceback per process); ``nice`` levels below the
    parent (the designer passes some so its window stays responsive); and it ends with its parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    lower_priority(nice)
    exit_with_parent()


def init_worker(progress_queue: Any = None, first_done: Any = None, nice: int = 0) -> None:
    """A worker of the runner's own pool (see :func:`start_helper`); it keeps the queue the parent reads
    warm-up progress from and the event that says the first warm-up is over."""
    global _progress_queue, _first_done
    start_helper(nice)
    _progress_queue = progress_queue
    _first_done = first_done


def compile_lock_path() -> str:
    """One lock file per installed engine and numba cache: processes that start at the same time (two analyses,
    the designer and a worker pool) then compile the engine once between them, the others load it after."""
    import hashlib
    import tempfile

    import core

    where = f"{os.path.dirname(os.path.abspath(core.__file__))}|{os.environ.get('NUMBA_CACHE_DIR', '')}"
    digest = hashlib.sha256(where.encode()).hexdigest()[:16]
    return os.path.join(tempfile.gettempdir(), f"lits-engine-{digest}.lock")


def load_engine(progress: WarmUpProgress | None = None) -> bool:
    """Load (or compile) the kernels in this process, one process at a time (see :func:`compile_lock_path`);
    True when they had to be compiled here."""
    from filelock import FileLock

    lock = FileLock(compile_lock_path())
    try:
        lock.acquire()
    except OSError:  # a temporary folder this user may not write to: compile without sharing
        return _load_kernels(progress)
    try:
        return _load_kernels(progress)
    finally:
        lock.release()


def _load_kernels(progress: WarmUpProgress | None = None) -> bool:
    from core.agents.agent import warm_up as load_kernels

    return load_kernels(progress)


def warm_up() -> int:
    """Worker entry: load (or compile) the kernels so the first game is not charged for it."""
    load_engine()
    return os.getpid()


def warm_up_first(report: bool) -> int:
    """Worker entry for the first worker of the runner's own pool: compile the kernels into the disk cache when
    it does not hold them (with ``report``, sending each step to the parent), then let the others go on."""
    queue = _progress_queue if report else None
    try:
        load_engine(None if queue is None else lambda done, total, compiled: queue.put((done, total, compiled)))
    finally:
        if _first_done is not None:
            _first_done.set()
    return os.getpid()


def warm_up_after_first() -> int:
    """Worker entry: wait until the first worker has compiled the kernels into the disk cache, then load them
    (instead of compiling the same code at the same time)."""
    if _first_done is not None:
        _first_done.wait(FIRST_WAIT_SECONDS)
        _load_kernels()  # the first worker filled the disk cache: load without queueing behind the lock
    else:
        load_engine()
    return os.getpid()
