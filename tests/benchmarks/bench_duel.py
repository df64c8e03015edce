"""Benchmark: the strength ladder, a chain of ``lits duel`` runs summed into Elo relative to mcts:1000.

Run ``python tests/benchmarks/bench_duel.py run [--pairs N] [--workers K] [--log FILE] [--only BOARD]`` to play
every duel of the plan (each result is appended to the log as one JSON line, and duels already in the log are
skipped, so an interrupted run resumes), then ``python tests/benchmarks/bench_duel.py table [--log FILE]`` to
print the Markdown ladder with the exact commands.  Normal test runs skip this folder.

Neighbouring agents are compared directly (a far-apart pair scores 0% or 100%, which has no finite Elo), and
each agent's Elo relative to mcts:1000 is the sum of the differences along the chain; the interval of a sum is
the square root of the sum of the squared half-widths, per side.  Timings are CPU milliseconds per move of the
worker processes, comparable only within one run.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ANCHOR = "mcts:1000"
BOARDS = ("default", "clustered", "sparse")
MCTS_CHAIN = [("greedy", "random"), ("mcts:250", "greedy"), ("mcts:500", "mcts:250"), ("mcts:1000", "mcts:500"),
              ("mcts:2000", "mcts:1000"), ("mcts:4000", "mcts:2000"), ("mcts:8000", "mcts:4000"),
              ("mcts:16000", "mcts:8000")]
PUCT_EVEN = [("puct:1000", "mcts:1000"), ("puct:700", "mcts:1000")]
"""The new search at mcts:1000's simulations, and at about its time per move (puct costs more per simulation)."""
PUCT_CHAIN = [("puct:2000", "puct:1000"), ("puct:4000", "puct:2000"), ("puct:8000", "puct:4000"),
              ("puct:16000", "puct:8000"), ("puct:32000", "puct:16000"), ("puct:64000", "puct:32000")]
LEVELS = [("casual", "mcts:250"), ("club", "mcts:4000"), ("expert", "mcts:16000")]


def plan(board: str) -> list[tuple[str, str]]:
    if board == "default":
        return PUCT_EVEN + LEVELS + MCTS_CHAIN + PUCT_CHAIN
    return PUCT_EVEN + MCTS_CHAIN


def command(board: str, a: str, b: str, pairs: int, workers: int, seed: int = 0) -> list[str]:
    return ["lits", "duel", f"boards/{board}.yaml", "--agent", a, "--agent", b, "--pairs", str(pairs),
            "--seed", str(seed), "--workers", str(workers), "--json"]


def load(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def run(args: argparse.Namespace) -> None:
    log = Path(args.log)
    done = {(r["board_name"], r["a"], r["b"]) for r in load(log)}
    boards = [args.only] if args.only else list(BOARDS)
    for board in boards:
        for a, b in plan(board):
            if (board, a, b) in done:
                continue
            cmd = command(board, a, b, args.pairs, args.workers)
            proc = subprocess.run([sys.executable, "-m", "core.cli", *cmd[1:]], capture_output=True, text=True,
                                  cwd=ROOT, check=False)
            if proc.returncode != 0:
                print(f"failed: {' '.join(cmd)}: {proc.stderr.strip()}", file=sys.stderr)
                continue
            data = json.loads(proc.stdout)
            data["board_name"] = board
            data["command"] = " ".join(cmd[:-1])
            with log.open("a") as fh:
                fh.write(json.dumps(data) + "\n")
            print(f"{board:10} {a:>12} vs {b:<12} score {data['score']:.3f} {data['ci95']} elo {data['elo']} "
                  f"{data['elo_ci95']}", flush=True)


def _half_widths(r: dict[str, Any]) -> tuple[float, float]:
    elo = r["elo"]
    low, high = r["elo_ci95"]
    if elo is None:
        return math.inf, math.inf
    return (elo - low if low is not None else math.inf), (high - elo if high is not None else math.inf)


def ladder(rows: list[dict[str, Any]], board: str) -> dict[str, tuple[float, float, float]]:
    """Elo relative to the anchor with (low, high) deviations for every agent reachable along the duels."""
    edges: dict[str, list[tuple[str, float, float, float]]] = {}
    for r in rows:
        if r["board_name"] != board or r["elo"] is None:
            continue
        lo, hi = _half_widths(r)
        edges.setdefault(r["b"], []).append((r["a"], r["elo"], lo, hi))  # a = b + elo
        edges.setdefault(r["a"], []).append((r["b"], -r["elo"], hi, lo))
    out: dict[str, tuple[float, float, float]] = {ANCHOR: (0.0, 0.0, 0.0)}
    queue = [ANCHOR]
    while queue:
        cur = queue.pop(0)
        elo, lo2, hi2 = out[cur]
        for nxt, d, lo, hi in edges.get(cur, []):
            if nxt in out:
                continue
            out[nxt] = (elo + d, math.hypot(lo2, lo), math.hypot(hi2, hi))
            queue.append(nxt)
    return out


def bounds(rows: list[dict[str, Any]], board: str, known: dict[str, tuple[float, float, float]]) -> dict[str, str]:
    """Agents reached only through a clean sweep: at most (or at least) the chain's Elo minus the interval's end."""
    out: dict[str, str] = {}
    for r in rows:
        if r["board_name"] != board or r["elo"] is not None:
            continue
        a, b = r["a"], r["b"]
        if r["score"] >= 1.0 and a in known and b not in known:
            out[b] = f"below {known[a][0] - r['elo_ci95'][0]:+.0f}"
        elif r["score"] <= 0.0 and b in known and a not in known:
            out[a] = f"below {known[b][0] + r['elo_ci95'][1]:+.0f}"
    return out


def table(args: argparse.Namespace) -> None:
    rows = load(Path(args.log))
    boards = [b for b in BOARDS if any(r["board_name"] == b for r in rows)]
    ladders = {b: ladder(rows, b) for b in boards}
    swept = {b: bounds(rows, b, ladders[b]) for b in boards}
    agents: list[str] = list(dict.fromkeys(a for b in boards for a in swept[b]))
    for b in boards:
        for a in sorted(ladders[b], key=lambda k: ladders[b][k][0]):
            if a not in agents:
                agents.append(a)
    print("| agent | " + " | ".join(f"{b}: Elo vs {ANCHOR} [95%]" for b in boards) + " | CPU ms/move |")
    print("| --- | " + " | ".join("---" for _ in boards) + " | --- |")
    for a in sorted(agents, key=lambda k: ladders[boards[0]].get(k, (-1e9, 0, 0))[0]):
        cells = []
        for b in boards:
            v = ladders[b].get(a)
            if v is None:
                cells.append(swept[b].get(a, ""))
            else:
                cells.append(f"{v[0]:+.0f} [{v[0] - v[1]:+.0f}, {v[0] + v[2]:+.0f}]")
        ms = [r["cpu_ms_per_move"][a] for r in rows if a in r["cpu_ms_per_move"] and r["board_name"] == boards[0]]
        print(f"| {a} | " + " | ".join(cells) + (f" | {sum(ms) / len(ms):.1f} |" if ms else " | |"))
    print()
    print("| board | A | B | pairs | A's score [95%] | Elo [95%] | S1 wins | command |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        lo, hi = r["ci95"]
        elo = "inf" if r["elo"] is None else f"{r['elo']:+.0f}"
        elo_lo = "-inf" if r["elo_ci95"][0] is None else f"{r['elo_ci95'][0]:+.0f}"
        elo_hi = "+inf" if r["elo_ci95"][1] is None else f"{r['elo_ci95'][1]:+.0f}"
        print(f"| {r['board_name']} | {r['a']} | {r['b']} | {r['pairs']} | {r['score']:.2f} [{lo:.2f}-{hi:.2f}] | "
              f"{elo} [{elo_lo}, {elo_hi}] | {r['s1_win_rate']:.2f} | `{r['command']}` |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("run")
    p.add_argument("--pairs", type=int, default=40)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--log", default=str(ROOT / ".bench" / "ladder.jsonl"))
    p.add_argument("--only", choices=BOARDS)
    t = sub.add_parser("table")
    t.add_argument("--log", default=str(ROOT / ".bench" / "ladder.jsonl"))
    args = parser.parse_args()
    if args.cmd == "run":
        Path(args.log).parent.mkdir(parents=True, exist_ok=True)
        run(args)
    else:
        table(args)


if __name__ == "__main__":
    main()
