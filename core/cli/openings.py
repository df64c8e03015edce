"""``lits openings``: S1's win rate after given first placements, no swap, with the SPRT class (the swap map).

Light at import (plain-Python config and agent specs only); the engine loads when the command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from core.agents.spec import SPEC_HELP, AgentSpecError, parse_agent
from core.analysis.config import DEFAULT_AGENTS, FAIR_BAND, MAX_GAMES, MIN_GAMES, AnalysisCancelled
from core.cli import EXIT_OK, EXIT_PROBLEMS, EXIT_UNREADABLE, CliError, load_board_arg, summary
from core.cli.analyze import MAX_WORKERS, _Bars
from core.selfplay.cluster import CLUSTER_HELP

if TYPE_CHECKING:
    from core.analysis.openings import OpeningRecord

DEFAULT_GAMES = 60


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "openings", help=summary("openings"),
        description="Play each chosen first placement GAMES times with the same agent in both seats and no swap, "
                    "and print S1's win rate with its 95% Wilson interval and the class the analysis's SPRT "
                    f"pair gives it: fair (within {FAIR_BAND[0]:.0%}-{FAIR_BAND[1]:.0%}), unfair, or undecided. "
                    "The same --seed gives the same figures on any number of --workers.",
    )
    p.add_argument("board", metavar="BOARD", help="board file (YAML)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--opening", action="append", metavar="CELLS", dest="openings",
                       help='a first placement as four cell names, e.g. "E6 F6 G6 F7"; repeatable')
    which.add_argument("--all", action="store_true", help="every legal first placement (the swap map)")
    which.add_argument("--top", type=int, metavar="K",
                       help="the K placements the analysis's screen puts closest to even")
    p.add_argument("--agent", default=DEFAULT_AGENTS[-1], metavar="SPEC",
                   help=f"the agent in both seats; {SPEC_HELP} (default {DEFAULT_AGENTS[-1]})")
    p.add_argument("--games", type=int, default=DEFAULT_GAMES, metavar="N",
                   help=f"games per opening (default {DEFAULT_GAMES})")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="master seed (default 0)")
    p.add_argument("--workers", type=int, default=0, metavar="K", help="worker processes (default 0 = all cores)")
    p.add_argument("--json", action="store_true", help="print one JSON object for machines")
    p.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)
    p.add_argument("--checkpoint", metavar="FILE",
                   help="append each finished opening to FILE and skip the openings already in it (resume)")
    p.add_argument("--force", action="store_true", help="play a board that is not valid for a match as it is")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        agent = parse_agent(args.agent).text
    except AgentSpecError as exc:
        raise CliError(str(exc), EXIT_PROBLEMS) from None
    if not MIN_GAMES <= args.games <= MAX_GAMES:
        raise CliError(f"--games {args.games}: give {MIN_GAMES} to {MAX_GAMES:,} games per opening", EXIT_PROBLEMS)
    if not 0 <= args.workers <= MAX_WORKERS:
        raise CliError(f"--workers {args.workers}: give 0 (all cores) or a count up to {MAX_WORKERS}", EXIT_PROBLEMS)
    if args.top is not None and args.top < 1:
        raise CliError(f"--top {args.top}: give at least 1", EXIT_PROBLEMS)
    board = load_board_arg(args.board)
    if not args.force:
        from core.cli.analyze import _refuse_invalid

        _refuse_invalid(board, args.board)
    from core.analysis.openings import (
        OpeningsConfig,
        OpeningsError,
        legal_openings,
        play_openings,
        resolve_openings,
        top_openings,
    )

    cfg = OpeningsConfig(agent=agent, games=args.games, seed=args.seed, workers=args.workers)
    bars = _Bars(sys.stderr.isatty())
    try:
        if args.openings:
            placements = resolve_openings(board, args.openings)
        elif args.all:
            placements = legal_openings(board)
        else:
            placements = top_openings(board, args.top, cfg, progress=bars)
        if not placements:
            raise CliError(f"{args.board}: the board has no legal first placement", EXIT_PROBLEMS)
        from core.selfplay.cluster import ClusterError, cluster_executor

        try:
            with cluster_executor(args.cluster) as (executor, executor_workers):
                records = play_openings(board, placements, cfg, progress=bars, checkpoint=args.checkpoint,
                                        executor=executor, executor_workers=executor_workers)
        except ClusterError as exc:
            raise CliError(str(exc), EXIT_UNREADABLE) from None
    except OpeningsError as exc:
        raise CliError(f"{args.board}: {exc}" if str(exc).startswith("opening") else str(exc), EXIT_PROBLEMS) from None
    except AnalysisCancelled:
        raise CliError("cancelled", 130) from None
    finally:
        bars.close()
    if args.json:
        print(json.dumps({"board": board.name, "board_file": args.board, "agent": agent, "seed": args.seed,
                          "games_per_opening": args.games, "openings": [r.to_json() for r in records]}, indent=2))
        return EXIT_OK
    print(format_text(records, args.board, agent, args.seed))
    return EXIT_OK


def format_text(records: list[OpeningRecord], path: str, agent: str, seed: int) -> str:
    from core.analysis.results import ci_pct, pct

    lines = [f"{path}: S1's win rate after each opening, {agent} in both seats, no swap, seed {seed}"]
    for r in records:
        low, high = r.ci95
        lines.append(f"  {' '.join(r.cells):<16} S1 {pct(r.v):>4} {ci_pct(low, high):<11} {r.s1_wins:>4}/{r.games:<4} "
                     f"{r.status}")
    counts = {s: sum(r.status == s for r in records) for s in ("fair", "unfair", "undecided")}
    lines.append(f"{counts['fair']} fair, {counts['unfair']} unfair, {counts['undecided']} undecided of {len(records)}")
    return "\n".join(lines)
