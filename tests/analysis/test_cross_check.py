"""The cross-check: an opening the deciding agent shows fair stays fair only when a strong agent of another family
(``check_agent``, default ``mcts:8000``) does not find it one-sided (simulated agents with known, disagreeing
opening values on a simulated clock)."""

from __future__ import annotations

import copy
import json
import math
import random

import pytest

from core.agents.spec import parse_agent
from core.analysis.candidates import CandidatePicker
from core.analysis.config import (
    CHECK_AGENT,
    CHECK_ALPHA,
    CHECK_BETA,
    CHECK_GAMES,
    FIRM_CHECK_GAMES,
    RACE_ACTIVE,
    AnalysisConfig,
    EffortChoice,
    SeedPhase,
)
from core.analysis.openings import legal_openings
from core.analysis.run import analyze
from core.analysis.stats import SprtPair, wilson
from core.analysis.verdict import check_disputes, check_outcome, check_pair
from core.board.model import Board, GameParams
from core.selfplay.tasks import derive_seed
from tests.analysis.simulated import SimulatedGames

COST = {"greedy": 0.001, "mcts:200": 0.5, CHECK_AGENT: 1.0}


def board() -> Board:
    return Board.random(size=6, pairs=6, seed=12, params=GameParams(supply=(2, 2, 2, 2)))


def config(**kw: object) -> AnalysisConfig:
    base: dict[str, object] = {"agents": ["greedy", "mcts:200"], "seed": 1, "inline": True, "screen_sims": 10,
                               "decider_games": 600, "candidates": 60,
                               "pie_games": 10_000, "check_agent": CHECK_AGENT, "check_rule": "standard"}
    base.update(kw)
    return AnalysisConfig(**base)  # type: ignore[arg-type]


def split_truth(b: Board) -> tuple[dict[int, float], dict[int, float], set[int]]:
    """Ten openings even for the deciding agent; the check agent agrees on five and finds the others won by S1
    (88%), like the replays that found club-fair openings at 80-83% for mcts:8000."""
    legal = legal_openings(b)
    even = [p for i, p in enumerate(legal) if i % 20 == 3][:10]
    assert len(even) == 10
    one_sided = set(even[::2])
    decider = {p: (0.5 if p in even else 0.1) for p in legal}
    check = {p: (0.88 if p in one_sided else decider[p]) for p in legal}
    return decider, check, one_sided


def test_the_check_keeps_only_openings_both_agents_find_fair(monkeypatch: pytest.MonkeyPatch) -> None:
    b = board()
    decider, check, one_sided = split_truth(b)
    even_checked = even_disputed = 0
    for seed in range(4):
        sim = SimulatedGames(b, decider.__getitem__, COST, values={CHECK_AGENT: check.__getitem__})
        sim.install(monkeypatch)
        report = analyze(b, config(seed=seed), clock=sim.clock)
        pie = report.pie
        assert pie.check_agent == CHECK_AGENT
        assert report.verdict == "balanced", report.reasons
        assert pie.fair and not any(o.placement in one_sided for o in pie.fair)
        for o in pie.fair:
            assert o.check is not None and o.check.agrees and o.check.complete
            assert o.check.games <= CHECK_GAMES
        # every fair opening the check disputed is reported, with its figures, never dropped silently
        for o in pie.openings:
            if o.check is None:
                continue
            if o.placement in one_sided:  # 88% for the check agent: disputed with probability > 0.999
                assert not o.check.agrees and o.status == "undecided" and o.disputed
            else:  # even for both: disputed with probability 0.002 (operating figures below)
                even_checked += 1
                even_disputed += o.disputed
        if pie.disputed:
            (said,) = [r for r in report.reasons if "not confirmed by mcts:8000" in r]
            count = "1 opening" if len(pie.disputed) == 1 else f"{len(pie.disputed)} openings"
            assert said.startswith(count)
            assert all(" ".join(o.names) in said for o in pie.disputed[:3])
        assert any("cross-check shows none of them one-sided" in r for r in report.reasons)
        data = report.to_json()
        json.dumps(data)
        assert data["pie"]["check_agent"] == CHECK_AGENT
        assert data["pie"]["disputed"] == len(pie.disputed)
        assert all(o["check"]["agrees"] for o in data["pie"]["openings"] if o["status"] == "fair")
        # the weaker agent's pie phase is reported without a check
        assert report.per_agent["greedy"].pie.check_agent == ""
        assert all(o.check is None for o in report.per_agent["greedy"].pie.openings)
    assert sim.played[CHECK_AGENT] > 0
    assert even_checked >= 12 and even_disputed == 0, (even_checked, even_disputed)


def test_a_check_that_disputes_every_fair_opening_leaves_the_verdict_open(monkeypatch: pytest.MonkeyPatch) -> None:
    b = board()
    decider, _check, _ = split_truth(b)
    sim = SimulatedGames(b, decider.__getitem__, COST, values={CHECK_AGENT: lambda p: 0.9})
    sim.install(monkeypatch)
    report = analyze(b, config(), clock=sim.clock)
    assert report.verdict == "inconclusive", report.reasons
    assert not report.pie.fair and len(report.pie.disputed) >= 3
    assert any("not confirmed by mcts:8000" in r for r in report.reasons)
    # without the check the same games call it balanced: the check is what changed the verdict
    sim = SimulatedGames(b, decider.__getitem__, COST, values={CHECK_AGENT: lambda p: 0.9})
    sim.install(monkeypatch)
    assert analyze(b, config(check_agent=""), clock=sim.clock).verdict == "balanced"


REFERENCE = {"standard": (((0.60, 0.75), (0.40, 0.25)), 60, (17, 43)),
             "firm": (((0.55, 0.70), (0.45, 0.30)), 150, (49, 101))}
"""Each rule by hand: its two sides (H0, H1), its last game, and the S1 wins its last game leaves undisputed."""


def reference_check(outcomes: list[bool], rule: str = "standard") -> tuple[bool, int, int]:
    """The check's rule written out plainly: (disputed, wins, games used).  Each side is a Wald test on the
    log-likelihood ratio of its H1 against its H0; a side stops at its first bound crossing; the opening is
    disputed as soon as a side accepts H1, confirmed once both accepted H0, and after the last game undecided it
    is disputed when the wins lie outside the rule's range (standard: 17-43 of 60)."""
    sides, last, (keep_low, keep_high) = REFERENCE[rule]
    low_bound, high_bound = math.log(CHECK_BETA / (1 - CHECK_ALPHA)), math.log((1 - CHECK_BETA) / CHECK_ALPHA)
    decided: list[str | None] = [None, None]
    wins = 0
    for n, won in enumerate(outcomes[:last], start=1):
        wins += won
        for k, (p0, p1) in enumerate(sides):
            if decided[k] is None:
                llr = wins * math.log(p1 / p0) + (n - wins) * math.log((1 - p1) / (1 - p0))
                decided[k] = "H1" if llr >= high_bound else "H0" if llr <= low_bound else None
        if "H1" in decided:
            return True, wins, n
        if decided == ["H0", "H0"]:
            return False, wins, n
    return not keep_low <= wins <= keep_high, wins, last


@pytest.mark.parametrize(("rule", "seeds"), [("standard", 8), ("firm", 4)])
def test_the_sequential_check_follows_the_plain_rule(monkeypatch: pytest.MonkeyPatch, rule: str, seeds: int) -> None:
    """Each check in an analysis stops where the plainly written rule stops, on the same seeded games, with the
    same outcome (openings at 20-80% for the check agent, so both sides and the last-game rule all occur)."""
    b = board()
    legal = legal_openings(b)
    rng = random.Random(5)
    truth = {p: rng.choice([0.2, 0.3, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8]) for p in legal}
    last = REFERENCE[rule][1]
    seen: set[tuple[bool, bool]] = set()
    for seed in range(seeds):
        sim = SimulatedGames(b, lambda p: 0.5, COST, values={CHECK_AGENT: truth.__getitem__})
        sim.install(monkeypatch)
        report = analyze(b, config(seed=seed, check_rule=rule), clock=sim.clock)
        assert (report.pie.check_rule, report.pie.check_limit) == (rule, last)
        checked = [o for o in report.pie.openings if o.check is not None]
        assert checked
        key = parse_agent(CHECK_AGENT).key
        for o in checked:
            c = o.check
            assert c is not None and c.complete
            outcomes = [random.Random(derive_seed(seed, SeedPhase.CHECK, key, o.placement, i)).random()
                        < truth[o.placement] for i in range(last)]
            disputed, wins, games = reference_check(outcomes, rule)
            assert (c.agrees, c.wins, c.games) == (not disputed, wins, games), (c, truth[o.placement])
            assert o.disputed == disputed
            seen.add((disputed, games == last))
    assert {(False, False), (True, False)} <= seen, seen  # both sequential outcomes were exercised


def operating(p: float, rule: str = "standard") -> tuple[float, float]:
    """Exact P(disputed) and expected games of the check for an opening at rate ``p`` (dynamic programming over
    wins and the two sides' decisions, through the same check pair the analysis uses)."""
    cfg = AnalysisConfig(check_rule=rule)
    states: dict[tuple[int, str | None, str | None], tuple[SprtPair, float]] = {
        (0, None, None): (check_pair(cfg), 1.0)}
    disputed = games = 0.0
    steps = 0
    while states:
        steps += 1
        assert steps <= cfg.check_test.games  # every path ends by the last check game
        nxt: dict[tuple[int, str | None, str | None], tuple[SprtPair, float]] = {}
        for pair, prob in states.values():
            games += prob
            for won, q in ((True, p), (False, 1 - p)):
                after = copy.deepcopy(pair)
                after.update(won)
                outcome = check_outcome(after, cfg)
                if outcome is not None:
                    disputed += prob * q * outcome
                    continue
                state = (after.successes, after.high.decision, after.low.decision)
                nxt[state] = (after, nxt.get(state, (after, 0.0))[1] + prob * q)
        states = nxt
    return disputed, games


def test_the_checks_operating_figures_are_the_documented_ones() -> None:
    """CHECK_GAMES's docstring states these; a change to the rule must restate them."""
    figures = {p: operating(p) for p in (0.5, 0.6, 0.65, 0.7, 0.75, 0.8)}
    dispute = {p: round(d, 3) for p, (d, _) in figures.items()}
    assert dispute[0.5] == pytest.approx(0.002, abs=0.001)
    assert dispute[0.6] == pytest.approx(0.04, abs=0.005)
    assert dispute[0.65] == pytest.approx(0.15, abs=0.005)
    assert dispute[0.7] == pytest.approx(0.39, abs=0.005)
    assert dispute[0.75] == pytest.approx(0.71, abs=0.005)
    assert dispute[0.8] == pytest.approx(0.93, abs=0.005)
    assert figures[0.5][1] == pytest.approx(28, abs=0.5)
    assert figures[0.6][1] == pytest.approx(37, abs=0.5)
    assert figures[0.7][1] == pytest.approx(46, abs=0.5)
    # symmetric: the low side mirrors the high side
    assert operating(0.3)[0] == pytest.approx(figures[0.7][0], abs=1e-9)


def test_the_firm_checks_operating_figures_are_the_documented_ones() -> None:
    """FIRM_CHECK_GAMES's docstring states these: it disputes most openings at 65-70% for the check agent, which
    the standard check mostly lets through, and few at 50-55%."""
    figures = {p: operating(p, "firm") for p in (0.5, 0.55, 0.6, 0.65, 0.7, 0.75)}
    dispute = {p: d for p, (d, _) in figures.items()}
    assert dispute[0.5] == pytest.approx(0.014, abs=0.001)
    assert dispute[0.55] == pytest.approx(0.045, abs=0.001)
    assert dispute[0.6] == pytest.approx(0.21, abs=0.005)
    assert dispute[0.65] == pytest.approx(0.58, abs=0.005)
    assert dispute[0.7] == pytest.approx(0.89, abs=0.005)
    assert dispute[0.75] == pytest.approx(0.98, abs=0.005)
    assert [round(figures[p][1]) for p in (0.5, 0.55, 0.6, 0.65, 0.7)] == [43, 50, 65, 69, 53]
    assert operating(0.35, "firm")[0] == pytest.approx(dispute[0.65], abs=1e-9)
    for p in (0.65, 0.7):  # the reason for it: at 65-70% the standard check confirms most such openings
        assert operating(p)[0] < 0.4 < 0.55 < dispute[p]


def test_the_thorough_effort_checks_firmly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``--effort thorough``, "auto" runs the firm check: it plays past the standard 60 games, says so in
    the verdict and the JSON, and confirms fewer of the openings the check agent finds at 68% than the standard
    check does on the same board and seeds (72% and 20% by the operating figures)."""
    b = board()
    legal = legal_openings(b)
    even = [p for i, p in enumerate(legal) if i % 10 == 3][:20]
    decider = {p: (0.5 if p in even else 0.1) for p in legal}
    tilted = set(even[::2])
    check = {p: (0.68 if p in tilted else decider[p]) for p in legal}

    def run(effort: str, seeds: int = 6) -> tuple[int, int, int]:
        checked_tilted = confirmed_tilted = longest = 0
        for seed in range(seeds):
            sim = SimulatedGames(b, decider.__getitem__, COST, values={CHECK_AGENT: check.__getitem__})
            sim.install(monkeypatch)
            report = analyze(b, config(seed=seed, check_rule="auto", effort=EffortChoice(effort), decider_games=600,
                                       candidates=60, pie_games=10_000), clock=sim.clock)
            firm = effort == "thorough"
            assert report.pie.check_rule == ("firm" if firm else "standard")
            assert report.to_json()["pie"]["check_limit"] == (FIRM_CHECK_GAMES if firm else CHECK_GAMES)
            said = [r for r in report.reasons if "the firm check: up to 150 games each" in r]
            assert bool(said) == (firm and report.verdict == "balanced"), report.reasons
            for o in report.pie.openings:
                if o.check is not None:
                    longest = max(longest, o.check.games)
                    if o.placement in tilted:
                        checked_tilted += 1
                        confirmed_tilted += o.check.agrees
        return confirmed_tilted, checked_tilted, longest

    standard_kept, standard_checked, standard_longest = run("standard")
    firm_kept, firm_checked, firm_longest = run("thorough")
    assert standard_longest <= CHECK_GAMES < firm_longest <= FIRM_CHECK_GAMES
    # at 68% the standard check confirms 72% of such openings, the firm one 20% (operating figures above)
    assert standard_checked >= 8 and firm_checked >= 8, (standard_checked, firm_checked)
    firm_rate, standard_rate = firm_kept / firm_checked, standard_kept / standard_checked
    assert firm_rate < 0.4 < 0.5 < standard_rate and standard_rate - firm_rate > 0.3, (
        firm_kept, firm_checked, standard_kept, standard_checked)


def test_a_check_cut_by_the_clock_confirms_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    b = board()
    decider, _check, _ = split_truth(b)
    slow = {**COST, CHECK_AGENT: 40.0}
    sim = SimulatedGames(b, decider.__getitem__, slow).install(monkeypatch)
    report = analyze(b, config(time_budget=400.0), clock=sim.clock)
    cut = [o for o in report.pie.openings if o.check is not None and not o.check.complete]
    assert cut, [o.check for o in report.pie.openings]
    assert all(o.status == "undecided" and o.disputed for o in cut)
    assert report.verdict != "balanced"
    assert any("cut short by your time limit" in r for r in report.reasons)


def test_quick_mode_and_an_empty_check_agent_skip_it(monkeypatch: pytest.MonkeyPatch) -> None:
    assert AnalysisConfig(effort=EffortChoice("quick")).effective().checker == ""
    assert AnalysisConfig(agents=["greedy", "expert"], effort=EffortChoice("quick")).effective().checker == ""
    b = board()
    decider, _check, _ = split_truth(b)
    sim = SimulatedGames(b, decider.__getitem__, COST).install(monkeypatch)
    report = analyze(b, config(check_agent=""), clock=sim.clock)
    assert CHECK_AGENT not in sim.played
    assert report.pie.check_agent == "" and all(o.check is None for o in report.pie.openings)
    assert not any("cross-check" in r for r in report.reasons)


def test_by_default_only_strong_guided_searches_are_checked() -> None:
    """A verdict for greedy or casual play holds for that strength (a strong check would only contradict it), and
    an mcts decider is of the check's own family; club and stronger puct deciders are checked."""
    assert AnalysisConfig().checker == CHECK_AGENT  # greedy + club, club decides
    assert AnalysisConfig(agents=["greedy", "expert"]).checker == CHECK_AGENT
    assert AnalysisConfig(agents=["puct:4000"]).checker == CHECK_AGENT
    assert AnalysisConfig(agents=["greedy", "club"], deciding_agent="greedy").checker == ""
    for agents in (["greedy"], ["greedy", "casual"], ["greedy", "mcts:8000"], ["puct:500"]):
        assert AnalysisConfig(agents=agents).checker == "", agents
    assert AnalysisConfig(agents=["greedy"], check_agent="mcts:2000").checker == "mcts:2000"  # asked for: used
    assert AnalysisConfig(check_agent="").checker == ""


def test_the_dispute_rule_is_the_wilson_interval_outside_the_band() -> None:
    cfg = AnalysisConfig()
    assert cfg.check_games == CHECK_GAMES == 60
    assert [w for w in range(61) if not check_disputes(w, cfg)] == list(range(17, 44))
    assert wilson(44, 60)[0] > 0.6 >= wilson(43, 60)[0]
    assert check_disputes(8, AnalysisConfig(check_games=20)) is False  # 40%: inside
    assert check_disputes(16, AnalysisConfig(check_games=20)) is False  # 80% [58-92%]: reaches into the band
    assert check_disputes(17, AnalysisConfig(check_games=20)) is True  # 85% [64-95%]: outside


def test_check_settings_are_validated() -> None:
    with pytest.raises(ValueError, match="wizard"):
        AnalysisConfig(check_agent="wizard").check()
    with pytest.raises(ValueError, match="check_games"):
        AnalysisConfig(check_games=3).check()
    with pytest.raises(ValueError, match="check_rule must be one of auto, standard, firm, not 'strict'"):
        AnalysisConfig(check_rule="strict").check()
    # the standard check's cap is check_games; the firm one keeps its own
    assert AnalysisConfig(check_games=80).check_test.games == 80
    assert AnalysisConfig(check_games=80, check_rule="firm").check_test.games == FIRM_CHECK_GAMES
    assert AnalysisConfig.from_effort("quick", agents=["greedy", "expert"]).effective().checker == ""  # quick: no check


def test_a_check_agent_that_favours_s1_steers_the_search_to_openings_both_find_even(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The check agent gives S1 20 points more than the deciding agent everywhere (as mcts:8000 gave some 5-12
    more than club).  Aiming by the measured offset finds fair openings the check agent finds closer to even, and
    has fewer of them disputed, than aiming by the deciding agent alone (the same seeds and games otherwise).
    One opening at a time shows the aim alone; raced, the deciding agent's own rates choose among the openings
    in play, so the aim is measured by the disputes it saves."""
    b = board()
    legal = legal_openings(b)
    order = random.Random(3).sample(legal, len(legal))
    decider = {p: 0.2 + 0.6 * i / (len(order) - 1) for i, p in enumerate(order)}
    check = {p: min(0.95, v + 0.2) for p, v in decider.items()}

    def run(aim: bool, race: int) -> tuple[list[float], int]:
        if not aim:
            monkeypatch.setattr(CandidatePicker, "check_offset", property(lambda self: 0.0))
        fair_truths: list[float] = []
        disputed = 0
        for seed in range(6):
            sim = SimulatedGames(b, decider.__getitem__, COST, values={CHECK_AGENT: check.__getitem__},
                                 screen_noise=0.02)
            sim.install(monkeypatch)
            report = analyze(b, config(seed=seed, race=race), clock=sim.clock)
            fair_truths += [check[o.placement] for o in report.pie.fair]
            disputed += len(report.pie.disputed)
        monkeypatch.undo()
        return fair_truths, disputed

    aimed, aimed_disputed = run(aim=True, race=1)
    plain, plain_disputed = run(aim=False, race=1)
    assert len(aimed) >= 15 and len(plain) >= 15
    mean_aimed, mean_plain = sum(aimed) / len(aimed), sum(plain) / len(plain)
    assert mean_aimed < mean_plain - 0.02, (mean_aimed, mean_plain, aimed_disputed, plain_disputed)
    assert aimed_disputed < plain_disputed, (aimed_disputed, plain_disputed)
    raced, raced_disputed = run(aim=True, race=RACE_ACTIVE)
    raced_plain, raced_plain_disputed = run(aim=False, race=RACE_ACTIVE)
    assert len(raced) >= 15 and len(raced_plain) >= 15
    assert raced_disputed < raced_plain_disputed, (raced_disputed, raced_plain_disputed)
