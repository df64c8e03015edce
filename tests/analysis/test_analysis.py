"""The verdict logic on simulated coins, the candidate picker, and small real analyses end to end."""

from __future__ import annotations

import dataclasses
import json
import random
import threading
import time
from collections.abc import Callable

import numpy as np
import pytest

from core.analysis.candidates import OFFSET_PRIOR_GAMES, PRIOR_SLOPE, CandidatePicker
from core.analysis.config import QUICK, AnalysisCancelled, AnalysisConfig, AnalysisProgress, EffortChoice
from core.analysis.results import AgentResult, OpeningResult, PieResult, RawResult
from core.analysis.run import analyze, compile_message
from core.analysis.stats import SprtPair, wilson
from core.analysis.verdict import FUTILITY_CONFIDENCE, decide, futile, side_warnings
from core.board.model import PIECE_TYPES, Board, GameParams, Symbol
from core.engine.pieces import placement_table
from core.selfplay.runner import CompileClock


def coin_opening(placement: int, p: float, rng: random.Random, cap: int = 400) -> OpeningResult:
    """An opening whose games are a coin of bias p, decided exactly as the analysis decides openings."""
    pair = SprtPair.with_levels(high=(0.55, 0.65), low=(0.45, 0.35))
    wins = games = 0
    while games < cap and not pair.decided:
        won = rng.random() < p
        pair.update(won)
        wins += won
        games += 1
    status = {"inside": "fair", "outside": "unfair"}.get(pair.status, "undecided")
    return OpeningResult(placement=placement, cells=[placement], names=[f"c{placement}"], wins=wins, games=games,
                         status=status, screen_v=p)  # type: ignore[arg-type]


def pie_of(biases: list[float], seed: int) -> PieResult:
    rng = random.Random(seed)
    return PieResult(agent="coin", screened=100, openings=[coin_opening(i, p, rng) for i, p in enumerate(biases)])


@pytest.mark.parametrize(("biases", "expected"), [
    ([0.5, 0.52, 0.48], "balanced"),
    ([0.15, 0.85, 0.2, 0.8], "lopsided"),
    ([0.9, 0.1], "lopsided"),
])
def test_simulated_coins_reach_the_right_verdict(biases: list[float], expected: str) -> None:
    cfg = AnalysisConfig()
    hits = 0
    for seed in range(40):
        verdict, reasons = decide(pie_of(biases, seed), cfg)
        hits += verdict == expected
        assert reasons and all(isinstance(r, str) for r in reasons)
    assert hits >= 34, f"{expected}: only {hits} of 40 runs"


def test_one_fair_opening_is_not_enough() -> None:
    verdict, reasons = decide(pie_of([0.5, 0.9, 0.1], seed=3), AnalysisConfig())
    assert verdict == "inconclusive"
    assert "need 3" in reasons[0]
    verdict, _ = decide(pie_of([0.5, 0.9, 0.1], seed=3), AnalysisConfig(min_fair_openings=1))
    assert verdict == "balanced"


def test_lopsided_reason_names_the_best_opening() -> None:
    pie = PieResult(agent="x", screened=10, openings=[
        OpeningResult(5, [0, 1, 2, 3], ["A1", "B1", "C1", "D1"], wins=23, games=100, status="unfair", screen_v=0.3),
        OpeningResult(6, [4, 5, 6, 7], ["E1", "F1", "G1", "H1"], wins=90, games=100, status="unfair", screen_v=0.6),
    ])
    verdict, reasons = decide(pie, AnalysisConfig())
    assert verdict == "lopsided"
    assert reasons[0].startswith("no first placement keeps the game within 40%-60%: the best, A1 B1 C1 D1, "
                                 "leaves S1 at 23% [")
    assert pie.value == pytest.approx(0.23)


def test_never_a_verdict_from_a_handful_of_games() -> None:
    pie = PieResult(agent="x", screened=10, openings=[
        OpeningResult(1, [0], ["A1"], wins=0, games=8, status="unfair", screen_v=0.3),
        OpeningResult(2, [1], ["B1"], wins=8, games=8, status="unfair", screen_v=0.3),
    ])
    verdict, reasons = decide(pie, AnalysisConfig())
    assert verdict == "inconclusive"
    assert "16 games" in reasons[0]


def test_futility_gives_up_only_between_even_and_clearly_unfair() -> None:
    cfg = AnalysisConfig()
    assert not futile(25, 39, cfg)  # too early to judge
    assert not futile(20, 40, cfg)  # 50%: may well be shown fair
    assert not futile(40, 64, cfg)  # 62%: its 99% interval [46-76%] still reaches 50%
    assert futile(64, 100, cfg)  # 64%: the 99% interval [51-75%] excludes 50% but reaches into the band
    assert not futile(56, 64, cfg)  # 88%: wholly outside the band, the SPRT will call it unfair
    assert futile(36, 100, cfg) == (wilson(36, 100, FUTILITY_CONFIDENCE)[1] < 0.5)
    # 75% [60-86%]: touches the band, but beyond the SPRT's H1 rate of 65% it is about to be shown unfair
    assert not futile(30, 40, cfg) and not futile(10, 40, cfg)


def test_candidate_picker_calibrates_the_screen() -> None:
    screen = np.array([0.1, 0.3, 0.4, 0.45, 0.5, 0.55, 0.7, 0.9, -1.0])
    picker = CandidatePicker(screen, seed=0)
    assert picker.next() == 4  # closest to 0.5 before anything is known
    picker.feedback(4, v=0.67, games=100)  # S1 does better than the screen says: look lower
    # one point: prior slope, target = 0.5 + (0.5 - 0.67) / PRIOR_SLOPE = 0.4
    assert picker.target == pytest.approx(0.5 + (0.5 - 0.67) / PRIOR_SLOPE)
    assert picker.next() == 2
    picker.feedback(2, v=0.3, games=100)
    # two points fit v = a + b * s through (0.5, 0.67) and (0.4, 0.3), shrunk towards the prior slope
    fitted = (0.67 - 0.3) / (0.5 - 0.4)
    sxx = 100 * 0.05**2 * 2
    strength = sxx / (sxx + 200 * 0.01)
    slope = min(max(strength * fitted + (1 - strength) * PRIOR_SLOPE, 0.5), 4.0)
    assert picker.target == pytest.approx(0.45 + (0.5 - 0.485) / slope)
    assert picker.next() == 3  # 0.45 is the untested screen value closest to the new target
    rest = {picker.next() for _ in range(10)}
    assert 8 not in rest  # illegal openings are never chosen
    assert None in rest  # and the pool runs dry


def test_candidate_picker_aims_where_both_engines_find_the_game_even() -> None:
    """A cross-check that gives S1 more than the deciding agent moves the aim down by half the mean offset,
    shrunk by OFFSET_PRIOR_GAMES games of no difference; an unchecked opening changes nothing about the offset."""
    prior = OFFSET_PRIOR_GAMES
    screen = np.array([0.3, 0.4, 0.45, 0.5, 0.55, 0.6])
    plain, aimed = CandidatePicker(screen, seed=0), CandidatePicker(screen, seed=0)
    assert plain.next() == aimed.next() == 3
    plain.feedback(3, v=0.5, games=100)
    aimed.feedback(3, v=0.5, games=100, check_v=0.7, check_games=60)
    assert plain.target == pytest.approx(0.5)
    offset = 0.2 * 60 / (60 + prior)
    assert aimed.check_offset == pytest.approx(offset)
    assert aimed.target == pytest.approx(0.5 - offset / 2 / PRIOR_SLOPE)
    assert plain.next() in (2, 4) and aimed.next() == 2  # 0.45 and 0.55 tie for the plain one; aimed looks lower
    aimed.feedback(2, v=0.45, games=80)
    assert aimed.check_offset == pytest.approx(offset)
    aimed.feedback(1, v=0.45, games=80, check_v=0.45, check_games=40)  # a check that agrees pulls it back
    assert aimed.check_offset == pytest.approx(0.2 * 60 / (100 + prior))


def _agent(name: str, verdict: str, games: int = 100, ties: int = 10, mirror: tuple[int, int] = (0, 0),
           full: bool = True, fair: int = 0) -> AgentResult:
    raw = RawResult(agent=name, games=games, s1_wins=games // 2, tie_breaks=ties, mirror_games=mirror[1],
                    mirror_wins=mirror[0], mirror_full=mirror[1] if full else 0,
                    mirror_full_wins=mirror[0] if full else 0)
    pie = PieResult(agent=name, screened=10, openings=[
        OpeningResult(i, [i], [f"c{i}"], wins=50, games=100, status="fair", screen_v=0.5) for i in range(fair)])
    return AgentResult(name, verdict, [], raw, pie)  # type: ignore[arg-type]


def test_side_warnings() -> None:
    cfg = AnalysisConfig()
    calm = {"greedy": _agent("greedy", "balanced"), "mcts:1000": _agent("mcts:1000", "balanced")}
    assert side_warnings(calm, "mcts:1000", cfg) == []
    # undecided at the deciding strength is no contradiction, but a weaker agent's fairer picture is said out loud
    weaker = {"greedy": _agent("greedy", "balanced", fair=3), "mcts:1000": _agent("mcts:1000", "inconclusive", fair=1)}
    assert side_warnings(weaker, "mcts:1000", cfg) == [
        "fair for greedy play; for mcts:1000 play only 1 opening was shown fair (the verdict holds for mcts:1000 play)"]
    more = {"greedy": _agent("greedy", "inconclusive", fair=2), "mcts:1000": _agent("mcts:1000", "inconclusive")}
    assert side_warnings(more, "mcts:1000", cfg) == [
        "2 openings were shown fair for greedy play; for mcts:1000 play no opening was shown fair"]
    assert side_warnings({"greedy": _agent("greedy", "inconclusive", fair=1),
                          "mcts:1000": _agent("mcts:1000", "balanced", fair=3)}, "mcts:1000", cfg) == []
    split = {"greedy": _agent("greedy", "lopsided"), "mcts:1000": _agent("mcts:1000", "balanced")}
    (w,) = side_warnings(split, "mcts:1000", cfg)
    assert w.startswith("strength-dependent") and "greedy: lopsided" in w and "mcts:1000: balanced" in w
    ties = {"greedy": _agent("greedy", "balanced", ties=72)}
    (w,) = side_warnings(ties, "greedy", cfg)
    assert w.startswith("72% of greedy games end level")
    mirror = {"greedy": _agent("greedy", "balanced", mirror=(15, 20))}
    (w,) = side_warnings(mirror, "greedy", cfg)
    assert "mirror strategy" in w and "75% [53-89%] of 20 games" in w
    assert side_warnings({"greedy": _agent("greedy", "balanced", mirror=(5, 6))}, "greedy", cfg) == []
    # S2 won the probe games, but never by mirroring every move (e.g. no move was possible at all)
    assert side_warnings({"greedy": _agent("greedy", "balanced", mirror=(20, 20), full=False)}, "greedy", cfg) == []


def test_no_mirror_warning_when_no_move_can_be_mirrored() -> None:
    board = Board.random(size=6, pairs=4, seed=1, params=GameParams(supply=(0, 0, 0, 0)))
    report = analyze(board, small_config(agents=["greedy"]))
    assert report.raw.mirror_games >= 10 and report.raw.mirror_full == 0
    assert not any("mirror strategy" in w for w in report.warnings), report.warnings


def small_board() -> Board:
    board = Board.random(size=6, pairs=6, seed=12, params=GameParams(supply=(2, 2, 2, 2)))
    board.name = "tiny"
    return board


def small_config(**kw: object) -> AnalysisConfig:
    base = dict(agents=["greedy", "mcts:30"], games=40, seed=3, inline=True, screen_sims=10, max_candidates=3,
                pie_games=80, strong_raw_games=20, mirror_games=12, min_verdict_games=20)
    base.update(kw)
    return AnalysisConfig(**base)  # type: ignore[arg-type]


def test_small_analysis_end_to_end() -> None:
    seen: list[AnalysisProgress] = []
    report = analyze(small_board(), small_config(), progress=seen.append)
    data = report.to_json()
    assert data["verdict"] in ("balanced", "lopsided", "inconclusive")
    assert isinstance(data["reasons"], list) and data["reasons"]
    assert isinstance(data["warnings"], list)
    assert set(data["pie"]) >= {"value", "fair_openings", "tested"}
    for cells in data["pie"]["fair_openings"]:
        assert len(cells) == 4 and all(isinstance(c, str) for c in cells)
    assert set(data["raw"]) >= {"games", "s1_win_rate", "ci95", "tie_break_share"}
    assert len(data["raw"]["ci95"]) == 2
    assert set(data["per_agent"]) == {"greedy", "mcts:30"}
    for res in data["per_agent"].values():
        assert set(res["raw"]) >= {"games", "s1_win_rate", "ci95", "tie_break_share"}
    assert report.agent == "mcts:30" and data["deciding_agent"] == "mcts:30"
    # the verdict names the strength it holds for, and its openings' status comes from that agent's games
    assert all(r.endswith("(for mcts:30 play)") for r in data["per_agent"]["mcts:30"]["reasons"])
    assert all(r.endswith("(for greedy play)") for r in data["per_agent"]["greedy"]["reasons"])
    assert report.pie is report.per_agent["mcts:30"].pie and report.pie.agent == "mcts:30"
    json.dumps(data)  # plain JSON, no numpy scalars or nan
    assert "NaN" not in json.dumps(data)
    for grid in (report.coverage_s1, report.coverage_s2, report.survival):
        assert grid.shape == (6, 6)
    # a cell is covered by S1 or S2 or not at all, so the shares add up to at most 1
    assert np.all(report.coverage_s1 + report.coverage_s2 <= 1.0 + 1e-9)
    has_symbol = np.array([c.value != "." for c in small_board().cells]).reshape(6, 6)
    assert np.all(np.isnan(report.survival[~has_symbol]))
    assert np.all((report.survival[has_symbol] >= 0) & (report.survival[has_symbol] <= 1))
    assert report.screen.shape == (placement_table(6).count,)
    assert np.all((report.screen == -1) | ((report.screen >= 0) & (report.screen <= 1)))
    phases = {p.phase for p in seen}
    assert {"screen", "raw", "mirror", "pie"} <= phases
    assert all(0 <= p.done <= p.total for p in seen)


def test_analysis_is_reproducible_for_a_seed() -> None:
    a = analyze(small_board(), small_config()).to_json()
    b = analyze(small_board(), small_config()).to_json()
    a.pop("elapsed_s")
    b.pop("elapsed_s")
    assert a == b


def test_analysis_cancel_stops_workers() -> None:
    cfg = small_config(inline=False, workers=2, agents=["mcts:100000"], games=40)
    cancel = threading.Event()
    cancelled_at: list[float] = []

    def press_cancel() -> None:
        cancelled_at.append(time.monotonic())
        cancel.set()

    timer = threading.Timer(3.0, press_cancel)
    timer.start()
    with pytest.raises(AnalysisCancelled):
        analyze(small_board(), cfg, cancel=cancel)  # mcts:100000 games: far longer than the 3 s before Cancel
    timer.cancel()
    # prompt, whatever the machine's load: a game in flight is not waited for (bounds generous for a busy machine)
    assert cancelled_at and time.monotonic() - cancelled_at[0] < 15.0
    # the pool's processes are gone: no child python processes of ours remain
    import multiprocessing

    deadline = time.monotonic() + 10.0
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not multiprocessing.active_children()


def test_board_without_any_placement_is_inconclusive_not_a_crash() -> None:
    board = Board.random(size=6, pairs=4, seed=1, params=GameParams(supply=(0, 0, 0, 0)))
    report = analyze(board, small_config(agents=["greedy"]))
    assert report.verdict == "inconclusive"
    assert report.pie.tested == 0
    assert "no opening" in report.reasons[0]


def test_invalid_board_is_analysed_with_a_warning() -> None:
    board = small_board()
    board.set_raw(0, board.cells[0].other if board.cells[0].value != "." else Symbol.O)
    report = analyze(board, small_config(agents=["greedy"]))
    assert any("not valid for a match" in w for w in report.warnings)


def test_config_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="agent"):
        analyze(small_board(), small_config(agents=["chess"]))
    with pytest.raises(ValueError, match="games 3: give 10 to 100,000 games per question"):
        analyze(small_board(), small_config(games=3))
    with pytest.raises(ValueError, match="fair band"):
        analyze(small_board(), small_config(fair_low=0.6, fair_high=0.7))
    # a negative margin would swap H0 and H1 of both SPRTs and silently turn "fair" into "unfair"
    for margin in (-0.05, 0.0, 0.4, 0.5):
        with pytest.raises(ValueError, match="sprt_margin"):
            analyze(small_board(), small_config(sprt_margin=margin))
    with pytest.raises(ValueError, match="max_candidates"):
        analyze(small_board(), small_config(max_candidates=0))


def test_quick_mode_shrinks_budgets() -> None:
    cfg = AnalysisConfig(agents=["greedy", "mcts:5000"], effort=EffortChoice("quick")).effective()
    assert cfg.agents == ["greedy", "mcts:100"]
    assert cfg.games <= QUICK.games and cfg.pie_budget <= QUICK.pie_games
    assert AnalysisConfig(games=100).pie_budget == 500
    assert AnalysisConfig().effective() == AnalysisConfig()


def test_analysis_is_the_same_on_any_number_of_workers() -> None:
    """README: the same --seed gives the same answer on any number of --workers (the screen included)."""
    runs = []
    for workers in (1, 2, 3):
        report = analyze(small_board(), small_config(workers=workers, agents=["greedy"]))
        data = report.to_json()
        data.pop("elapsed_s")
        runs.append((data, report.screen.tolist()))
    assert runs[0] == runs[1] == runs[2]


def test_lopsided_by_confidence_does_not_claim_every_opening_was_shown_unfair() -> None:
    """Lopsided because every interval lies outside the band, while one opening's SPRT is still undecided."""
    pie = PieResult(agent="x", screened=10, openings=[
        OpeningResult(5, [0, 1, 2, 3], ["A1", "B1", "C1", "D1"], wins=9, games=40, status="undecided",
                      screen_v=0.3, abandoned=True),
        OpeningResult(6, [4, 5, 6, 7], ["E1", "F1", "G1", "H1"], wins=36, games=40, status="unfair", screen_v=0.6),
    ])
    assert wilson(9, 40)[1] < 0.4
    verdict, reasons = decide(pie, AnalysisConfig())
    assert verdict == "lopsided"
    assert not any("all 2 openings" in r and "shown unfair" in r for r in reasons), reasons
    assert any("1 of 2" in r for r in reasons), reasons
    # when every opening is shown unfair the reason may say so
    pie = dataclasses.replace(pie, openings=[dataclasses.replace(pie.openings[0], status="unfair", abandoned=False),
                                             pie.openings[1]])
    _, reasons = decide(pie, AnalysisConfig())
    assert any("all 2 openings" in r and "shown unfair" in r for r in reasons), reasons


def test_no_tested_opening_because_of_a_small_cap_says_so() -> None:
    """With --games below the games a verdict needs, no opening is played: the reason must say why, not
    suggest that the board allows no placement."""
    pie = PieResult(agent="greedy", screened=104)
    verdict, reasons = decide(pie, AnalysisConfig(games=20))
    assert verdict == "inconclusive"
    assert "allows no placement" not in reasons[0]
    assert "20" in reasons[0] and "30" in reasons[0]
    verdict, reasons = decide(PieResult(agent="greedy", screened=0), AnalysisConfig())
    assert verdict == "inconclusive" and "no legal" in reasons[0]


def test_board_without_the_pie_rule_gets_a_warning_and_no_swaps() -> None:
    board = small_board()
    board.params = GameParams(supply=board.params.supply, pie=False)
    report = analyze(board, small_config(agents=["greedy"]))
    assert any("without the pie rule" in w for w in report.warnings), report.warnings
    assert report.raw.swaps == 0 and all(o.swaps == 0 for o in report.pie.openings)
    with_pie = analyze(small_board(), small_config(agents=["greedy"]))
    assert not any("without the pie rule" in w for w in with_pie.warnings)


def test_type_runout_leaves_out_types_the_board_does_not_supply() -> None:
    board = small_board()
    board.params = GameParams(supply=(2, 0, 2, 2))
    report = analyze(board, small_config(agents=["greedy"]))
    assert set(report.raw.runout) == set(PIECE_TYPES) - {PIECE_TYPES[1]}  # no I supplied
    assert all(0.0 <= v <= 1.0 for v in report.raw.runout.values())
    assert set(analyze(small_board(), small_config(agents=["greedy"])).raw.runout) == set(PIECE_TYPES)


def test_a_named_deciding_agent_decides() -> None:
    """The deciding agent's games give the verdict even when a stronger agent is also played."""
    report = analyze(small_board(), small_config(deciding_agent="greedy"))
    assert report.agent == "greedy" and report.pie.agent == "greedy"
    assert report.verdict == report.per_agent["greedy"].verdict
    assert report.to_json()["deciding_agent"] == "greedy"
    with pytest.raises(ValueError, match="deciding agent mcts:99 must be one of the agents"):
        analyze(small_board(), small_config(deciding_agent="mcts:99"))
    quick_look = AnalysisConfig(agents=["greedy", "mcts:5000"], effort=EffortChoice("quick"))
    assert quick_look.effective().decider == "mcts:100"
    assert AnalysisConfig(agents=["mcts:500", "greedy"]).decider == "mcts:500"


def test_first_run_says_it_compiles_with_an_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the engine has to be compiled the progress says so once, with the time it will take."""
    import core.selfplay.runner as runner_module

    def compiling(progress: Callable[[int, int, bool], None] | None) -> bool:
        assert progress is not None
        progress(0, 40, False)
        time.sleep(0.2)
        progress(4, 40, True)  # a tenth of the work took 0.2 s: about 2 s in all, said as 10 s
        progress(40, 40, True)
        return True

    monkeypatch.setattr(runner_module, "load_engine", compiling)
    seen: list[AnalysisProgress] = []
    analyze(small_board(), small_config(agents=["greedy"]), progress=seen.append)
    compile_steps = [p for p in seen if p.phase == "compile"]
    assert [(p.done, p.total) for p in compile_steps] == [(4, 40), (40, 40)]
    assert compile_steps[0].message == "compiling the engine (once, about 10 s)"
    # the estimate was a guess, so the last report says what the compile took
    assert compile_steps[1].message == "the engine is compiled (0 s); the analysis starts now"
    assert compile_message(540.0) == "compiling the engine (once, about 540 s)"
    assert compile_message(31.0) == "compiling the engine (once, about 40 s)"


def test_the_compile_estimate_counts_only_the_steps_that_compiled() -> None:
    """Kernels found in the disk cache load in a fraction of a second: timed from the warm-up's start, a compile
    whose first tenth came from the cache was promised in about half the time it took."""
    now = [0.0]
    clock = CompileClock(lambda: now[0])
    assert clock.step(0, 100, False) is None
    now[0] = 0.3
    assert clock.step(10, 100, False) is None  # loaded from the cache
    assert clock.elapsed() == 0.0
    now[0] = 9.3
    assert clock.step(19, 100, True) == pytest.approx(90.0)  # 9 s for 9 of the 90 units that compile
    assert clock.elapsed() == pytest.approx(9.0)
    now[0] = 27.3
    assert clock.step(37, 100, True) == pytest.approx(90.0)
    # a warm-up whose very first report already says "compiled" has no step to time yet
    assert CompileClock(lambda: 1.0).step(5, 100, True) is None


def test_a_warm_engine_says_nothing_about_compiling() -> None:
    seen: list[AnalysisProgress] = []
    analyze(small_board(), small_config(agents=["greedy"]), progress=seen.append)
    assert not any(p.phase == "compile" for p in seen)
