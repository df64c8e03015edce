"""Load the compiled engine in the background once the window is up, so no click waits for it.

On the first start after installing, the engine is compiled first, in a helper process that fills numba's disk
cache (:func:`compile_engine`): the window's own threads never compile, the status bar shows the progress, and an
analysis started meanwhile waits for it (its workers queue behind the same lock) instead of paying for it.

numba, the engine's kernels (loaded from numba's disk cache, or compiled on the very first run), the
analysis module and scipy's statistics together take one to two seconds, and far longer on a fresh install.
Imported on the GUI thread they froze the first Analyse click and the first Play-test; here a
:class:`designer.workers.Worker` owned by the application loads them once per process, right
after start-up.  A click that comes before the warm-up is done is still not blocked: the analysis
panel then checks its settings on its worker, and the play-test's agents think on theirs.

The warm-up loads a few hundred thousand long-lived objects (modules, classes, numba's type registry), and
CPython's cyclic collector, which runs in whichever thread allocates and holds the GIL while it walks every
tracked object, then spent 70-150 ms per full pass on them: the window stalled that long (measured with
``tests/gui/designer_probe.py --stalls``).  So the collector is paused while modules are imported (imports make
almost no cyclic garbage) and everything loaded is then frozen (``gc.freeze``): later full collections, also
during an analysis or a play-test, walk only what was made since.  matplotlib is not loaded here at all: the
charts are drawn in their own process (:mod:`designer.panels.chart_process`).
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from core.analysis.hostwords import eta_words
from core.board.model import Board
from designer.workers import HELPER_NICE, Control, Worker

ready = threading.Event()
"""Set when the engine is loaded in this process."""
done = threading.Event()
"""Set when the warm-up has ended, loaded or not (a failure only means the first click loads instead)."""
compiling = threading.Event()
"""Set while the engine is being compiled (the first start after installing)."""
_runner: Worker[float, CompileProgress] | None = None
_sizes: set[int] = set()
"""Board sizes whose placement tables are loaded in this process (each size takes 0.1-0.3 s to load)."""


@dataclass(frozen=True)
class CompileProgress:
    """How far the first start's compile of the engine is (the warm-up's progress value)."""

    done: int
    total: int
    seconds_left: float | None = None
    """From the steps compiled so far (``core.selfplay.runner.CompileClock``)."""

    def words(self) -> str:
        share = 100 * self.done // max(1, self.total)
        left = "" if self.seconds_left is None else f", {eta_words(self.seconds_left)}"
        return (f"Preparing the game engine ({share}%{left}): this happens once, after installing; an analysis "
                "started now begins when it is ready")


def compile_engine(control: Control[CompileProgress] | None = None) -> bool:
    """Compile the engine into numba's disk cache in a helper process (quickly nothing when the cache holds it);
    True when it had to be compiled.  Other processes that need the engine meanwhile wait for it."""
    from core.selfplay.runner import CompileClock, Runner

    compiled = False
    clock = CompileClock()

    def step(done: int, total: int, fresh: bool) -> None:
        nonlocal compiled
        estimate = clock.step(done, total, fresh)
        if estimate is not None:
            compiled = True
            compiling.set()
            if control is not None:
                control.progress(CompileProgress(done, total, max(0.0, estimate - clock.elapsed())))

    runner = Runner(workers=1)
    try:
        runner.start(progress=step, nice=HELPER_NICE)
    finally:
        runner.terminate()
        compiling.clear()
    return compiled


def warm(board: Board, control: Control[CompileProgress] | None = None) -> float:
    """Compile the engine if this is the first start, then import and run everything the first analysis and the
    first play-test need; returns the seconds taken."""
    start = time.monotonic()
    try:
        compile_engine(control)
        _load(board)
    finally:
        done.set()
    ready.set()
    return time.monotonic() - start


def _load(board: Board) -> None:
    with imports():
        import core.agents.search
        import core.analysis.run
        import core.engine.record
        import core.play.view  # the play-test's game and its words (the launcher loads the window's module)
        import designer.canvas.render  # noqa: F401  (what the play-test's board view paints with)
        from core.engine.rules import GameState, all_placements

    # The kernels, loaded from numba's disk cache (the helper process compiled them): with the collector on, a full
    # collection over the objects they make held the GIL for 57 ms at the end of a first start's compile.
    with imports():
        state = GameState(board)  # loads the placement tables and the compiled kernels for this size
        state.legal_placements()
        all_placements(board.size)
    _sizes.add(board.size)
    with imports():
        core.agents.search.parse_agent("greedy")
        from core.analysis.stats import wilson

        wilson(1, 2)  # scipy.stats: over a second to import, needed to show any rate's interval


@contextlib.contextmanager
def imports() -> Iterator[None]:
    """Import with the cyclic collector paused, then freeze what was loaded (see the module's docstring)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def prepare(board: Board) -> None:
    """Load everything a play-test of ``board`` needs: the engine (as :func:`warm` does) and the tables of
    ``board``'s size, which the start-up warm-up loaded only for the board shown then.  Runs off the GUI thread."""
    if not ready.is_set():
        _load(board)
        ready.set()
    from core.engine.rules import GameState, all_placements

    GameState(board).legal_placements()
    all_placements(board.size)
    _sizes.add(board.size)


def prepared(board: Board) -> bool:
    """Whether a play-test of ``board`` can be built on the GUI thread at once (nothing left to load)."""
    return ready.is_set() and board.size in _sizes


def started() -> bool:
    """Whether this process began a warm-up (tests and tools that never do load on first use)."""
    return _runner is not None


def start(board: Board) -> Worker[float, CompileProgress] | None:
    """Begin the warm-up for ``board``'s size (once per process); returns its runner, or None when not needed."""
    global _runner
    app = QCoreApplication.instance()
    if _runner is not None or ready.is_set() or app is None:
        return _runner
    _runner = Worker(app)  # owned by the application: it outlives any one window
    snapshot = board.copy()
    _runner.request(lambda control: warm(snapshot, control))
    return _runner
