"""Benchmark and reference set of the board card: the card of each of the ten benchmark boards.

Run ``python tests/card/bench_card.py OUT_DIR [--seed=1] [--workers=2] [--boards=NAME,...] [--write-reference]``.
The boards are ``tests/benchmarks/bench_verdicts.py``'s (the five bundled boards and five random 12x12 ones).
Each card is a fresh ``lits card BOARD --seed S --workers K --json`` process; its JSON is saved in ``OUT_DIR``
(a rerun skips what is there, so the benchmark can be stopped and resumed) with the wall and CPU seconds of the
process beside it.  The table printed gives each board's figures, the card's time and the part of it its
standard analysis took (the card contains exactly the games of ``lits analyze BOARD --seed S``).
``--write-reference`` writes ``core/card/reference.json``, the reference boards every card is placed among.
Pytest does not collect this file (its name does not start with ``test_``).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.card.figures import REFERENCE_FILE, reference_row, source_commit  # noqa: E402
from tests.benchmarks.bench_verdicts import boards  # noqa: E402
from tests.lits_process import run_lits  # noqa: E402


def cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def card(out: Path, name: str, path: Path, seed: int, workers: int) -> dict[str, Any]:
    target = out / f"{name}-seed{seed}.json"
    if target.exists():
        data: dict[str, Any] = json.loads(target.read_text(encoding="utf-8"))
        return data
    load = os.getloadavg()[0]
    cpu0, wall0 = cpu_children(), time.monotonic()
    proc = run_lits(["card", str(path), "--seed", str(seed), "--workers", str(workers), "--json"], timeout=7200)
    wall, cpu = time.monotonic() - wall0, cpu_children() - cpu0
    if proc.returncode != 0:
        raise SystemExit(f"{name}: lits card failed ({proc.returncode}): {proc.stderr[-2000:]}")
    data = json.loads(proc.stdout)
    data["bench"] = {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "load": round(load, 2), "workers": workers}
    target.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return data


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.0f}%"


def row(name: str, c: dict[str, Any]) -> str:
    s, g, f, v, b = c["skill"], c["game"], c["fairness"], c["verdict"], c["bench"]
    low, high = s["ci95"]
    levels = " / ".join(pct(f["mean_s1_rate"][lv]) for lv in f["levels"])
    one_in = "never" if s["upset_one_in"] is None else f"{s['upset_one_in']:.0f}"
    runout = " ".join(f"{t} {pct(x)}" for t, x in g["runout"].items())
    t = c["timings_s"]
    return (f"| {name} | {v['verdict']} {v['fair']}/{v['tested']} | {pct(s['score'])} [{pct(low)}-{pct(high)}] "
            f"(±{50 * (high - low):.1f}) | {one_in} | {levels} | {g['placements_per_game']:.1f} | "
            f"{g['legal_per_turn']:.0f} | {pct(g['tie_rule_share'])} | {g['margin']:.1f} | {runout} | "
            f"{pct(g['first_mover']['s1_rate'])} | {t['analysis']:.0f} + {t['levels']:.0f} + {t['skill']:.0f} | "
            f"{b['wall_s']:.0f} | {b['cpu_s']:.0f} | {b['load']:.1f} |")


HEADER = ("| board | verdict fair/tested | skill score [95%] (± points) | weaker wins 1 in | S1 after the drawn "
          "openings (levels) | placements | choice | tie rule | margin | runs out | first mover, no pie | "
          "analysis + levels + skill s | wall s | CPU s | load |\n"
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(__doc__)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    opts = dict(a.lstrip("-").split("=", 1) if "=" in a else (a.lstrip("-"), "1") for a in argv[1:])
    seed, workers = int(opts.get("seed", "1")), int(opts.get("workers", "2"))
    found = boards(out)
    if "boards" in opts:
        found = {k: v for k, v in found.items() if k in opts["boards"].split(",")}
    cards: dict[str, dict[str, Any]] = {}
    print(HEADER, flush=True)
    for name, path in found.items():
        cards[name] = card(out, name, path, seed, workers)
        print(row(name, cards[name]), flush=True)
    if "write-reference" in opts:
        data = {"made_by": f"python tests/card/bench_card.py OUT --seed={seed} --write-reference",
                "effort": "standard", "seed": seed,
                "commit": ", ".join(sorted({str(c["measured_at"].get("commit") or source_commit())
                                            for c in cards.values()})),
                "boards": {name: reference_row(c) for name, c in cards.items()}}
        REFERENCE_FILE.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {REFERENCE_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
