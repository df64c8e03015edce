"""Racing the deciding agent's openings (``AnalysisConfig.race``): several in play, the nearest to even carried on
first, those far from even after their first games set aside; simulated agents with known truths."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from core.agents.spec import parse_agent
from core.analysis.config import (
    RACE_ACTIVE,
    RACE_FAR,
    RACE_FIRST,
    AnalysisConfig,
    AnalysisProgress,
    EffortChoice,
    SeedPhase,
)
from core.analysis.openings import legal_openings
from core.analysis.results import AnalysisReport
from core.analysis.run import analyze
from core.selfplay.tasks import derive_seed
from tests.analysis.simulated import SimulatedGames
from tests.analysis.test_cross_check import COST, board, config

DECIDER = "mcts:200"


def spread(seed: int) -> dict[int, float]:
    """S1's rate per opening: a third near even, the rest far from it (as on the boards where budgets ran out)."""
    rng = random.Random(seed)
    return {p: rng.choice((rng.uniform(0.45, 0.55), rng.uniform(0.75, 0.9), rng.uniform(0.1, 0.25)))
            for p in legal_openings(board())}


def run(monkeypatch: pytest.MonkeyPatch, truth: dict[int, float], **kw: object) -> AnalysisReport:
    b = board()
    SimulatedGames(b, truth.__getitem__, COST, screen_noise=0.3).install(monkeypatch)
    return analyze(b, config(check_agent="", **kw))


def own_games(placement: int, games: int, seed: int, truth: dict[int, float]) -> int:
    """S1's wins in an opening's first ``games`` games as one-at-a-time play draws them (each game's own seed)."""
    spec_key = parse_agent(DECIDER).key
    return sum(random.Random(derive_seed(seed, SeedPhase.PIE, spec_key, placement, i)).random() < truth[placement]
               for i in range(games))


def test_raced_openings_keep_their_own_games_and_far_ones_are_set_aside(monkeypatch: pytest.MonkeyPatch) -> None:
    truth = spread(1)
    report = run(monkeypatch, truth, seed=4)
    pie = report.per_agent[DECIDER].pie
    assert report.config.race == RACE_ACTIVE and report.verdict == "balanced", report.reasons
    aside = [o for o in pie.openings if o.abandoned and o.games == RACE_FIRST]
    assert aside, "some opening far from even after its first games was set aside"
    for o in aside:
        assert abs(o.wins / o.games - 0.5) > RACE_FAR
    for o in pie.openings:
        # the race changes which opening plays next, never an opening's games: the same seeds, in order
        assert o.wins == own_games(o.placement, o.games, 4, truth), o.names
    assert all(o.games >= 30 for o in pie.fair)


def test_a_lopsided_board_is_still_called_lopsided_when_raced(monkeypatch: pytest.MonkeyPatch) -> None:
    truth = {p: 0.88 for p in legal_openings(board())}
    report = run(monkeypatch, truth, seed=2)
    pie = report.per_agent[DECIDER].pie
    assert report.verdict == "lopsided", report.reasons
    assert pie.openings and all(o.status == "unfair" for o in pie.openings)


def test_one_at_a_time_plays_each_opening_to_its_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    truth = spread(1)
    report = run(monkeypatch, truth, seed=4, race=1)
    pie = report.per_agent[DECIDER].pie
    # nothing is set aside after its first games: each opening ends decided, given up by the futility rule, or
    # cut by the budget
    assert not any(o.abandoned and o.games == RACE_FIRST for o in pie.openings)


def test_race_setting_is_checked_and_old_reports_read_as_one_at_a_time() -> None:
    with pytest.raises(ValueError, match=r"race 0: give 1 \(one opening at a time\)"):
        AnalysisConfig(race=0).check()
    saved = _minimal()
    assert saved["config"]["race"] == RACE_ACTIVE  # type: ignore[index]
    report = AnalysisReport.from_json({**saved, "config": {"seed": 3}})
    assert report.config.race == 1 and report.config.seed == 3


def _minimal() -> dict[str, object]:
    path = Path(__file__).resolve().parents[1] / "data" / "reports" / "tiny-lopsided.json"
    data: dict[str, object] = json.loads(path.read_text())
    return data


def test_progress_counts_the_deciding_games_over_the_whole_race(monkeypatch: pytest.MonkeyPatch) -> None:
    """The race plays in many short turns; the progress counts games of the whole phase against its budget, so a
    host's bar moves forward instead of restarting at every turn."""
    b = board()
    truth = spread(1)
    SimulatedGames(b, truth.__getitem__, COST, screen_noise=0.3).install(monkeypatch)
    seen: list[AnalysisProgress] = []
    cfg = config(check_agent="", seed=4)
    report = analyze(b, cfg, progress=seen.append)
    pie_steps = [p for p in seen if p.phase == "pie" and p.message.startswith(DECIDER)]
    assert len(pie_steps) == report.per_agent[DECIDER].pie.games
    assert [p.done for p in pie_steps] == list(range(1, len(pie_steps) + 1))
    assert {p.total for p in pie_steps} == {cfg.pie_budget}


def test_a_quick_look_plays_openings_one_at_a_time_and_a_hand_set_race_is_custom() -> None:
    assert AnalysisConfig.from_effort("standard").race == RACE_ACTIVE
    assert AnalysisConfig.from_effort("thorough").race == RACE_ACTIVE
    assert AnalysisConfig.from_effort("quick").effective().race == 1
    assert AnalysisConfig(effort=EffortChoice("quick")).effective().race == 1  # as the designer's Quick note builds it
    assert AnalysisConfig.from_effort("standard", race=1).effort.name == "custom"
