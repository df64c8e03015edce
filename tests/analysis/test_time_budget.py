"""``lits analyze --time``: games planned to fit, work on the open question until decided, an ETA, and how much
more time would likely decide (simulated agents on a simulated clock: no timed unit tests)."""

from __future__ import annotations

import re

import pytest

from core.analysis.config import AnalysisConfig, AnalysisProgress
from core.analysis.openings import legal_openings
from core.analysis.run import analyze
from core.board.model import Board, GameParams
from tests.analysis.simulated import SimulatedGames

COST = {"greedy": 0.001, "mcts:200": 0.5}


def board() -> Board:
    return Board.random(size=6, pairs=6, seed=12, params=GameParams(supply=(2, 2, 2, 2)))


def config(**kw: object) -> AnalysisConfig:
    base: dict[str, object] = {"agents": ["greedy", "mcts:200"], "seed": 1, "inline": True, "screen_sims": 10}
    base.update(kw)
    return AnalysisConfig(**base)  # type: ignore[arg-type]


def few_fair(b: Board) -> dict[int, float]:
    """Five openings at 50%, every other one at 10% (S2 wins)."""
    legal = legal_openings(b)
    return {p: (0.5 if i % 25 == 7 and i < 130 else 0.1) for i, p in enumerate(legal)}


def test_a_generous_budget_plays_on_until_decided(monkeypatch: pytest.MonkeyPatch) -> None:
    b = board()
    truth = few_fair(b)
    sim = SimulatedGames(b, truth.__getitem__, COST).install(monkeypatch)
    seen: list[AnalysisProgress] = []
    report = analyze(b, config(time_budget=3000.0), progress=seen.append, clock=sim.clock)
    assert report.verdict == "balanced", report.reasons
    assert all(truth[o.placement] == 0.5 for o in report.pie.fair)
    assert report.elapsed <= 3000.0 + COST["mcts:200"]
    etas = [p.eta for p in seen if p.phase != "start"]
    assert etas and all(e is not None and 0 <= e <= 3000.0 for e in etas)
    assert etas == sorted(etas, reverse=True)  # the ETA only counts down
    # without a budget the 12-candidate cap runs out first on this board (5 fair among ~230 openings)
    capped = analyze(b, config(), clock=sim.clock)
    assert report.pie.tested > capped.pie.tested or capped.verdict == "balanced"


def test_out_of_time_says_how_much_more_would_decide(monkeypatch: pytest.MonkeyPatch) -> None:
    b = board()
    truth = few_fair(b)
    decided_with_more = 0
    for seed in range(6):
        sim = SimulatedGames(b, truth.__getitem__, COST).install(monkeypatch)
        report = analyze(b, config(time_budget=30.0, seed=seed), clock=sim.clock)
        assert report.verdict == "inconclusive"
        assert report.elapsed <= 30.0 + COST["mcts:200"]
        (note,) = [r for r in report.reasons if r.startswith("out of time")]
        more = float(re.search(r"roughly (\d+) s more", note).group(1))  # type: ignore[union-attr]
        assert "mcts:200 games" in note and more > 0
        sim2 = SimulatedGames(b, truth.__getitem__, COST).install(monkeypatch)
        again = analyze(b, config(time_budget=30.0 + 2 * more, seed=seed), clock=sim2.clock)
        decided_with_more += again.verdict != "inconclusive"
    assert decided_with_more >= 4, decided_with_more


def test_caps_are_sized_from_the_measured_speed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The weaker agent stops at its share of the time; the deciding one's side runs leave the pie phase room."""
    b = board()
    sim = SimulatedGames(b, lambda p: 0.5, {"greedy": 0.2, "mcts:200": 0.5}).install(monkeypatch)
    report = analyze(b, config(time_budget=100.0), clock=sim.clock)
    assert sim.played["greedy"] * 0.2 <= 0.3 * 100.0 + 0.2 * 25  # its share, plus at most one batch over
    strong = report.per_agent["mcts:200"]
    assert strong.raw.games * 0.5 <= 0.15 * 100.0 + 0.5
    assert strong.pie.games > strong.raw.games


def test_a_budget_below_the_minimum_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 5 seconds"):
        analyze(board(), config(time_budget=1.0))


def test_a_run_the_clock_never_cut_does_not_depend_on_the_machines_speed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's promise for ``--time``: a verdict reached before the time is up is the same for its seed on
    a fast machine and on one three times slower (or with fewer workers), because the games and their order come
    from the seed and only the clock decides when to stop."""
    b = board()
    truth = few_fair(b)
    results = []
    for scale in (1.0, 3.0):
        sim = SimulatedGames(b, truth.__getitem__, {k: v * scale for k, v in COST.items()}).install(monkeypatch)
        report = analyze(b, config(time_budget=3000.0), clock=sim.clock)
        assert not any("out of time" in r for r in report.reasons)
        results.append((report.verdict, [(o.placement, o.wins, o.games, o.status) for o in report.pie.openings]))
    assert results[0] == results[1]
    assert results[0][0] == "balanced"
