"""The first start compiles the engine in a helper process, visibly: the status bar says so with its progress
and hides the note when the engine is ready (the compile itself is simulated: a real one takes minutes)."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from designer import warmup

pytestmark = pytest.mark.gui


class FakeRunner:
    """Stands for the helper-process pool: reports the compile's steps as a first start would."""

    compiled = True

    def __init__(self, workers: int = 0) -> None:
        self.workers = workers
        self.terminated = False

    def start(self, cancel: object = None, progress: object = None, nice: int = 0) -> None:
        assert callable(progress) and nice > 0  # below the window's priority
        for done in range(0, 11):
            assert warmup.compiling.is_set() == (done > 1 and self.compiled)
            progress(done, 10, self.compiled and done > 0)

    def terminate(self) -> None:
        self.terminated = True


def test_compile_engine_reports_progress_only_when_it_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    import core.selfplay.runner as runner_module

    monkeypatch.setattr(runner_module, "Runner", FakeRunner)
    seen: list[object] = []

    class Control:
        def progress(self, value: object) -> None:
            seen.append(value)

    assert warmup.compile_engine(Control()) is True  # type: ignore[arg-type]
    assert [v.done for v in seen] == list(range(1, 11))  # type: ignore[attr-defined]
    assert all(v.seconds_left is not None and v.seconds_left >= 0 for v in seen)  # type: ignore[attr-defined]
    assert not warmup.compiling.is_set()
    assert "once, after installing" in seen[0].words()  # type: ignore[attr-defined]
    FakeRunner.compiled = False
    try:
        seen.clear()
        assert warmup.compile_engine(Control()) is False  # type: ignore[arg-type]
        assert seen == []  # a warm cache: nothing to say
    finally:
        FakeRunner.compiled = True


def test_the_status_bar_shows_the_compile_and_hides_it_when_ready(qtbot: QtBot) -> None:
    from designer.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    window._engine_progress(warmup.CompileProgress(3, 10))
    assert window.engine_note.isVisible()
    assert "Preparing the game engine (30%)" in window.engine_note.text()
    window._engine_progress(warmup.CompileProgress(4, 10, seconds_left=41.0))
    assert "Preparing the game engine (40%, about 40 s left)" in window.engine_note.text()
    window._engine_progress(warmup.CompileProgress(10, 10))
    assert not window.engine_note.isVisible()


def test_an_analysis_started_during_the_compile_says_why_it_waits(qtbot: QtBot) -> None:
    from core.analysis.config import AnalysisProgress
    from designer.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    panel = window.analysis
    start = AnalysisProgress("start", 0, 1, "starting worker processes and loading the compiled agents")
    panel.engine_compiling = lambda: True
    panel._on_progress(start)
    assert "Waiting for the game engine to be compiled" in panel.progress_label.text()
    panel.engine_compiling = lambda: False
    panel._on_progress(start)
    assert "Waiting" not in panel.progress_label.text()


def test_the_kernels_load_with_the_collector_paused_and_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading numba's compiled kernels makes hundreds of thousands of objects; a full collection over them on the
    warm-up's thread held the GIL for 24-115 ms at the end of a first start's compile, with a play-test waiting
    (``designer_probe.py --cold``).  They load with the collector paused, and are frozen before it runs again."""
    import gc

    import core.engine.purerules  # noqa: F401  (subclasses GameState at import: before it is watched below)
    import core.engine.rules as rules
    from core.board.model import Board

    real = rules.GameState
    seen: list[bool] = []

    def watched(board: Board) -> object:
        seen.append(gc.isenabled())
        return real(board)

    monkeypatch.setattr(rules, "GameState", watched)
    frozen = gc.get_freeze_count()
    was = gc.isenabled()
    gc.enable()
    try:
        warmup._load(Board(6))
        assert seen == [False]
        assert gc.isenabled()  # switched on again afterwards
        assert gc.get_freeze_count() >= frozen
    finally:
        if not was:
            gc.disable()
