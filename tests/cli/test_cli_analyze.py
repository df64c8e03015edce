"""``lits analyze``: the JSON contract, the report files, quiet pipes and clear errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.board.boardfile import save_board
from core.board.geometry import cell_name
from core.board.model import Board, GameParams, Symbol
from core.cli import main
from tests.lits_process import run_lits
from tests.paths import REPO as ROOT


@pytest.fixture()
def board_file(tmp_path: Path) -> Path:
    board = Board.random(size=6, pairs=6, seed=12, params=GameParams(supply=(2, 2, 2, 2)))
    board.name = "tiny"
    path = tmp_path / "tiny.yaml"
    save_board(board, path)
    return path


def test_json_contract_and_quiet_pipe(board_file: Path) -> None:
    proc = run_lits(["analyze", str(board_file), "--agent", "greedy", "--agent", "mcts:20", "--games", "30",
                 "--workers", "1", "--quick", "--json", "--seed", "4"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # no progress bar when piped
    data = json.loads(proc.stdout)
    assert data["verdict"] in ("balanced", "lopsided", "inconclusive")
    assert all(isinstance(r, str) for r in data["reasons"]) and data["reasons"]
    assert all(isinstance(w, str) for w in data["warnings"])
    pie = data["pie"]
    assert isinstance(pie["tested"], int) and pie["tested"] >= 1
    assert pie["value"] is None or 0.0 <= pie["value"] <= 0.5
    for cells in pie["fair_openings"]:
        assert len(cells) == 4 and all(isinstance(c, str) and c[0].isalpha() for c in cells)
    raw = data["raw"]
    assert raw["games"] >= 10
    assert 0.0 <= raw["s1_win_rate"] <= 1.0
    low, high = raw["ci95"]
    assert low <= raw["s1_win_rate"] <= high
    assert 0.0 <= raw["tie_break_share"] <= 1.0
    assert set(data["per_agent"]) == {"greedy", "mcts:20"}
    for res in data["per_agent"].values():
        assert {"verdict", "reasons", "pie", "raw"} <= set(res)
        assert {"games", "s1_win_rate", "ci95", "tie_break_share"} <= set(res["raw"])
        assert {"value", "fair_openings", "tested"} <= set(res["pie"])


def test_same_seed_same_answer_any_worker_count(board_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outs = []
    for workers in ("1", "2"):
        code = main(["analyze", str(board_file), "--agent", "mcts:20", "--games", "20", "--quick", "--json",
                     "--workers", workers])
        assert code == 0
        data = json.loads(capsys.readouterr().out)
        data.pop("elapsed_s")
        assert "workers" not in data["config"]  # a machine setting: the same analysis writes the same JSON
        outs.append(data)
    assert outs[0] == outs[1]


def test_text_output_and_report_files(board_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "out" / "tiny.md"
    report.parent.mkdir()
    code = main(["analyze", str(board_file), "--agent", "greedy", "--games", "20", "--workers", "1",
                 "--report", str(report)])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[0].startswith(f"{board_file}: ")
    assert "Without a swap: " in out
    text = report.read_text()
    assert text.startswith("# Balance analysis: tiny")
    pngs = sorted(p.name for p in report.parent.glob("*.png"))
    assert "tiny-coverage.png" in pngs and "tiny-winrates.png" in pngs and "tiny-survival.png" in pngs
    for name in pngs:
        assert f"]({name})" in text
        assert (report.parent / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(("args", "code", "words"), [
    (["--agent", "chess"], 2, "unknown agent 'chess'"),
    (["--agent", "mcts:lots"], 2, "not a whole number"),
    (["--agent", "greedy", "--agent", "puct:t=2"], 2, "'puct:t=2' is sized in seconds per move"),
    (["--check", "ab:t=1"], 2, "--check: agent 'ab:t=1' is sized in seconds per move"),
    (["--games", "5"], 2, "--games 5"),
    (["--games", "1000000000"], 2, "--games 1000000000"),
    (["--workers", "-2"], 2, "--workers -2"),
    (["--workers", "1000"], 2, "a count up to 64"),
    (["--report", "/nonexistent-dir/x.md"], 2, "does not exist"),
    (["--report", "report.txt"], 2, "ending in .md"),
])
def test_bad_arguments_get_clear_messages(board_file: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                          code: int, words: str) -> None:
    assert main(["analyze", str(board_file), *args]) == code
    err = capsys.readouterr().err
    assert words in err
    assert "Traceback" not in err


def test_unreadable_and_invalid_boards(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.yaml"
    assert main(["analyze", str(missing)]) == 2
    assert "nope.yaml" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\ngrid:\n  - 'OX'\n  - 'X'\n")
    assert main(["analyze", str(bad)]) in (1, 2)
    err = capsys.readouterr().err
    assert "bad.yaml" in err and "Traceback" not in err


def test_importing_the_command_loads_no_engine() -> None:
    """Every ``lits`` command imports this module to build --help: it must not pay for the engine."""
    code = ("import json, sys; import core.cli.analyze; "
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout))
    assert "core" in loaded  # the probe really imported the command
    assert not loaded & {"numba", "scipy", "matplotlib", "PySide6", "numpy", "llvmlite"}, loaded


def test_an_invalid_board_is_refused_unless_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = Board.random(size=6, pairs=6, seed=12, params=GameParams(supply=(2, 2, 2, 2)))
    n = board.size * board.size
    cell = next(i for i, c in enumerate(board.cells)
                if c is Symbol.EMPTY and board.cells[n - 1 - i] is Symbol.EMPTY)
    board.set_raw(cell, Symbol.O)  # its partner stays empty: broken anti-symmetry
    path = tmp_path / "broken.yaml"
    save_board(board, path)
    name = cell_name(cell, board.size)
    args = ["analyze", str(path), "--agent", "greedy", "--games", "20", "--workers", "1", "--quick", "--json"]
    assert main(args) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "broken.yaml" in err and "not valid for a match" in err and name in err and "--force" in err
    assert "Traceback" not in err
    assert main([*args, "--force"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any("not valid for a match" in w for w in data["warnings"])  # analysed as it is, and said so


def test_time_budget_out_of_range_is_refused(board_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(board_file), "--time", "1"]) == 2
    err = capsys.readouterr().err
    assert "--time 1" in err and "5 seconds" in err
    assert main(["analyze", str(board_file), "--agent", "greedy", "--deciding-agent", "mcts:50"]) == 2
    assert "--deciding-agent mcts:50" in capsys.readouterr().err


def test_check_option(board_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--check SPEC`` picks the cross-check agent, ``none`` turns it off, a bad spec is refused by name."""
    import argparse

    from core.analysis.config import AnalysisConfig
    from core.cli.analyze import _config

    def cfg(*extra: object) -> AnalysisConfig:
        ns = argparse.Namespace(seed=0, workers=0, quick=False, effort=None, games=None, time_budget=None,
                                agents=None, deciding_agent="", check=None, check_rule="auto", race=None)
        for flag, value in zip(extra[::2], extra[1::2], strict=True):
            setattr(ns, str(flag), [value] if flag == "check" else value)  # --check is repeatable: a list
        return _config(ns)

    assert cfg().checker == "mcts:8000"
    assert cfg("check", "none").checker == ""
    assert cfg("check", "mcts:4000").checker == "mcts:4000"
    # the firm check comes with the thorough effort, or when asked for; the standard one otherwise
    assert cfg().check_test.name == "standard" and cfg().check_test.games == 60
    assert cfg("effort", "thorough").check_test.name == "firm"
    assert cfg("effort", "thorough").check_test.games == 150
    # a cap given beside thorough keeps its two judges and the firm check
    for flag, value in (("games", 200), ("race", 1)):
        tweaked = cfg("effort", "thorough", flag, value)
        assert tweaked.effort.name == "custom" and tweaked.check_test.name == "firm"
        assert tweaked.checkers == ["mcts:8000", "ab:8000"]
    assert cfg("time_budget", 900.0).check_test.name == "standard"  # a time cap changes no rule
    assert cfg("check_rule", "standard", "effort", "thorough").check_test.name == "standard"
    assert cfg("check_rule", "firm").check_test.name == "firm"
    # the race: each effort's own unless given; given, the caps no longer are the preset's
    assert cfg().race == 6 and cfg("quick", True).effective().race == 1
    assert cfg("race", 1).race == 1 and cfg("race", 1).effort.name == "custom"
    assert main(["analyze", str(board_file), "--race", "0"]) == 2
    err = capsys.readouterr().err
    assert "--race 0" in err and "one opening at a time" in err and "Traceback" not in err
    assert main(["analyze", str(board_file), "--check", "wizard"]) == 2
    err = capsys.readouterr().err
    assert "--check" in err and "wizard" in err and "Traceback" not in err
    args = ["analyze", str(board_file), "--agent", "greedy", "--agent", "mcts:20", "--games", "30", "--workers", "1",
            "--seed", "4", "--check", "mcts:30"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "checked by mcts:30" in text.splitlines()[0]
    assert "firm" not in text.splitlines()[0]
    assert main([*args, "--check-rule", "firm"]) == 0
    assert "checked by mcts:30, a searching computer player (30 simulations a move) (firm, up to 150 games)" in (
        capsys.readouterr().out.splitlines()[0])
    with pytest.raises(SystemExit) as exc:
        main([*args, "--check-rule", "strict"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--check-rule" in err and "strict" in err and "Traceback" not in err


def test_effort_is_recorded_and_a_time_cap_is_optional(board_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--effort`` names the work; no clock is involved unless ``--time`` asks for one, and the JSON says which."""
    args = ["analyze", str(board_file), "--effort", "quick", "--workers", "1", "--seed", "2", "--json"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["effort"] == "quick" and data["quick"] is True
    budget = data["budget"]
    assert budget["effort"] == "quick" and budget["time_cap"] == 0.0 and budget["stopped_by_time"] is False
    assert 0 < budget["games_done"] <= budget["games_planned"]
    assert data["time_budget_s"] is None
    # a cap the run does not reach changes nothing but the record of the cap
    assert main([*args, "--time", "3600"]) == 0
    capped = json.loads(capsys.readouterr().out)
    assert capped["budget"]["time_cap"] == 3600.0 and capped["budget"]["stopped_by_time"] is False
    assert capped["pie"] == data["pie"] and capped["verdict"] == data["verdict"]
    # --quick is --effort quick; it cannot be mixed with another effort
    code = main([*args[:-1], "--quick", "--effort", "thorough"])
    assert code != 0
    assert "--quick is --effort quick" in capsys.readouterr().err


def test_piped_output_says_the_compile_and_what_it_took(capsys: pytest.CaptureFixture[str]) -> None:
    """Piped, the first run prints two lines about the compile: the estimate, then the time it really took (the
    estimate is one guess from the first steps), and nothing for the other phases."""
    from core.analysis.config import AnalysisProgress
    from core.cli.analyze import _Bars

    bars = _Bars(enabled=False)
    for done in (5, 40, 79):
        message = ("compiling the engine (once, about 100 s)" if done < 79
                   else "the engine is compiled (96 s); the analysis starts now")
        bars(AnalysisProgress("compile", done, 79, message))
    bars(AnalysisProgress("screen", 3, 10, "screening 1976 openings"))
    bars(AnalysisProgress("compile", 79, 79, "the engine is compiled (96 s); the analysis starts now"))
    assert capsys.readouterr().err.splitlines() == [
        "compiling the engine (once, about 100 s); the analysis and any --time cap start once it is ready",
        "the engine is compiled (96 s); the analysis starts now",
    ]


def test_a_quick_look_says_it_is_not_the_verdict_to_publish() -> None:
    """The quick headline reads "BALANCED" like a verdict; its last line says it is a first look, and each agent's
    raw line names its pie verdict as such (a 70% no-swap rate beside a bare "verdict balanced" reads as a
    contradiction)."""
    from core.analysis.results import read_report
    from core.cli.analyze import format_text
    from tests.paths import REPO

    reports = REPO / "tests" / "data" / "reports"
    quick = format_text(read_report(reports / "dense-quick.json"), "dense.yaml").splitlines()
    assert quick[-1].startswith("A quick look only (") and quick[-1].endswith(
        "never publish it; `lits analyze dense.yaml` gives the verdict to publish.")
    raw = [line for line in quick if " S1 wins " in line]
    assert raw and all("play the openings say " in line for line in raw)
    standard = format_text(read_report(reports / "default-balanced.json"), "default.yaml")
    assert "quick look" not in standard


def _saved_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """``lits analyze`` on the saved Crossroads report instead of a real run (the output path is what is tested)."""
    import core.cli.analyze as command
    from core.analysis.results import read_report

    report = read_report(ROOT / "tests" / "data" / "reports" / "default-balanced.json")
    monkeypatch.setattr(command, "analyze", lambda *_a, **_k: report)
    board = Board(size=report.size)
    path = tmp_path / "board.yaml"
    save_board(board, path)
    return path


@pytest.mark.parametrize("as_json", [False, True])
def test_a_full_disk_keeps_the_verdict_and_names_the_report_file(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], as_json: bool) -> None:
    """The verdict is printed before any report file is written; a failed write names the file and leaves no half
    report."""
    import errno

    from core.board.fileio import atomic_write_bytes as real
    from core.cli import EXIT_DISK_FULL

    board = _saved_run(monkeypatch, tmp_path)
    calls: list[str] = []

    def full(path: Path, data: bytes) -> None:
        calls.append(str(path))
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        real(path, data)

    monkeypatch.setattr("core.analysis.report.atomic_write_bytes", full)
    out_md = tmp_path / "out.md"
    code = main(["analyze", str(board), "--force", "--report", str(out_md), *(["--json"] if as_json else [])])
    out, err = capsys.readouterr()
    assert code == EXIT_DISK_FULL
    if as_json:
        assert json.loads(out)["verdict"] == "balanced"
    else:
        assert out.startswith(f"{board}: BALANCED")
    assert calls[1] in err and "the disk is full" in err and str(out_md) in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.yaml"]  # the first chart was removed again


def test_an_invalid_board_counts_its_other_problems_in_words(tmp_path: Path) -> None:
    """'(and 1 more problems' read as a slip: one problem more is 'problem'."""
    from core.board.model import Board, Symbol
    from core.cli import CliError
    from core.cli.analyze import _refuse_invalid

    board = Board.random(12, pairs=10, seed=1)
    board.cells[0] = Symbol.EMPTY if board.cells[0] is not Symbol.EMPTY else Symbol.O  # one broken pair
    board.cells[1] = Symbol.EMPTY if board.cells[1] is not Symbol.EMPTY else Symbol.O  # and a second
    with pytest.raises(CliError, match=r"\(and 1 more problem; lits validate b\.yaml lists them\)"):
        _refuse_invalid(board, "b.yaml")
