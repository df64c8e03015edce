"""Load the compiled engine in the background once the window is up, so no click waits for it.

numba, the engine's kernels (loaded from numba's disk cache, or compiled on the very first run), the
analysis module and matplotlib together take one to two seconds, and far longer on a fresh install.
Imported on the GUI thread they froze the first Analyse click and the first Play-test; here a
:class:`designer.workers.BackgroundRunner` owned by the application loads them once per process, right
after start-up.  A click that comes before the warm-up is done is still not blocked: the analysis
panel then checks its settings on its worker, and the play-test's agents think on theirs.
"""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QCoreApplication

from core.board.model import Board
from designer.workers import BackgroundRunner, JobControl

ready = threading.Event()
"""Set when the engine and the chart library are loaded in this process."""
done = threading.Event()
"""Set when the warm-up has ended, loaded or not (a failure only means the first click loads instead)."""
_runner: BackgroundRunner | None = None


def warm(board: Board, _control: JobControl | None = None) -> float:
    """Import and run everything the first analysis and the first play-test need; returns the seconds taken."""
    start = time.monotonic()
    try:
        _load(board)
    finally:
        done.set()
    ready.set()
    return time.monotonic() - start


def _load(board: Board) -> None:
    from core.engine.rules import GameState

    state = GameState(board)  # loads the placement tables and the compiled kernels for this size
    state.legal_placements()
    import core.agents.search
    import core.analysis.run
    import core.engine.record

    core.agents.search.parse_agent("greedy")
    from core.analysis.stats import wilson

    wilson(1, 2)  # scipy.stats: over a second to import, needed to show any rate's interval
    import matplotlib.backends.backend_agg
    import matplotlib.figure  # noqa: F401  (the analysis charts)


def start(board: Board) -> BackgroundRunner | None:
    """Begin the warm-up for ``board``'s size (once per process); returns its runner, or None when not needed."""
    global _runner
    app = QCoreApplication.instance()
    if _runner is not None or ready.is_set() or app is None:
        return _runner
    _runner = BackgroundRunner(app)  # owned by the application: it outlives any one window
    snapshot = board.copy()
    _runner.request(lambda control: warm(snapshot, control))
    return _runner
