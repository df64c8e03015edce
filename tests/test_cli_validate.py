from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import main

BOARDS = Path(__file__).resolve().parent.parent / "boards"


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


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b"grid:\n  - '" + b"." * 11 + b"'\n", 1),  # wrong size/shape
        (b"pie: 1\npie: 2\ngrid: []\n", 2),  # duplicate key
        (b"\x00\x01\x02binary", 2),
    ],
)
def test_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, code: int) -> None:
    path = tmp_path / "x.yaml"
    path.write_bytes(content)
    got, out, err = run(["validate", str(path)], capsys)
    assert got == code
    assert str(path) in out
    assert "Traceback" not in out + err


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
