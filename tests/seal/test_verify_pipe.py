"""verify_sealed.py piped into a reader that stops early (``| head -2``): the check's exit code, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import main
from tests.paths import BOARDS, REPO


@pytest.mark.parametrize("unbuffered", ["1", ""])
def test_a_reader_that_stops_early_keeps_the_exit_code_without_a_traceback(tmp_path: Path, unbuffered: str) -> None:
    assert main(["seal", str(BOARDS / "default.yaml"), "--season", "s1", "--out", str(tmp_path / "out")]) == 0
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    script = REPO / "core" / "seal" / "sealcheck.py"
    for _ in range(3):
        child = subprocess.Popen([sys.executable, str(script), str(tmp_path / "out" / "dm1.lits-sealed"), "--sums",
                                  str(tmp_path / "out" / "SHA256SUMS")], cwd=tmp_path, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert child.stdout is not None and child.stderr is not None
        child.stdout.close()  # the reader has gone before the report is written
        err = child.stderr.read()
        child.stderr.close()
        assert child.wait(timeout=60) == 0, err
        assert "Traceback" not in err and "BrokenPipeError" not in err, err
