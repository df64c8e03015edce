"""``lits analyze``: self-play balance analysis of a board, with a verdict that rests on the pie rule.

Every ``lits`` command imports this module to build ``--help``, so at import it loads only
the plain-Python config and agent specs; the engine (numpy, numba, scipy, matplotlib) is
imported by the handler when an analysis really runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

from core.agents.spec import FIXED_WORK_HELP, SPEC_HELP, AgentSpecError, parse_agent, reproducible
from core.analysis.config import (
    AB_JUDGE,
    CHECK_AGENT,
    CHECK_FROM,
    CHECK_RULE_CHOICES,
    DEFAULT_EFFORT,
    EFFORTS,
    FAIR_BAND,
    FIRM_CHECK_GAMES,
    JUDGE_SEPARATOR,
    MIN_TIME,
    QUICK,
    AnalysisCancelled,
    AnalysisConfig,
    AnalysisProgress,
)
from core.analysis.hostwords import eta_words
from core.cli import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    CliError,
    cannot_write,
    load_board_arg,
)
from core.selfplay.cluster import CLUSTER_HELP

if TYPE_CHECKING:
    from core.analysis.results import AnalysisReport
    from core.board.model import Board


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    defaults = AnalysisConfig.from_effort()
    p = subparsers.add_parser(
        "analyze",
        help="is this board lopsided? self-play statistics and a pie-rule verdict",
        description="Play the board against itself with seeded agents on all cores and decide whether it is "
                    "balanced: enough first placements must keep the game within "
                    f"{FAIR_BAND[0]:.0%}-{FAIR_BAND[1]:.0%} for the first player, so that the pie rule makes the "
                    "swap a real decision. The raw first-player advantage is shown beside the verdict. The "
                    "work is fixed by --effort, never by the clock: the same board, settings and --seed give the "
                    "same verdict and figures on any machine, at any load, on any number of workers. A board "
                    "that is not valid for a match is refused unless --force is given.",
    )
    p.add_argument("board", metavar="BOARD", help="board file (YAML)")
    p.add_argument("--agent", action="append", metavar="SPEC", dest="agents",
                   help=f"agent to play with, repeatable; {SPEC_HELP} (default: {' and '.join(defaults.agents)}); "
                        f"the strongest one decides the verdict; {FIXED_WORK_HELP}")
    p.add_argument("--deciding-agent", metavar="SPEC", default="",
                   help="the agent whose games decide every opening's status and the verdict (default: the "
                        "strongest --agent); the verdict says which strength it holds for")
    p.add_argument("--check", metavar="SPEC", action="append", default=None,
                   help=f"a judge, repeatable: every opening the deciding agent shows fair is played up to "
                        f"{defaults.check_games} more times by each judge in turn (a sequential test stops once it "
                        "can tell: about 30 games for an even opening; an opening at 50%% for a judge is disputed "
                        "0.2%% of the time, at 70%% 39%%, at 80%% 93%%) and counts as fair only if no judge shows it "
                        "one-sided; judges of other search families guard against one engine's blind spots "
                        f"(default: {CHECK_AGENT}, and with --effort thorough {AB_JUDGE} too, when the deciding agent "
                        f"is a puct search at least as strong as {CHECK_FROM}, as by default; none = no judges; "
                        "--quick skips them)")
    p.add_argument("--check-rule", choices=CHECK_RULE_CHOICES, default="auto",
                   help=f"the check's test: standard (up to {defaults.check_games} games: disputes openings the "
                        f"check agent clearly finds one-sided) or firm (up to {FIRM_CHECK_GAMES} games: also "
                        "disputes openings it finds at about 65-70%%, at twice the cost); auto (the default) is "
                        "firm with --effort thorough, else standard")
    p.add_argument("--effort", choices=tuple(EFFORTS), default=None,
                   help="how much work decides the verdict: "
                        + "; ".join(f"{e.name}: {e.summary}" for e in EFFORTS.values())
                        + f" (default {DEFAULT_EFFORT})")
    p.add_argument("--games", type=int, default=None, metavar="N",
                   help=f"cap on games per question: per opening and per raw run (default {defaults.games}; the "
                        f"deciding agent's openings {defaults.opening_cap})")
    p.add_argument("--time", type=float, default=None, metavar="SECONDS", dest="time_budget",
                   help="an optional time cap: the run stops when it is reached, and the result then says it was "
                        "cut and depends on the machine's speed (without it, the default, the same --seed always "
                        f"gives the same result; at least {MIN_TIME:g})")
    p.add_argument("--race", type=int, default=None, metavar="N",
                   help="openings the deciding search agent keeps in play side by side (default: "
                        f"{EFFORTS[DEFAULT_EFFORT].race}, with --quick {QUICK.race}); 1 plays them one at a time, as "
                        "a report whose config has no race was made, so that seed gives that report again")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="master seed (default 0)")
    p.add_argument("--workers", type=int, default=0, metavar="K", help="worker processes (default 0 = all cores)")
    p.add_argument("--quick", action="store_true",
                   help=f"the same as --effort quick: a first look, searches capped at {QUICK.sims_cap} "
                        f"simulations, at most {QUICK.games} games per opening and {QUICK.pie_games} for the pie "
                        "phase, no cross-check; run without it for the verdict you publish")
    p.add_argument("--json", action="store_true", help="print one JSON object for machines")
    p.add_argument("--report", metavar="FILE", help="write a Markdown report with PNG charts beside it")
    p.add_argument("--force", action="store_true",
                   help="analyse a board that is not valid for a match (e.g. broken anti-symmetry) as it is")
    p.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)
    p.set_defaults(func=run)


class _Bars:
    """Progress on the terminal, on standard error.

    The analysis is one bar over the whole run (``AnalysisProgress.overall``: it only moves forward, whatever
    stage is playing), with the ETA first and the stage after it, cut to the terminal's width so the ETA is never
    cut; ``whole_run=False`` (``lits openings``) keeps one bar per stage.  The one-time compile of the engine is
    announced on a line of its own before any bar, and every line is written between bars, never glued to one.
    When output is piped, only the compile's two lines (the estimate, then what it took), so a wait of a minute is
    never silent."""

    WIDTH = 1000
    """The whole-run bar counts thousandths of the run."""

    def __init__(self, enabled: bool, whole_run: bool = True, stream: TextIO | None = None,
                 columns: int | None = None) -> None:
        self.enabled = enabled
        self.whole_run = whole_run
        self.stream = stream
        self.columns = columns
        self.bar: Any = None
        self.key: tuple[str, str] | None = None
        self.announced = False
        self.compiled = False

    @property
    def out(self) -> TextIO:
        return self.stream if self.stream is not None else sys.stderr

    def width(self) -> int:
        import shutil

        return self.columns or shutil.get_terminal_size((80, 24)).columns

    def say(self, line: str) -> None:
        """A line of its own: the bar is taken off first (and drawn again at its next report)."""
        self.close()
        print(line, file=self.out, flush=True)

    def __call__(self, p: AnalysisProgress) -> None:
        if p.phase == "compile":
            self.compile(p)
            return
        if not self.enabled:
            return
        if self.whole_run:
            self.run_bar(p)
        else:
            self.stage_bar(p)

    def compile(self, p: AnalysisProgress) -> None:
        if p.done < p.total and not self.announced:
            self.announced = True
            self.say(f"{p.message}; the analysis and any --time cap start once it is ready")
        if p.done >= p.total and not self.compiled:
            self.compiled = True
            self.say(p.message)  # the estimate was a guess: the last report says what the wait was
            return
        if self.enabled and p.done < p.total:
            self.draw(f"compiling: {eta_words(p.eta) or 'the engine'}", p.done, p.total)

    def run_bar(self, p: AnalysisProgress) -> None:
        from core.analysis.hostwords import progress_words

        if self.key != ("run", ""):
            self.close()
            self.key = ("run", "")
        eta = eta_words(p.eta) if p.phase != "done" else "done"
        stage = progress_words(p)
        self.draw(f"{eta} · {stage}" if eta else stage, round(p.overall * self.WIDTH), self.WIDTH)

    def draw(self, text: str, n: int, total: int) -> None:
        """The bar as ``NN%|####    | text``, the text cut to fit the terminal (the ETA leads it, so it stays)."""
        from tqdm import tqdm

        columns = self.width()
        room = max(10, columns - 25)
        desc = text if len(text) <= room else text[:room - 1] + "…"
        if self.bar is None:
            self.bar = tqdm(total=max(total, 1), initial=min(n, max(total, 1)), desc=desc, file=self.out,
                            bar_format="{percentage:3.0f}%|{bar}| {desc}", ncols=columns, leave=False)
            return
        self.bar.total = max(total, 1)
        self.bar.n = min(n, max(total, 1))
        self.bar.set_description_str(desc, refresh=False)
        self.bar.refresh()

    def stage_bar(self, p: AnalysisProgress) -> None:
        from tqdm import tqdm

        key = (p.phase, p.message)
        if key != self.key:
            self.close()
            self.key = key
            unit = {"screen": "opening", "start": "step", "done": "step"}.get(p.phase, "game")
            self.bar = tqdm(total=max(p.total, 1), desc=p.message[:70], unit=unit, leave=False, file=self.out,
                            dynamic_ncols=True)
        if self.bar is not None:
            self.bar.total = max(p.total, 1)
            self.bar.n = p.done
            if p.eta is not None:
                self.bar.set_postfix_str(eta_words(p.eta), refresh=False)
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        self.key = None


def _config(args: argparse.Namespace) -> AnalysisConfig:
    effort = args.effort or (QUICK.name if args.quick else DEFAULT_EFFORT)
    if args.quick and args.effort not in (None, QUICK.name):
        raise CliError(f"--quick is --effort quick; it cannot be combined with --effort {args.effort}", EXIT_USAGE)
    overrides: dict[str, Any] = {"seed": args.seed, "workers": args.workers}
    if args.games is not None:
        overrides["games"] = args.games
        overrides["decider_games"] = args.games
    if args.race is not None:
        overrides["race"] = args.race
    cfg = AnalysisConfig.from_effort(effort, **overrides)
    if args.time_budget is not None:
        cfg.time_budget = args.time_budget
    problem = cfg.limit_problem(option=True)  # games, race, workers and time: checked once, in the config's words
    if problem is not None:
        raise CliError(problem, EXIT_USAGE)
    if args.agents:
        try:
            cfg.agents = [reproducible(a) for a in args.agents]
        except AgentSpecError as exc:
            raise CliError(str(exc), EXIT_USAGE) from None
    if args.deciding_agent:
        try:
            cfg.deciding_agent = reproducible(args.deciding_agent)
        except AgentSpecError as exc:
            raise CliError(str(exc), EXIT_USAGE) from None
        if cfg.deciding_agent not in {parse_agent(a).text for a in cfg.agents}:
            raise CliError(f"--deciding-agent {args.deciding_agent}: it must be one of the agents played "
                           f"({', '.join(cfg.agents)}); add it with --agent", EXIT_USAGE)
    if args.check is not None:
        if any(c.strip().lower() == "none" for c in args.check):
            cfg.check_agent = ""
        else:
            try:
                cfg.check_agent = JUDGE_SEPARATOR.join(reproducible(c) for c in args.check)
            except AgentSpecError as exc:
                raise CliError(f"--check: {exc}", EXIT_USAGE) from None
    cfg.check_rule = args.check_rule
    return cfg


def _refuse_invalid(board: Board, path: str) -> None:
    """A board that breaks the match rules would be analysed as something no match can play."""
    from core.board.validation import Severity, validate

    errors = [p.message for p in validate(board) if p.severity is Severity.ERROR]
    if errors:
        extra = len(errors) - 1
        more = (f" (and {extra} more problem{'' if extra == 1 else 's'}; lits validate {path} lists them)"
                if extra else "")
        raise CliError(f"{path}: the board is not valid for a match: {errors[0]}{more}; fix it, or pass --force "
                       "to analyse it as it is", EXIT_PROBLEMS)


def analyze(board: Board, cfg: AnalysisConfig, progress: _Bars, cluster: str | None = None) -> AnalysisReport:
    """The engine's analysis, imported on first use: it loads numpy, the statistics and the worker pool."""
    from core.analysis.run import analyze as run_analysis
    from core.selfplay.cluster import ClusterError, cluster_executor

    try:
        with cluster_executor(cluster) as (executor, workers):
            return run_analysis(board, cfg, progress=progress, executor=executor, executor_workers=workers)
    except ClusterError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None


def run(args: argparse.Namespace) -> int:
    cfg = _config(args)
    board = load_board_arg(args.board)
    if not args.force:
        _refuse_invalid(board, args.board)
    if args.report:
        from core.analysis.report import check_report_path

        try:
            check_report_path(args.report)
        except ValueError as exc:
            raise CliError(str(exc), EXIT_USAGE) from None
    bars = _Bars(sys.stderr.isatty())
    try:
        report = analyze(board, cfg, progress=bars, cluster=args.cluster)
    except AnalysisCancelled:
        raise CliError("cancelled", EXIT_INTERRUPTED) from None
    finally:
        bars.close()
    # the verdict first: a report that cannot be written (a full disk) must not throw the finished run away
    if args.json:
        data = report.to_json()
        data["board_file"] = args.board
        if args.report:
            from core.analysis.report import report_files

            data["report_files"] = report_files(args.report)
        print(json.dumps(data, indent=2), flush=True)
    else:
        print(format_text(report, args.board), flush=True)
    if args.report:
        for f in write_report_files(report, args.report, board):
            if not args.json:
                print(f"wrote {f}")
    return EXIT_OK


def write_report_files(report: AnalysisReport, path: str, board: Board) -> list[str]:
    """The Markdown report and its charts, after the verdict is out; a file that cannot be written is named, the
    charts already written for it are removed (no half report is left), and the verdict printed stands."""
    import contextlib
    import os

    from core.analysis.report import ReportWriteError, write_report

    try:
        return write_report(report, path, board)
    except ReportWriteError as exc:
        for f in exc.written:
            with contextlib.suppress(OSError):
                os.remove(f)
        problem = cannot_write(exc.path, exc.cause)
        raise CliError(f"{problem.message}; the report {path} was not written (the verdict above is complete)",
                       problem.code) from None


def format_text(report: AnalysisReport, path: str) -> str:
    """The human summary: verdict first, then why, then the figures beside it, and the next step last.  Each word
    of :mod:`core.analysis.glossary` says what it stands for where it is first used, an agent spec what kind of
    player it is; a figure of no games is said in words, never as a rate."""
    from core.analysis.glossary import (
        CLOSEST,
        COPYCAT,
        JUDGE,
        LIKELY,
        NO_SWAP,
        S1,
        defined,
        opening_term,
        opening_words,
    )
    from core.analysis.hostwords import describe_agent
    from core.analysis.results import fair_band, pct

    cfg = report.config
    budget = report.budget
    band = fair_band(report)
    cap = f", time cap {cfg.time_budget:g} s" if cfg.time_budget else ""
    firm = f" (firm, up to {report.pie.check_limit} games)" if report.pie.check_rule == "firm" else ""
    judged = " and ".join(f"{j}, {describe_agent(j)}" for j in report.pie.judges)
    checked = f", checked by {judged}{firm}" if report.pie.judges else ""
    lines = [f"{path}: {report.verdict.upper()} for {report.agent} play (decided by {report.agent}, "
             f"{describe_agent(report.agent)}{checked}; effort {budget.effort}, seed {cfg.seed}{cap}; "
             f"{f'{budget.games_done} games' if budget.games_done else 'no games played'}, {report.elapsed:.0f} s)",
             f"  {defined(S1)}; here S1 places {report.s1_symbol}"]
    lines += [f"  - {r}" for r in report.reasons]
    for w in report.warnings:
        lines.append(f"  warning: {w}")
    pie = report.pie
    closest = ("" if pie.value is None
               else f"; {CLOSEST.word}: the weaker side wins {pct(pie.value)} (50% is a perfectly even game)")
    judges = f"; a {JUDGE.word}: {JUDGE.meaning}" if pie.judges else ""
    lines.append(f"Openings played out: {len(pie.fair)} shown fair of {pie.tested}, chosen from {pie.screened} "
                 f"legal first placements by a quick estimate{closest}{judges}:")
    classes = []
    for o in pie.openings:
        low, high = o.ci95
        words = opening_words(o.status, o.abandoned, o.disputed, o.v, (low, high), band)
        classes.append(opening_term(o.status, o.abandoned, o.disputed, (low, high), band))
        lines.append(f"  {' '.join(o.names):<16} S1 {pct(o.v):>4} [{pct(low)}-{pct(high)}] "
                     f"{o.games:>4} games  {words}")
    if pie.openings:
        lines += [f"  ({defined(term)})" for term in (LIKELY, *dict.fromkeys(classes))]
    lines.append(f"{NO_SWAP.word.capitalize()}: {NO_SWAP.meaning}:")
    for name, res in report.per_agent.items():
        raw = res.raw
        if not raw.games:
            lines.append(f"  {name:<12} no games were played (the time cap came first); for {name} play the openings "
                         f"say {res.verdict}")
            continue
        low, high = raw.ci95
        m = raw.margin
        mirror = (f"a {COPYCAT.word} S2 (answering each move with its 180-degree image) wins "
                  f"{pct(raw.mirror_win_rate)} of {raw.mirror_games}" if raw.mirror_games else "no copycat games")
        lines.append(f"  {name:<12} S1 wins {pct(raw.s1_win_rate)} [{pct(low)}-{pct(high)}] of {raw.games}; "
                     f"{pct(raw.tie_break_share)} end level (the last player to place wins the tie); S1 ends "
                     f"{m.mean:+.2f} symbols ahead on average; {raw.mean_length:.1f} pieces a game; {mirror}; "
                     f"for {name} play the openings say {res.verdict}")
    if cfg.quick:  # the headline reads like a verdict to publish: say it is not, where the host looks last
        lines.append(f"A quick look only ({report.agent} play, no cross-check): never publish it; "
                     f"`lits analyze {path}` gives the verdict to publish.")
    else:
        lines.append(f"Next step: {next_step(report, path)}")
    return "\n".join(lines)


def next_step(report: AnalysisReport, path: str) -> str:
    """What the host does with this verdict (a full analysis's; a quick look's is the full analysis)."""
    if report.verdict == "balanced":
        return (f"seal it for a season: `lits seal {path} --season NAME --out FOLDER` (play-test it first in the "
                "designer if you like).")
    if report.verdict == "lopsided":
        best = report.pie.best
        near = f" near {best.names[0]}, where the closest-to-even opening lies," if best is not None else ""
        return f"move symbols{near} and analyse again: the swap rule cannot even this board out."
    if report.budget.stopped_by_time:
        return "your time cap stopped the run: analyse again without --time for a verdict anyone can reproduce."
    if report.budget.effort == "standard":
        return ("the standard effort did not decide it: try `--effort thorough` (more play, at expert strength), or "
                "adjust the board and analyse again.")
    return "adjust the board, or give the analysis more work (--effort), and analyse again."
