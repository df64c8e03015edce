"""Benchmark: how long the first run's compile of the engine takes, step by step, and what the first run says.

Run ``python tests/benchmarks/bench_compile.py [RUNS] [--cli]``.  Normal test runs skip this folder.

Each run is a fresh process with an empty ``NUMBA_CACHE_DIR`` that calls ``core.agents.agent.warm_up`` and times
every step; the table gives each step's seconds (the median over the runs) beside its weight, which should be
that step's seconds of a cold compile (``BASE_WARM_UP_WEIGHTS`` and each kind's ``warm_up_weight``): progress
bars and the compile's estimate run evenly only when they match.  ``--cli`` then runs ``lits analyze
boards/default.yaml --quick --json`` through a pipe with an empty cache, and with a full cache from which the
``puct`` and ``ab`` kernels were removed, and prints what the first line said and what the compile took.  Run it on
an otherwise idle machine: the steps slow unevenly under load.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

STEP_TIMES = """
import json, time
from core.agents.agent import warm_up
marks = []
warm_up(lambda done, total, compiled: marks.append((done, time.monotonic())))
print(json.dumps([[d, round(t - marks[0][1], 3)] for d, t in marks]))
"""


def _env(cache: str) -> dict[str, str]:
    return {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}


def step_seconds(runs: int) -> None:
    """Each step's seconds with an empty cache, against its weight."""
    per_run: list[list[float]] = []
    weights: list[int] = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as cache:
            out = subprocess.run([sys.executable, "-c", STEP_TIMES], env=_env(cache), cwd=ROOT, check=True,
                                 capture_output=True, text=True).stdout
        marks = json.loads(out.strip().splitlines()[-1])
        weights = [b[0] - a[0] for a, b in itertools.pairwise(marks)]
        per_run.append([b[1] - a[1] for a, b in itertools.pairwise(marks)])
    print("| step | weight | seconds (median) |")
    print("| --- | --- | --- |")
    for i, w in enumerate(weights):
        print(f"| {i + 1} | {w} | {statistics.median(r[i] for r in per_run):.1f} |")
    print(f"total: weights {sum(weights)}, seconds {statistics.median(sum(r) for r in per_run):.1f} (median of {runs})")


def cli_says(cache: str) -> tuple[str, str]:
    """The piped first run's estimate and what it reported the compile took."""
    proc = subprocess.run([sys.executable, "-m", "core.cli", "analyze", "boards/default.yaml", "--quick", "--json"],
                          env=_env(cache), cwd=ROOT, capture_output=True, text=True)
    said = re.search(r"about (\d+) s", proc.stderr)
    took = re.search(r"compiled \((\d+) s\)", proc.stderr)
    return (said.group(1) if said else "-"), (took.group(1) if took else "-")


def main(argv: list[str]) -> int:
    runs = int(next((a for a in argv if not a.startswith("--")), "2"))
    step_seconds(runs)
    if "--cli" in argv:
        with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as base:
            said, took = cli_says(empty)
            print(f"empty cache: said about {said} s, took {took} s")
            partial = os.path.join(base, "cache")
            shutil.copytree(empty, partial)
            for path in Path(partial).glob("agents_*/*"):
                if path.name.startswith(("puct.", "alphabeta.")):
                    path.unlink()
            said, took = cli_says(partial)
            print(f"puct and ab removed: said about {said} s, took {took} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
