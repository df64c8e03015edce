"""The work budget (``--effort``): what a run plays comes from its caps and seed, never from the clock; the
optional time cap (``--time``) only cuts a run, starts once the engine is ready, and a cut run says so.
Simulated agents on a simulated clock (no timed unit tests)."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

import core.analysis.run as run
from core.analysis.config import EFFORTS, PIE_GAMES_PER_FAIR, STANDARD, AnalysisConfig, AnalysisProgress, EffortChoice
from core.analysis.openings import legal_openings
from core.analysis.results import AnalysisReport
from core.analysis.run import analyze, pie_games_left
from core.analysis.stats import pair_expected_remaining
from core.analysis.verdict import sprt_pair
from core.board.model import Board, GameParams
from tests.analysis.simulated import SimulatedGames

COST = {"greedy": 0.001, "mcts:200": 0.5}


def board() -> Board:
    return Board.random(size=6, pairs=6, seed=12, params=GameParams(supply=(2, 2, 2, 2)))


def config(**kw: object) -> AnalysisConfig:
    base: dict[str, object] = {"agents": ["greedy", "mcts:200"], "seed": 1, "inline": True, "screen_sims": 10,
                               "decider_games": 400, "candidates": 40, "pie_games": 2000}
    base.update(kw)
    return AnalysisConfig(**base)  # type: ignore[arg-type]


# (quick, effort, judging) as reports have written them -> the effort's name, quick, and the preset that judges
WRITTEN_EFFORTS = [
    ((False, "standard", ""), ("standard", False, "standard")),
    ((False, "thorough", ""), ("thorough", False, "thorough")),
    ((True, "quick", ""), ("quick", True, "quick")),
    ((True, "quick", "quick"), ("quick", True, "quick")),  # a quick look with a cap set by hand keeps its name
    ((False, "custom", ""), ("custom", False, "custom")),
    ((False, "custom", "standard"), ("custom", False, "standard")),
    ((False, "custom", "thorough"), ("custom", False, "thorough")),
]


@pytest.mark.parametrize(("written", "meaning"), WRITTEN_EFFORTS, ids=lambda v: "-".join(map(str, v)))
def test_the_effort_is_one_value_that_reads_and_writes_the_reports_keys(
        written: tuple[bool, str, str], meaning: tuple[str, bool, str]) -> None:
    quick, effort, judging = written
    choice = EffortChoice.from_json(quick, effort, judging)
    cfg = AnalysisConfig(effort=choice)
    assert (choice.name, cfg.quick, cfg.judged_as) == meaning
    assert choice.to_json() == {"quick": quick, "effort": effort, "judging": judging}
    assert {f.name for f in dataclasses.fields(AnalysisConfig)} & {"quick", "judging"} == set()  # nothing to keep
    # in step: Quick, the name and the judging preset all follow from the one value


def test_each_preset_and_a_hand_set_cap_give_the_effort_its_keys() -> None:
    for name in EFFORTS:
        assert AnalysisConfig.from_effort(name).effort == EffortChoice(name)
        assert AnalysisConfig.from_effort(name).effort.to_json() == {"quick": name == "quick", "effort": name,
                                                                      "judging": ""}
    assert AnalysisConfig.from_effort("quick", games=50).effort.to_json() == {"quick": True, "effort": "quick",
                                                                              "judging": "quick"}
    assert AnalysisConfig.from_effort("thorough", games=50).effort.to_json() == {"quick": False, "effort": "custom",
                                                                                 "judging": "thorough"}
    assert AnalysisConfig().effort.to_json() == {"quick": False, "effort": "custom", "judging": ""}
    assert str(AnalysisConfig.from_effort("standard", race=1).effort) == "custom"
    with pytest.raises(ValueError, match="effort must be one of quick, standard, thorough, not 'heroic'"):
        EffortChoice("heroic")


def few_fair(b: Board) -> dict[int, float]:
    """Five openings at 50%, every other one at 10% (S2 wins)."""
    legal = legal_openings(b)
    return {p: (0.5 if i % 25 == 7 and i < 130 else 0.1) for i, p in enumerate(legal)}


def figures(report: AnalysisReport) -> str:
    """The report's JSON without its timings: what must not depend on the machine."""
    data = report.to_json()
    data.pop("elapsed_s")
    return json.dumps(data, sort_keys=True)


def consumed(report: AnalysisReport) -> int:
    """Every game the report's figures rest on (a cheap agent's batch may play a few past a stop)."""
    checks = sum(o.check.games for o in report.pie.openings if o.check is not None)
    return checks + sum(a.raw.games + a.raw.mirror_games + a.pie.games for a in report.per_agent.values())


def test_the_same_seed_gives_the_same_report_at_any_speed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine three times slower, or one whose agents' speeds differ wildly, plays the same games to the same
    verdict: the caps are games, and results are read in index order."""
    b = board()
    truth = few_fair(b)
    seen = []
    for costs in (COST, {k: 3 * v for k, v in COST.items()}, {"greedy": 2.0, "mcts:200": 0.01}):
        sim = SimulatedGames(b, truth.__getitem__, costs).install(monkeypatch)
        seen.append(figures(analyze(b, config(), clock=sim.clock)))
    assert seen[0] == seen[1] == seen[2]
    assert json.loads(seen[0])["verdict"] == "balanced"


def test_the_deciding_agent_goes_past_max_candidates_only_while_undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    b = board()
    truth = few_fair(b)  # 5 fair among ~230 openings: 12 candidates are seldom enough
    sim = SimulatedGames(b, truth.__getitem__, COST).install(monkeypatch)
    report = analyze(b, config(), clock=sim.clock)
    assert report.verdict == "balanced", report.reasons
    assert all(truth[o.placement] == 0.5 for o in report.pie.fair)
    sim = SimulatedGames(b, truth.__getitem__, COST).install(monkeypatch)
    capped = analyze(b, config(candidates=0), clock=sim.clock)
    assert capped.pie.tested <= capped.config.max_candidates
    assert report.pie.tested > capped.pie.tested or capped.verdict == "balanced"
    # the weaker agent keeps its own cap whatever the deciding one does
    assert report.per_agent["greedy"].pie.tested <= report.config.max_candidates


def test_the_pie_budget_bounds_the_deciding_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    b = board()
    sim = SimulatedGames(b, lambda p: 0.1, COST).install(monkeypatch)  # nothing is fair
    report = analyze(b, config(pie_games=300), clock=sim.clock)
    assert report.pie.games <= 300
    assert report.budget.games_done == consumed(report)
    assert report.budget.games_planned >= report.budget.games_done
    assert not report.budget.stopped_by_time


def test_a_time_cap_that_cuts_the_run_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    b = board()
    truth = few_fair(b)
    sim = SimulatedGames(b, truth.__getitem__, COST).install(monkeypatch)
    report = analyze(b, config(time_budget=30.0), clock=sim.clock)
    assert report.budget.stopped_by_time and report.budget.time_cap == 30.0
    assert report.elapsed <= 30.0 + COST["mcts:200"]
    (note,) = [r for r in report.reasons if r.startswith("stopped by your time limit")]
    done, planned = map(int, re.search(r"after (\d+) of at most (\d+) planned games", note).groups())  # type: ignore[union-attr]
    assert done == report.budget.games_done == consumed(report) and planned > done
    assert "depends on the machine's speed" in note and "without --time to reproduce" in note
    data = report.to_json()
    assert data["budget"] == {"effort": "custom", "time_cap": 30.0, "stopped_by_time": True,
                              "games_done": done, "games_planned": planned}


def test_a_cap_the_run_never_reaches_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    b = board()
    truth = few_fair(b)
    sim = SimulatedGames(b, truth.__getitem__, COST).install(monkeypatch)
    free = analyze(b, config(), clock=sim.clock)
    sim = SimulatedGames(b, truth.__getitem__, COST).install(monkeypatch)
    capped = analyze(b, config(time_budget=10_000.0), clock=sim.clock)
    assert not capped.budget.stopped_by_time and capped.budget.time_cap == 10_000.0

    def uncapped(report: AnalysisReport) -> str:
        data = json.loads(figures(report))
        data.pop("time_budget_s")
        data["budget"].pop("time_cap")
        data.get("config", {}).pop("time_budget", None)
        return json.dumps(data, sort_keys=True)

    assert uncapped(free) == uncapped(capped)


def test_a_candidate_limit_the_run_never_reaches_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The candidate limit only stops new openings and steers nothing else, so a run that starts fewer openings
    than the limit plays the same games whatever the limit: what lets a benchmark measure another limit by
    rerunning only the runs that reached it (``docs/measurements.md``, "The candidate limit")."""
    b = board()
    truth = few_fair(b)

    def played(limit: int) -> tuple[AnalysisReport, str]:
        sim = SimulatedGames(b, truth.__getitem__, COST).install(monkeypatch)
        report = analyze(b, config(candidates=limit), clock=sim.clock)
        data = json.loads(figures(report))
        data["config"].pop("candidates")
        data["budget"].pop("games_planned")  # the plan counts the judges' most games over the limit's openings
        return report, json.dumps(data, sort_keys=True)

    wide, wide_figures = played(80)
    tested = wide.pie.tested
    assert wide.verdict == "balanced" and wide.config.max_candidates < tested < 80
    assert played(tested + 1)[1] == wide_figures
    short, _ = played(tested - 1)
    assert short.pie.tested == tested - 1  # the limit is live: one opening fewer is all that run may start


def test_the_time_cap_starts_once_the_engine_is_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiling the engine (simulated: the warm-up takes 1,000 s of the clock) is never charged to the cap."""
    b = board()
    truth = few_fair(b)
    sim = SimulatedGames(b, truth.__getitem__, COST).install(monkeypatch)
    started = run.Runner.start

    def slow_start(self: run.Runner, *args: object, **kwargs: object) -> None:
        started(self, *args, **kwargs)  # type: ignore[arg-type]
        sim.now += 1000.0

    monkeypatch.setattr(run.Runner, "start", slow_start)
    report = analyze(b, config(time_budget=3000.0), clock=sim.clock)
    assert not report.budget.stopped_by_time and report.verdict == "balanced"
    assert report.elapsed < sim.now - 1000.0 + 1e-9  # the elapsed time counts from the ready engine


@pytest.mark.parametrize("agent", ["mcts:200", "puct:200:t=1"])
def test_the_eta_comes_from_the_work_left_and_counts_down(monkeypatch: pytest.MonkeyPatch, agent: str) -> None:
    """Also for a search with a live-play time cap, which the analysis plays on its simulations alone."""
    b = board()
    sim = SimulatedGames(b, lambda p: 0.5, {**COST, "puct:200": 0.5}).install(monkeypatch)
    seen: list[tuple[float, AnalysisProgress]] = []
    report = analyze(b, config(agents=[agent]), progress=lambda p: seen.append((sim.now, p)), clock=sim.clock)
    etas = [(t, p.eta) for t, p in seen if p.eta is not None]
    assert etas, "no ETA once the agent's speed was measured"
    assert all(e >= 0 for _t, e in etas)
    end = sim.now
    # halfway through, the estimate is within a factor of three of the time actually left
    t, eta = etas[len(etas) // 2]
    assert (end - t) / 3 <= eta + 1.0 and eta <= 3 * (end - t) + 1.0
    assert report.verdict == "balanced"


def test_the_eta_is_not_inflated_by_the_games_still_in_flight(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cheap agent's games come back in batches: timed by the first result of a batch, its speed was the whole
    batch's time per game, and the ETA said minutes left in a phase that had seconds to go."""
    b = board()
    sim = SimulatedGames(b, lambda p: 0.5, {"greedy": 0.05, "mcts:200": 0.5}).install(monkeypatch)
    seen: list[tuple[float, AnalysisProgress]] = []
    analyze(b, config(), progress=lambda p: seen.append((sim.now, p)), clock=sim.clock)
    end = sim.now
    cheap = [(t, p.eta) for t, p in seen if p.phase in ("raw", "mirror") and p.message.startswith("greedy")
             and p.eta is not None]
    assert cheap, "no ETA while the cheap agent played"
    # every greedy game costs the same, so once its speed is known the estimate is never far above the truth
    # (its fixed phases: what its openings will need is the plan's guess, not a speed)
    assert all(eta <= 2 * (end - t) + 1.0 for t, eta in cheap), max(eta - (end - t) for t, eta in cheap)


def test_the_deciding_games_expected_count_the_openings_that_are_not_fair() -> None:
    """The ETA's deciding games: each missing fair opening costs what raced runs measured per fair opening found,
    counted down as games are played, never below the SPRTs' own expectation; one at a time, the SPRTs' alone."""
    cfg = AnalysisConfig.from_effort("standard")
    fair_games = pair_expected_remaining(sprt_pair(cfg), 0.5)
    assert pie_games_left(cfg, 3, 0) == pytest.approx(3 * PIE_GAMES_PER_FAIR * fair_games)
    assert pie_games_left(cfg, 3, 100) == pytest.approx(3 * PIE_GAMES_PER_FAIR * fair_games - 100)
    assert pie_games_left(cfg, 1, 10_000) == pytest.approx(fair_games)
    assert pie_games_left(cfg, 0, 0) == 0.0
    one_at_a_time = AnalysisConfig.from_effort("standard", race=1)
    assert pie_games_left(one_at_a_time, 2, 0) == pytest.approx(2 * fair_games)


def test_presets_and_overrides() -> None:
    assert AnalysisConfig.from_effort().effort.name == STANDARD.name
    std = AnalysisConfig.from_effort("standard")
    assert (std.agents, std.opening_cap, std.pie_budget) == (list(STANDARD.agents), STANDARD.decider_games,
                                                              STANDARD.pie_games)
    assert AnalysisConfig.from_effort("standard", games=50).effort.name == "custom"
    assert AnalysisConfig.from_effort("standard", seed=4).effort.name == "standard"  # a seed is not a cap
    assert AnalysisConfig.from_effort("quick").quick
    assert AnalysisConfig.from_effort("thorough").decider == "expert"
    assert AnalysisConfig.from_effort("thorough").check_test.name == "firm"
    assert AnalysisConfig.from_effort("thorough").checkers == ["mcts:8000", "ab:8000"]
    # a cap set by hand makes the effort custom, but thorough keeps both judges and the firm check
    for tweak in ({"games": 200}, {"race": 1}, {"candidates": 40}):
        tweaked = AnalysisConfig.from_effort("thorough", **tweak)
        assert tweaked.effort.name == "custom" and tweaked.judged_as == "thorough"
        assert tweaked.checkers == ["mcts:8000", "ab:8000"] and tweaked.check_test.name == "firm"
    assert AnalysisConfig.from_effort("standard", games=50).checkers == ["mcts:8000"]
    assert AnalysisConfig.from_effort("standard", games=50).check_test.name == "standard"
    assert set(EFFORTS) == {"quick", "standard", "thorough"}
    with pytest.raises(ValueError, match="effort must be one of"):
        AnalysisConfig.from_effort("huge")


def test_a_cap_below_the_minimum_is_refused() -> None:
    with pytest.raises(ValueError, match="time_budget 1: give 5 seconds to a week"):
        analyze(board(), config(time_budget=1.0))


NONSENSE = ("nan", "s more", "of 0 games", " 0 games", "roughly")


def test_a_cap_that_comes_before_any_game_says_so_in_plain_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """The states that once printed "nan%", "roughly 3 s more" and rates of 0 games: each has its own sentence."""
    from core.cli.analyze import format_text

    b = board()
    sim = SimulatedGames(b, lambda p: 0.5, COST).install(monkeypatch)
    screen = sim.screen

    def slow_screen(item: object) -> object:
        sim.now += 100.0  # the cap runs out while the openings are screened
        return screen(item)  # type: ignore[arg-type]

    monkeypatch.setattr(run, "screen_openings", slow_screen)
    report = analyze(b, config(time_budget=30.0), clock=sim.clock)
    assert report.verdict == "inconclusive" and report.budget.games_done == 0
    text = format_text(report, "b.yaml")
    for word in NONSENSE:
        assert word not in text, (word, text)
    assert "stopped by your time limit (30 s) after 0 of at most" in text
    assert "no opening of the" in text and "nothing to base a verdict on" in text
    assert "no games were played (the time cap came first)" in text
    data = json.dumps(report.to_json())
    assert "NaN" not in data and "nan" not in data


def test_a_cap_that_cuts_the_check_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from core.analysis.results import CheckResult

    assert CheckResult("mcts:8000", 0, 0, agrees=False, complete=False).words() == (
        "mcts:8000 check not played (your time limit came first)")
    assert "nan" not in CheckResult("mcts:8000", 3, 7, agrees=True, complete=False).words()
