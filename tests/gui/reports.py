"""Saved real analysis reports (``tests/data/reports``, see the README there) and analyzers that return them, for
the GUI tests: the panel and the board are shown what ``lits analyze`` really writes, never a hand-kept stand-in."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor

from core.analysis.config import AnalysisCancelled, AnalysisConfig, AnalysisProgress
from core.analysis.results import AnalysisReport, Analyzer, ProgressFn, read_report
from core.board.model import Board
from tests.paths import REPO

REPORTS = REPO / "tests" / "data" / "reports"
BALANCED = "default-balanced"
"""12x12, balanced for greedy play: 3 fair openings of 5."""
CHECKED = "dense-checked"
"""12x12, balanced, each fair opening cross-checked by mcts:100."""
REFINED = "sparse-refined"
"""12x12, inconclusive for mcts:40 with a refined screen, a cross-check and two agents."""
QUICK = "dense-quick"
"""12x12, a quick look (greedy + casual) that found the board balanced for casual play."""
LOPSIDED = "tiny-lopsided"
"""6x6, lopsided: every opening one-sided."""
SMALL = "tiny-inconclusive"
"""6x6, inconclusive."""


def saved_report(name: str) -> AnalysisReport:
    return read_report(REPORTS / f"{name}.json")


def analyzer(name: str = BALANCED, seconds: float = 0.0, seen: dict[str, object] | None = None,
             started: threading.Event | None = None, forever: bool = False) -> Analyzer:
    """An analyzer that plays for ``seconds`` (reporting progress, honouring cancel) and returns a saved report;
    ``forever`` plays until cancelled.  ``seen`` records the thread, the board, the config and the keywords."""

    def analyze(board: Board, config: AnalysisConfig, *, progress: ProgressFn | None = None,
                cancel: threading.Event | None = None, executor: Executor | None = None,
                executor_workers: int = 0) -> AnalysisReport:
        if seen is not None:
            seen.update(thread=threading.current_thread() is threading.main_thread(), board=board, config=config,
                        executor=executor, executor_workers=executor_workers)
        if started is not None:
            started.set()
        steps = max(1, int(seconds / 0.02))
        step = 0
        while forever or step < steps:
            if cancel is not None and cancel.is_set():
                raise AnalysisCancelled("cancelled")
            time.sleep(0.02)
            step += 1
            if progress is not None:
                progress(AnalysisProgress("raw", step, steps, "club: raw seat advantage (same agent both seats)"))
        return saved_report(name)

    return analyze


Factory = Callable[[], Analyzer]
