"""The search with scoring functions of known optimum: it finds the optimum, keeps locks and the density range,
gives the same boards for a seed on any worker count, improves a host's board in small steps, and stops on
Cancel."""

from __future__ import annotations

import concurrent.futures as cf
import threading
from dataclasses import dataclass, field

import pytest

from core.board.model import Board, Symbol
from core.board.validation import Severity, validate
from core.generate.config import GenerateCancelled, SearchConfig
from core.generate.figures import DENSITY_PENALTY, MARGIN_SPREAD_FULL, Figures, play_score
from core.generate.layout import Layout, Locks, PairRange, distance, layout_of, pairs_of
from core.generate.pool import ExecutorPool, RunnerPool
from core.generate.search import Candidate, GenerateProgress, generate, improve
from tests.generate.timing import FakeClock, Screen


@dataclass
class Target:
    """Score 1 at one known layout, falling by one twentieth per pair that differs; records every board."""

    target: Layout
    seen: list[Board] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, board: Board) -> Figures:
        layout = layout_of(board)
        with self.lock:
            self.seen.append(board.copy())
        return Figures(score=1.0 - distance(layout, self.target) / 20, pairs=pairs_of(layout))


def _target(size: int, pairs: int, seed: int) -> Layout:
    return layout_of(Board.random(size, pairs, seed=seed))


def inline() -> RunnerPool:
    return RunnerPool(inline=True)


@pytest.mark.parametrize(("size", "pairs", "rounds"), [(4, 3, 20), (6, 6, 80)])
def test_search_finds_the_known_optimum(size: int, pairs: int, rounds: int) -> None:
    target = _target(size, pairs, seed=size)
    score = Target(target)
    cfg = SearchConfig(size=size, pairs=PairRange(2, 8), count=2, seed=1, rounds=rounds, time_budget=None)
    result = generate(cfg, score, inline())
    best = result.candidates[0]
    assert best.layout == target, f"best {best.key} misses the optimum after {result.screened} layouts"
    assert best.score == pytest.approx(1.0)
    # far fewer evaluations than the layouts there are (3**8 = 6,561 on 4x4; 3**18 = 387 million on 6x6)
    assert result.screened <= rounds * cfg.batch
    assert len({layout_of(b).__hash__() for b in score.seen}) == len(score.seen)  # never the same board twice


def test_every_board_is_valid_in_range_and_keeps_locks() -> None:
    size = 6
    start = Board.random(size, 5, seed=9)
    locked = [*[c for c in range(size * size) if start[c] is not Symbol.EMPTY][:2], 14]  # two symbols, one empty
    locks = Locks.from_cells(locked, size)
    score = Target(_target(size, 7, seed=3))
    pairs = PairRange(4, 7)
    cfg = SearchConfig(size=size, pairs=pairs, count=3, seed=2, rounds=6, time_budget=None)
    result = generate(cfg, score, inline(), locks=locks, start=start)
    assert len(score.seen) == result.screened == 6 * cfg.batch
    for board in score.seen:
        assert board.is_antisymmetric()
        assert not [p for p in validate(board) if p.severity is Severity.ERROR]
        assert pairs.contains(pairs_of(layout_of(board)))
        for cell in locks.cells():
            assert board[cell] is start[cell]
    assert len(result.candidates) == cfg.finalist_count == 4
    assert [c.key for c in result.candidates] == sorted(
        (c.key for c in result.candidates), key=lambda k: -next(x.score for x in result.candidates if x.key == k))


def test_same_seed_same_boards_on_any_worker_count() -> None:
    size = 6
    target = _target(size, 6, seed=5)
    cfg = SearchConfig(size=size, pairs=PairRange(3, 9), count=3, seed=7, rounds=5, time_budget=None)
    one = generate(cfg, Target(target), inline())
    with cf.ThreadPoolExecutor(max_workers=4) as ex:
        four = generate(cfg, Target(target), ExecutorPool(ex, 4))
    again = generate(cfg, Target(target), inline())
    other = generate(SearchConfig(**{**cfg.__dict__, "seed": 8}), Target(target), inline())
    keys = [c.key for c in one.candidates]
    assert keys == [c.key for c in four.candidates] == [c.key for c in again.candidates]
    assert keys != [c.key for c in other.candidates]


def test_the_judge_decides_and_balanced_boards_rank_first() -> None:
    """The screen picks finalists; the judge's verdict and score rank them."""
    size = 6
    screen = Target(_target(size, 6, seed=11))

    def judge(board: Board) -> Figures:
        layout = layout_of(board)
        balanced = pairs_of(layout) % 2 == 0
        return Figures(score=0.1 * pairs_of(layout), pairs=pairs_of(layout),
                       verdict="balanced" if balanced else "inconclusive", level="test")

    cfg = SearchConfig(size=size, pairs=PairRange(3, 9), count=4, seed=3, rounds=4, time_budget=None)
    result = generate(cfg, screen, inline(), judge=judge)
    verdicts = [c.figures.verdict for c in result.candidates]
    assert verdicts == sorted(verdicts)  # "balanced" < "inconclusive"
    for c in result.candidates:
        assert c.final is not None and c.final is not c.screen
        assert c.score == pytest.approx(0.1 * c.pairs)
    assert [c.layout for c in result.balanced()] == [c.layout for c in result.candidates
                                                      if c.figures.verdict == "balanced"]


def test_improve_proposes_small_changes_that_keep_locks() -> None:
    size = 6
    host = Board.random(size, 6, seed=21)
    target = list(layout_of(host))
    # the optimum is two pairs away from the host's board
    free = [s for s in range(len(target)) if target[s] == 0]
    target[free[0]] = 1
    target[free[1]] = 2
    locked = [c for c in range(size * size) if host[c] is not Symbol.EMPTY][:2]
    locks = Locks.from_cells(locked, size)
    score = Target(tuple(target))
    cfg = SearchConfig(count=3, seed=4, rounds=20, time_budget=None, max_changes=3)
    result = improve(host, cfg, score, inline(), locks=locks)
    assert result.start is not None and result.start.layout == layout_of(host)
    assert 1 <= len(result.candidates) <= 3
    assert result.candidates[0].layout == tuple(target)
    for c in result.candidates:
        assert c.layout != layout_of(host)
        assert 1 <= distance(c.layout, layout_of(host)) <= 3
        assert c.changed == [i for i in range(size * size) if c.board[i] is not host[i]]
        for cell in locks.cells():
            assert c.board[cell] is host[cell]
        assert c.board.params == host.params


def test_time_budget_and_progress_with_eta() -> None:
    """A plain scoring function as the judge: planned like a screen (``tests/generate/test_timed.py`` has the
    real judge's interface); the clock is simulated, each evaluation spends a twentieth of a second."""
    seen: list[GenerateProgress] = []
    clock = FakeClock()
    cfg = SearchConfig(size=4, pairs=PairRange(1, 4), count=1, seed=0, time_budget=20.0, screen_share=1.0)
    result = generate(cfg, Screen(clock, _target(4, 2, seed=1), cost=0.05), inline(),
                      judge=Screen(clock, _target(4, 2, seed=1), cost=0.05), progress=seen.append, clock=clock)
    assert result.rounds >= 1 and result.time_limited in (True, False)
    phases = [p.phase for p in seen]
    assert phases[0] == "screen" and phases[-1] == "done" and "finals" in phases
    assert any(p.eta is not None for p in seen if p.phase == "screen")
    assert all(p.done <= p.total for p in seen)


def test_cancel_stops_the_search() -> None:
    cancel = threading.Event()

    def progress(p: GenerateProgress) -> None:
        if p.done >= 5:
            cancel.set()

    cfg = SearchConfig(size=6, pairs=PairRange(2, 6), seed=0, rounds=50, time_budget=None)
    score = Target(_target(6, 4, seed=2))
    with pytest.raises(GenerateCancelled):
        generate(cfg, score, inline(), progress=progress, cancel=cancel)
    assert len(score.seen) < 50 * cfg.batch


def test_score_formula() -> None:
    assert play_score(3, 3, 0.5, 0.0, MARGIN_SPREAD_FULL, 0.0) == pytest.approx(1.0)
    assert play_score(0, 3, None, None, None, None) == 0.0
    assert play_score(1, 3, 0.25, 0.5, MARGIN_SPREAD_FULL / 2, 1.0) == pytest.approx(
        0.4 / 3 + 0.2 * 0.5 + 0.15 * 0.5 + 0.15 * 0.5 + 0.0)
    assert play_score(9, 3, 0.7, -1.0, 99.0, -0.5) == pytest.approx(1.0)  # clipped to each term's range
    fig = Figures(score=0.8, pairs=3)
    board = Board.random(4, 3, seed=1)
    inside = Candidate(layout_of(board), board, fig, 0, PairRange(2, 5))
    below = Candidate(layout_of(board), board, fig, 0, PairRange(5, 6))
    assert inside.score == pytest.approx(0.8)
    assert below.score == pytest.approx(0.8 - 2 * DENSITY_PENALTY)  # two pairs below the range


def test_real_screen_is_reproducible_across_worker_processes() -> None:
    """The real screen (a small greedy analysis in worker processes): 1 worker and 2 workers agree."""
    from core.generate.evaluate import AnalysisEvaluator, ScreenEvaluator

    cfg = SearchConfig(size=6, pairs=PairRange(4, 7), count=1, seed=5, rounds=1, batch=4, finalists=2,
                       time_budget=None)
    results = []
    for pool in (RunnerPool(inline=True), RunnerPool(workers=2)):
        try:
            results.append(generate(cfg, ScreenEvaluator(seed=5), pool, judge=AnalysisEvaluator("greedy", seed=5)))
        finally:
            pool.close()
    a, b = results
    assert [c.key for c in a.candidates] == [c.key for c in b.candidates]
    def figures(c: Candidate) -> dict[str, object]:
        out = c.figures.to_json()
        out.pop("seconds")
        assert out["analysis"].pop("elapsed_s") >= 0
        return out

    assert [figures(c) for c in a.candidates] == [figures(c) for c in b.candidates]
    for c in a.candidates:
        assert c.figures.verdict in ("balanced", "lopsided", "inconclusive")
        assert c.figures.level == "greedy"
        assert c.figures.analysis is not None and "heatmaps" not in c.figures.analysis
        assert c.screen.verdict is not None and c.screen.analysis is None


def test_a_dask_cluster_gives_the_same_boards() -> None:
    """``--cluster``: the evaluations run on dask workers and the boards match the ones found in-process."""
    pytest.importorskip("distributed")
    from core.generate.evaluate import AnalysisEvaluator, ScreenEvaluator
    from core.selfplay.cluster import DaskSession, parse_cluster

    cfg = SearchConfig(size=6, pairs=PairRange(4, 7), count=1, seed=6, rounds=1, batch=4, finalists=2,
                       time_budget=None)
    screen, judge = ScreenEvaluator(seed=6), AnalysisEvaluator("greedy", seed=6)
    local = generate(cfg, screen, RunnerPool(inline=True), judge=judge)
    with DaskSession(parse_cluster("local:2")) as session:
        remote = generate(cfg, screen, ExecutorPool(session.executor, session.worker_count()), judge=judge)
    assert [c.key for c in remote.candidates] == [c.key for c in local.candidates]
    assert [c.score for c in remote.candidates] == [c.score for c in local.candidates]
