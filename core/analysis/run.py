"""Is this board lopsided? One analysis run: the screen, then per agent the raw games, the mirror probe
and the pie phase, then the verdict.

The raw seat advantage (S1's win rate with the same agent in both seats) grows with
agent strength, so it is reported as information only.  The verdict asks the pie-rule
question instead: is there a first placement after which the game is close to even?
Every opening gets a short MCTS search (the screen); candidates are then played out with
each agent, chosen by calibrating the screen against the results so far
(``core.analysis.candidates``; for a search agent the screen's nearest to even first get a
deeper guided search, :func:`refine`, and that is calibrated instead), each decided by the
SPRT pair (fair / unfair / undecided at the cap), and the board is ``balanced`` when enough
distinct openings are shown fair (``core.analysis.verdict``).  The limits and budgets are in ``core.analysis.config``.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from core.agents.spec import AgentSpec, parse_agent
from core.analysis.candidates import CandidatePicker
from core.analysis.config import (
    CHEAP_BATCH,
    PIE_GAMES_PER_FAIR,
    RACE_BATCH,
    RACE_FAR,
    RACE_FIRST,
    RACE_OPTIMISM,
    REFINE_BATCH,
    REFINE_ROUNDS,
    SCREEN_TASKS,
    AnalysisCancelled,
    AnalysisConfig,
    AnalysisProgress,
    SeedPhase,
    screen_sims_for,
)
from core.analysis.results import (
    AgentResult,
    AnalysisReport,
    BudgetRecord,
    CheckResult,
    FloatGrid,
    ModelUse,
    OpeningResult,
    OpeningStatus,
    PieResult,
    RawResult,
    ci_pct,
    pct,
)
from core.analysis.stats import SprtPair, pair_expected_remaining
from core.analysis.verdict import (
    check_outcome,
    check_pair,
    decide,
    enough_fair,
    fair_missing,
    futile,
    lopsided_possible,
    side_warnings,
    sprt_pair,
)
from core.board.geometry import cell_name
from core.board.model import PIECE_TYPES, Board, Symbol
from core.board.validation import Severity, validate
from core.engine.pieces import placement_table
from core.selfplay.runner import CompileClock, RunCancelled, Runner
from core.selfplay.tasks import BoardSpec, GameResult, GameTask, derive_seed
from core.selfplay.worker import play_games, predict_openings, refine_openings, screen_openings

ProgressFn = Callable[[AnalysisProgress], None]
Clock = Callable[[], float]


class Session:
    """One analysis run: the pool, the progress reporting, the optional time cap and the cancel checks."""

    def __init__(self, board: Board, cfg: AnalysisConfig, progress: ProgressFn | None,
                 cancel: threading.Event | None, executor: cf.Executor | None = None,
                 executor_workers: int = 0, clock: Clock = time.monotonic) -> None:
        self.clock = clock
        self.started = clock()
        self.deadline: float | None = None
        """When the host's time cap (``--time``) ends the run; set once the engine is ready (see :meth:`begin`)."""
        self.out_of_time = False
        self.sec_per_game: dict[str, float] = {}
        """Wall seconds per game of each agent, measured on its games so far (for the ETA only)."""
        self._timed: dict[str, tuple[float, int]] = {}
        """Per agent, the seconds and games of its finished calls to :meth:`play` (for its speed)."""
        self.games_done = 0
        self.plan = Plan()
        self.board = board
        self.spec = BoardSpec.from_board(board)
        self.cfg = cfg
        self.progress = progress
        self.cancel = cancel
        if executor is None:
            self.runner = Runner(workers=cfg.workers, inline=cfg.inline)
        else:  # a cluster: as many games in flight as it has worker threads
            self.runner = Runner(workers=max(1, executor_workers), executor=executor)
        self.table = placement_table(board.size)
        self._compile = CompileClock()
        self._compile_message = ""
        self.overall = 0.0
        """The share of the run reported last (:meth:`share`)."""
        self.predicted: FloatGrid | None = None
        """The opening predictor's S1 chance per placement (None: no model for this board)."""
        self.model: ModelUse = ModelUse(None, "")

    def begin(self) -> None:
        """The engine is ready in every worker: only now does the time cap start, so compiling the engine (the
        first run after installing) or starting the workers is never charged to an analysis."""
        self.started = self.clock()
        if self.cfg.time_budget > 0:
            self.deadline = self.started + self.cfg.time_budget

    def warming(self, done: int, total: int, compiled: bool) -> None:
        """The first worker's warm-up steps: silent when the kernels come from the disk cache, a progress
        report with a time estimate when they have to be compiled (the first run)."""
        estimate = self._compile.step(done, total, compiled)
        if estimate is None:
            return
        if not self._compile_message:
            self._compile_message = compile_message(estimate)
        if done >= total:  # the estimate was a guess: the last report says what the compile took
            message = f"the engine is compiled ({self._compile.elapsed():.0f} s); the analysis starts now"
            self.report("compile", done, total, message)
            return
        self.report("compile", done, total, self._compile_message)

    def report(self, phase: str, done: int, total: int, message: str) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise RunCancelled()
        if self.progress is not None:
            eta = self.eta()
            self.overall = self.share(phase, eta)
            self.progress(AnalysisProgress(phase, done, total, message, eta, self.overall))

    def share(self, phase: str, eta: float | None) -> float:
        """The share of the run done, never less than the last one reported: the time spent against the time spent
        and the ETA (the work left at the measured speeds), and at least the games played of the most the caps
        allow; below 1 until the verdict, since a raised estimate only holds the bar still."""
        if phase == "done":
            return 1.0
        if phase in ("compile", "start"):
            return self.overall
        share = self.overall
        if eta is not None:
            spent = max(0.0, self.clock() - self.started)
            if spent + eta > 0:
                share = max(share, spent / (spent + eta))
        if self.plan.planned:
            share = max(share, self.games_done / self.plan.planned)
        return min(share, 0.99)

    def eta(self) -> float | None:
        """Expected seconds left: the plan's expected games left at each agent's measured speed (None until an
        agent's speed is known); a time cap that comes earlier bounds it."""
        seconds = self.plan.expected_seconds(self.sec_per_game)
        if self.deadline is not None:
            left = max(0.0, self.deadline - self.clock())
            seconds = left if seconds is None else min(seconds, left)
        return seconds

    def timed_out(self) -> bool:
        if self.deadline is not None and self.clock() >= self.deadline:
            self.out_of_time = True
        return self.out_of_time

    def names(self, placement: int) -> list[str]:
        return [cell_name(int(c), self.board.size) for c in self.table.cells[placement]]

    def play(self, tasks: Sequence[GameTask], cheap: bool, phase: str, message: str,
             stop: Callable[[int, GameResult], bool] | None = None, plan_key: str = "",
             counted: tuple[int, int] | None = None) -> list[GameResult]:
        """Play tasks in index order until ``stop`` says so; cheap agents go in batches so process traffic does
        not dominate.  Results are consumed in index order, so where a run stops does not depend on the
        workers' speed; only the host's time cap, when it comes first, makes it depend on the machine.
        ``plan_key`` names a fixed phase whose games left the ETA counts down; ``counted`` = (games before these,
        most in all) makes the progress count a whole phase played in several calls."""
        if not tasks or self.timed_out():
            return []
        agent = tasks[0].s1
        batch = CHEAP_BATCH if cheap else 1
        chunks = [list(tasks[i:i + batch]) for i in range(0, len(tasks), batch)]
        results: list[GameResult] = []
        total = len(tasks)
        t0 = self.clock()
        # An agent's speed counts all its games so far (a race plays many short batches, and one of a single game
        # leaves a worker idle); until the first games in flight are back, the time paid for all of them, not for
        # the few returned (timed by the first result alone, a batch of cheap games made the ETA say 400 s
        # with 1 s left).
        in_flight = min(total, batch * (1 if self.runner.inline else max(1, self.runner.workers)))
        spent_before, played_before = self._timed.get(agent, (0.0, 0))

        def on_chunk(_i: int, chunk: list[GameResult]) -> bool:
            returned = len(results) + len(chunk)  # the clock now covers every game of the chunks back so far
            for r in chunk:
                results.append(r)
                self.games_done += 1
                if plan_key:
                    self.plan.set(plan_key, total - len(results))
                self.sec_per_game[agent] = ((spent_before + self.clock() - t0)
                                            / (played_before + max(returned, in_flight)))
                before, most = counted or (0, total)
                self.report(phase, before + len(results), most, message)
                if stop is not None and stop(len(results) - 1, r):
                    return True
            return self.timed_out()

        self.runner.run(play_games, chunks, on_chunk, self.cancel)
        self._timed[agent] = (spent_before + self.clock() - t0, played_before + len(results))
        return results


class Plan:
    """The work a run has left, for the ETA: per phase its agent and the games it still expects (a fixed phase
    its cap, a sequential one the SPRTs' expected remaining games).  It never steers the run, so it cannot
    change a result."""

    def __init__(self) -> None:
        self.left: dict[str, tuple[str, float]] = {}
        self.planned = 0
        """Most games the run can play (every cap added up): the M of "N of at most M games"."""

    def add(self, key: str, agent: str, expected: float, most: int) -> None:
        self.left[key] = (agent, expected)
        self.planned += most

    def set(self, key: str, expected: float) -> None:
        if key in self.left:
            self.left[key] = (self.left[key][0], max(0.0, expected))

    def expected_seconds(self, rate: dict[str, float]) -> float | None:
        if not rate:
            return None
        return sum(games * rate.get(agent, 0.0) for agent, games in self.left.values())


def _strength(spec: AgentSpec) -> tuple[int, int]:
    return spec.strength


def analyze(board: Board, config: AnalysisConfig, progress: ProgressFn | None = None,
            cancel: threading.Event | None = None, executor: cf.Executor | None = None,
            executor_workers: int = 0, clock: Clock = time.monotonic, worker_nice: int = 0) -> AnalysisReport:
    """Run the whole analysis; raises AnalysisCancelled when ``cancel`` is set (workers are stopped).

    What is played is fixed by the configuration's caps (its effort) and the seed alone: every game's seed is
    derived from (seed, question, game index), results are read in index order, and the sequential tests stop
    at the same game whatever the machine, its load, the worker count or the executor (``executor``, e.g. a dask
    cluster's, see ``core.selfplay.cluster``, replaces this machine's process pool).  Only an optional time cap
    (``time_budget``) can cut a run short, and the report then says so.  ``clock`` measures the cap, the speeds
    and the ETA (tests pass a simulated one).  ``worker_nice`` lowers the priority of the worker processes (the
    designer's, so its window stays responsive; see ``Runner.start``)."""
    config.check()
    cfg = config.effective()
    session = Session(board, cfg, progress, cancel, executor, executor_workers, clock)
    try:
        session.report("start", 0, 1, "starting the worker processes")
        session.runner.start(cancel, progress=session.warming, nice=worker_nice)
        session.begin()
        return _analyze(session)
    except RunCancelled as exc:
        session.runner.terminate()
        raise AnalysisCancelled("analysis cancelled") from exc
    finally:
        session.runner.terminate()


def compile_message(estimate: float) -> str:
    """What the first run says while one worker compiles the engine: the time the whole compile will take
    (:class:`~core.selfplay.runner.CompileClock`), rounded up to 10 s."""
    return f"compiling the engine (once, about {max(10, 10 * math.ceil(estimate / 10))} s)"


def _plan(s: Session, specs: list[AgentSpec], decider: str) -> None:
    """Register every phase's expected games with the ETA's plan, before the first game."""
    cfg = s.cfg
    fair_games = pair_expected_remaining(sprt_pair(cfg), 0.5)
    for spec in specs:
        deciding = spec.text == decider
        raw = cfg.games if spec.cheap else min(cfg.games, cfg.strong_raw_games)
        mirror = cfg.mirror_games if spec.cheap else max(10, cfg.mirror_games // 4)
        budget = _pie_budget(cfg, spec, deciding)
        played = spec.fixed_work().text  # the speeds are measured per agent as its games are played
        s.plan.add(f"raw:{spec.text}", played, raw, raw)
        s.plan.add(f"mirror:{spec.text}", played, mirror, mirror)
        expected = pie_games_left(cfg, cfg.min_fair_openings, 0) if deciding else cfg.min_fair_openings * fair_games
        s.plan.add(f"pie:{spec.text}", played, min(budget, expected), budget)
        if deciding:
            rule = cfg.check_test
            for judge in cfg.checkers:
                s.plan.add(f"check:{judge}", parse_agent(judge).fixed_work().text,
                           cfg.min_fair_openings * rule.games / 2, rule.games * cfg.candidate_limit)


def pie_games_left(cfg: AnalysisConfig, missing: int, since_fair: int) -> float:
    """The deciding games a run still expects to play, for the ETA: for each fair opening still ``missing``, the
    games a raced run measured per fair opening found (:data:`~core.analysis.config.PIE_GAMES_PER_FAIR`), less the
    ``since_fair`` games played since the last one was found, and never fewer than the SPRTs' own expectation.
    One opening at a time (``race`` 1) the SPRTs' expectation alone, as that mode's ETA counts."""
    fair_games = pair_expected_remaining(sprt_pair(cfg), 0.5)
    if cfg.race <= 1:
        return missing * fair_games
    return max(missing * fair_games, missing * PIE_GAMES_PER_FAIR * fair_games - since_fair)


def _pie_budget(cfg: AnalysisConfig, spec: AgentSpec, deciding: bool) -> int:
    """Most pie-phase games of an agent: a cheap one's openings at ``games`` each, a search agent's
    ``pie_budget`` (the deciding agent's may go on to ``candidate_limit`` openings while undecided)."""
    if spec.cheap:
        return cfg.games * cfg.max_candidates
    return cfg.pie_budget


def _analyze(s: Session) -> AnalysisReport:
    cfg = s.cfg
    board = s.board
    specs = sorted((parse_agent(a) for a in dict.fromkeys(cfg.agents)), key=_strength)
    warnings: list[str] = []
    problems = validate(board)
    errors = [p.message for p in problems if p.severity is Severity.ERROR]
    if errors:
        warnings.append(f"the board is not valid for a match ({errors[0]}); figures describe it as it is")

    decider = cfg.decider
    _plan(s, specs, decider)
    screen = screen_all(s)
    _predict(s)
    per_agent: dict[str, AgentResult] = {}
    raw_results: dict[str, list[GameResult]] = {}
    # the deciding agent plays first: a time cap that cuts the run then cuts the figures reported beside the
    # verdict before the verdict itself
    for spec in [sp for sp in specs if sp.text == decider] + [sp for sp in specs if sp.text != decider]:
        deciding = spec.text == decider
        raw, games = _raw(s, spec)
        raw_results[spec.text] = games
        raw = _mirror(s, spec, raw)
        pie = _pie(s, spec, screen, deciding)
        verdict, reasons = decide(pie, cfg)
        per_agent[spec.text] = AgentResult(spec.text, verdict, reasons, raw, pie)
    per_agent = {sp.text: per_agent[sp.text] for sp in specs}  # weakest first, as before

    main = per_agent[decider]
    verdict, reasons = main.verdict, list(main.reasons)
    budget = BudgetRecord(effort=cfg.effort.name, time_cap=cfg.time_budget, stopped_by_time=s.out_of_time,
                          games_done=s.games_done, games_planned=s.plan.planned)
    if budget.stopped_by_time:
        reasons.append(budget.words())
    if len(specs) > 1:
        reasons.append(f"every opening's status comes from {main.agent} games, the deciding agent; "
                       f"{', '.join(a for a in per_agent if a != main.agent)} only reported beside it")
    warnings += side_warnings(per_agent, main.agent, cfg)
    if not board.params.pie and main.raw.games:
        low, high = main.raw.ci95
        warnings.append(f"this board is played without the pie rule, but the verdict assumes the second player "
                        f"may swap; without it S1 simply wins {pct(main.raw.s1_win_rate)} {ci_pct(low, high)} "
                        f"({main.agent}, raw seat advantage)")
    cov1, cov2, surv = _heatmaps(board, raw_results[main.agent])
    s.report("done", 1, 1, f"verdict: {verdict}")
    return AnalysisReport(
        board_name=board.name, size=board.size, config=cfg, agent=main.agent, verdict=verdict, reasons=reasons,
        warnings=warnings, pie=main.pie, raw=main.raw, per_agent=per_agent, coverage_s1=cov1, coverage_s2=cov2,
        survival=surv, elapsed=s.clock() - s.started, budget=budget, s1_symbol=board.params.first.value,
        screen=screen, model=s.model,
    )


def _predict(s: Session) -> None:
    """The opening predictor's values, shown beside each measured opening (they decide nothing)."""
    out = s.runner.run(predict_openings, [s.spec], cancel=s.cancel)[0]
    if isinstance(out, str):
        s.model = ModelUse(None, out)
    else:
        digest, values = out
        s.predicted = np.array(values, dtype=np.float64)
        s.model = ModelUse(digest, "")


def _screen_list(s: Session, openings: list[int], sims: int, stage: int, message: str) -> FloatGrid:
    per_task = max(8, len(openings) // SCREEN_TASKS + 1)
    items = [(s.spec, tuple(openings[lo:lo + per_task]), sims, derive_seed(s.cfg.seed, SeedPhase.SCREEN, stage, i))
             for i, lo in enumerate(range(0, len(openings), per_task))]
    parts: list[FloatGrid] = []

    def on(_i: int, vals: FloatGrid) -> bool:
        parts.append(vals)
        s.report("screen", sum(len(v) for v in parts), len(openings), message)
        return False

    s.runner.run(screen_openings, items, on, s.cancel)
    return np.concatenate(parts) if parts else np.zeros(0)


def screen_all(s: Session) -> FloatGrid:
    """Estimated P(S1 wins | opening) for every placement (-1 where illegal), from a short search each."""
    cfg = s.cfg
    count = s.table.count
    sims = screen_sims_for(cfg.screen_sims, count)
    return _screen_list(s, list(range(count)), sims, 0,
                        f"screening {count} openings with a {sims}-simulation search each")


def _raw(s: Session, spec: AgentSpec) -> tuple[RawResult, list[GameResult]]:
    cfg = s.cfg
    cap = cfg.games if spec.cheap else min(cfg.games, cfg.strong_raw_games)
    played = spec.fixed_work().text
    tasks = [GameTask(s.spec, derive_seed(cfg.seed, SeedPhase.RAW, spec.key, i), played, played,
                      pie=s.board.params.pie)
             for i in range(cap)]
    pair = sprt_pair(cfg)

    def track(_i: int, r: GameResult) -> bool:
        pair.update(r.s1_won)  # the SPRT class is information here; all games are kept for the heatmaps
        return False

    res = s.play(tasks, spec.cheap, "raw", f"{spec.text}: raw seat advantage (same agent both seats)", track,
                 plan_key=f"raw:{spec.text}")
    raw = _fill_raw(s, RawResult(agent=spec.text, games=len(res), s1_wins=sum(r.s1_won for r in res),
                                 sprt=pair.status), res)
    return raw, res


def _fill_raw(s: Session, raw: RawResult, res: list[GameResult]) -> RawResult:
    turns = sum(r.legal_turns for r in res)
    # a type the board does not supply at all cannot run out; it is left out rather than shown as 100%
    supply = s.board.params.supply
    openings = Counter(r.moves[0] for r in res if r.moves)
    swaps = Counter(r.moves[0] for r in res if r.moves and r.swapped)
    return replace(
        raw, tie_breaks=sum(r.tie_break for r in res), margins=[r.s1_score - r.s2_score for r in res],
        lengths=[r.length for r in res],
        legal_per_turn=sum(r.legal_sum for r in res) / turns if turns else math.nan,
        runout={t: (sum(r.runout[i] for r in res) / len(res) if res else math.nan)
                for i, t in enumerate(PIECE_TYPES) if supply[i] > 0},
        swaps=sum(r.swapped for r in res),
        # the swapper takes over S1's seat, so a swapper wins when S1 wins
        swapper_wins=sum(r.swapped and r.s1_won for r in res), distinct_games=len({r.moves for r in res}),
        common_openings=[(s.names(p), n, swaps[p]) for p, n in openings.most_common(3)])


def _mirror(s: Session, spec: AgentSpec, raw: RawResult) -> RawResult:
    cfg = s.cfg
    n = cfg.mirror_games if spec.cheap else max(10, cfg.mirror_games // 4)
    played = spec.fixed_work().text
    tasks = [GameTask(s.spec, derive_seed(cfg.seed, SeedPhase.MIRROR, spec.key, i), played, played, mirror=True)
             for i in range(n)]
    res = s.play(tasks, spec.cheap, "mirror", f"{spec.text}: mirror probe (S2 answers with the 180-degree image)",
                 plan_key=f"mirror:{spec.text}")
    return replace(raw, mirror_games=len(res), mirror_full=sum(r.mirror_all for r in res),
                   mirror_wins=sum(not r.s1_won for r in res),
                   mirror_full_wins=sum(r.mirror_all and not r.s1_won for r in res))


def _pie(s: Session, spec: AgentSpec, screen: FloatGrid, deciding: bool = False) -> PieResult:
    """Play out candidates until enough are shown fair or the work budget is spent.

    The deciding agent plays each opening up to ``cfg.opening_cap`` games (its SPRT pair decides nearly every
    opening well before) and, while the verdict is undecided, goes on past ``max_candidates`` to at most
    ``candidate_limit`` openings, within ``pie_budget`` games in all.
    """
    cfg = s.cfg
    pie = PieResult(agent=spec.text, screened=int(np.sum(screen >= 0)))
    if deciding and cfg.checkers:
        rule = cfg.check_test
        pie = replace(pie, check_agent=cfg.checker, check_rule=rule.name, check_limit=rule.games,
                      judges=tuple(cfg.checkers))
    if deciding and not spec.cheap and cfg.race > 1:
        return _race(s, spec, screen, pie)
    budget = _pie_budget(cfg, spec, deciding)
    per_opening = cfg.opening_cap if deciding else cfg.games
    candidates = cfg.candidate_limit if deciding else cfg.max_candidates
    picker = CandidatePicker(screen, cfg.seed)
    refining = cfg.refine_sims > 0 and not spec.cheap
    fair_games = pair_expected_remaining(sprt_pair(cfg), 0.5)
    key = f"pie:{spec.text}"
    for rank in range(candidates):
        if s.timed_out():
            break
        if rank >= cfg.max_candidates and decide(pie, cfg)[0] != "inconclusive":
            break
        cap = min(per_opening, budget - pie.games)
        if cap < cfg.min_verdict_games:
            break
        if refining:
            refine(s, picker)
        pick = picker.next()
        if pick is None:
            break
        p = pick
        pair = sprt_pair(cfg)
        tasks = _pie_tasks(s, spec, p, range(cap))
        msg = (f"{spec.text}: opening {rank + 1} (at most {candidates}), {' '.join(s.names(p))} "
               f"(fair so far: {len(pie.fair)} of {cfg.min_fair_openings} needed)")
        missing = max(0, fair_missing(pie, cfg) - 1)
        left = budget - pie.games

        def decided(_i: int, r: GameResult, pair: SprtPair = pair, missing: int = missing, left: int = left) -> bool:
            done = pair.update(r.s1_won) != "undecided" or futile(pair.successes, pair.trials, cfg)
            here = 0.0 if done else pair_expected_remaining(pair, pair.successes / max(1, pair.trials))
            s.plan.set(key, min(left - pair.trials, here + missing * fair_games))
            return done

        res = s.play(tasks, spec.cheap, "pie", msg, decided)
        cut = s.out_of_time and not pair.decided and not futile(pair.successes, pair.trials, cfg)
        if not res:
            break
        abandoned = pair.status == "undecided" and len(res) < cap and not cut
        pie = _played(s, pie, picker, screen, p, pair, res, abandoned)
        if enough_fair(pie, cfg):
            break
    return _pie_done(s, key, pie)


def _pie_tasks(s: Session, spec: AgentSpec, p: int, indices: range) -> list[GameTask]:
    """The deciding games of opening ``p`` with these indices: each game's seed is its own, whatever plays it."""
    cfg = s.cfg
    played = spec.fixed_work().text
    return [GameTask(s.spec, derive_seed(cfg.seed, SeedPhase.PIE, spec.key, p, i), played, played, opening=p,
                     pie=s.board.params.pie) for i in indices]


def _played(s: Session, pie: PieResult, picker: CandidatePicker, screen: FloatGrid, p: int, pair: SprtPair,
            res: list[GameResult], abandoned: bool) -> PieResult:
    """An opening's games played out: the judges play it if it was shown fair, its result joins the pie and the
    picker learns from it."""
    status: OpeningStatus = {"inside": "fair", "outside": "unfair"}.get(pair.status, "undecided")  # type: ignore[assignment]
    judges: tuple[CheckResult, ...] = ()
    if status == "fair" and pie.judges:
        # while the judges play, the ETA expects this opening to hold: the fair openings still missing after it
        missing = max(0, fair_missing(pie, s.cfg) - 1)
        s.plan.set(f"pie:{pie.agent}", pie_games_left(s.cfg, missing, 0))
        judges = _judge(s, p, pie.judges, missing)
    pie = pie.adding(OpeningResult(
        placement=p, cells=[int(c) for c in s.table.cells[p]], names=s.names(p),
        wins=sum(r.s1_won for r in res), games=len(res),
        status="undecided" if any(not j.agrees for j in judges) and not s.cfg.counts_disputed else status,
        screen_v=float(screen[p]),
        swaps=sum(r.swapped for r in res), abandoned=abandoned, refined_v=picker.refined.get(p), judges=judges,
        predicted=None if s.predicted is None else float(s.predicted[p])))
    check = judges[0] if judges else None
    picker.feedback(p, pie.openings[-1].v, len(res), check.v if check is not None else None,
                    check.games if check is not None else 0)
    return pie


def _pie_done(s: Session, key: str, pie: PieResult) -> PieResult:
    """The pie phase is over: the ETA expects no more of its games or its judges'."""
    s.plan.set(key, 0.0)
    for judge in pie.judges:
        s.plan.set(f"check:{judge}", 0.0)
    return pie


@dataclass
class _Entry:
    """One opening in a race: its games so far (up to its SPRT pair's decision) and the order it was started in."""

    placement: int
    order: int
    pair: SprtPair
    results: list[GameResult] = field(default_factory=list)

    @property
    def games(self) -> int:
        return len(self.results)

    @property
    def rate(self) -> float:
        return self.pair.successes / max(1, self.pair.trials)

    def distance(self) -> float:
        return abs(self.rate - 0.5)

    def hope(self) -> tuple[float, int]:
        """Distance from even less :data:`RACE_OPTIMISM` standard errors: which opening plays next."""
        return self.distance() - RACE_OPTIMISM * math.sqrt(0.25 / max(1, self.games)), self.order


def _race(s: Session, spec: AgentSpec, screen: FloatGrid, pie: PieResult) -> PieResult:
    """The deciding search agent's openings raced (:data:`~core.analysis.config.RACE_ACTIVE`): see :class:`_Race`."""
    return _Race(s, spec, screen, pie).run()


class _Race:
    """Up to ``cfg.race`` openings in play, the one nearest to even (with optimism for few games) carried on first,
    those far from even after their first games set aside.  Every choice reads only the games' results in index
    order, so a seed gives the same openings and figures on any machine; each opening's games are those
    one-at-a-time play would give it.  When no new opening may start (the candidate limit, or the verdict is
    decided), the set-aside openings get the games left, nearest to even first."""

    def __init__(self, s: Session, spec: AgentSpec, screen: FloatGrid, pie: PieResult) -> None:
        self.s = s
        self.cfg = s.cfg
        self.spec = spec
        self.screen = screen
        self.pie = pie
        self.budget = self.cfg.pie_budget
        self.picker = CandidatePicker(screen, self.cfg.seed)
        self.key = f"pie:{spec.text}"
        self.active: list[_Entry] = []
        self.aside: list[_Entry] = []
        self.started = 0
        """Openings started so far (the next one's order)."""
        self.exhausted = False
        """The picker has no opening left."""
        self.last_fair = (0, 0)
        """Fair openings found, and the games spent when the last of them was found (for the ETA)."""

    def run(self) -> PieResult:
        cfg = self.cfg
        while not enough_fair(self.pie, cfg) and not self.s.timed_out():
            may_start = self.may_start()
            # past max_candidates, a board that may be lopsided finishes its set-aside openings before trying more
            lopsided = bool(self.aside) and lopsided_possible(self.pie, cfg)
            if (may_start and len(self.active) < cfg.race
                    and not (lopsided and self.started >= cfg.max_candidates)):
                if not self.start_one():
                    break
                continue
            entry = self.next_entry(lopsided, may_start)
            if entry is None or not self.carry_on(entry):
                break
        cut = self.s.out_of_time
        for entry in sorted(self.active + self.aside, key=lambda e: e.order):
            self.finish(entry, set_aside=entry in self.aside and not cut)
        return _pie_done(self.s, self.key, self.pie)

    def spent(self) -> int:
        """Deciding games so far: the finished openings' and those still in play or set aside."""
        return self.pie.games + sum(e.games for e in self.active + self.aside)

    def may_start(self) -> bool:
        """Whether a new opening may start: one is left, the candidate limit and the budget allow it, and past
        ``max_candidates`` only while the verdict is undecided."""
        cfg = self.cfg
        left = self.budget - self.spent()
        return (not self.exhausted and self.started < cfg.candidate_limit and left >= cfg.min_verdict_games
                and not (self.started >= cfg.max_candidates and decide(self.pie, cfg)[0] != "inconclusive"))

    def start_one(self) -> bool:
        """Start the picker's next opening with its first games; False when the race must stop (no game could be
        played)."""
        if self.cfg.refine_sims > 0:
            refine(self.s, self.picker)
        pick = self.picker.next()
        if pick is None:
            self.exhausted = True
            return True
        entry = _Entry(pick, self.started, sprt_pair(self.cfg))
        self.started += 1
        self.advance(entry, RACE_FIRST)
        if not entry.results:
            return False
        if self.done(entry):
            self.finish(entry)
        elif entry.distance() > RACE_FAR:
            self.aside.append(entry)
        else:
            self.active.append(entry)
        return True

    def next_entry(self, lopsided: bool, may_start: bool) -> _Entry | None:
        """The opening to carry on: the most hopeful in play; with none in play and no opening nearer to even left
        to try, the set-aside one nearest to even; None when the race is over."""
        if self.active:
            return min(self.active, key=_Entry.hope)
        if self.aside and (lopsided or not may_start):
            return min(self.aside, key=lambda e: (e.distance(), e.order))
        return None

    def carry_on(self, entry: _Entry) -> bool:
        """:data:`RACE_BATCH` more games of ``entry``; False when none could be played."""
        before = entry.games
        self.advance(entry, RACE_BATCH)
        if entry.games == before:
            return False
        if self.done(entry):
            (self.active if entry in self.active else self.aside).remove(entry)
            self.finish(entry)
        return True

    def done(self, e: _Entry) -> bool:
        cfg = self.cfg
        return e.pair.decided or futile(e.pair.successes, e.pair.trials, cfg) or e.games >= cfg.opening_cap

    def advance(self, e: _Entry, n: int) -> None:
        """Up to ``n`` more games of ``e``, stopping at its decision (within its cap and the budget)."""
        cfg = self.cfg
        n = min(n, cfg.opening_cap - e.games, self.budget - self.spent())
        if n <= 0:
            return
        tasks = _pie_tasks(self.s, self.spec, e.placement, range(e.games, e.games + n))
        msg = (f"{self.spec.text}: {self.started} openings started (at most {cfg.candidate_limit}), playing "
               f"{' '.join(self.s.names(e.placement))} (fair so far: {len(self.pie.fair)} of "
               f"{cfg.min_fair_openings} needed)")
        self.s.play(tasks, self.spec.cheap, "pie", msg, lambda _i, r: self.played(e, r),
                    counted=(self.spent(), self.budget))

    def played(self, e: _Entry, r: GameResult) -> bool:
        """One game of ``e`` back: count it, update the ETA's plan, and say whether ``e`` is done."""
        cfg = self.cfg
        e.results.append(r)
        e.pair.update(r.s1_won)
        if len(self.pie.fair) != self.last_fair[0]:
            self.last_fair = (len(self.pie.fair), self.spent())
        missing = fair_missing(self.pie, cfg)
        self.s.plan.set(self.key, min(self.budget - self.spent(),
                                      pie_games_left(cfg, missing, self.spent() - self.last_fair[1])))
        return self.done(e)

    def finish(self, e: _Entry, set_aside: bool = False) -> None:
        """``e``'s games join the pie (judged if shown fair); one set aside or futile while undecided is given up."""
        given_up = e.pair.status == "undecided" and (set_aside or futile(e.pair.successes, e.pair.trials, self.cfg))
        self.pie = _played(self.s, self.pie, self.picker, self.screen, e.placement, e.pair, e.results, given_up)


def refine(s: Session, picker: CandidatePicker) -> None:
    """Give the openings the picker is about to choose among a deeper search (up to :data:`REFINE_ROUNDS` batches,
    while none is predicted near 50%).  Each opening's search has its own seed, so the values, and the picks, do
    not depend on the batches or the workers."""
    cfg = s.cfg
    for _ in range(REFINE_ROUNDS):
        if not picker.wants_refined():
            return
        batch = picker.to_refine(REFINE_BATCH)
        if not batch:
            return
        per_task = max(1, -(-len(batch) // max(1, s.runner.workers)))
        items = [(s.spec, tuple((p, derive_seed(cfg.seed, SeedPhase.REFINE, p)) for p in batch[lo:lo + per_task]),
                  cfg.refine_sims) for lo in range(0, len(batch), per_task)]
        message = f"refining the screen: a {cfg.refine_sims}-simulation search of the openings nearest to even"
        s.report("screen", 0, len(batch), message)
        parts = s.runner.run(refine_openings, items, cancel=s.cancel)
        picker.add_refined(dict(zip(batch, (float(v) for part in parts for v in part), strict=True)))
        s.report("screen", len(batch), len(batch), message)  # a progress bar must not stay at 0 of the batch


def _judge(s: Session, p: int, judges: Sequence[str], missing: int) -> tuple[CheckResult, ...]:
    """Every judge's check of opening ``p`` (shown fair by the deciding agent), in order, until one disputes it:
    the opening then cannot count, so the later judges are not played; under the thorough rule (a disputed opening
    still counts fair for the deciding agent, see ``AnalysisConfig.min_undisputed``) every judge plays, so the
    verdict gives each one's figure.  ``missing``: fair openings still needed after this one (for the ETA)."""
    checks: list[CheckResult] = []
    for judge in judges:
        checks.append(_check(s, p, judge, missing))
        if not checks[-1].agrees and not s.cfg.counts_disputed:
            break
    return tuple(checks)


def _check(s: Session, p: int, judge: str, missing: int) -> CheckResult:
    """One judge's check of opening ``p``: its games until its sequential test can tell (at most
    ``cfg.check_test.games``; see :data:`~core.analysis.config.CHECK_RULES`).  Each judge's games have seeds of
    their own, so adding a judge changes no other judge's figures."""
    cfg = s.cfg
    spec = parse_agent(judge)
    played = spec.fixed_work().text
    tasks = [GameTask(s.spec, derive_seed(cfg.seed, SeedPhase.CHECK, spec.key, p, i), played, played,
                      opening=p) for i in range(cfg.check_test.games)]
    pair = check_pair(cfg)
    key = f"check:{judge}"

    def told(_i: int, r: GameResult) -> bool:
        pair.update(r.s1_won)
        outcome = check_outcome(pair, cfg)
        here = 0.0 if outcome is not None else min(cfg.check_test.games - pair.trials, pair_expected_remaining(
            pair, pair.successes / pair.trials))
        s.plan.set(key, here + missing * cfg.check_test.games / 2)  # as many again for each opening still missing
        return outcome is not None

    s.play(tasks, spec.cheap, "check", f"{spec.text}: judging {' '.join(s.names(p))} "
           f"(shown fair by {cfg.decider})", told)
    # the games that count are those up to the decision (a parallel chunk may have played a few beyond it)
    outcome = check_outcome(pair, cfg)
    return CheckResult(spec.text, pair.successes, pair.trials, agrees=outcome is False, complete=outcome is not None)


def _heatmaps(board: Board, games: list[GameResult]) -> tuple[FloatGrid, FloatGrid, FloatGrid]:
    n = board.size
    if not games:
        empty = np.full((n, n), np.nan)
        return empty, empty.copy(), empty.copy()
    cov = np.stack([np.frombuffer(r.coverage, dtype=np.uint8) for r in games])
    cov1 = (cov == 1).mean(axis=0).reshape(n, n)
    cov2 = (cov == 2).mean(axis=0).reshape(n, n)
    has_symbol = np.array([c is not Symbol.EMPTY for c in board.cells])
    surv = np.where(has_symbol, (cov == 0).mean(axis=0), np.nan).reshape(n, n)
    return cov1, cov2, surv


# Names that code outside the analysis package imports from here (designer/panels/analysis_panel.py,
# designer/screenshot.py); they live in core.analysis.config.
__all__ = ["AnalysisCancelled", "AnalysisConfig", "AnalysisProgress", "ProgressFn", "analyze"]
