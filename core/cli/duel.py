"""``lits duel``: how much stronger is one agent than another? Paired games, score, Elo, an optional SPRT.

Imported by ``lits --help``, so it loads nothing heavy at import: the agents, numba and scipy come in
``run``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
from typing import TYPE_CHECKING, Any

from core.cli import EXIT_INTERRUPTED, EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, CliError, load_board_arg, summary
from core.selfplay.cluster import CLUSTER_HELP

if TYPE_CHECKING:
    from core.board.model import Board
    from core.selfplay.duel import OpeningPool

OPENING_CHOICES = ("none", "even", "random")
"""``core.selfplay.duel.OPENING_MODES``, named here so that ``lits --help`` loads no engine (a test keeps them
equal)."""
MAX_PAIRS = 100_000
MAX_WORKERS = 64
_inline = False
"""Play in this process (tests)."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "duel",
        help=summary("duel"),
        description="Play N pairs of games between agents A and B on a board: each pair uses one seed, the "
                    "agents swap seats between its two games, and nobody takes the pie swap. Reports A's wins "
                    "and score with a Wilson 95% interval, the Elo difference with its interval, the first "
                    "player's (S1's) win rate and each agent's mean time per move. The same --seed gives the "
                    "same result on any number of --workers (for simulation budgets; a time budget such as "
                    "puct:t=2 depends on the machine). Without the pie swap the first mover wins most games on "
                    "most boards whoever plays better; --openings even starts each pair after a first placement "
                    "the opening predictor puts near even, as the pie rule makes a match's games start.",
    )
    # `--sprt -10,10`: argparse reads a value that starts with '-' as an option unless it is a plain negative number
    p._negative_number_matcher = re.compile(r"^-\d+(\.\d+)?(,|$)")
    p.add_argument("board", metavar="BOARD", help="board file (YAML)")
    p.add_argument("--agent", action="append", metavar="SPEC", dest="agents", required=True,
                   help="give exactly two, A then B: random, greedy, greedy:EPS, mcts:N, mcts:N:greedy, puct:N, "
                        "puct:t=SECONDS, puct:N:t=SECONDS, ab:N, ab:t=SECONDS, ab:N:eval=net|mix (alpha-beta with the "
                        "learned value), net:N (puct with the learned value), or a level: casual, club, expert")
    p.add_argument("--pairs", type=int, required=True, metavar="N", help="pairs of games to play (2 games each)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="master seed (default 0)")
    p.add_argument("--workers", type=int, default=0, metavar="K", help="worker processes (default 0 = all cores)")
    p.add_argument("--sprt", metavar="ELO0,ELO1",
                   help="stop early once a sequential test decides between 'A is ELO0 stronger' and 'ELO1 "
                        "stronger' (alpha = beta = 0.05, on pair scores), e.g. --sprt 0,50")
    p.add_argument("--openings", choices=OPENING_CHOICES, default="none",
                   help="how each pair's two games start: none = the first mover chooses (default); even = after "
                        "a first placement drawn from those the opening predictor puts at 40-60%% for the first "
                        "mover (the 16 nearest to 50%% when fewer); random = after one drawn from all")
    p.add_argument("--json", action="store_true", help="print one JSON object for machines")
    p.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)
    p.set_defaults(func=run)


def _check(args: argparse.Namespace) -> tuple[str, str, tuple[float, float] | None]:
    from core.agents.spec import parse_agent
    from core.analysis.elo import parse_sprt

    if len(args.agents) != 2:
        raise CliError(f"give exactly two agents with --agent A --agent B, not {len(args.agents)}", EXIT_USAGE)
    try:
        a, b = (parse_agent(t).text for t in args.agents)
    except ValueError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    if not 1 <= args.pairs <= MAX_PAIRS:
        raise CliError(f"--pairs {args.pairs}: give 1 to {MAX_PAIRS:,} pairs", EXIT_USAGE)
    if not 0 <= args.workers <= MAX_WORKERS:
        raise CliError(f"--workers {args.workers}: give 0 (all cores) or a count up to {MAX_WORKERS}", EXIT_USAGE)
    sprt = None
    if args.sprt is not None:
        try:
            sprt = parse_sprt(args.sprt)
        except ValueError as exc:
            raise CliError(str(exc), EXIT_USAGE) from None
    return a, b, sprt


def _refuse_unplayable(board: Board, path: str) -> None:
    """A board where no piece can be placed ends every game before its first move, by the tie rule alone: the
    score, Elo and S1 rate of such a duel would be printed as if they measured the agents.  The rule is the
    validator's (an empty supply); the duel's other uses, a broken pair or a clock of 0 s, still measure agents."""
    from core.board.validation import playability

    if any(p.code == "no-supply" for p in playability(board)):
        raise CliError(f"{path}: no piece can be placed on this board, so every game would end before its first "
                       f"move and the duel would measure nothing about the agents; `lits validate {path}` says "
                       "why", EXIT_PROBLEMS)


class _Bar:
    """A tqdm bar on a terminal, nothing when piped."""

    def __init__(self, enabled: bool, total: int) -> None:
        self.bar: Any = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="pair", leave=False, file=sys.stderr, dynamic_ncols=True)

    def update(self, done: int, a_wins: int) -> None:
        if self.bar is not None:
            self.bar.n = done
            self.bar.set_postfix_str(f"A {a_wins}/{2 * done}")
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def run(args: argparse.Namespace, cancel: threading.Event | None = None) -> int:
    a, b, sprt_levels = _check(args)
    board = load_board_arg(args.board)
    _refuse_unplayable(board, args.board)
    from core.analysis.elo import EloSprt, PairOutcome, score_pairs
    from core.selfplay.duel import OpeningPoolError, PairResult, opening_pool, run_duel
    from core.selfplay.runner import RunCancelled

    try:
        openings = opening_pool(board, args.openings)
    except OpeningPoolError as exc:
        raise CliError(f"{args.board}: --openings even: {exc}", EXIT_PROBLEMS) from None

    results: list[PairResult] = []
    sprt = EloSprt(*sprt_levels) if sprt_levels is not None else None
    bar = _Bar(sys.stderr.isatty() and not args.json, args.pairs)
    a_wins = 0

    def on_pair(_i: int, r: PairResult) -> bool:
        nonlocal a_wins
        results.append(r)
        a_wins += int(r.a_won_as_s1) + int(r.a_won_as_s2)
        bar.update(len(results), a_wins)
        if sprt is not None:
            return sprt.update((int(r.a_won_as_s1) + int(r.a_won_as_s2)) / 2.0) is not None
        return False

    from core.selfplay.cluster import ClusterError, cluster_executor

    interrupted = False
    try:
        with cluster_executor(args.cluster) as (executor, executor_workers):
            run_duel(board, a, b, args.pairs, seed=args.seed, workers=args.workers, on_pair=on_pair, cancel=cancel,
                     inline=_inline, executor=executor, executor_workers=executor_workers, openings=openings)
    except ClusterError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except (KeyboardInterrupt, RunCancelled):
        interrupted = True
    finally:
        bar.close()
    if not results:
        raise CliError("interrupted before the first pair finished", EXIT_INTERRUPTED)
    score = score_pairs(PairOutcome(r.a_won_as_s1, r.a_won_as_s2) for r in results)

    def per_move(seconds: float, moves: int) -> float | None:
        return round(1000.0 * seconds / moves, 3) if moves else None

    a_moves = sum(r.a_moves for r in results)
    b_moves = sum(r.b_moves for r in results)
    key_b = b if b != a else f"{b} (B)"
    ms = {a: per_move(sum(r.a_seconds for r in results), a_moves),
          key_b: per_move(sum(r.b_seconds for r in results), b_moves)}
    cpu = {a: per_move(sum(r.a_cpu for r in results), a_moves),
           key_b: per_move(sum(r.b_cpu for r in results), b_moves)}
    stopped = sprt is not None and sprt.decision is not None and len(results) < args.pairs
    if args.json:
        data: dict[str, Any] = {
            "board": args.board, "a": a, "b": b, "seed": args.seed, "pairs": score.pairs, "games": score.games,
            "a_wins": score.a_wins, "score": round(score.score, 4), "ci95": [round(x, 4) for x in score.ci95],
            "elo": None if score.elo is None else round(score.elo, 1),
            "elo_ci95": [None if x is None else round(x, 1) for x in score.elo_ci95],
            "s1_win_rate": round(score.s1_win_rate, 4), "s1_ci95": [round(x, 4) for x in score.s1_ci95],
            "ms_per_move": ms, "cpu_ms_per_move": cpu, "stopped_early": stopped, "interrupted": interrupted,
            "openings": {
                "mode": openings.mode, "pool": len(openings.placements),
                "predicted": None if openings.predicted is None else [round(x, 4) for x in openings.predicted],
                "model": openings.model,
            },
            "sprt": None if sprt is None else {
                "elo0": sprt.elo0, "elo1": sprt.elo1, "llr": round(sprt.llr, 4),
                "bounds": [round(x, 4) for x in sprt.bounds], "decision": sprt.decision,
                "decided_after_pairs": sprt.decided_at or None,
            },
        }
        print(json.dumps(data, indent=2))
    else:
        print(format_text(args.board, a, b, args.seed, score, ms, interrupted, args.pairs))
        print(describe_openings(openings))
        if sprt is not None:
            print(sprt.describe() + (" (stopped early)" if stopped else ""))
    return EXIT_INTERRUPTED if interrupted else EXIT_OK


def describe_openings(pool: OpeningPool) -> str:
    """One line saying how the games started, so a score is never read without it."""
    if pool.mode == "none":
        return "  openings: the first mover chose (no pie swap)"
    n = len(pool.placements)
    if pool.mode == "random":
        return f"  openings: each pair after a first placement drawn from all {n}"
    assert pool.predicted is not None and pool.model is not None  # an even pool always names both
    low, high = pool.predicted
    return (f"  openings: each pair after a first placement drawn from {n} the opening predictor (model "
            f"{pool.model[:16]}) puts at {low:.0%}-{high:.0%} for the first mover under club")


def format_text(path: str, a: str, b: str, seed: int, score: Any, ms: dict[str, float | None], interrupted: bool,
                asked: int) -> str:
    low, high = score.ci95
    s1_low, s1_high = score.s1_ci95

    def fmt_ms(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.1f} ms"

    head = (f"{path}: A = {a} against B = {b}, {score.pairs} pair{'' if score.pairs == 1 else 's'} "
            f"({score.games} games), seed {seed}")
    if interrupted:
        head += f" (interrupted: {score.pairs} of {asked} pairs)"
    lines = [
        head,
        f"  A won {score.a_wins} of {score.games}: score {score.score:.3f} [{low:.3f}-{high:.3f}] (95% Wilson)",
        f"  Elo of A over B: {score.elo_text()}",
        f"  S1 (the first mover) won {score.s1_win_rate:.1%} [{s1_low:.1%}-{s1_high:.1%}] of the games",
        "  time per move: " + ", ".join(f"{k} {fmt_ms(v)}" for k, v in ms.items()),
    ]
    return "\n".join(lines)
