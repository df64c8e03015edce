"""Judges of several families: an opening counts as fair only when the deciding agent shows it fair and no judge
shows it one-sided, each judge by the check's sequential test (simulated agents; exact operating figures)."""

from __future__ import annotations

import pytest

from core.analysis.config import AB_JUDGE, CHECK_AGENT, JUDGE_SEPARATOR, THOROUGH, AnalysisConfig, EffortChoice
from core.analysis.openings import legal_openings
from core.analysis.palette import status_explained
from core.analysis.results import AnalysisReport, opening_view
from core.analysis.run import analyze
from core.board.model import Board
from tests.analysis.simulated import SimulatedGames
from tests.analysis.test_cross_check import board, config, operating

JUDGES = JUDGE_SEPARATOR.join((CHECK_AGENT, AB_JUDGE))
COST = {"greedy": 0.001, "mcts:200": 0.5, CHECK_AGENT: 1.0, AB_JUDGE: 0.3}


def truths(b: Board) -> tuple[dict[int, float], dict[int, float], dict[int, float], set[int], set[int]]:
    """Ten openings even for the deciding agent; the Monte Carlo judge finds two of them won by S1 (85%), the
    alpha-beta judge three others (85%): strong engines of different families disagreeing on single openings."""
    legal = legal_openings(b)
    even = [p for i, p in enumerate(legal) if i % 20 == 3][:10]
    mc_side, ab_side = set(even[:2]), set(even[2:5])
    decider = {p: (0.5 if p in even else 0.1) for p in legal}
    mc = {p: (0.85 if p in mc_side else decider[p]) for p in legal}
    ab = {p: (0.85 if p in ab_side else decider[p]) for p in legal}
    return decider, mc, ab, mc_side, ab_side


def run(monkeypatch: pytest.MonkeyPatch, seed: int, judges: str) -> tuple[AnalysisReport, SimulatedGames]:
    b = board()
    decider, mc, ab, _, _ = truths(b)
    sim = SimulatedGames(b, decider.__getitem__, COST, values={CHECK_AGENT: mc.__getitem__, AB_JUDGE: ab.__getitem__})
    sim.install(monkeypatch)
    return analyze(b, config(seed=seed, check_agent=judges), clock=sim.clock), sim


def test_an_opening_counts_only_when_every_judge_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, _, mc_side, ab_side = truths(board())
    disputed_by: dict[str, int] = {CHECK_AGENT: 0, AB_JUDGE: 0}
    for seed in range(4):
        report, _sim = run(monkeypatch, seed, JUDGES)
        assert report.pie.judges == (CHECK_AGENT, AB_JUDGE) and report.pie.check_agent == CHECK_AGENT
        assert report.verdict == "balanced", report.reasons
        for o in report.pie.fair:  # fair: every judge played it and agreed
            assert [j.agent for j in o.judges] == [CHECK_AGENT, AB_JUDGE] and all(j.agrees for j in o.judges)
            assert o.placement not in mc_side | ab_side
        for o in report.pie.disputed:
            (judge,) = o.disputed_by
            disputed_by[judge.agent] += 1
            assert o.placement in (mc_side if judge.agent == CHECK_AGENT else ab_side)
            if judge.agent == CHECK_AGENT:  # the first judge disputed it: the second is not played
                assert [j.agent for j in o.judges] == [CHECK_AGENT]
            assert any(judge.agent in r and "not confirmed by" in r for r in report.reasons)
        assert f"the {CHECK_AGENT} and {AB_JUDGE} judges show none of them one-sided" in report.reasons[0]
        view = opening_view(report.pie.fair[0])
        assert [j.agent for j in view.judges] == [CHECK_AGENT, AB_JUDGE] and all(j.games for j in view.judges)
        data = report.to_json()
        assert data["pie"]["judges"] == [CHECK_AGENT, AB_JUDGE]
        opening = next(o for o in data["pie"]["openings"] if o["status"] == "fair")
        assert opening["check"] == opening["judges"][0] and len(opening["judges"]) == 2
        assert AnalysisReport.from_json(data).to_json() == data
    assert disputed_by[CHECK_AGENT] >= 1 and disputed_by[AB_JUDGE] >= 1, disputed_by


def test_a_second_judge_changes_no_figure_of_the_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each judge's games have seeds of their own: the Monte Carlo judge's figures for an opening are the same
    with or without the alpha-beta judge beside it."""
    one, _ = run(monkeypatch, 2, CHECK_AGENT)
    both, _ = run(monkeypatch, 2, JUDGES)
    first = {o.placement: (o.check.wins, o.check.games) for o in one.pie.openings if o.check is not None}
    again = {o.placement: (o.check.wins, o.check.games) for o in both.pie.openings if o.check is not None}
    shared = set(first) & set(again)
    assert shared and all(first[p] == again[p] for p in shared)


def test_the_judge_rules_operating_figures() -> None:
    """Exact figures of the rule, computed from the check's own test for each judge (independent games): an
    opening both judges find even is disputed 0.4% of the time; one that either finds at 80% almost always."""
    d50, g50 = operating(0.5)
    d70, _ = operating(0.7)
    d80, _ = operating(0.8)
    both_even = 1 - (1 - d50) ** 2
    assert both_even == pytest.approx(0.004, abs=0.002)
    assert 1 - (1 - d50) * (1 - d80) == pytest.approx(0.93, abs=0.01)
    assert 1 - (1 - d50) * (1 - d70) == pytest.approx(0.39, abs=0.01)
    assert 2 * g50 < 60  # two judges of an even opening: under 60 games in all on average


def test_judges_by_default_and_on_the_command_line() -> None:
    from core.cli import build_parser
    from core.cli.analyze import _config

    assert AnalysisConfig.from_effort().checkers == [CHECK_AGENT]  # standard: the Monte Carlo judge
    assert AnalysisConfig.from_effort("thorough").checkers == [CHECK_AGENT, AB_JUDGE]
    assert AnalysisConfig.from_effort("quick").effective().checkers == []
    assert AnalysisConfig(agents=["greedy"]).checkers == []  # a weak decider's verdict holds for its strength

    def parsed(*args: str) -> AnalysisConfig:
        return _config(build_parser(["analyze"]).parse_args(["analyze", "b.yaml", *args]))

    assert parsed().checkers == [CHECK_AGENT]
    assert parsed("--effort", "thorough").checkers == [CHECK_AGENT, AB_JUDGE]
    assert parsed("--check", "mcts:4000", "--check", "ab:2000").checkers == ["mcts:4000", "ab:2000"]
    assert parsed("--check", "none").checkers == []


def thorough(seed: int, judges: str = JUDGES) -> AnalysisConfig:
    """The test's caps, judged as the Thorough effort (its rule: disputed openings count, one must be undisputed)."""
    return config(seed=seed, check_agent=judges, effort=EffortChoice(THOROUGH.name, hand_set=True))


def test_thorough_counts_disputed_openings_and_needs_one_undisputed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under the thorough rule an opening fair for the deciding agent stays fair when a judge disputes it, every
    judge plays it (so each one's figure is given), and the board is balanced once 3 are fair and 1 undisputed."""
    b = board()
    decider, mc, ab, mc_side, ab_side = truths(b)
    counted_disputed = 0
    for seed in range(4):
        sim = SimulatedGames(b, decider.__getitem__, COST,
                             values={CHECK_AGENT: mc.__getitem__, AB_JUDGE: ab.__getitem__})
        sim.install(monkeypatch)
        cfg = thorough(seed)
        assert cfg.counts_disputed and cfg.min_undisputed == 1
        report = analyze(b, cfg, clock=sim.clock)
        pie = report.pie
        assert report.verdict == "balanced", report.reasons
        assert len(pie.fair) >= 3 and len(pie.undisputed) >= 1 and not report.engines_disagree
        for o in pie.fair:
            assert [j.agent for j in o.judges] == [CHECK_AGENT, AB_JUDGE]  # both judges, even after a dispute
            assert o.disputed == (o.placement in mc_side | ab_side)
        counted_disputed += sum(o.disputed for o in pie.fair)
        for o in pie.fair:  # the words shown beside it agree: counted fair for the deciding agent, disputed
            view = opening_view(o)
            explained = status_explained(o.status, o.v, disputed=o.disputed)
            assert explained.startswith("fair for the deciding engine, disputed") == o.disputed
            assert ("counted fair for the deciding agent only" in view.check) == (not o.judges[0].agrees)
        assert "undisputed by every judge" in report.reasons[0]
        assert sum(r.startswith("fair opening, undisputed:") for r in report.reasons) == min(3, len(pie.undisputed))
        for o in pie.fair:
            if o.disputed:
                assert any(r.startswith(f"fair opening for {pie.agent}, disputed by") and " ".join(o.names) in r
                           for r in report.reasons)
        data = report.to_json()
        assert data["pie"]["undisputed"] == len(pie.undisputed) and data["engines_disagree"] is False
        assert AnalysisReport.from_json(data).to_json() == data
    assert counted_disputed >= 1  # the seeds reach a disputed opening that counts


def test_when_every_fair_opening_is_disputed_the_engines_disagree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every opening even for the deciding agent is one-sided for the Monte Carlo judge: thorough says the engines
    disagree (its own state, not a lack of play); the standard rule does not count them and says so."""
    from designer.panels.analysis_text import summarise

    b = board()
    decider, _, ab, _, _ = truths(b)
    mc = {p: (0.85 if v == 0.5 else v) for p, v in decider.items()}
    sim = SimulatedGames(b, decider.__getitem__, COST, values={CHECK_AGENT: mc.__getitem__, AB_JUDGE: ab.__getitem__})
    sim.install(monkeypatch)
    report = analyze(b, thorough(1), clock=sim.clock)
    assert report.verdict == "inconclusive" and report.engines_disagree, report.reasons
    assert len(report.pie.fair) >= 3 and report.pie.undisputed == []
    assert report.reasons[0].startswith("strong engines of different kinds disagree about this board")
    assert report.to_json()["engines_disagree"] is True
    summary = summarise(report)
    assert summary.headline.startswith("Engines disagree") and "would not settle it" in summary.lines[0]

    sim = SimulatedGames(b, decider.__getitem__, COST, values={CHECK_AGENT: mc.__getitem__, AB_JUDGE: ab.__getitem__})
    sim.install(monkeypatch)
    standard = analyze(b, config(seed=1, check_agent=JUDGES), clock=sim.clock)
    assert standard.verdict == "inconclusive" and not standard.engines_disagree and standard.pie.fair == []
    assert any("so not counted fair" in r for r in standard.reasons)
    assert not summarise(standard).headline.startswith("Engines disagree")
