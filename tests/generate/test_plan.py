"""The planner of timed runs, on given costs: what it decides for cheap and expensive levels, and when it refuses."""

from __future__ import annotations

import pytest

from core.generate.plan import (
    ROUND_UP,
    WANT_FACTOR,
    BudgetTooSmall,
    Costs,
    FinalsPlan,
    ProbeResult,
    plan_finals,
    plan_run,
    required_budget,
    slack,
    tolerance,
)

# seconds of one worker, about what this machine measured: greedy games cost milliseconds, expert ones seconds
CHEAP = Costs(overhead=4.0, game=0.005, games_needed=250.0, min_budget=5.0)
CLUB = Costs(overhead=4.4, game=0.13, games_needed=250.0, min_budget=5.0)
EXPERT = Costs(overhead=4.4, game=6.3, games_needed=250.0, min_budget=5.0)


def test_a_finalists_minimum_is_its_fixed_part_its_games_and_one_game_of_overrun() -> None:
    assert CLUB.slot_min() == pytest.approx(4.4 + 250 * 0.13 + 0.13)
    assert EXPERT.slot_min() == pytest.approx(4.4 + 250 * 6.3 + 6.3)
    assert CHEAP.slot_min() == pytest.approx(max(5.0, 4.0 + 250 * 0.005) + 0.005)
    assert CLUB.slot_want() == pytest.approx(WANT_FACTOR * CLUB.slot_min())
    assert EXPERT.budget(2000.0) == pytest.approx(2000.0 - 6.3)  # the overrun is kept back
    assert CHEAP.budget(1.0) == 5.0  # never below what the analysis accepts


def test_costs_from_probes_are_means_over_the_workers() -> None:
    probes = [ProbeResult(overhead=4.0, game_seconds=6.0, games=2, games_needed=250, min_budget=5),
              ProbeResult(overhead=6.0, game_seconds=7.0, games=2, games_needed=250, min_budget=5)]
    c = Costs.from_probes(probes)
    assert (c.overhead, c.game, c.games_needed, c.min_budget) == (5.0, 6.5, 250, 5)
    with pytest.raises(ValueError):
        Costs.from_probes([])
    # a worker that stopped after its games (hopeless already) did not measure the fixed part
    stopped = ProbeResult(overhead=0.0, game_seconds=9.0, games=1, games_needed=250, min_budget=5, complete=False)
    c = Costs.from_probes([probes[0], stopped])
    assert not c.complete and c.overhead == 4.0 and c.game == pytest.approx((12.0 + 9.0) / 3)


def test_cheap_levels_screen_up_to_the_cap_and_finals_get_what_they_want() -> None:
    plan = plan_run(left=280.0, workers=2, want=4, costs=CHEAP, screen_cap=140.0, screen_floor=65.0)
    assert plan.screen == 140.0
    assert plan.finals == FinalsPlan(finalists=4, waves=2, slot=CHEAP.slot_want())
    assert plan.seconds < 280.0  # done early: the rest of the budget is not needed


def test_club_finals_take_what_they_want_and_screening_the_rest() -> None:
    left = 2 * CLUB.slot_want() + 60.0
    plan = plan_run(left=left, workers=2, want=4, costs=CLUB, screen_cap=100.0, screen_floor=40.0)
    assert plan.finals == FinalsPlan(finalists=4, waves=2, slot=CLUB.slot_want())
    assert plan.screen == pytest.approx(60.0)
    assert plan.seconds == pytest.approx(left)


def test_screening_keeps_its_floor_only_while_the_finalists_get_their_wanted_time() -> None:
    """A finalist held to its minimum so that screening keeps its floor ends inconclusive far more often than not
    (a 200 s club run wrote no board that way): the floor gives way to the finalists' wanted time."""
    want = CLUB.slot_want()
    plan = plan_run(left=want + 60.0, workers=2, want=4, costs=CLUB, screen_cap=100.0, screen_floor=60.0)
    assert plan.screen == pytest.approx(60.0)
    assert (plan.finals.finalists, plan.finals.waves) == (2, 1) and plan.finals.slot == pytest.approx(want)
    left = 200.0  # with the floor: two waves at 70 s each, below the wanted 93 s
    plan = plan_run(left=left, workers=2, want=4, costs=CLUB, screen_cap=100.0, screen_floor=60.0)
    assert plan.finals == FinalsPlan(4, 2, want)
    assert plan.screen == pytest.approx(left - 2 * want) and plan.screen < 60.0
    # less time: the floor gives way to one wave that gets all of it
    short = plan_run(left=CLUB.slot_min() + 10.0, workers=2, want=4, costs=CLUB, screen_cap=100.0, screen_floor=60.0)
    assert short.screen == 0.0 and short.finals == FinalsPlan(2, 1, CLUB.slot_min() + 10.0)


def test_the_required_budget_is_the_time_used_the_screening_a_wanted_finalist_and_the_slack() -> None:
    used, screening = 16.5, 8.0
    need = used + screening + CLUB.slot_want()
    budget = required_budget(used, screening, CLUB)
    assert budget % ROUND_UP == 0 and need + slack(budget) <= budget < need + slack(budget) + ROUND_UP
    # what is left after the time used and the screening is one finalist's wanted time, with the slack kept
    assert budget - slack(budget) - used - screening >= CLUB.slot_want()


def test_fewer_finalists_when_the_time_fits_fewer_waves() -> None:
    # two waves at the minimum do not fit, one does: two finalists (one per worker), each with all the time
    left = 1.5 * CLUB.slot_min()
    plan = plan_run(left=left, workers=2, want=4, costs=CLUB, screen_cap=100.0, screen_floor=0.0)
    assert plan.finals == FinalsPlan(finalists=2, waves=1, slot=left)
    assert plan.screen == 0.0


def test_an_expensive_level_gives_up_the_screening_floor_for_one_finalist() -> None:
    left = 1700.0
    plan = plan_run(left=left, workers=2, want=4, costs=EXPERT, screen_cap=850.0, screen_floor=420.0)
    assert plan.screen == 0.0
    assert plan.finals == FinalsPlan(finalists=2, waves=1, slot=left)
    assert EXPERT.budget(plan.finals.slot) >= EXPERT.slot_min() - EXPERT.overrun


def test_too_small_a_budget_is_refused_with_what_one_finalist_needs() -> None:
    with pytest.raises(BudgetTooSmall) as exc:
        plan_run(left=280.0, workers=2, want=4, costs=EXPERT, screen_cap=140.0, screen_floor=65.0)
    assert exc.value.minimum == pytest.approx(EXPERT.slot_min())
    assert plan_finals(EXPERT.slot_min(), 2, 4, EXPERT) == FinalsPlan(2, 1, EXPERT.slot_min())
    assert plan_finals(EXPERT.slot_min() - 1.0, 2, 4, EXPERT) is None


def test_finalists_get_the_time_they_want_rather_than_more_finalists_less() -> None:
    """A verdict is worth more than an inconclusive finalist: waves at the wanted time, as many as fit."""
    want = CLUB.slot_want()
    assert plan_finals(2 * want, 1, 6, CLUB) == FinalsPlan(2, 2, want)
    assert plan_finals(2 * want, 2, 6, CLUB) == FinalsPlan(4, 2, want)
    assert plan_finals(2 * want, 8, 6, CLUB) == FinalsPlan(6, 1, want)  # more workers judge more at once
    assert plan_finals(2 * want, 2, 2, CLUB) == FinalsPlan(2, 1, want)  # no more than wanted
    # between whole waves the count is rounded: 1.6 waves' time makes two shorter waves, 1.4 one full one
    assert plan_finals(1.6 * want, 2, 6, CLUB) == FinalsPlan(4, 2, 0.8 * want)
    assert plan_finals(1.4 * want, 2, 6, CLUB) == FinalsPlan(2, 1, want)
    # less than the wanted time: one wave with all of it, down to the minimum
    assert plan_finals(CLUB.slot_min(), 2, 6, CLUB) == FinalsPlan(2, 1, CLUB.slot_min())


def test_slack_and_tolerance() -> None:
    assert slack(100.0) == pytest.approx(3.0) and slack(3600.0) == 10.0
    assert tolerance(100.0) == 10.0 and tolerance(600.0) == pytest.approx(30.0)
    for budget in (30.0, 240.0, 300.0, 3600.0):
        assert slack(budget) < tolerance(budget)


def test_the_level_probe_counts_the_cross_checks_games() -> None:
    """A finalist's analysis cross-checks each fair opening (``lits analyze`` does), so the planned minimum must
    include those games: the probe converts them into games of the level from one timed check game."""
    from core.analysis.config import CHECK_GAMES
    from core.board.model import Board, GameParams
    from core.generate.evaluate import CHECK_SHARE, AnalysisEvaluator

    board = Board.random(size=6, pairs=6, seed=12, params=GameParams(supply=(2, 2, 2, 2)))
    judge = AnalysisEvaluator(level="club")
    assert judge.check_games_needed() == 3 * CHECK_SHARE * CHECK_GAMES
    assert AnalysisEvaluator(level="greedy").check_games_needed() == 0  # a greedy verdict is not cross-checked
    probe = judge.probe(games=2)(board)
    assert probe.complete and probe.games_needed > judge.games_needed()


def test_the_default_budget_judges_finalists_at_the_default_level() -> None:
    """``lits generate`` with no --time and no --level: measured club costs (a finalist wants about 200 s of one
    worker, as the README's 1,500 s run planned) leave room for two waves of finalists at their wanted time, and a
    machine twice as slow or busy still gets one; the timing and two rounds of screening counted as measured."""
    from core.generate.config import DEFAULT_TIME

    club = Costs(overhead=10.0, game=0.2, games_needed=350.0, min_budget=5.0)
    assert club.slot_want() == pytest.approx(200.5)
    used, rounds = 20.0, 2 * 8.0
    for factor, waves in ((1.0, 2), (2.0, 1)):
        slow = Costs(overhead=club.overhead * factor, game=club.game * factor, games_needed=club.games_needed,
                     min_budget=5.0)
        assert required_budget(used * factor, rounds * factor, slow) <= DEFAULT_TIME
        left = DEFAULT_TIME - slack(DEFAULT_TIME) - (used + rounds) * factor
        plan = plan_run(left, workers=2, want=4, costs=slow, screen_cap=DEFAULT_TIME / 2, screen_floor=DEFAULT_TIME / 4)
        assert plan.finals.waves == waves and plan.finals.slot == pytest.approx(slow.slot_want())
    assert required_budget(used, rounds, Costs(overhead=15.0, game=0.3, games_needed=350.0)) > 300  # the old default


def test_a_refusal_that_would_need_more_than_a_day_does_not_advise_a_time_the_run_refuses() -> None:
    """The designer's time boxes and --time end at a day: a budget above it is advice no host can follow."""
    beyond = BudgetTooSmall("too short", 100_000.0, "expert games take long here", level_bound=True, level="expert")
    words = beyond.sentence()
    assert "It would need 100000 s, more than the longest run (86400 s, a day)" in words
    assert "choose a weaker level or a smaller board" in words and "Give at least" not in words
    within = BudgetTooSmall("too short", 1130.0, "club games take long here", level_bound=True, level="club")
    assert within.sentence(extra=5.0).endswith("Give at least 1140 s, or choose a weaker level.")
