from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import main
from tests.paths import BOARDS, DATA, REPO


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_shipped_boards_are_valid(capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(str(p) for p in BOARDS.glob("*.yaml"))
    code, out, _ = run(["validate", *files], capsys)
    assert code == 0
    assert out.count(": valid") == len(files)


def test_broken_antisymmetry_exits_1_and_names_the_pair(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = ["." * 12] * 12
    rows = [("O" + "." * 11) if i == 2 else r for i, r in enumerate(rows)]
    path = tmp_path / "b.yaml"
    path.write_text("grid:\n" + "".join(f"  - '{r}'\n" for r in rows))
    code, out, _ = run(["validate", str(path)], capsys)
    assert code == 1
    assert "A3 holds O but its partner L10 is empty" in out


def test_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("grid: [\n")
    code, out, _ = run(["validate", "--json", str(BOARDS / "default.yaml"), str(bad)], capsys)
    assert code == 2
    data = json.loads(out)
    assert data["ok"] is False
    first, second = data["files"]
    assert first["valid"] is True and first["size"] == 12
    assert second["readable"] is False and "not valid YAML" in second["errors"][0]


ROW = b"." * 12
GOOD_ROWS = [ROW] * 12


def grid(rows: list[bytes]) -> bytes:
    return b"grid:\n" + b"".join(b"  - '" + r + b"'\n" for r in rows)


BAD_FILES = {
    "truncated YAML": (b"grid:\n  - '....", 2, "is the file truncated?"),
    "alias bomb": (b"a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\ngrid: []\n", 2, "anchors"),
    "duplicate key": (b"pie: true\npie: false\n" + grid(GOOD_ROWS), 2, "duplicate key 'pie'"),
    "wrong row length": (grid([*GOOD_ROWS[:3], b"." * 10, *GOOD_ROWS[4:]]), 1, "grid row 4 (line 5): 10 cells"),
    "bad character": (grid([*GOOD_ROWS[:2], b"..#.........", *GOOD_ROWS[3:]]), 1, "cell C3: '#' is not one of"),
    "odd size": (grid([b"." * 11] * 11), 1, "an odd size"),
    "a row missing": (grid(GOOD_ROWS[:11]), 1,
                      "INVALID\n  error: grid: 11 rows of 12 cells: the grid must be square (is a row missing?)\n"),
    "a tab": (grid(GOOD_ROWS).replace(b"  - '", b"\t- '", 1), 2,
              "UNREADABLE\n  error: line 2: starts with a tab; indent with spaces\n"),
    "plain text": (b"E6 F6 G6 F7\nswap\n", 2,
                   "UNREADABLE\n  error: this is not a board file: it holds plain text, not the keys of a board "
                   "(such as grid:)\n"),
    "broken anti-symmetry": (grid([b"O" + b"." * 11, *GOOD_ROWS[1:]]), 1,
                             "A1 holds O but its partner L12 is empty"),
    "10 MB file": (b"grid:\n" + b"  - '" + b"." * 10_000_000 + b"'\n", 2, "larger than 256 KiB"),
    "binary file": (bytes(range(256)) * 4, 2, "binary file"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_every_kind_of_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    content, code, fragment = BAD_FILES[case]
    path = tmp_path / "board.yaml"
    path.write_bytes(content)
    got, out, err = run(["validate", str(path)], capsys)
    assert got == code
    assert f"{path}: " in out
    assert fragment in out
    assert "Traceback" not in out + err


def test_a_missing_row_is_one_error_not_one_per_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "short.yaml"
    path.write_bytes(grid(GOOD_ROWS[:11]))
    code, out, _ = run(["validate", str(path)], capsys)
    assert code == 1
    assert out.splitlines() == [f"{path}: INVALID",
                                "  error: grid: 11 rows of 12 cells: the grid must be square (is a row missing?)"]


def test_wrong_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["validate"])
    assert info.value.code == 2


def test_console_script_runs_without_traceback(tmp_path: Path) -> None:
    path = tmp_path / "missing.yaml"
    proc = subprocess.run([sys.executable, "-m", "core.cli", "validate", str(path)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    assert f"{path}: UNREADABLE\n  error: no such file" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_one_bad_file_never_stops_a_multi_file_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dated = tmp_path / "dated.yaml"
    dated.write_text("notes: 2026-02-30\n" + grid(GOOD_ROWS).decode())
    tagged = tmp_path / "tagged.yaml"
    tagged.write_text("notes: !!timestamp 2026-02-30\n" + grid(GOOD_ROWS).decode())
    unplayable = tmp_path / "unplayable.yaml"
    unplayable.write_text("supply: {L: 0, I: 0, T: 0, S: 0}\n" + grid(GOOD_ROWS).decode())
    files = [str(BOARDS / "default.yaml"), str(tagged), str(dated), str(unplayable), str(BOARDS / "sparse.yaml")]
    code, out, err = run(["validate", "--json", *files], capsys)
    assert code == 2 and err == ""
    reports = json.loads(out)["files"]
    assert [r["file"] for r in reports] == files
    assert [r["valid"] for r in reports] == [True, False, True, False, True]
    assert reports[1]["readable"] is False and "line 1: the YAML tag !!timestamp" in reports[1]["errors"][0]
    assert any("supply is empty" in e for e in reports[3]["errors"])
    code, _, _ = run(["validate", str(dated), str(unplayable)], capsys)
    assert code == 1


def test_unplayable_boards_are_invalid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "clock.yaml"
    path.write_text("clock: {turn: 0, bank: 0}\n" + grid(GOOD_ROWS).decode())
    code, out, _ = run(["validate", str(path)], capsys)
    assert code == 1 and "INVALID" in out and "loses on time before placing anything" in out
    path.write_text("clock: {turn: 1, bank: 2}\n" + grid(GOOD_ROWS).decode())
    code, out, _ = run(["validate", str(path)], capsys)
    assert code == 0 and "warning: the clock (1 s per turn, 2 s bank)" in out


def test_a_sealed_file_given_to_validate_says_which_command_takes_it(capsys: pytest.CaptureFixture[str]) -> None:
    sealed = str(DATA / "seal" / "match-01.lits-sealed")
    code, out, _ = run(["validate", sealed], capsys)
    assert code == 2
    assert "this is a sealed board file (made by `lits seal`)" in out
    assert f"`lits verify {sealed} --sums SHA256SUMS`" in out and "`lits unseal" in out


@pytest.mark.skipif(sys.platform != "linux", reason="Linux file names are bytes")
@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_file_name_that_is_not_utf8_never_crashes(tmp_path: Path, json_flag: list[str]) -> None:
    good = os.path.join(os.fsencode(tmp_path), b"caf\xe9.yaml")
    with open(good, "wb") as handle:
        handle.write((BOARDS / "default.yaml").read_bytes())
    missing = os.path.join(os.fsencode(tmp_path), b"gone\xff.yaml")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "PYTHONPATH": str(REPO), "LC_ALL": "C.UTF-8"}
    proc = subprocess.run([sys.executable, "-m", "core.cli", "validate", *json_flag, good, missing],
                          capture_output=True, env=env, timeout=60, check=False)
    out, err = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    assert proc.returncode == 2, out + err
    assert "Traceback" not in err and "internal error" not in err
    if json_flag:
        files = json.loads(out)["files"]
        assert files[0]["valid"] is True and files[1]["readable"] is False
    else:
        assert "caf\\xe9.yaml: valid" in out and "gone\\xff.yaml: UNREADABLE" in out
