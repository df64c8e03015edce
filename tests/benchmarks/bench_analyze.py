"""Benchmark: wall time of ``lits analyze`` on the default board, quick and default budgets.

Run ``python tests/benchmarks/bench_analyze.py [BOARD] [--quick-only] [--cold]``.  Normal test
runs skip this folder.  Each run is a fresh ``lits`` process, as a host would start it, so the
figure includes starting the worker processes and loading the compiled agents from the
disk cache (run once before to fill the cache).  Goals: quick <= 15 s, default <= 120 s on
a 2-core machine.  ``--cold`` times the first run on a fresh install instead: a quick run
with numba's cache pointed at an empty folder, so the engine is compiled (once, by one
worker) before the games start.  The machine's load average is printed beside the times
because other work on a shared machine slows every figure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

GOALS = {"quick": 15.0, "default": 120.0}


def run(board: str, quick: bool, cache_dir: str | None = None) -> dict[str, object]:
    args = [sys.executable, "-m", "core.cli", "analyze", board, "--json"] + (["--quick"] if quick else [])
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env=env, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        return {"error": proc.stderr.strip(), "wall_s": round(wall, 1)}
    data = json.loads(proc.stdout)
    mode = "quick" if quick else "default"
    goal = GOALS[mode] if cache_dir is None else None  # the goals are for a filled cache
    return {
        "mode": mode if cache_dir is None else f"{mode}, first run (empty cache)", "wall_s": round(wall, 1),
        "analysis_s": data["elapsed_s"], "goal_s": goal, "meets_goal": None if goal is None else wall <= goal,
        "load_before": round(load, 2), "verdict": data["verdict"],
        "pie_value": data["pie"]["value"], "fair_openings": len(data["pie"]["fair_openings"]),
        "tested": data["pie"]["tested"], "pie_games": data["pie"]["games"], "raw_s1": data["raw"]["s1_win_rate"],
    }


if __name__ == "__main__":
    argv = [a for a in sys.argv[1:] if not a.startswith("--")]
    board = argv[0] if argv else str(ROOT / "boards" / "default.yaml")
    if "--cold" in sys.argv:
        with tempfile.TemporaryDirectory(prefix="lits-numba-") as empty:
            print(json.dumps([run(board, quick=True, cache_dir=empty)], indent=2))
        sys.exit(0)
    results = [run(board, quick=True)]
    if "--quick-only" not in sys.argv:
        results.append(run(board, quick=False))
    print(json.dumps(results, indent=2))
