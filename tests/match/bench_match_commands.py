"""Wall and CPU time of ``lits match move`` and ``status`` in fresh processes (median of 10), as a host waits.

Run from the repository root: ``python tests/match/bench_match_commands.py``.  Ten copies of a 12x12 match after
three moves; in each, one counted move and one status.  Not a test: the figures go to docs/match-day.md.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.cli import main  # noqa: E402


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, user + system CPU) seconds of one command in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "core.cli", *args], capture_output=True, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr.decode())
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def run() -> None:
    root = Path(tempfile.mkdtemp(prefix="bench-match-"))
    base = root / "base"
    board = ROOT / "boards" / "default.yaml"
    assert main(["match", "start", str(board), "--o", "Ana", "--x", "Ben", "--dir", str(base), "--at",
                 "2026-05-02T20:00:00+02:00"]) == 0
    assert main(["match", "move", str(base), "f6 g6 e7 f7", "--by", "Ana", "--at", "20:00:41"]) == 0
    assert main(["match", "swap", str(base), "--by", "Ben", "--at", "20:01:15"]) == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    times: dict[str, list[tuple[float, float]]] = {"move": [], "status": []}
    for i in range(10):
        folder = root / f"copy{i}"
        shutil.copytree(base, folder)
        times["move"].append(timed(["match", "move", str(folder), "F8-G8-H8-G9", "--by", "Ana", "--at", "20:02:02"],
                                   env))
        times["status"].append(timed(["match", "status", str(folder), "--at", "20:02:10"], env))
    for name, runs in times.items():
        walls = [w for w, _ in runs]
        print(f"{name}: wall median {statistics.median(walls):.2f} s ({min(walls):.2f}-{max(walls):.2f}), "
              f"CPU median {statistics.median(c for _, c in runs):.2f} s")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    print(f"bare python: {time.perf_counter() - start:.2f} s; load average {os.getloadavg()[0]:.1f}")
    shutil.rmtree(root)


if __name__ == "__main__":
    run()
