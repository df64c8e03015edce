"""Benchmark: how well does each cheap predictor rank the openings an analysis played out?

Run ``python tests/benchmarks/candidate_predictors.py REPORT.json BOARD [REPORT.json BOARD ...] --agent=SPEC
--games=N``, where each REPORT.json is the output of ``lits analyze BOARD --seed S --json``.  Normal test runs skip
this folder.

Why: the deciding agent's games are most of an analysis's cost, and most of those go to candidates that turn out
not to be even.  The candidates are the openings the screen and its refinement put nearest to 50%, so what matters
is how well a predictor tells them apart, not how well it ranks every legal opening (there the refinement
correlates 0.86-0.90 with the deciding agent, ``core.analysis.config.REFINE_SIMS``).  For every opening the
deciding agent played out, the table compares its measured S1 rate with the screen's value, the refinement's value
and ``--games`` games of ``--agent`` from that opening (``lits openings``, seed 7, its own games).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np


def main(argv: list[str]) -> None:
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    paths = [a for a in argv if not a.startswith("--")]
    agent = opts.get("agent", "puct:500")
    games = opts.get("games", "24")
    rows: list[tuple[float, float, float, float]] = []
    for report_path, board in zip(paths[::2], paths[1::2], strict=True):
        report = json.loads(Path(report_path).read_text())
        decider = report["agent"]
        openings = report["per_agent"][decider]["pie"]["openings"]
        args = [sys.executable, "-m", "core.cli", "openings", board, "--agent", agent, "--games", games,
                "--seed", "7", "--json"]
        for o in openings:
            args += ["--opening", " ".join(o["cells"])]
        done = subprocess.run(args, capture_output=True, text=True, check=True)
        replayed = {tuple(x["cells"]): x["v"] for x in json.loads(done.stdout)["openings"]}
        rows += [(o["v"], o["screen_v"], o["refined_v"] if o["refined_v"] is not None else np.nan,
                  replayed[tuple(o["cells"])]) for o in openings]
    table = np.array(rows, dtype=np.float64)
    print(f"{len(rows)} openings played out by the deciding agent; predictors against its S1 rate:\n")
    print("| predictor | correlation |")
    print("| --- | --- |")
    for name, col in (("screen", 1), ("refinement", 2), (f"{games} games of {agent}", 3)):
        ok = ~np.isnan(table[:, col])
        print(f"| {name} | {np.corrcoef(table[ok, 0], table[ok, col])[0, 1]:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
