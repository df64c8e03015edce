"""Duels from chosen openings: the pools, the pairs' draws, the games' first placement, the CLI's report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import core.selfplay.duel as duel
from core.board.boardfile import load_board, save_board
from core.board.model import Board, GameParams
from core.cli import main
from core.engine.rules import first_placements
from tests.paths import REPO

SMALL_10 = Board.random(size=10, pairs=14, seed=7, params=GameParams(supply=(2, 2, 2, 2)))


def test_the_even_pool_is_the_band_of_the_predictor_and_nothing_else() -> None:
    from core.agents.value import default_model, opening_chances

    board = load_board(REPO / "boards" / "original-10x10.yaml")
    pool = duel.opening_pool(board, "even")
    chances = opening_chances(board, default_model())
    inside = {p for p in first_placements(board) if 0.40 <= float(chances[p]) <= 0.60}
    assert len(inside) >= duel.EVEN_MIN
    assert set(pool.placements) == inside and list(pool.placements) == sorted(inside)
    assert pool.model == default_model().digest
    assert pool.predicted == (min(float(chances[p]) for p in inside), max(float(chances[p]) for p in inside))


def test_a_board_the_model_calls_lopsided_everywhere_draws_from_the_nearest(monkeypatch: pytest.MonkeyPatch) -> None:
    """No opening in the band: the EVEN_MIN nearest to 50%, so the pairs still vary and the report shows how far."""
    from core.agents.value import opening_chances

    board = load_board(REPO / "boards" / "original-10x10.yaml")
    monkeypatch.setattr(duel, "EVEN_BAND", (2.0, 3.0))
    pool = duel.opening_pool(board, "even")
    chances = opening_chances(board)
    assert len(pool.placements) == duel.EVEN_MIN
    taken = [abs(float(chances[p]) - 0.5) for p in pool.placements]
    left = [abs(float(chances[p]) - 0.5) for p in first_placements(board) if p not in pool.placements]
    assert max(taken) <= min(left)
    assert pool.predicted is not None and pool.predicted[0] < 0.5 + max(taken) + 1e-12


def test_random_and_none_pools() -> None:
    assert duel.opening_pool(SMALL_10, "random").placements == tuple(first_placements(SMALL_10))
    none = duel.opening_pool(SMALL_10, "none")
    assert none.placements == () and none.opening_of(5, 3) == -1
    with pytest.raises(ValueError, match="unknown opening mode"):
        duel.opening_pool(SMALL_10, "best")


def test_an_even_pool_without_a_model_for_the_size_says_so() -> None:
    with pytest.raises(duel.OpeningPoolError, match="not 8x8"):
        duel.opening_pool(Board.random(size=8, pairs=10, seed=12), "even")


def test_each_pair_draws_its_opening_from_the_pool_by_its_seed() -> None:
    pool = duel.opening_pool(SMALL_10, "random")
    tasks = duel.duel_tasks(SMALL_10, "greedy", "random", 40, seed=3, openings=pool)
    again = duel.duel_tasks(SMALL_10, "greedy", "random", 40, seed=3, openings=pool)
    other = duel.duel_tasks(SMALL_10, "greedy", "random", 40, seed=4, openings=pool)
    openings = [t.opening for t in tasks]
    assert all(o in pool.placements for o in openings)
    assert openings == [t.opening for t in again]
    assert openings != [t.opening for t in other]
    assert len(set(openings)) > 20  # drawn, not one opening for every pair
    # the games' own seeds do not move when openings are drawn
    plain = duel.duel_tasks(SMALL_10, "greedy", "random", 40, seed=3)
    assert [t.seed for t in plain] == [t.seed for t in tasks] and {t.opening for t in plain} == {-1}


def test_a_forced_opening_is_the_games_first_placement_and_no_agents_move() -> None:
    from core.engine.kernels import k_apply, k_new_state, k_score, kernel_tables

    opening = first_placements(SMALL_10)[17]
    log, clock = duel.play_duel_game(SMALL_10, "greedy", "greedy", 1, 2, opening)
    free, free_clock = duel.play_duel_game(SMALL_10, "greedy", "greedy", 1, 2)
    assert clock[2] + clock[5] == log.length - 1  # the opening was placed by nobody
    assert free_clock[2] + free_clock[5] == free.length
    # the same agents and streams, the opening placed by hand first: the same game
    from core.agents.agent import make_agent

    kt = kernel_tables(SMALL_10)
    s = k_new_state(kt)
    k_apply(kt, s, opening)
    agents = [make_agent("greedy", SMALL_10, 1), make_agent("greedy", SMALL_10, 2)]
    plies = 1
    while (p := agents[plies % 2].choose(s)) >= 0:
        k_apply(kt, s, p)
        plies += 1
    assert plies == log.length
    o, x = k_score(kt, s)
    assert (log.s1_score, log.s2_score) == ((o, x) if kt.first == 0 else (x, o))
    with pytest.raises(ValueError, match="not a legal first placement"):
        duel.play_duel_game(SMALL_10, "greedy", "greedy", 1, 2, 10**6)


def test_the_cli_choices_are_the_duel_modes() -> None:
    from core.cli.duel import OPENING_CHOICES

    assert OPENING_CHOICES == duel.OPENING_MODES


@pytest.fixture()
def small_file(tmp_path: Path) -> Path:
    path = tmp_path / "small10.yaml"
    save_board(SMALL_10, path)
    return path


def test_lits_duel_openings_even_reports_its_pool_and_is_the_same_on_two_workers(
        small_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["duel", str(small_file), "--agent", "greedy", "--agent", "mcts:30", "--pairs", "6", "--seed", "2",
            "--openings", "even", "--json"]
    assert main([*args, "--workers", "1"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert main([*args, "--workers", "2"]) == 0
    two = json.loads(capsys.readouterr().out)
    opening = one["openings"]
    assert opening["mode"] == "even" and opening["pool"] >= duel.EVEN_MIN and len(opening["model"]) == 64
    low, high = opening["predicted"]
    assert low <= high
    drop = ("ms_per_move", "cpu_ms_per_move")
    assert {k: v for k, v in one.items() if k not in drop} == {k: v for k, v in two.items() if k not in drop}
    assert main(["duel", str(small_file), "--agent", "greedy", "--agent", "mcts:30", "--pairs", "2", "--workers",
                 "1", "--openings", "random"]) == 0
    out = capsys.readouterr().out
    assert f"openings: each pair after a first placement drawn from all {len(first_placements(SMALL_10))}" in out


def test_the_text_report_says_how_the_games_started(small_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["duel", str(small_file), "--agent", "greedy", "--agent", "random", "--pairs", "1", "--workers",
                 "1"]) == 0
    assert "openings: the first mover chose (no pie swap)" in capsys.readouterr().out
    assert main(["duel", str(small_file), "--agent", "greedy", "--agent", "random", "--pairs", "1", "--workers",
                 "1", "--openings", "even"]) == 0
    out = capsys.readouterr().out
    assert "openings: each pair after a first placement drawn from" in out and "the opening predictor" in out


def test_even_openings_on_a_size_without_a_model_is_a_named_refusal(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "eight.yaml"
    save_board(Board.random(size=8, pairs=10, seed=12), path)
    code = main(["duel", str(path), "--agent", "greedy", "--agent", "random", "--pairs", "1", "--workers", "1",
                 "--openings", "even"])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert f"{path}: --openings even" in err and "8x8" in err and "Traceback" not in err
    with pytest.raises(SystemExit) as stop:
        main(["duel", str(path), "--agent", "greedy", "--agent", "random", "--pairs", "1", "--openings", "best"])
    assert stop.value.code == 2 and "invalid choice: 'best'" in capsys.readouterr().err
