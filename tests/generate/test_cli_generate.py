"""``lits generate``: the JSON contract, the files it writes, clear errors, a light import and Ctrl-C."""

from __future__ import annotations

import concurrent.futures as cf
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from core.board.boardfile import load_board
from core.board.model import Board
from core.board.validation import Severity, validate
from core.cli import main
from core.generate.layout import layout_of, pairs_of
from core.generate.pool import ExecutorPool
from tests.generate.timing import FakeClock, Judge, Screen
from tests.paths import REPO as ROOT


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "core.cli", *args], capture_output=True, text=True, env=_env(),
                          cwd=ROOT, timeout=600)


def test_json_contract_files_and_reproducibility(tmp_path: Path) -> None:
    args = ["generate", "--size", "6", "--pairs", "4..7", "--count", "2", "--rounds", "1", "--level", "greedy",
            "--seed", "3", "--json"]
    proc = _run([*args, "--workers", "1", "--out", str(tmp_path / "a")])
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["requested"] == 2 and data["level"] == "greedy" and data["rounds"] == 1
    assert data["screened"] == 16 and data["pairs"] == "4..7"
    assert 1 <= len(data["boards"]) <= 2
    for entry in data["boards"]:
        assert set(entry) >= {"file", "verdict", "score", "fair_openings", "pairs"}
        assert entry["verdict"] == "balanced"
        assert 0.0 <= entry["score"] <= 1.0
        for cells in entry["fair_openings"]:
            assert len(cells) == 4 and all(isinstance(c, str) for c in cells)
        board = load_board(entry["file"])
        assert board.is_antisymmetric()
        assert not [p for p in validate(board) if p.severity is Severity.ERROR]
        assert pairs_of(layout_of(board)) == entry["pairs"] and 4 <= entry["pairs"] <= 7
        assert "Verdict at greedy: balanced" in board.notes and "Fair openings" in board.notes
        report = json.loads(Path(entry["file"]).with_suffix(".json").read_text())
        assert report["score"] == entry["score"] and report["grid"] == board.rows()
        assert report["figures"]["analysis"]["verdict"] == "balanced"
        assert report["search"]["rounds"] == 1
    # same seed and rounds, other worker count: the same boards
    again = _run([*args, "--workers", "2", "--out", str(tmp_path / "b")])
    assert again.returncode == 0, again.stderr
    other = json.loads(again.stdout)
    assert [load_board(e["file"]).rows() for e in other["boards"]] == \
        [load_board(e["file"]).rows() for e in data["boards"]]
    assert [e["score"] for e in other["boards"]] == [e["score"] for e in data["boards"]]


@pytest.mark.parametrize(("args", "message"), [
    (["--pairs", "20..10"], "MIN 20 is above MAX 10"),
    (["--pairs", "lots"], "write MIN..MAX"),
    (["--pairs", "5..80"], "at most 72 symbol pairs"),
    (["--size", "7"], "--size 7: board size 7 is odd"),
    (["--count", "0"], "--count 0: give 1..50 boards"),
    (["--time", "0"], "--time 0.0: give a positive number of seconds"),
    (["--time", "86401"], "--time 86401.0: give a positive number of seconds, at most 86400 (a day)"),
    (["--time", "nan"], "--time nan: give a positive number of seconds"),
    (["--rounds", "0"], "--rounds 0: give 1..100000"),
    (["--level", "wizard"], "--level: unknown level 'wizard': give an agent spec or a level: random, greedy"),
    (["--level", "mcts:0"], "--level: unknown level 'mcts:0'"),
    (["--cluster", "nowhere"], "--cluster: cannot use cluster 'nowhere'"),
])
def test_bad_arguments_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                 message: str) -> None:
    code = main(["generate", "--out", str(tmp_path / "out"), *args])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("lits generate: ") and message in err, err
    assert "Traceback" not in err
    assert not list((tmp_path / "out").glob("*.yaml")) if (tmp_path / "out").exists() else True


def test_an_unknown_level_says_which_listed_specs_the_generator_refuses(capsys: pytest.CaptureFixture[str],
                                                                       tmp_path: Path) -> None:
    """The list of specs holds puct:t=SECONDS and ab:t=SECONDS, which --level refuses: the answer says so."""
    assert main(["generate", "--out", str(tmp_path / "out"), "--level", "wizard"]) == 2
    err = capsys.readouterr().err
    assert "puct:t=SECONDS" in err and "agents sized in seconds only (puct:t=2, ab:t=1) are refused" in err
    with pytest.raises(SystemExit):
        main(["generate", "--help"])
    assert "sized in seconds only" in " ".join(capsys.readouterr().out.split())


def test_help_names_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["generate", "--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps lines at the terminal width
    for option in ("--size", "--pairs", "--count", "--seed", "--time", "--rounds", "--level", "--workers",
                   "--cluster", "--out", "--force", "--json"):
        assert option in out
    assert "20%-34% of the cells" in out and "mcts:N" in out and "casual, club, expert" in out


def test_out_folder_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a_file = tmp_path / "taken.txt"
    a_file.write_text("not a folder")
    assert main(["generate", "--out", str(a_file), "--level", "greedy"]) == 2
    assert f"{a_file}: is a file, not a folder" in capsys.readouterr().err
    out = tmp_path / "out"
    out.mkdir()
    (out / "gen-s4-2.json").write_text("{}")
    assert main(["generate", "--out", str(out), "--seed", "4", "--level", "greedy"]) == 2
    err = capsys.readouterr().err
    assert f"{out / 'gen-s4-2.json'}: already exists" in err and "--force" in err
    assert (out / "gen-s4-2.json").read_text() == "{}"


def test_import_stays_light() -> None:
    """``lits --help`` imports every command's module: this one must not pull in the engine or Qt."""
    code = ("import sys, core.cli.generate; heavy = [m for m in ('numba', 'scipy', 'matplotlib', 'PySide6') "
            "if m in sys.modules]; print(','.join(heavy))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_exits_130_with_one_line(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "core.cli", "generate", "--size", "8", "--level", "greedy",
                             "--time", "120", "--workers", "1", "--out", str(tmp_path / "out")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(), cwd=ROOT)
    deadline = time.monotonic() + 120
    while not (tmp_path / "out").exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)  # the folder is made just before the search starts its worker processes
    time.sleep(2.0)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["lits generate: interrupted"]
    assert not list((tmp_path / "out").glob("*.yaml"))


# -- timed runs, in-process on a simulated clock -----------------------------------------------------------------

TARGET = layout_of(Board.random(6, 6, seed=5))
TIMED = ["generate", "--size", "6", "--pairs", "4..4", "--count", "2", "--seed", "1", "--json"]


@dataclass
class Simulated:
    """What ``lits generate`` runs on instead of the engine: a simulated clock, the screen, and the judge a test
    sets (a simulated level); two worker threads."""

    clock: FakeClock
    judge: Judge | None = None


@pytest.fixture
def simulated(monkeypatch: pytest.MonkeyPatch) -> Iterator[Simulated]:
    import core.cli.generate as command

    sim = Simulated(FakeClock())
    with cf.ThreadPoolExecutor(max_workers=2) as ex:
        def components(_args: object, _cfg: object, _level: str) -> tuple[object, ...]:
            assert sim.judge is not None
            return Screen(sim.clock, TARGET, cost=0.5, workers=2), sim.judge, ExecutorPool(ex, 2), None

        monkeypatch.setattr(command, "_components", components)
        monkeypatch.setattr(command, "_clock", sim.clock)
        try:
            yield sim
        finally:
            if sim.judge is not None:
                sim.judge.release.set()


def _complete_files(out: Path, entries: list[dict[str, Any]]) -> None:
    """Every listed board file loads and its report parses; nothing else (no temporary file) is left."""
    names = set()
    for e in entries:
        assert set(e) >= {"file", "verdict", "score", "fair_openings", "pairs"}
        board = load_board(e["file"])
        assert board.is_antisymmetric() and pairs_of(layout_of(board)) == e["pairs"] == 4
        report = json.loads(Path(e["file"]).with_suffix(".json").read_text())
        assert report["grid"] == board.rows() and report["verdict"] == e["verdict"] == "balanced"
        names |= {Path(e["file"]).name, Path(e["file"]).with_suffix(".json").name}
    assert {p.name for p in out.iterdir()} == names


def test_timed_run_keeps_the_json_contract_and_reports_its_plan(
        simulated: Simulated, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clock = simulated.clock
    simulated.judge = Judge(clock, need=3.0, game=0.005, overhead=4.0, workers=2)
    t0 = clock()
    code = main([*TIMED, "--time", "300", "--out", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data = json.loads(captured.out)
    assert len(data["boards"]) == 2 and data["time_budget"] == 300
    assert data["plan"]["finalists"] == 3 and data["plan"]["budget_s"] == 300
    assert data["time_limited"] and not data["cut"]
    _complete_files(tmp_path / "out", data["boards"])
    assert clock() - t0 <= 300


def test_the_deadline_cancels_work_in_flight_and_the_judged_boards_are_written(
        simulated: Simulated, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the first wave (two finalists side by side) is judged; the analyses of the second run past the deadline
    simulated.judge = Judge(simulated.clock, need=10.0, game=0.1, overhead=2.0, games_needed=50.0, workers=2,
                            hang_after=2, hang_jump=1000.0)
    code = main([*TIMED, "--count", "3", "--time", "120", "--out", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data = json.loads(captured.out)
    assert data["cut"] and len(data["judged"]) == 2 and len(data["boards"]) == 2
    assert "the --time deadline cancelled work still running; the 2 finalists judged before it were kept" \
        in captured.err
    assert "2 of the 3 boards asked for: 2 of the 2 finalists judged are balanced at" in captured.err
    _complete_files(tmp_path / "out", data["boards"])


def test_too_short_a_budget_exits_2_at_once_with_the_budget_that_would_do(
        simulated: Simulated, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clock = simulated.clock
    simulated.judge = Judge(clock, need=3000.0, game=6.0, overhead=4.0, workers=2)
    t0 = clock()
    code = main([*TIMED, "--level", "expert", "--time", "300", "--out", str(tmp_path / "new" / "out")])
    captured = capsys.readouterr()
    assert code == 2  # an argument (--time) that cannot work here
    assert clock() - t0 == pytest.approx(16.5)  # the timing only: in each worker two games, the fixed part, a screen
    data = json.loads(captured.out)
    assert data["boards"] == [] and data["too_short"]["minimum_time"] == 4570
    assert data["too_short"]["typical_time"] == 4570  # the minimum already gives a typical verdict's time
    assert captured.err.startswith("lits generate: --time 300 is too short for --level expert on this machine now:")
    assert "give --time 4570 or more, or a weaker --level" in captured.err and "Traceback" not in captured.err
    assert not (tmp_path / "new").exists()  # the folders it made for --out are gone again
    # the answer is the one to give: a run with it is not refused
    simulated.judge = Judge(clock, need=3000.0, game=6.0, overhead=4.0, workers=2)
    code = main([*TIMED, "--level", "expert", "--time", "4570", "--out", str(tmp_path / "new" / "out")])
    data = json.loads(capsys.readouterr().out)
    assert code in (0, 1) and "too_short" not in data and len(data["judged"]) >= 1


def test_an_empty_out_is_refused_instead_of_writing_into_the_current_folder(
        simulated: Simulated, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``--out "$DIR"`` with DIR unset is a mistake: the boards must not land wherever the shell happens to be."""
    simulated.judge = Judge(simulated.clock, need=3.0, game=0.005, overhead=4.0, workers=2)
    monkeypatch.chdir(tmp_path)
    code = main([*TIMED, "--time", "300", "--out", ""])
    err = capsys.readouterr().err
    assert code == 2
    assert "lits generate: --out '': give a folder for the board files, e.g. --out gen/" in err
    assert list(tmp_path.iterdir()) == []


def test_force_removes_the_earlier_runs_boards_it_does_not_write_again(
        simulated: Simulated, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """After ``--force`` the folder holds this run's boards of the seed only, never some of an earlier run's."""
    out = tmp_path / "out"
    other_seed = out / "gen-s7-3.yaml"
    simulated.judge = Judge(simulated.clock, need=3.0, game=0.005, overhead=4.0, workers=2)
    assert main([*TIMED, "--count", "3", "--time", "300", "--out", str(out)]) == 0
    first = json.loads(capsys.readouterr().out)
    assert len(first["boards"]) == 3
    other_seed.write_text("kept")
    # a run that writes no board (odd pair counts are lopsided here) leaves the earlier boards as they were
    simulated.judge = Judge(simulated.clock, need=3.0, game=0.005, overhead=4.0, workers=2)
    assert main([*TIMED, "--pairs", "5..5", "--count", "3", "--time", "300", "--force", "--out", str(out)]) == 1
    capsys.readouterr()
    assert {p.name for p in out.glob("gen-s1-*")} == {f"gen-s1-{i}.{e}" for i in (1, 2, 3) for e in ("yaml", "json")}
    simulated.judge = Judge(simulated.clock, need=3.0, game=0.005, overhead=4.0, workers=2)
    assert main([*TIMED, "--count", "1", "--time", "300", "--force", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert len(data["boards"]) == 1
    assert {p.name for p in out.glob("gen-s1-*")} == {"gen-s1-1.yaml", "gen-s1-1.json"}
    assert ("removed the earlier run's gen-s1-2.json, gen-s1-2.yaml, gen-s1-3.json, gen-s1-3.yaml from "
            f"{out} (--force): this run wrote 1 board with --seed 1") in captured.err
    assert other_seed.read_text() == "kept"  # another seed's files are not this run's to remove


def test_a_refusal_beyond_a_day_does_not_advise_a_time_that_is_refused(
        simulated: Simulated, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A level so slow here that one finalist needs more than a day: --time cannot be the advice."""
    simulated.judge = Judge(simulated.clock, need=1e6, game=200.0, overhead=4.0, workers=2)
    code = main([*TIMED, "--level", "expert", "--time", "300", "--out", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code == 2
    minimum = json.loads(captured.out)["too_short"]["minimum_time"]
    assert minimum > 86400
    assert (f"it would need --time {minimum}, more than the 86400 s (a day) --time allows: give a weaker --level "
            "or a smaller --size") in captured.err
    assert "or more" not in captured.err
