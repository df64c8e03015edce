"""Benchmark: do verdicts hold across seeds and under strong play?

Run ``python tests/benchmarks/bench_verdicts.py OUT_DIR [--seeds=1,2,3] [--effort=NAME] [--time=SECONDS]
[--check-rule=RULE] [--check=SPEC ...] [--busy=N] [--compare=OTHER_OUT_DIR] [--replay] [--replay-seeds=1]
[--replay-agents=mcts:8000] [--replay-games=60] [--second-look] [--set=ten|dense] [--boards=NAME,...]``
(``--set=dense``: the five boards of :data:`DENSE_BOARDS` instead of the ten; ``--effort``, ``--time``,
``--check-rule`` and each ``--check`` are passed to ``lits analyze``; ``--boards`` keeps only the named boards, e.g.
``--boards=default,dense`` for a first look at a slow effort).  Normal test runs skip this folder.

1. **Verdicts**: the five bundled boards and five random boards (``Board.random`` with fixed seeds and 12-28
   symbol pairs, written to ``OUT_DIR/boards``) are analysed with the default ``lits analyze`` (its default
   agents and effort) once per seed.  The table gives each run's verdict, fair openings / tested, wall time,
   CPU time (the process and its workers: what the run costs whatever else the machine does) and whether weaker
   play disagreed; the summary counts inconclusive runs and boards whose seeds contradict each other (balanced
   on one, lopsided on another).  ``--busy=N`` runs N CPU-bound processes beside every analysis (a busy
   laptop); ``--compare=DIR`` checks that every run's figures (its JSON without timings) equal those of another
   benchmark folder, e.g. the same runs on the idle machine.
   Fair openings are those the deciding agent showed fair and the analysis's cross-check (``mcts:8000``, its
   own seed stream) confirmed; disputed ones are counted beside them.
2. **Replays** (``--replay``): every opening a verdict of ``--replay-seeds`` called fair is played again by
   stronger, independent agents, ``lits openings BOARD --opening CELLS --agent A --games N --seed 1`` for each A
   of ``--replay-agents`` (default ``mcts:8000``) and N of ``--replay-games`` (default 60), and the table says
   whether each 95% interval reaches into the fair band [40%, 60%] or lies wholly outside 35%-65%; per agent, the
   mean distance of the rates from 50%.  The fair-for-every-agent table of ``docs/measurements.md``:
   ``--replay --replay-seeds=1,2,3 --replay-agents=mcts:8000,ab:8000,expert --replay-games=180``.
3. **Second look** (``--second-look``, with ``--replay`` and its default agent and games): every opening whose
   replay fell outside the band is replayed twice more (seeds 2 and 3), and the 180 games are pooled.  Why: a
   60-game replay of an opening exactly at 60% falls outside 2.2% of the time (at 65% 11%), so an opening outside
   once may be at the band's edge rather than one-sided; the pooled interval tells the two apart.

Each run is a fresh ``lits`` process, as a host would start it.  Results are saved per run in ``OUT_DIR`` and
a rerun skips what is already there, so the benchmark can be stopped and resumed.  The machine's load average
is printed beside each run because other work on a shared machine slows every figure (and a time budget
then plays fewer games).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.analysis.config import FAIR_BAND  # noqa: E402  (after the checkout is on the path)
from core.analysis.stats import wilson  # noqa: E402
from tests.lits_process import run_lits  # noqa: E402

BUNDLED = ("default", "dense", "sparse", "clustered", "original-10x10")
RANDOM_BOARDS = ((101, 12), (102, 16), (103, 20), (104, 24), (105, 28))
"""(seed, symbol pairs) of the five random 12x12 boards."""
DENSE_BOARDS = ((10, 201, 30), (10, 202, 30), (12, 203, 40), (12, 204, 42), (12, 205, 44))
"""(size, seed, symbol pairs) of the five boards at the real game's density (``--set=dense``): Board Game Arena's
10x10 boards hold 30 symbols per player (60% of the cells), so two 10x10 with 30 pairs and three 12x12 with 40-44."""
REPLAY_AGENT = "mcts:8000"
REPLAY_GAMES = 60
CLEARLY_ONE_SIDED = (0.35, 0.65)
"""A replay whose 95% interval lies wholly outside this range shows the opening one-sided for the replaying agent."""


def reaches_band(lo: float, hi: float) -> bool:
    """The replay criterion: a 95% interval [lo, hi] that reaches into the fair band."""
    return hi >= FAIR_BAND[0] and lo <= FAIR_BAND[1]


def boards(out: Path, which: str = "ten") -> dict[str, Path]:
    """The benchmark's boards: ``ten`` (the bundled five and five random 12x12) or ``dense`` (:data:`DENSE_BOARDS`)."""
    from core.board.boardfile import save_board
    from core.board.model import Board

    folder = out / "boards"
    folder.mkdir(parents=True, exist_ok=True)
    made = ([(12, seed, pairs, f"random-{seed}-{pairs}p") for seed, pairs in RANDOM_BOARDS] if which == "ten" else
            [(size, seed, pairs, f"dense-{size}-{seed}-{pairs}p") for size, seed, pairs in DENSE_BOARDS])
    found = {name: ROOT / "boards" / f"{name}.yaml" for name in BUNDLED} if which == "ten" else {}
    for size, seed, pairs, name in made:
        path = folder / f"{name}.yaml"
        if not path.exists():
            board = Board.random(size, pairs=pairs, seed=seed)
            board.name = path.stem
            save_board(board, path)
        found[path.stem] = path
    return found


def timed_lits(args: list[str], entry: Sequence[str] = ("-m", "core.cli")
               ) -> tuple[subprocess.CompletedProcess[str], float, float, float]:
    """``lits`` in a fresh process: the process, its wall seconds, the CPU seconds of it and its workers (what the
    run costs whatever else the machine does) and the 1-minute load average when it started."""
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = run_lits(args, timeout=7200, entry=entry)
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return proc, wall, (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime), load


def analyse(out: Path, name: str, path: Path, seed: int, budget: list[str]) -> dict[str, object]:
    target = out / f"{name}.{seed}.json"
    if target.exists():
        return dict(json.loads(target.read_text()))
    proc, wall, cpu, load = timed_lits(["analyze", str(path), "--seed", str(seed), "--json", *budget])
    if proc.returncode != 0:
        row: dict[str, object] = {"error": proc.stderr.strip()[-300:], "wall_s": round(wall, 1)}
    else:
        data = json.loads(proc.stdout)
        pie = data["pie"]
        timeless = {k: v for k, v in data.items() if k not in ("elapsed_s", "board_file")}
        row = {"verdict": data["verdict"], "agent": data["deciding_agent"], "wall_s": round(wall, 1),
               "cpu_s": round(cpu, 1), "load": round(load, 2), "tested": pie["tested"], "games": pie["games"],
               "games_done": data.get("budget", {}).get("games_done"),
               "figures": hashlib.sha256(json.dumps(timeless, sort_keys=True).encode()).hexdigest()[:16],
               "check_rule": pie.get("check_rule"),
               "fair": [o["cells"] for o in pie["openings"] if o["status"] == "fair"],
               "fair_v": [o["v"] for o in pie["openings"] if o["status"] == "fair"],
               "check_v": [(o.get("check") or {}).get("v") for o in pie["openings"] if o["status"] == "fair"],
               "disputed": [o["cells"] for o in pie["openings"] if any(not j["agrees"] for j in judged(o))],
               "disputed_by": [j["agent"] for o in pie["openings"] for j in judged(o) if not j["agrees"]],
               "judge_games": {a: sum(j["games"] for o in pie["openings"] for j in judged(o) if j["agent"] == a)
                               for a in pie.get("judges", [])},
               "weaker_disagree": any("play; for " in w for w in data["warnings"]),
               "out_of_time": bool(data.get("budget", {}).get("stopped_by_time"))}
    target.write_text(json.dumps(row))
    return row


def judged(opening: dict[str, Any]) -> list[dict[str, Any]]:
    """Every judge's check of an opening (older reports have only the first judge's ``check``)."""
    return list(opening.get("judges") or ([opening["check"]] if opening.get("check") else []))


def _spin() -> None:
    """A CPU-bound process beside the analyses (``--busy``)."""
    x = 0
    while True:
        x = (x * 1103515245 + 12345) % 2**31


def replay(out: Path, name: str, path: Path, cells: list[str], seed: int = 1, agent: str = REPLAY_AGENT,
           games: int = REPLAY_GAMES) -> dict[str, object]:
    """One opening replayed with no swap (saved, so a rerun resumes); files of the default agent and games keep
    their older names, so folders replayed before resume too."""
    tag = "" if (agent, games) == (REPLAY_AGENT, REPLAY_GAMES) else f".{agent.replace(':', '_')}.g{games}"
    target = out / f"replay.{name}.{'-'.join(cells)}{tag}{'' if seed == 1 else f'.s{seed}'}.json"
    if target.exists():
        return dict(json.loads(target.read_text()))
    proc = run_lits(["openings", str(path), "--opening", " ".join(cells), "--agent", agent,
                     "--games", str(games), "--seed", str(seed), "--json"], timeout=7200)
    if proc.returncode != 0:
        row: dict[str, object] = {"error": proc.stderr.strip()[-300:]}
    else:
        o = json.loads(proc.stdout)["openings"][0]
        lo, hi = o["ci95"]
        row = {"games": o["games"], "s1_wins": o["s1_wins"], "v": o["v"], "ci95": [lo, hi],
               "reaches_band": reaches_band(lo, hi)}
    target.write_text(json.dumps(row))
    return row


def wholly_outside(lo: float, hi: float) -> bool:
    """The strict replay criterion: a 95% interval [lo, hi] wholly outside 35%-65% (clearly one-sided)."""
    return hi < CLEARLY_ONE_SIDED[0] or lo > CLEARLY_ONE_SIDED[1]


def replays(out: Path, found: dict[str, Path], rows: dict[str, dict[int, dict[str, object]]], seeds: list[int],
            agents: list[str], games: int, second: bool) -> None:
    """Every distinct opening the verdicts of ``seeds`` called fair, replayed by each agent; per agent the
    openings whose interval reaches into the fair band, those wholly outside 35-65%, and the mean distance of
    the rates from 50% (what ``docs/measurements.md`` reports)."""
    done: set[tuple[str, str]] = set()
    per_agent: dict[str, list[dict[str, object]]] = {a: [] for a in agents}
    outside: list[tuple[str, list[str]]] = []
    print(f"\nreplays: {', '.join(agents)}, {games} games each, S1's win rate with its 95% interval")
    for name, path in found.items():
        for seed in seeds:
            row = rows.get(name, {}).get(seed, {})
            for cells, v in zip(row.get("fair", []), row.get("fair_v", []), strict=True):  # type: ignore[call-overload]
                key = (name, " ".join(cells))
                if key in done:
                    continue
                done.add(key)
                shown = []
                for agent in agents:
                    r = replay(out, name, path, list(cells), agent=agent, games=games)
                    per_agent[agent].append(r)
                    lo, hi = r.get("ci95", [float("nan")] * 2)  # type: ignore[misc]
                    flag = ("  OUTSIDE 35-65%" if wholly_outside(lo, hi)
                            else "" if r.get("reaches_band") else "  outside 40-60%")
                    shown.append(f"{agent} {r.get('v', float('nan')):.0%} [{lo:.0%}-{hi:.0%}]{flag}")
                    if agent == agents[0] and not r.get("reaches_band"):
                        outside.append((name, list(cells)))
                print(f"{name:18} seed {seed} {' '.join(cells):14} verdict {v:.0%} -> {'; '.join(shown)}", flush=True)
    for agent, got in per_agent.items():
        rates = [float(str(r["v"])) for r in got if "v" in r]
        strict = sum(wholly_outside(*r["ci95"]) for r in got if "ci95" in r)  # type: ignore[misc]
        distance = sum(abs(x - 0.5) for x in rates) / len(rates) if rates else float("nan")
        print(f"\n{agent}: replayed {len(got)} fair openings: {sum(bool(r.get('reaches_band')) for r in got)} reach "
              f"into [40%, 60%], {strict} wholly outside [35%, 65%]; mean distance from 50% {distance:.3f}")
    if second and games == REPLAY_GAMES and agents[0] == REPLAY_AGENT:
        second_look(out, found, outside)


def chosen_boards(out: Path, which: str, names: str) -> dict[str, Path] | None:
    """The boards of ``--set`` (``which``), only those named in ``--boards`` (``names``, comma-separated) if any;
    None after saying what is wrong with either."""
    if which not in ("ten", "dense"):
        print(f"--set={which}: give ten (the bundled and five random boards) or dense (five at the real game's "
              "density)")
        return None
    found = boards(out, which)
    wanted = [n for n in names.split(",") if n]
    unknown = [n for n in wanted if n not in found]
    if unknown:
        print(f"--boards: no benchmark board named {', '.join(unknown)} (there are {', '.join(found)})")
        return None
    return {n: p for n, p in found.items() if not wanted or n in wanted}


def out_folder(argv: list[str], usage: str | None) -> Path | None:
    """A benchmark's output folder, its first argument (made if missing); None after printing ``usage`` when the
    argument is missing."""
    args = [a for a in argv if not a.startswith("--")]
    if not args:
        print(usage)
        return None
    out = Path(args[0])
    out.mkdir(parents=True, exist_ok=True)
    return out


def main(argv: list[str]) -> int:
    out = out_folder(argv, __doc__)
    if out is None:
        return 2

    def text(name: str, default: str) -> str:
        return next((a.split("=", 1)[1] for a in argv if a.startswith(f"--{name}=")), default)

    def option(name: str, default: str) -> list[int]:
        return [int(x) for x in text(name, default).split(",")]

    seeds = option("seeds", "1,2,3")
    budget = [a for a in argv if a.startswith(("--time=", "--check-rule=", "--effort=", "--check="))]
    busy = option("busy", "0")[0]
    hogs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(busy)]
    for h in hogs:
        h.start()
    chosen = chosen_boards(out, text("set", "ten"), text("boards", ""))
    if chosen is None:
        return 2
    found = chosen
    rows: dict[str, dict[int, dict[str, object]]] = {}
    for seed in seeds:  # seed-major, so a stopped run has every board at the first seeds
        for name, path in found.items():
            row = analyse(out, name, path, seed, budget)
            rows.setdefault(name, {})[seed] = row
            fair, disputed = list(row.get("fair", [])), list(row.get("disputed", []))  # type: ignore[call-overload]
            print(f"{name:18} seed {seed}: {row.get('verdict', 'ERROR'):12} "
                  f"fair {len(fair)}/{row.get('tested', '-')}, {row['wall_s']} s, cpu {row.get('cpu_s', '-')} s, "
                  f"load {row.get('load', '-')}{', out of time' if row.get('out_of_time') else ''}"
                  f"{', weaker play disagrees' if row.get('weaker_disagree') else ''}"
                  f"{', disputed by a judge: ' + str(len(disputed)) if disputed else ''}",
                  flush=True)
    total = sum(len(r) for r in rows.values())
    inconclusive = sum(row.get("verdict") == "inconclusive" for r in rows.values() for row in r.values())
    contradictions = [n for n, r in rows.items()
                      if {"balanced", "lopsided"} <= {str(row.get("verdict")) for row in r.values()}]
    walls = sorted(float(str(row["wall_s"])) for r in rows.values() for row in r.values())
    cpus = sorted(float(str(row.get("cpu_s", "nan"))) for r in rows.values() for row in r.values())
    for h in hogs:
        h.terminate()
    print(f"\nruns {total}; inconclusive {inconclusive}; boards with contradictory verdicts {len(contradictions)} "
          f"{contradictions}; wall time median {walls[len(walls) // 2]:.0f} s, max {walls[-1]:.0f} s; "
          f"cpu median {cpus[len(cpus) // 2]:.0f} s, max {cpus[-1]:.0f} s; {busy} busy processes beside")
    other = text("compare", "")
    if other:
        same = differ = 0
        for name, r in rows.items():
            for seed, row in r.items():
                theirs = Path(other) / f"{name}.{seed}.json"
                if theirs.exists():
                    match = json.loads(theirs.read_text()).get("figures") == row.get("figures")
                    same += match
                    differ += not match
                    if not match:
                        print(f"DIFFERENT from {other}: {name} seed {seed}")
        print(f"compared with {other}: {same} runs identical apart from timings, {differ} different")
    if "--replay" in argv:
        replays(out, found, rows, option("replay-seeds", "1"), text("replay-agents", REPLAY_AGENT).split(","),
                option("replay-games", str(REPLAY_GAMES))[0], "--second-look" in argv)
    return 0


def second_look(out: Path, found: dict[str, Path], outside: list[tuple[str, list[str]]]) -> None:
    """Replays seeds 2 and 3 of each opening outside the band and pools them with seed 1 (180 games)."""
    print(f"\nsecond look: {len(outside)} openings outside, replayed with seeds 2 and 3 ({REPLAY_GAMES} games each)")
    for name, cells in outside:
        rows = [replay(out, name, found[name], cells, seed) for seed in (1, 2, 3)]
        if any("error" in r for r in rows):
            print(f"{name:18} {' '.join(cells):14} error: {next(r['error'] for r in rows if 'error' in r)}")
            continue
        wins = [int(str(r["s1_wins"])) if "s1_wins" in r else round(float(str(r["v"])) * REPLAY_GAMES)
                for r in rows]
        lo, hi = wilson(sum(wins), 3 * REPLAY_GAMES)
        side = "inside" if reaches_band(lo, hi) else "outside"
        print(f"{name:18} {' '.join(cells):14} S1 wins by seed {wins[0]}, {wins[1]}, {wins[2]} of {REPLAY_GAMES}: "
              f"pooled {sum(wins) / (3 * REPLAY_GAMES):.0%} [{lo:.0%}-{hi:.0%}], {side} the band", flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
