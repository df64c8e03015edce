"""``lits openings``: S1's win rate after given first placements, no swap, with the SPRT class (the swap map).

Light at import (plain-Python config and agent specs only); the engine loads when the command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from core.agents.spec import FIXED_WORK_HELP, SPEC_HELP, AgentSpecError, reproducible
from core.analysis.config import (
    DEFAULT_AGENTS,
    FAIR_BAND,
    MAX_GAMES,
    MIN_GAMES,
    WORKERS,
    AnalysisCancelled,
    AnalysisConfig,
)
from core.cli import (
    EXIT_DISK_FULL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    CliError,
    load_board_arg,
    summary,
)
from core.cli.analyze import _Bars
from core.cli.exitcodes import disk_full_message, is_disk_full
from core.selfplay.cluster import CLUSTER_HELP

if TYPE_CHECKING:
    from core.analysis.openings import OpeningRecord

DEFAULT_MAX_GAMES = 200
"""Most games per opening by default: the SPRT pair stops each opening once it decides, and at 200 a truly
even opening is classed fair 97% of the time (a fixed 60 games: 3%); see :func:`operating_text`."""
HELP_RATES = (0.5, 0.45, 0.4, 0.35, 0.3)
"""S1 rates whose operating figures ``--help`` states (the high side mirrors the low side)."""


def pair_levels() -> tuple[tuple[float, float], tuple[float, float]]:
    """The (H0, H1) rates of the high and low side of the verdict's SPRT pair (``verdict.sprt_pair``, which
    loads numpy, so the levels are read from the same config fields here; a test keeps the two equal)."""
    cfg = AnalysisConfig()
    m = cfg.sprt_margin
    return (cfg.fair_high - m, cfg.fair_high + m), (cfg.fair_low + m, cfg.fair_low - m)


def share(x: float) -> str:
    """A chance as a percentage, with a decimal below 1% so that 0.5% is not shown as 0%."""
    return f"{x:.1%}" if 0.0 < x < 0.0095 else f"{x:.0%}"


def operating_text(max_games: int = DEFAULT_MAX_GAMES, fixed: bool = False) -> str:
    """Exact figures of the stop for ``--help``: at each rate, how often it says fair / unfair, and the mean games."""
    from core.analysis.stats import pair_operating

    high, low = pair_levels()
    parts = []
    for p in HELP_RATES:
        f = pair_operating(p, max_games, high, low, stop=not fixed)
        games = "" if fixed else f", {f.mean_games:.0f} games on average"
        parts.append(f"at {p:.0%} fair {share(f.inside)}, unfair {share(f.outside)}{games}")
    return "; ".join(parts)


def description() -> str:
    """The command's ``--help`` text, with the stop's exact operating figures."""
    from core.analysis.stats import pair_operating

    high, low = pair_levels()
    fixed60 = pair_operating(0.5, 60, high, low, stop=False).inside
    return ("Play each chosen first placement with the same agent in both seats and no swap until the analysis's "
            "SPRT pair decides it (at most --max-games games), and print S1's win rate with its 95% Wilson "
            f"interval and the pair's class: fair (within {FAIR_BAND[0]:.0%}-{FAIR_BAND[1]:.0%}), unfair, or "
            f"undecided. Exact figures of the default stop by S1's true rate (rates above 50% mirror these): "
            f"{operating_text()}. A fixed --games 60 would call an even opening fair only {fixed60:.0%} of the "
            "time. The same --seed gives the same figures on any number of --workers.")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "openings", help=summary("openings"),
        description="Play chosen first placements without the swap until the analysis's SPRT pair decides each "
                    "(the figures of the stop are computed when --help is shown).",
    )
    format_help = p.format_help

    def with_figures() -> str:  # the exact figures take 0.1 s to compute: only when --help shows them
        p.description = description()
        return format_help()

    setattr(p, "format_help", with_figures)  # noqa: B010 - an instance's method is replaced on purpose
    p.add_argument("board", metavar="BOARD", help="board file (YAML)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--opening", action="append", metavar="CELLS", dest="openings",
                       help='a first placement as four cell names, e.g. "E6 F6 G6 F7"; repeatable')
    which.add_argument("--all", action="store_true", help="every legal first placement (the swap map)")
    which.add_argument("--top", type=int, metavar="K",
                       help="the K placements the analysis's screen puts closest to even")
    p.add_argument("--agent", default=DEFAULT_AGENTS[-1], metavar="SPEC",
                   help=f"the agent in both seats; {SPEC_HELP} (default {DEFAULT_AGENTS[-1]}); {FIXED_WORK_HELP}")
    count = p.add_mutually_exclusive_group()
    count.add_argument("--max-games", type=int, default=DEFAULT_MAX_GAMES, metavar="N",
                       help="most games per opening; each stops once the SPRT pair decides "
                            f"(default {DEFAULT_MAX_GAMES})")
    count.add_argument("--games", type=int, default=None, metavar="N",
                       help="exactly N games per opening, even after the pair has decided (a replay of known "
                            "length; the class is the pair's after the first games that decided it)")
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
        agent = reproducible(args.agent)
    except AgentSpecError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    fixed = args.games is not None
    games = args.games if fixed else args.max_games
    if not MIN_GAMES <= games <= MAX_GAMES:
        flag = "--games" if fixed else "--max-games"
        raise CliError(f"{flag} {games}: give {MIN_GAMES} to {MAX_GAMES:,} games per opening", EXIT_USAGE)
    problem = WORKERS.problem(args.workers, option=True)
    if problem is not None:
        raise CliError(problem, EXIT_USAGE)
    if args.top is not None and args.top < 1:
        raise CliError(f"--top {args.top}: give at least 1", EXIT_USAGE)
    board = load_board_arg(args.board)
    if not args.force:
        from core.cli.analyze import _refuse_invalid

        _refuse_invalid(board, args.board)
    from core.analysis.openings import (
        Checkpoint,
        OpeningsConfig,
        OpeningsError,
        checkpoint_header,
        legal_openings,
        play_openings,
        resolve_openings,
        top_openings,
    )

    cfg = OpeningsConfig(agent=agent, games=games, seed=args.seed, workers=args.workers, fixed=fixed)
    bars = _Bars(sys.stderr.isatty(), whole_run=False)
    try:
        if args.checkpoint is not None:  # a checkpoint it cannot use is refused now, not after the --top screen
            Checkpoint(args.checkpoint, checkpoint_header(board, cfg)).load()
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
            raise CliError(str(exc), EXIT_USAGE) from None
    except OpeningsError as exc:  # an opening that is no legal first placement, or a checkpoint it cannot use
        if is_disk_full(exc):
            raise CliError(disk_full_message(args.checkpoint or ""), EXIT_DISK_FULL) from None
        raise CliError(f"{args.board}: {exc}" if str(exc).startswith("opening") else str(exc), EXIT_USAGE) from None
    except AnalysisCancelled:
        raise CliError("cancelled", EXIT_INTERRUPTED) from None
    except KeyboardInterrupt:
        if args.checkpoint is None:
            raise
        # "interrupted" alone would leave the host guessing whether the hours already played are kept.
        raise CliError(f"interrupted; the openings finished so far are kept in {args.checkpoint}, and the same "
                       "command again goes on from there", EXIT_INTERRUPTED) from None
    finally:
        bars.close()
    if args.json:
        from core.analysis.openings import predictions

        digest, predicted, note = predictions(board)
        print(json.dumps({"board": board.name, "board_file": args.board, "agent": agent, "seed": args.seed,
                          "games_per_opening": games, "stop": "fixed" if fixed else "sprt",
                          "model": {"digest": digest, "predicts": "club's S1 win rate after each opening, no swap",
                                    "note": note or None},
                          "openings": [r.to_json(None if predicted is None else predicted[r.placement])
                                       for r in records]}, indent=2))
        return EXIT_OK
    print(format_text(records, args.board, agent, args.seed, games, fixed))
    return EXIT_OK


def format_text(records: list[OpeningRecord], path: str, agent: str, seed: int, games: int = DEFAULT_MAX_GAMES,
                fixed: bool = False) -> str:
    """The table, the counts, and for undecided openings the option that plays them further."""
    from core.analysis.results import ci_pct, pct

    lines = [f"{path}: S1's win rate after each opening, {agent} in both seats, no swap, seed {seed}"]
    for r in records:
        low, high = r.ci95
        lines.append(f"  {' '.join(r.cells):<16} S1 {pct(r.v):>4} {ci_pct(low, high):<11} {r.s1_wins:>4}/{r.games:<4} "
                     f"{r.status}")
    counts = {s: sum(r.status == s for r in records) for s in ("fair", "unfair", "undecided")}
    lines.append(f"{counts['fair']} fair, {counts['unfair']} unfair, {counts['undecided']} undecided of {len(records)}")
    if counts["undecided"] and games < MAX_GAMES:  # out of games, not of evidence: the option that gives more
        flag = "--games" if fixed else "--max-games"
        lines.append(f"undecided: the test had not decided within {games} games ({flag} {games}); a larger {flag} "
                     f"(at most {MAX_GAMES:,}) plays those openings further")
    return "\n".join(lines)
