"""Refining the screen: a deeper guided search of the openings the candidate picker is about to choose among."""

from __future__ import annotations

import random

import numpy as np
import pytest

from core.analysis.candidates import PRIOR_SLOPE, REFINE_NEAR, CandidatePicker
from core.analysis.config import AnalysisConfig, AnalysisProgress, EffortChoice, SeedPhase
from core.analysis.report import markdown
from core.analysis.results import pct
from core.analysis.run import analyze
from core.board.model import Board, GameParams
from core.engine.pieces import placement_table
from core.selfplay.game import refine
from core.selfplay.tasks import BoardSpec, derive_seed
from tests.analysis.test_analysis import small_board, small_config


def test_refined_values_depend_only_on_each_openings_own_seed() -> None:
    spec = BoardSpec.from_board(small_board())
    items = ((3, 101), (40, 202), (77, 303), (5, 404))
    together = refine(spec, items, 300)
    one_by_one = np.concatenate([refine(spec, (item,), 300) for item in items])
    assert together.tolist() == one_by_one.tolist()
    assert np.all((together >= 0) & (together <= 1))
    # another seed is another search (the values are search results, not a function of the opening alone)
    assert refine(spec, ((3, 102), (40, 203), (77, 304), (5, 405)), 300).tolist() != together.tolist()


def test_an_opening_of_a_type_the_board_does_not_supply_is_marked_illegal() -> None:
    board = Board.random(size=6, pairs=4, seed=2, params=GameParams(supply=(0, 2, 2, 2)))
    table = placement_table(6)
    l_piece = next(p for p in range(table.count) if table.ptype[p] == 0)
    other = next(p for p in range(table.count) if table.ptype[p] != 0)
    values = refine(BoardSpec.from_board(board), ((l_piece, 1), (other, 2)), 200)
    assert values[0] == -1.0 and 0.0 <= values[1] <= 1.0


def test_picker_refines_the_openings_the_screen_puts_nearest_to_even() -> None:
    screen = np.array([0.1, 0.3, 0.42, 0.47, 0.5, 0.52, 0.6, 0.9, -1.0])
    picker = CandidatePicker(screen, seed=0)
    assert picker.wants_refined()  # nothing refined yet
    assert picker.to_refine(3) == [4, 5, 3]
    picker.add_refined({4: 0.8, 5: 0.3, 3: 0.53})
    assert picker.to_refine(2) == [2, 6]  # refined openings are not asked for again
    assert not picker.wants_refined()  # 0.53 is predicted within REFINE_NEAR of even
    # the pick is by the refined value (0.53 nearest to 0.5), not by the screen (which would take 4)
    assert picker.next() == 3
    picker.feedback(3, v=0.7, games=100)  # S1 does better than the refined search says: look lower
    assert picker.refined_target == pytest.approx(0.53 + (0.5 - 0.7) / PRIOR_SLOPE)
    assert picker.next() == 5  # 0.3 is the refined value nearest the new target (0.412)
    assert picker.wants_refined() == (PRIOR_SLOPE * abs(0.8 - picker.refined_target) > REFINE_NEAR)
    assert picker.next() == 4
    # every refined opening tried: back to the screen alone, its own calibration moved by the same result
    assert picker.target == pytest.approx(0.47 + (0.5 - 0.7) / PRIOR_SLOPE)
    assert picker.next() == 1  # screen 0.3 is nearest to that target (0.352)


def test_an_illegal_openings_refined_value_is_dropped() -> None:
    picker = CandidatePicker(np.array([0.5, -1.0]), seed=0)
    picker.add_refined({0: 0.4, 1: -1.0})
    assert picker.refined == {0: 0.4}


def _candidates_until_three_even(rng: random.Random, refined_noise: float | None) -> int:
    """Candidates a picker tries before three openings with a true rate within 45-55% were played, on a simulated
    board whose screen sees each opening's rate with noise 0.15 and whose deeper search sees it with
    ``refined_noise`` (None: no refinement)."""
    n = 400
    truth = np.clip(np.array([rng.uniform(0.0, 1.0) for _ in range(n)]), 0.0, 1.0)
    screen = np.clip(0.5 + (truth - 0.5) / PRIOR_SLOPE + np.array([rng.gauss(0, 0.15) for _ in range(n)]), 0, 1)
    picker = CandidatePicker(screen, seed=rng.randrange(1000))
    even = 0
    for tried in range(1, n + 1):
        if refined_noise is not None:
            for _ in range(3):
                if not picker.wants_refined():
                    break
                batch = picker.to_refine(12)
                picker.add_refined({p: float(np.clip(0.5 + (truth[p] - 0.5) / PRIOR_SLOPE
                                                     + rng.gauss(0, refined_noise), 0, 1)) for p in batch})
        p = picker.next()
        assert p is not None
        picker.feedback(p, float(truth[p]), 100)
        even += abs(truth[p] - 0.5) <= 0.05
        if even == 3:
            return tried
    return n


def test_a_sharper_deeper_search_finds_even_openings_with_fewer_candidates() -> None:
    """What refinement is for: when the deeper search predicts the deciding agent better than the screen (as
    puct does on random-103), fewer candidates far from even are played out before three even ones."""
    rng = random.Random(7)
    plain = [_candidates_until_three_even(rng, None) for _ in range(20)]
    refined = [_candidates_until_three_even(rng, 0.03) for _ in range(20)]
    assert np.mean(refined) < 0.6 * np.mean(plain), (np.mean(refined), np.mean(plain))


def test_search_agents_refine_and_cheap_agents_do_not() -> None:
    seen: list[AnalysisProgress] = []
    analyze(small_board(), small_config(agents=["greedy"], refine_sims=200), progress=seen.append)
    assert not any("refining" in p.message for p in seen)
    analyze(small_board(), small_config(refine_sims=200), progress=seen.append)
    refining = [(p.done, p.total) for p in seen if "refining" in p.message and p.phase == "screen"]
    assert refining
    # every batch is reported as started and as finished, in that order
    assert refining[0::2] == [(0, total) for _, total in refining[0::2]]
    assert refining[1::2] == [(total, total) for _, total in refining[0::2]]
    seen.clear()
    analyze(small_board(), small_config(refine_sims=0), progress=seen.append)
    assert not any("refining" in p.message for p in seen)


def test_refinement_gives_the_same_analysis_on_one_or_two_workers() -> None:
    runs = []
    for workers in (1, 2):
        data = analyze(small_board(), small_config(inline=False, workers=workers, refine_sims=200,
                                                  max_candidates=4)).to_json()
        data.pop("elapsed_s")
        runs.append(data)
    assert runs[0] == runs[1]


def test_refinement_settings() -> None:
    assert AnalysisConfig(effort=EffortChoice("quick")).effective().refine_sims == 0  # quick mode is a first look
    assert AnalysisConfig().refine_sims > 0
    with pytest.raises(ValueError, match="refine_sims"):
        AnalysisConfig(refine_sims=-1).check()


def test_the_refined_value_an_opening_was_picked_by_is_reported() -> None:
    """A search agent's openings carry the deeper search's value they were ordered by (the same search, recomputed
    here from the opening's own seed), in the results, the JSON and the Markdown report; a cheap agent's carry
    none."""
    board = small_board()
    cfg = small_config(refine_sims=200)
    report = analyze(board, cfg)
    searched = report.pie.openings
    refined = [o for o in searched if o.refined_v is not None]
    assert refined
    spec = BoardSpec.from_board(board)
    for o in refined:
        again = refine(spec, ((o.placement, derive_seed(cfg.seed, SeedPhase.REFINE, o.placement)),), 200)
        assert o.refined_v == pytest.approx(float(again[0]))
    rows = {" ".join(o["cells"]): o for o in report.to_json()["pie"]["openings"]}
    for o in searched:
        value = rows[" ".join(o.names)]["refined_v"]
        assert value is None if o.refined_v is None else value == pytest.approx(o.refined_v, abs=5e-5)
    first = refined[0].refined_v
    assert first is not None and f"refined {pct(first)}" in markdown(report, board, {})
    cheap = analyze(board, small_config(agents=["greedy"], refine_sims=200))
    assert cheap.pie.openings and all(o.refined_v is None for o in cheap.pie.openings)
