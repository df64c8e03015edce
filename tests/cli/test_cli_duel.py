"""``lits duel``: the JSON contract, the same answer on any worker count, the SPRT's early stop, clear errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from core.analysis.elo import EloSprt, PairOutcome, score_pairs
from core.board.boardfile import save_board
from core.board.model import Board, GameParams
from core.cli import main
from core.selfplay.duel import PairResult, run_duel
from tests.lits_process import run_lits
from tests.paths import REPO as ROOT

KEYS = {"a", "b", "games", "a_wins", "score", "ci95", "elo", "elo_ci95", "s1_win_rate", "ms_per_move"}


@pytest.fixture()
def board_file(tmp_path: Path) -> Path:
    board = Board.random(size=8, pairs=10, seed=12, params=GameParams(supply=(3, 3, 3, 3)))
    path = tmp_path / "small.yaml"
    save_board(board, path)
    return path


def _stable(data: dict[str, Any]) -> dict[str, Any]:
    """Everything but the timings, which differ from run to run."""
    return {k: v for k, v in data.items() if k not in ("ms_per_move", "cpu_ms_per_move")}


def test_json_contract_and_the_same_answer_on_any_worker_count(board_file: Path) -> None:
    args = ["duel", str(board_file), "--agent", "puct:40", "--agent", "mcts:40", "--pairs", "6", "--seed", "3",
            "--json"]
    one = run_lits([*args, "--workers", "1"])
    assert one.returncode == 0, one.stderr
    assert one.stderr == ""  # no progress bar when piped
    data = json.loads(one.stdout)
    assert set(data) >= KEYS
    assert (data["a"], data["b"], data["games"]) == ("puct:40", "mcts:40", 12)
    assert 0 <= data["a_wins"] <= 12 and data["score"] == pytest.approx(data["a_wins"] / 12, abs=1e-4)
    low, high = data["ci95"]
    assert low <= data["score"] <= high
    assert set(data["ms_per_move"]) == {"puct:40", "mcts:40"}
    assert all(v > 0 for v in data["ms_per_move"].values())
    assert data["sprt"] is None and data["stopped_early"] is False
    two = run_lits([*args, "--workers", "2"])
    assert two.returncode == 0, two.stderr
    assert _stable(json.loads(two.stdout)) == _stable(data)


def _outcomes(results: list[PairResult]) -> list[tuple[bool, bool, int, int]]:
    return [(r.a_won_as_s1, r.a_won_as_s2, r.a_as_s1.length, r.a_as_s2.length) for r in results]


def test_sprt_stop_falls_on_the_same_pair_inline_and_on_two_workers() -> None:
    board = Board.random(size=8, pairs=12, seed=5, params=GameParams(supply=(3, 3, 3, 3)))

    def stopper() -> tuple[EloSprt, Any]:
        test = EloSprt(0.0, 150.0)

        def on_pair(_i: int, r: PairResult) -> bool:
            return test.update((int(r.a_won_as_s1) + int(r.a_won_as_s2)) / 2) is not None
        return test, on_pair

    t1, f1 = stopper()
    inline = run_duel(board, "mcts:60", "random", 40, seed=9, on_pair=f1, inline=True)
    t2, f2 = stopper()
    pooled = run_duel(board, "mcts:60", "random", 40, seed=9, workers=2, on_pair=f2)
    assert t1.decision == "H1" and len(inline) < 40  # a search against random is settled early
    assert _outcomes(inline) == _outcomes(pooled)
    assert (t1.decision, t1.decided_at) == (t2.decision, t2.decided_at)
    score = score_pairs(PairOutcome(r.a_won_as_s1, r.a_won_as_s2) for r in inline)
    assert score.pairs == t1.decided_at and score.score > 0.75


def test_text_report_and_sprt(board_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["duel", str(board_file), "--agent", "club", "--agent", "random", "--pairs", "30",
                 "--workers", "1", "--sprt", "0,100"])
    out = capsys.readouterr().out
    assert code == 0
    assert "A = club against B = random" in out
    assert "score" in out and "Elo of A over B" in out and "S1 (the first mover) won" in out
    assert "accepted H1" in out and "(stopped early)" in out


def test_cancel_reports_the_pairs_so_far(board_file: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import core.selfplay.duel as duel

    real = duel.play_pair
    calls = {"n": 0}

    def interrupt_after_two(task: duel.DuelTask) -> PairResult:
        calls["n"] += 1
        if calls["n"] > 2:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(duel, "play_pair", interrupt_after_two)
    from core.cli import duel as cli_duel

    monkeypatch.setattr(cli_duel, "_inline", True)
    code = main(["duel", str(board_file), "--agent", "greedy", "--agent", "random", "--pairs", "10", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 130
    assert data["interrupted"] is True and data["games"] == 4


@pytest.mark.parametrize(("args", "words"), [
    (["--agent", "greedy"], "exactly two agents"),
    (["--agent", "greedy", "--agent", "wizard"], "unknown agent"),
    (["--agent", "greedy", "--agent", "puct:abc"], "neither"),
    (["--agent", "greedy", "--agent", "random", "--sprt", "50,0"], "ELO0 must be below"),
    (["--agent", "greedy", "--agent", "random", "--pairs", "0"], "1 to"),
    (["--agent", "greedy", "--agent", "random", "--workers", "-1"], "--workers"),
])
def test_bad_arguments_are_named(board_file: Path, args: list[str], words: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    full = ["duel", str(board_file), *args]
    if "--pairs" not in args:
        full += ["--pairs", "2"]
    assert main(full) == 2  # an argument is wrong
    assert words in capsys.readouterr().err


def test_a_board_where_no_piece_fits_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every game would end before its first move: no score, Elo or S1 rate is printed as if it measured the agents."""
    board = Board.random(size=8, pairs=10, seed=12, params=GameParams(supply=(0, 0, 0, 0)))
    path = tmp_path / "no-supply.yaml"
    save_board(board, path)
    code = main(["duel", str(path), "--agent", "greedy", "--agent", "random", "--pairs", "1", "--workers", "1"])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert f"{path}: no piece can be placed on this board" in err and f"lits validate {path}" in err


def test_a_negative_elo0_is_read_as_the_sprt_value(board_file: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """argparse took `--sprt -10,10` for an option and answered "expected one argument"."""
    from core.cli import duel as cli_duel

    monkeypatch.setattr(cli_duel, "_inline", True)
    code = main(["duel", str(board_file), "--agent", "greedy", "--agent", "random", "--pairs", "1", "--json",
                 "--sprt", "-10,10"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["sprt"]["elo0"] == -10 and json.loads(out)["sprt"]["elo1"] == 10


def test_missing_board_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["duel", str(tmp_path / "nope.yaml"), "--agent", "greedy", "--agent", "random", "--pairs", "1"]) == 2
    assert "nope.yaml" in capsys.readouterr().err


def test_module_is_light_at_import() -> None:
    code = ("import sys, core.cli.duel; heavy = [m for m in ('numba', 'scipy', 'matplotlib', 'core.agents.search') "
            "if m in sys.modules]; print(heavy)")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120)
    assert proc.stdout.strip() == "[]", proc.stderr


def test_cancel_event_stops_the_workers() -> None:
    board = Board.random(size=8, pairs=12, seed=5)
    cancel = threading.Event()
    seen: list[int] = []

    def on_pair(i: int, _r: PairResult) -> bool:
        seen.append(i)
        cancel.set()
        return False

    from core.selfplay.runner import RunCancelled

    with pytest.raises(RunCancelled):
        run_duel(board, "greedy", "random", 50, seed=1, workers=1, on_pair=on_pair, cancel=cancel)
    assert seen and len(seen) < 50


def test_a_net_agent_without_a_usable_model_is_named_not_an_internal_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import core.agents.value as value
    import core.cli.duel as duel
    from core.board.boardfile import save_board
    from core.board.model import Board

    path = tmp_path / "b.yaml"
    save_board(Board.random(12, pairs=10, seed=2), path)
    monkeypatch.setattr(duel, "_inline", True)
    import core.agents.netsearch as netsearch

    def missing() -> value.ValueModel:
        return value.load_model(tmp_path / "missing.npz")

    monkeypatch.setattr(value, "default_model", missing)
    monkeypatch.setattr(netsearch, "default_model", missing)  # bound by name when the searcher's module loaded
    code = main(["duel", str(path), "--agent", "net:50", "--agent", "greedy", "--pairs", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "missing.npz: cannot read the model file" in err and "internal error" not in err
