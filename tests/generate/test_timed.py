"""Timed runs on a simulated clock: the search sizes its screening and finalists to the budget for cheap and
expensive levels, refuses a budget too small for one finalist at once, cancels work still running at the
deadline and keeps what was judged, and screens the same layouts as an untimed run of as many rounds."""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Iterator

import pytest

from core.board.model import Board
from core.generate.config import SearchConfig
from core.generate.layout import PairRange, layout_of
from core.generate.plan import ADVICE_MARGIN, BudgetTooSmall, Costs, required_budget
from core.generate.pool import ExecutorPool, RunnerPool
from core.generate.search import EXTRA_FACTOR, GenerateProgress, SearchResult, generate, improve
from tests.generate.timing import FakeClock, Judge, Screen

SIZE = 6
TARGET = layout_of(Board.random(SIZE, 6, seed=5))


@pytest.fixture
def two_workers() -> Iterator[ExecutorPool]:
    with cf.ThreadPoolExecutor(max_workers=2) as ex:
        yield ExecutorPool(ex, 2)


def _run(budget: float, judge: Judge, pool: ExecutorPool | RunnerPool, clock: FakeClock, count: int = 3,
         pairs: PairRange | None = None, progress: list[GenerateProgress] | None = None,
         screen: Screen | None = None) -> SearchResult:
    cfg = SearchConfig(size=SIZE, pairs=pairs or PairRange(3, 9), count=count, seed=2, time_budget=budget)
    screen = screen or Screen(clock, TARGET, cost=0.5, workers=pool.workers)
    return generate(cfg, screen, pool, judge=judge, clock=clock,
                    progress=progress.append if progress is not None else None)


def test_a_cheap_level_screens_up_to_half_the_budget_and_gives_each_finalist_what_it_wants(
        two_workers: ExecutorPool) -> None:
    clock = FakeClock()
    t0 = clock()
    judge = Judge(clock, need=3.0, game=0.005, overhead=4.0, workers=2)
    costs = Costs(overhead=4.0, game=0.005, games_needed=250.0, min_budget=5.0)
    progress: list[GenerateProgress] = []
    result = _run(300.0, judge, two_workers, clock, progress=progress)
    # screening stopped at the cap (half the budget) rather than leaving the time to finalists that need seconds
    assert result.time_limited and 30 <= result.rounds <= 37
    assert result.plan is not None and result.plan["finalists"] == 4 and result.plan["waves"] == 2
    # every finalist got the time it wants (twice its minimum, less one game of overrun), not the whole rest;
    # after the four planned, the time left judged the next best, up to four times as many
    assert len(judge.boards) == EXTRA_FACTOR * 4 == len(set(judge.boards))
    assert judge.budgets == [pytest.approx(costs.budget(costs.slot_want()))] * 16
    # cheap finalists (3 s each here) are done before the deadline: the run ends early
    assert clock() - t0 < 0.6 * 300
    assert not result.cut and len(result.candidates) == 16
    timed = [p for p in progress if p.phase != "done"]
    assert [p.phase for p in progress][:1] == ["measure"] and "finals" in {p.phase for p in progress}
    assert all(p.eta is not None and p.eta <= 300 for p in timed)


def test_an_expensive_level_gives_the_finalists_the_time_and_ends_before_the_deadline(
        two_workers: ExecutorPool) -> None:
    clock = FakeClock()
    t0 = clock()
    judge = Judge(clock, need=3000.0, game=6.0, overhead=4.0, workers=2)
    costs = Costs(overhead=4.0, game=6.0, games_needed=250.0, min_budget=5.0)
    budget = 4000.0
    result = _run(budget, judge, two_workers, clock)
    assert result.plan is not None and result.plan["finalists"] == 2 and result.plan["waves"] == 1
    # the screening floor (a quarter of the budget) gave way: one finalist wants 3,775 s
    assert result.plan["finalist_s"] == pytest.approx(costs.slot_want()) and result.plan["screen_s"] < 0.25 * budget
    # two finalists side by side, each with the time a typical verdict takes (less one game of overrun)
    assert judge.budgets == [pytest.approx(costs.budget(costs.slot_want()))] * 2
    assert clock() - t0 <= budget
    assert "inconclusive" not in [c.figures.verdict for c in result.candidates]  # decided within their time


def test_too_small_a_budget_is_refused_after_the_timing_with_the_budget_that_works(
        two_workers: ExecutorPool) -> None:
    """The first answer is the budget to give: a run with it is not refused later, even when the screening rounds
    take twice what the timing's screens took, and its finalist gets the time a typical verdict takes (refusals
    that each named a larger budget, and a run at the last one that wrote nothing, were what hosts met)."""
    clock = FakeClock()
    screen = Screen(clock, TARGET, cost=0.5, workers=2)
    judge = Judge(clock, need=3000.0, game=6.0, overhead=4.0, workers=2)
    costs = Costs(overhead=4.0, game=6.0, games_needed=250.0, min_budget=5.0)
    with pytest.raises(BudgetTooSmall) as exc:
        _run(300.0, judge, two_workers, clock, screen=screen)
    # refused before any screening or analysis: the two screens are the timing's, one in each worker
    assert len(screen.seen) == 2 and judge.boards == []
    minimum = exc.value.minimum
    assert minimum is not None and minimum % 10 == 0
    # the timing 16.5 s + two rounds from the screens timed (8 screens of 0.5 s on 2 workers: 4 s each) + the
    # finalist's wanted 3,775 s, with a fifth more for costs measured under a changing load, + the slack, rounded up
    assert minimum == 4570 == required_budget(16.5, 8.0, costs, ADVICE_MARGIN)
    assert required_budget(16.5, 8.0, costs) == 3810  # what is refused: less than the costs measured need
    assert "3775 s of one worker here for a typical verdict" in str(exc.value) and "6.00 s per game" in str(exc.value)
    assert exc.value.sentence() == ("The time is too short to judge a board on this computer now: " + exc.value.detail
                                    + ". Give at least 4570 s, or choose a weaker level.")
    clock = FakeClock()
    with pytest.raises(BudgetTooSmall):
        _run(3800, Judge(clock, need=3000.0, game=6.0, overhead=4.0, workers=2), two_workers, clock)
    clock = FakeClock()  # a budget shorter than the timing itself still gets the number, not "give more"
    with pytest.raises(BudgetTooSmall) as short:
        _run(5.0, Judge(clock, need=3000.0, game=6.0, overhead=4.0, workers=2), two_workers, clock)
    assert short.value.minimum == minimum
    # a run with the advised budget: not refused later, even when the rounds take twice what the timing's screens
    # took or the machine got busier and the level's games cost 15% more; the finalists get their wanted time
    for slow, game in ((1.0, 6.0), (2.0, 6.0), (1.0, 6.9)):
        clock = FakeClock()
        judge = Judge(clock, need=3000.0, game=game, overhead=4.0, workers=2)
        screen = Screen(clock, TARGET, cost=0.5, workers=2, later_cost=0.5 * slow)
        result = _run(minimum, judge, two_workers, clock, screen=screen)
        assert len(result.candidates) == 2
        busier = Costs(overhead=4.0, game=game, games_needed=250.0, min_budget=5.0)
        assert judge.budgets == [pytest.approx(busier.budget(busier.slot_want()), abs=2.0)] * 2


def test_the_deadline_cancels_an_analysis_in_flight_and_keeps_the_finalists_judged() -> None:
    clock = FakeClock()
    t0 = clock()
    judge = Judge(clock, need=10.0, game=0.1, overhead=2.0, games_needed=50.0, hang_after=1, hang_jump=1000.0)
    with cf.ThreadPoolExecutor(max_workers=1) as ex:
        try:
            result = _run(120.0, judge, ExecutorPool(ex, 1), clock, count=2, pairs=PairRange(4, 4))
        finally:
            judge.release.set()
    assert len(judge.boards) == 2  # the second finalist's analysis was running when the deadline came
    assert result.cut
    assert [layout_of(c.board) for c in result.candidates] == judge.boards[:1]
    assert [c.figures.verdict for c in result.balanced()] == ["balanced"]
    assert clock() - t0 > 120.0  # the clock jumped past the deadline while the analysis ran


def test_a_timed_run_screens_what_an_untimed_run_of_as_many_rounds_screens() -> None:
    clock = FakeClock()
    judge = Judge(clock, need=3.0, game=0.005, overhead=4.0)
    timed_screen = Screen(clock, TARGET, cost=0.5)
    timed = _run(120.0, judge, RunnerPool(workers=1, inline=True), clock, screen=timed_screen)
    assert timed.time_limited and timed.rounds >= 2
    untimed_screen = Screen(FakeClock(), TARGET, cost=0.5)
    cfg = SearchConfig(size=SIZE, pairs=PairRange(3, 9), count=3, seed=2, rounds=timed.rounds, time_budget=None)
    plain = Judge(FakeClock(), need=3.0, game=0.005, overhead=4.0)
    generate(cfg, untimed_screen, RunnerPool(workers=1, inline=True), judge=plain)
    assert untimed_screen.seen == timed_screen.seen[1:]  # the first was the timing's board
    assert plain.budgets == [0.0] * cfg.finalist_count  # no time budgets without --time
    # the timed run judged the untimed run's finalists first, in the same order
    assert judge.boards[:cfg.finalist_count] == plain.boards


def test_a_timed_improve_judges_the_hosts_board_first_within_the_budget(two_workers: ExecutorPool) -> None:
    clock = FakeClock()
    t0 = clock()
    host = Board.random(SIZE, 6, seed=21)
    judge = Judge(clock, need=40.0, game=0.1, overhead=4.0, workers=2)
    cfg = SearchConfig(count=3, seed=4, time_budget=200.0, max_changes=3)
    result = improve(host, cfg, Screen(clock, TARGET, cost=0.5, workers=2), two_workers, judge=judge, clock=clock)
    assert judge.boards[0] == layout_of(host)  # the host's board, judged by the same judge for comparison
    assert result.start is not None and result.start.final is not None
    assert 1 <= len(result.candidates) <= 3 and all(c.final is not None for c in result.candidates)
    assert all(b > 0 for b in judge.budgets)
    assert clock() - t0 <= 200.0
