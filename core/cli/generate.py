"""``lits generate``: search anti-symmetric boards that the analysis calls balanced, and write the best.

Only plain-Python modules are imported here; the engine, the analysis and dask load when the command runs,
so ``lits --help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from core.agents.spec import FIXED_WORK_HELP
from core.analysis.config import DEFAULT_AGENTS
from core.board.geometry import DEFAULT_SIZE, SizeError, check_size
from core.cli import EXIT_DISK_FULL, EXIT_INTERRUPTED, EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, CliError, summary
from core.cli.exitcodes import disk_full_message, is_disk_full
from core.generate.config import (
    DEFAULT_TIME,
    MAX_COUNT,
    MAX_TIME,
    GenerateCancelled,
    LevelError,
    SearchConfig,
    resolve_level,
)
from core.generate.layout import DEFAULT_DENSITY, LayoutError, PairRange, parse_pair_range
from core.generate.plan import TOLERANCE_MIN, TOLERANCE_SHARE

MAX_WORKERS = 64
MAX_ROUNDS = 100_000
_clock: Callable[[], float] = time.monotonic
"""What --time is measured with (tests put a simulated clock here)."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    defaults = SearchConfig()
    p = subparsers.add_parser(
        "generate",
        help=summary("generate"),
        description="Search anti-symmetric layouts: a cheap screen (a small greedy analysis) for every candidate, "
                    "local moves (move, add or remove a symbol pair) around the best, then the full analysis at "
                    "--level for the finalists. Writes the --count best boards the analysis calls balanced, "
                    "ranked by the score docs/generate.md documents, each with its figures in the notes and a JSON "
                    "report beside it. The same --seed and --rounds give the same boards on any worker count; a "
                    "run planned by --time depends on this machine's speed and load.",
    )
    p.add_argument("--size", type=int, default=DEFAULT_SIZE, metavar="N",
                   help=f"board size, even, 4..26 (default {DEFAULT_SIZE})")
    p.add_argument("--pairs", metavar="MIN..MAX",
                   help="symbol pairs (one O and its mirrored X each), e.g. 14..24; default: "
                        f"{100 * DEFAULT_DENSITY[0]:.0f}%%-{100 * DEFAULT_DENSITY[1]:.0f}%% of the cells "
                        f"({PairRange.default_for(DEFAULT_SIZE).text()} on {DEFAULT_SIZE}x{DEFAULT_SIZE})")
    p.add_argument("--count", type=int, default=defaults.count, metavar="K",
                   help=f"boards to write, 1..{MAX_COUNT} (default {defaults.count})")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="master seed (default 0)")
    p.add_argument("--time", type=float, default=DEFAULT_TIME, metavar="SECONDS",
                   help=f"time for the whole run (default {DEFAULT_TIME:.0f}). The run times a few games of "
                        "--level first, then sizes the screening, the number of finalists and each finalist's "
                        "analysis to the time left, and ends at most max("
                        f"{100 * TOLERANCE_SHARE:.0f}%%, {TOLERANCE_MIN:.0f} s) after SECONDS (earlier when the "
                        "work is done); analyses still running then are cancelled and the boards judged so far "
                        "are written. A budget that cannot give one finalist at --level the time a typical verdict "
                        "takes is refused right after the timing (exit 2, nothing written; the timing runs to its "
                        "end even past SECONDS) with the budget to give: the timing, two rounds of screening, "
                        "that finalist and the slack, plus a fifth for a machine whose load changes. A run planned by "
                        "--time depends on the machine's speed and load (--rounds does not)")
    p.add_argument("--rounds", type=int, metavar="N",
                   help=f"screen exactly N rounds of {defaults.batch} layouts and give every finalist its full "
                        "analysis, with no time limit (--time is ignored): the same seed and rounds give the same "
                        "boards on any machine (the JSON gives the rounds a timed run screened)")
    p.add_argument("--level", metavar="LEVEL",
                   help="strength at which the verdict must hold: a level (casual, club, expert) or any agent "
                        f"spec (greedy, greedy:EPS, mcts:N, puct:N, ...); default: {DEFAULT_AGENTS[-1]}, the level "
                        f"that decides lits analyze by default; {FIXED_WORK_HELP}")
    p.add_argument("--workers", type=int, default=0, metavar="K", help="worker processes (default 0 = all cores)")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="run on dask: local:N or a scheduler address such as tcp://10.0.0.5:8786 "
                        "(needs the cluster extra)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the board files and their reports")
    p.add_argument("--force", action="store_true",
                   help="replace the board files of an earlier run with the same seed in --out; its boards this "
                        "run does not write again are removed, so the folder never mixes two runs' boards (a run "
                        "that writes none leaves them as they are)")
    p.add_argument("--prefer", choices=("score", "skill"), default="score",
                   help="rank the balanced boards by the documented score (default) or by the board card's skill "
                        "figure: how often club beats casual on the board (100 pairs, seats swapped, pie rule as "
                        "each plays it; `lits card` explains it); the figure goes into each board's notes")
    p.add_argument("--json", action="store_true", help="print one JSON object for machines")
    p.set_defaults(func=run)


def _config(args: argparse.Namespace) -> SearchConfig:
    try:
        size = check_size(args.size)
    except SizeError as exc:
        raise CliError(f"--size {args.size}: {exc}", EXIT_USAGE) from None
    try:
        pairs = parse_pair_range(args.pairs, size) if args.pairs is not None else PairRange.default_for(size)
    except LayoutError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    if not 1 <= args.count <= MAX_COUNT:
        raise CliError(f"--count {args.count}: give 1..{MAX_COUNT} boards", EXIT_USAGE)
    if not 0 < args.time <= MAX_TIME:  # also refuses nan
        raise CliError(f"--time {args.time}: give a positive number of seconds, at most {MAX_TIME:g} (a day)",
                       EXIT_USAGE)
    if args.rounds is not None and not 1 <= args.rounds <= MAX_ROUNDS:
        raise CliError(f"--rounds {args.rounds}: give 1..{MAX_ROUNDS}", EXIT_USAGE)
    if not 0 <= args.workers <= MAX_WORKERS:
        raise CliError(f"--workers {args.workers}: give 0 (all cores) or a count up to {MAX_WORKERS}",
                       EXIT_USAGE)
    if not args.out.strip():  # an empty --out would write into the current folder unasked
        raise CliError(f"--out {args.out!r}: give a folder for the board files, e.g. --out gen/", EXIT_USAGE)
    return SearchConfig(size=size, pairs=pairs, count=args.count, seed=args.seed, rounds=args.rounds,
                        time_budget=None if args.rounds is not None else args.time)


class _Bar:
    """One tqdm bar per phase on a terminal, with the ETA the search estimates; nothing when piped."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Any = None
        self.phase = ""

    def __call__(self, p: Any) -> None:
        if not self.enabled:
            return
        from tqdm import tqdm

        if p.phase != self.phase:
            self.close()
            self.phase = p.phase
            if p.phase == "done":
                return
            unit = {"screen": "layout", "measure": "worker"}.get(p.phase, "board")
            self.bar = tqdm(total=max(p.total, 1), unit=unit, leave=False, file=sys.stderr, dynamic_ncols=True,
                            bar_format="{desc}: {n_fmt}/{total_fmt} {unit}s |{bar}| {postfix}")
        if self.bar is not None:
            self.bar.total = max(p.total, 1)
            self.bar.n = min(p.done, self.bar.total)
            self.bar.set_description_str(p.message[:60], refresh=False)
            eta = "" if p.eta is None else f"ETA {int(p.eta) // 60}:{int(p.eta) % 60:02d}"
            best = "" if p.best is None else f"best screen {p.best:.3f}"
            self.bar.set_postfix_str("  ".join(x for x in (eta, best) if x), refresh=False)
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _components(args: argparse.Namespace, cfg: SearchConfig, level: str) -> tuple[Any, Any, Any, Any]:
    """The screen, the judge, the pool and the dask session (or None) a run uses."""
    from core.generate.evaluate import AnalysisEvaluator, ScreenEvaluator
    from core.generate.pool import BoardPool, ExecutorPool, RunnerPool

    session: Any = None
    pool: BoardPool
    if args.cluster:
        from core.selfplay.cluster import ClusterError, DaskSession, parse_cluster

        try:
            session = DaskSession(parse_cluster(args.cluster))
        except ClusterError as exc:
            raise CliError(f"--cluster: {exc}", EXIT_USAGE) from None
        pool = ExecutorPool(session.executor, session.worker_count())
    else:
        pool = RunnerPool(workers=args.workers)
    return ScreenEvaluator(seed=cfg.seed), AnalysisEvaluator(level=level, seed=cfg.seed), pool, session


def run(args: argparse.Namespace) -> int:
    started = _clock()
    cfg = _config(args)
    from core.generate.evaluate import DEFAULT_LEVEL
    from core.generate.output import OutputError, missing_folders, prepare_out_dir, remove_if_empty

    try:
        level = resolve_level(args.level) if args.level is not None else DEFAULT_LEVEL
    except LevelError as exc:
        raise CliError(f"--level: {exc}", EXIT_USAGE) from None
    created = missing_folders(args.out)
    try:
        planned = prepare_out_dir(args.out, cfg.seed, cfg.count, args.force)
    except OutputError as exc:
        raise _output_error(exc) from None
    try:
        return _search(args, cfg, level, planned, started)
    finally:
        remove_if_empty(created)  # a refused, failed or fruitless run leaves no empty --out folder behind


def _output_error(exc: Exception) -> CliError:
    if is_disk_full(exc):
        return CliError(disk_full_message(str(exc).split(": ", 1)[0]), EXIT_DISK_FULL)
    return CliError(str(exc), EXIT_USAGE)


def _search(args: argparse.Namespace, cfg: SearchConfig, level: str, planned: list[Any], started: float) -> int:
    from core.generate.output import OutputError, search_info, write_results
    from core.generate.plan import BudgetTooSmall
    from core.generate.search import generate

    clock = _clock
    screen, judge, pool, session = _components(args, cfg, level)
    bar = _Bar(sys.stderr.isatty())

    def stop() -> None:
        bar.close()
        pool.close()
        if session is not None:
            session.close()

    interrupted = False
    too_short: BudgetTooSmall | None = None
    startup = clock() - started
    if cfg.time_budget is not None:  # --time counts from the command's start
        cfg = replace(cfg, time_budget=max(1e-3, cfg.time_budget - startup))
    try:
        result = generate(cfg, screen, pool, judge=judge, progress=bar, clock=clock)
    except (KeyboardInterrupt, GenerateCancelled):
        # the pool is closed below, once the interrupted frames (which still hold its queues) are released,
        # so its semaphores are freed before `lits` leaves with os._exit and nothing warns about them
        interrupted = True
    except BudgetTooSmall as exc:
        too_short = exc
    except BaseException:
        stop()
        raise
    stop()
    if interrupted:
        raise CliError("interrupted", EXIT_INTERRUPTED)
    if too_short is not None:
        return _too_short(args, level, too_short, startup)
    chosen = result.balanced()[: cfg.count]
    skills: list[dict[str, Any]] | None = None
    if getattr(args, "prefer", "score") == "skill" and result.balanced():
        chosen, skills = _by_skill(args, cfg, result.balanced())
    search = search_info(result, level)
    if skills is not None:
        search["prefer"] = "skill"
    try:
        entries = write_results(chosen, planned, cfg.seed, search, skills)
    except OutputError as exc:
        raise _output_error(exc) from None
    removed = _remove_earlier(args.out, cfg.seed, len(entries)) if args.force and entries else []
    timed = args.rounds is None
    if args.json:
        print(json.dumps({"boards": entries, "requested": cfg.count, "level": level, "seed": cfg.seed,
                          "time_budget": args.time if timed else None,
                          **{k: v for k, v in search.items() if k != "level"},
                          "judged": [_judged(c) for c in result.candidates]}, indent=2))
    else:
        repeat = (f"a --time run depends on this machine's speed; --seed {cfg.seed} --rounds {result.rounds} "
                  "screens the same layouts without a time limit" if timed
                  else f"repeat exactly: --seed {cfg.seed} --rounds {result.rounds}")
        print(f"{len(entries)} of {cfg.count} boards balanced at {level}: {result.screened} layouts screened in "
              f"{result.rounds} rounds, {len(result.candidates)} judged, {result.elapsed + startup:.0f} s "
              f"({repeat})")
        for e in entries:
            print(f"  {e['file']}: {e['verdict']}, score {e['score']:.3f}, {len(e['fair_openings'])} fair openings, "
                  f"{e['pairs']} pairs")
    if result.cut:
        print(f"lits generate: the --time deadline cancelled work still running; the {len(result.candidates)} "
              "finalists judged before it were kept", file=sys.stderr)
    if len(entries) < cfg.count:
        hint = ("give more --time (each finalist then gets a longer analysis), a weaker --level or a wider --pairs "
                "range for more" if timed else "give more --rounds or a wider --pairs range for more")
        print(f"lits generate: {len(entries)} of the {cfg.count} boards asked for: {len(result.balanced())} of the "
              f"{len(result.candidates)} finalists judged are balanced at {level}; {hint}", file=sys.stderr)
    if removed:
        print(f"lits generate: removed the earlier run's {', '.join(removed)} from {args.out} (--force): this run "
              f"wrote {len(entries)} board{'' if len(entries) == 1 else 's'} with --seed {cfg.seed}", file=sys.stderr)
    return EXIT_OK if entries else EXIT_PROBLEMS


def _by_skill(args: argparse.Namespace, cfg: SearchConfig, balanced: list[Any]) -> tuple[list[Any], list[dict[
        str, Any]]]:
    """Every balanced finalist's card skill figure (seeded by --seed), the most skilful --count of them first."""
    from core.generate.prefer import by_skill, card_skill
    from core.selfplay.runner import RunCancelled

    def on_board(done: int, total: int) -> None:
        if sys.stderr.isatty() and not args.json:
            print(f"\rskill figure: {done} of {total} balanced boards measured", end="", file=sys.stderr,
                  flush=True)

    try:
        ranked = by_skill(balanced, card_skill(cfg.seed, args.workers), on_board)
    except (KeyboardInterrupt, RunCancelled):
        raise CliError("interrupted", EXIT_INTERRUPTED) from None
    if sys.stderr.isatty() and not args.json:
        print(file=sys.stderr)
    kept = ranked[: cfg.count]
    return [c for c, _s in kept], [s for _c, s in kept]


def _remove_earlier(out: str, seed: int, written: int) -> list[str]:
    """Remove the files of an earlier run with ``seed`` ranked beyond the ``written`` boards of this one (--force):
    left in place, they would pass for this run's.  Returns their names; one that cannot be removed is kept."""
    pattern = re.compile(rf"gen-s{re.escape(str(seed))}-([1-9][0-9]*)\.(?:yaml|json)")
    removed: list[str] = []
    for path in sorted(Path(out).iterdir()):
        match = pattern.fullmatch(path.name)
        if match is None or int(match.group(1)) <= written or not path.is_file():
            continue
        try:
            path.unlink()
        except OSError:
            continue
        removed.append(path.name)
    return removed


def _too_short(args: argparse.Namespace, level: str, exc: Any, startup: float) -> int:
    """--time cannot judge one finalist at --level: say so with the budget that would (exit 2, nothing written)."""
    minimum = None if exc.minimum is None else int(10 * math.ceil((exc.minimum + startup) / 10))
    if minimum is not None and minimum > MAX_TIME:  # a --time above the limit would be refused in turn
        advice = (f"it would need --time {minimum}, more than the {MAX_TIME:g} s (a day) --time allows: give a weaker "
                  "--level or a smaller --size")
    else:
        advice = "give a longer --time" if minimum is None else f"give --time {minimum} or more"
        if exc.level_bound:
            advice += ", or a weaker --level"
    if args.json:
        # typical_time: the minimum now is the budget for a typical verdict's time (kept for older scripts)
        print(json.dumps({"boards": [], "requested": args.count, "level": level, "time_budget": args.time,
                          "too_short": {"minimum_time": minimum, "typical_time": minimum, "reason": exc.detail}},
                         indent=2))
    print(f"lits generate: --time {args.time:g} is too short for --level {level} on this machine now: "
          f"{exc.detail}; {advice}", file=sys.stderr)
    return EXIT_USAGE


def _judged(c: Any) -> dict[str, Any]:
    f = c.figures
    return {"verdict": f.verdict, "score": round(c.score, 4), "pairs": c.pairs,
            "fair_openings": f.fair_openings, "grid": c.board.rows()}
