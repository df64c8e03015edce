"""The cross-check: an opening the deciding agent shows fair stays fair only when a strong agent of another family
(``check_agent``, default ``mcts:8000``) does not find it one-sided (simulated agents with known, disagreeing
opening values on a simulated clock)."""

from __future__ import annotations

import json
import random

import pytest

from core.analysis.config import CHECK_AGENT, CHECK_GAMES, AnalysisConfig
from core.analysis.openings import legal_openings
from core.analysis.run import analyze
from core.analysis.stats import wilson
from core.analysis.verdict import check_disputes
from core.board.model import Board, GameParams
from tests.analysis.simulated import SimulatedGames

COST = {"greedy": 0.001, "mcts:200": 0.5, CHECK_AGENT: 1.0}


def board() -> Board:
    return Board.random(size=6, pairs=6, seed=12, params=GameParams(supply=(2, 2, 2, 2)))


def config(**kw: object) -> AnalysisConfig:
    base: dict[str, object] = {"agents": ["greedy", "mcts:200"], "seed": 1, "inline": True, "screen_sims": 10,
                               "time_budget": 5000.0, "check_agent": CHECK_AGENT}
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
            assert not check_disputes(o.check.wins, AnalysisConfig()) and o.check.games <= CHECK_GAMES
        # every fair opening the check disputed is reported, with its figures, never dropped silently
        for o in pie.openings:
            if o.check is None:
                continue
            if o.placement in one_sided:  # 88% for the check agent: disputed with probability 0.9995
                assert not o.check.agrees and o.status == "undecided" and o.disputed
            else:  # even for both: disputed with probability 0.00006 (44+ or 16- wins of 60)
                even_checked += 1
                even_disputed += o.disputed
        if pie.disputed:
            (said,) = [r for r in report.reasons if "not confirmed by the mcts:8000 cross-check" in r]
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
    report = analyze(b, config(time_budget=3000.0), clock=sim.clock)
    assert report.verdict == "inconclusive", report.reasons
    assert not report.pie.fair and len(report.pie.disputed) >= 3
    assert any("not confirmed by the mcts:8000 cross-check" in r for r in report.reasons)
    # without the check the same games call it balanced: the check is what changed the verdict
    sim = SimulatedGames(b, decider.__getitem__, COST, values={CHECK_AGENT: lambda p: 0.9})
    sim.install(monkeypatch)
    assert analyze(b, config(time_budget=3000.0, check_agent=""), clock=sim.clock).verdict == "balanced"


def test_stopping_early_gives_the_full_samples_outcome(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check stops once its outcome is certain; replaying the same seeded games to 40 must agree."""
    b = board()
    legal = legal_openings(b)
    rng = random.Random(5)
    truth = {p: rng.choice([0.2, 0.3, 0.5, 0.6, 0.7, 0.75, 0.8]) for p in legal}
    for seed in range(6):
        sim = SimulatedGames(b, lambda p: 0.5, COST, values={CHECK_AGENT: truth.__getitem__})
        sim.install(monkeypatch)
        report = analyze(b, config(seed=seed), clock=sim.clock)
        checked = [o for o in report.pie.openings if o.check is not None]
        assert checked
        for o in checked:
            c = o.check
            assert c is not None and c.games <= CHECK_GAMES and c.complete
            from core.agents.spec import parse_agent
            from core.analysis.config import SeedPhase
            from core.selfplay.tasks import derive_seed

            key = parse_agent(CHECK_AGENT).key
            full = sum(random.Random(derive_seed(seed, SeedPhase.CHECK, key, o.placement, i)).random()
                       < truth[o.placement] for i in range(CHECK_GAMES))
            assert c.agrees == (17 <= full <= 43), (c, full)  # 95% Wilson interval of full/60 meets 40-60%
            prefix = sum(random.Random(derive_seed(seed, SeedPhase.CHECK, key, o.placement, i)).random()
                         < truth[o.placement] for i in range(c.games))
            assert prefix == c.wins


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
    assert any("cut short by the time budget" in r for r in report.reasons)


def test_quick_mode_and_an_empty_check_agent_skip_it(monkeypatch: pytest.MonkeyPatch) -> None:
    assert AnalysisConfig(quick=True).effective().checker == ""
    assert AnalysisConfig(agents=["greedy", "expert"], quick=True).effective().checker == ""
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
