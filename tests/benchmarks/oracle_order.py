"""Benchmark: how fast would the standard verdict be with a perfect order of candidates?

Run ``python tests/benchmarks/oracle_order.py OUT_DIR [--seeds=1,2,3] [--set=ten|dense] [--boards=NAME,...]
[--race=N]`` from the repository root.  Normal test runs skip this folder.

Why: the speed goal of the standard effort (a wall median of at most 45 s on two cores) was to come from playing
fewer openings that were never going to be even, ordered by a predictor.  This measures the most any predictor of
the deciding agent's rate could give with the analysis's rules as they are.  Per board and seed, two fresh
``lits analyze BOARD --seed S --json`` processes run back to back (so drift of a shared machine reaches both):

1. **as shipped**: the screen, the refinement and the candidate picker;
2. **oracle**: the same analysis, except that the candidates come in the order the first run's results give: the
   openings it showed fair first (in the order it found them), then its other tested openings by their measured
   distance from 50%, then the picker's own order; and no refinement (a predictor's order costs milliseconds).

A game's seed depends only on the board, the opening, the seed and its number, so an opening gets the same games
in both runs: the oracle run is what a predictor that knew every result in advance would have given.  Its
verdict can differ where the first run left an opening undecided (set aside, or the games ran out) that the oracle
plays to its decision.  Each run's full JSON, wall and CPU seconds
are saved in ``OUT_DIR`` (a rerun skips what is there); the table compares the two.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.bench_verdicts import chosen_boards, judged, out_folder, timed_lits  # noqa: E402  (after the checkout is on the path)


def oracle_order(base: dict[str, Any]) -> list[int]:
    """The first run's openings: those shown fair first, as found, then the rest nearest to 50% first."""
    openings = base["pie"]["openings"]
    fair = [o["placement"] for o in openings if o["status"] == "fair"]
    rest = sorted((o for o in openings if o["status"] != "fair"), key=lambda o: abs(o["v"] - 0.5))
    return fair + [o["placement"] for o in rest]


def run_one(order_file: Path, argv: list[str]) -> int:
    """``lits`` with the oracle's candidate order and no refinement (in this process)."""
    import core.analysis.run as run_module
    from core.analysis.candidates import CandidatePicker
    from core.cli import main

    order: list[int] = json.loads(order_file.read_text())

    class Oracle(CandidatePicker):
        def next(self) -> int | None:
            for p in order:
                if p not in self.tested:
                    self.tested.add(p)
                    return p
            return super().next()

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(run_module, "CandidatePicker", Oracle)
        mp.setattr(run_module, "refine", lambda *_a, **_k: None)
        return main(argv)


def timed(out: Path, name: str, args: list[str], order: Path | None = None) -> dict[str, Any]:
    target = out / f"{name}.json"
    if target.exists():
        return dict(json.loads(target.read_text()))
    entry = (str(Path(__file__).resolve()), "--one", str(order)) if order else ("-m", "core.cli")
    proc, wall, cpu, load = timed_lits(args, entry)
    if proc.returncode != 0:
        raise SystemExit(f"{name}: {proc.stderr.strip()[-500:]}")
    row = {"report": json.loads(proc.stdout), "wall_s": round(wall, 1), "load": round(load, 2),
           "cpu_s": round(cpu, 1)}
    target.write_text(json.dumps(row))
    return row


def summary(row: dict[str, Any]) -> str:
    pie = row["report"]["pie"]
    judge = sum(j["games"] for o in pie["openings"] for j in judged(o))
    return (f"{row['report']['verdict']}, {len(pie['fair_openings'])} / {pie['tested']}, {pie['games']}, {judge}, "
            f"{row['cpu_s']}, {row['wall_s']}")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--one"]:
        return run_one(Path(argv[1]), argv[2:])
    out = out_folder(argv, __doc__)
    if out is None:
        return 2
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    seeds = [int(s) for s in opts.get("seeds", "1,2,3").split(",")]
    found = chosen_boards(out, opts.get("set", "ten"), opts.get("boards", ""))
    if found is None:
        return 2
    extra = [f"--race={opts['race']}"] if "race" in opts else []
    print("| board | seed | as shipped: verdict, fair / tested, deciding games, judge games, CPU s, wall s | "
          "oracle order | load |")
    print("| --- | --- | --- | --- | --- |")
    walls: dict[str, list[float]] = {"base": [], "oracle": []}
    for seed in seeds:
        for name, path in found.items():
            args_ = ["analyze", str(path), "--seed", str(seed), "--json"]
            base = timed(out, f"{name}.{seed}.base", args_)
            order = out / f"{name}.{seed}.order.json"
            order.write_text(json.dumps(oracle_order(base["report"])))
            oracle = timed(out, f"{name}.{seed}.oracle{'-race' + opts['race'] if extra else ''}", args_ + extra,
                           order)
            walls["base"].append(base["wall_s"])
            walls["oracle"].append(oracle["wall_s"])
            print(f"| {name} | {seed} | {summary(base)} | {summary(oracle)} | {base['load']}, {oracle['load']} |",
                  flush=True)
    for key, w in walls.items():
        print(f"{key}: wall median {statistics.median(w):.1f} s, max {max(w):.1f} s over {len(w)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
