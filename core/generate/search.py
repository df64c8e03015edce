"""The search: screen many anti-symmetric layouts cheaply, walk locally around the best, judge the finalists.

Each round screens a fixed batch of new layouts (``batch``, 16 by default): children of the best layouts so far
(one local move 60% of the time, else 2..``max_moves``: move, step, turn, add or remove a pair; locked pairs never
change) plus a few fresh random layouts so the search keeps exploring.  After the last round the best distinct
layouts (pairwise at least ``min_distance`` pairs apart) are judged by the second evaluator, and the judged boards
are ranked: the verdict ``balanced`` first (when the evaluator gives verdicts), then by the documented score
(``core.generate.figures``).

Under a time budget (``time_budget`` and no ``rounds``) the run plans itself (``core.generate.plan``): it first
times the level in every worker (the judge's ``probe``, when it has one) and refuses at once, with the budget that
would do, when not even one finalist's analysis fits; after the first round it sizes the screening and the number
of finalists to the time left; finalists are judged in waves of one per worker, each with its own time budget
(the judge's ``timed``), and no new wave starts that cannot finish.  Work still running at the deadline is
cancelled and the finalists judged so far are kept.

Reproducibility: every random choice comes from one ``Random`` seeded by ``seed`` (the timing probe uses its own);
the batch size does not depend on the worker count; pools return results in submission order; evaluators seed a
board's games from the board itself.  So a fixed number of ``rounds`` gives the same boards for a seed on any
number of workers.  Under a time budget the rounds screened, the finalists and their analyses depend on the
machine's speed; the result reports the rounds, and ``rounds=N`` screens the same layouts without a time limit.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from random import Random
from typing import Any, Protocol, runtime_checkable

from core.analysis.config import TIME_MEASURE_GAMES
from core.board.model import Board
from core.generate.config import GenerateCancelled, SearchConfig
from core.generate.figures import Figures, density_penalty
from core.generate.layout import (
    EMPTY,
    Layout,
    LayoutError,
    Locks,
    Mutator,
    PairRange,
    board_of,
    changed_cells,
    distance,
    grid_key,
    half_of,
    layout_of,
    pairs_of,
)
from core.generate.plan import (
    ADVICE_MARGIN,
    RESERVE_ROUNDS,
    SCREEN_FLOOR,
    BudgetTooSmall,
    Costs,
    FinalsPlan,
    Plan,
    ProbeResult,
    plan_finals,
    plan_run,
    required_budget,
    slack,
)
from core.generate.pool import BoardPool
from core.selfplay.runner import RunCancelled
from core.selfplay.tasks import derive_seed

Evaluator = Callable[[Board], Figures]
Clock = Callable[[], float]
_RNG_KEY = 31
_PROBE_RNG_KEY = 32
_RETRIES = 60
EXTRA_FACTOR = 4
"""A timed run judges at most this many times the finalists it planned (the next best, while time is left)."""


@runtime_checkable
class TimedJudge(Protocol):
    """A judge that a timed run can plan for (``core.generate.evaluate.AnalysisEvaluator``); a plain
    ``Board -> Figures`` function is judged as it is."""

    def __call__(self, board: Board) -> Figures: ...

    def timed(self, seconds: float) -> Evaluator:
        """The same judge, each board's evaluation held to ``seconds``."""

    def probe(self, games: int) -> Callable[[Board], ProbeResult]:
        """A picklable function that measures the judge's costs on a board in a worker (and may stop early
        when they already show that one board's evaluation cannot fit in ``limit`` seconds)."""


@dataclass(frozen=True)
class _Probe:
    """One worker's timing: the judge's probe, and one screen for the seconds it reports (its figures are not
    used: the board is not one of the search's)."""

    probe: Callable[[Board], ProbeResult]
    screen: Evaluator

    def __call__(self, board: Board) -> tuple[ProbeResult, float]:
        result = self.probe(board)
        return result, self.screen(board).seconds if result.complete else 0.0


class _Stop(threading.Event):
    """What the pools poll: set when the caller cancels or the clock passes ``at`` (the run's deadline)."""

    def __init__(self, user: threading.Event | None, clock: Clock, at: float | None) -> None:
        super().__init__()
        self.user = user
        self.clock = clock
        self.at = at

    def cancelled(self) -> bool:
        return self.user is not None and self.user.is_set()

    def is_set(self) -> bool:
        return super().is_set() or self.cancelled() or (self.at is not None and self.clock() >= self.at)

@dataclass
class Candidate:
    """A screened layout; ``final`` holds the judge's figures once it was a finalist."""

    layout: Layout
    board: Board
    screen: Figures
    round: int
    pair_range: PairRange
    final: Figures | None = None
    changed: list[int] = field(default_factory=list)
    """Cells that differ from the host's board (improving only)."""

    @property
    def figures(self) -> Figures:
        return self.final if self.final is not None else self.screen

    @property
    def pairs(self) -> int:
        return pairs_of(self.layout)

    @property
    def score(self) -> float:
        """The documented score: the evaluator's play terms minus the density penalty."""
        return self.figures.score - density_penalty(self.pair_range.outside(self.pairs))

    @property
    def screen_score(self) -> float:
        return self.screen.score - density_penalty(self.pair_range.outside(self.pairs))

    @property
    def key(self) -> str:
        return grid_key(self.layout)


@dataclass
class GenerateProgress:
    phase: str
    """``measure`` (timing the level), ``screen``, ``finals`` or ``done``."""
    done: int
    total: int
    message: str
    eta: float | None = None
    """Seconds still to go, when they can be estimated."""
    best: float | None = None


ProgressFn = Callable[[GenerateProgress], None]


@dataclass
class SearchResult:
    candidates: list[Candidate]
    """Judged finalists, best first."""
    screened: int
    rounds: int
    elapsed: float
    pair_range: PairRange
    start: Candidate | None = None
    """Improving: the host's board with its own figures from the same judge, for comparison."""
    time_limited: bool = False
    """The time budget ended the screening (always, for a timed run that did not run out of layouts)."""
    cut: bool = False
    """The deadline cancelled work in flight (screens or finalists' analyses, which are then left out)."""
    plan: dict[str, Any] | None = None
    """A timed run's measured costs and plan (seconds), for the report."""

    def balanced(self) -> list[Candidate]:
        return [c for c in self.candidates if c.figures.verdict in (None, "balanced")]


def _rank(c: Candidate) -> tuple[float, str]:
    return (-c.screen_score, c.key)


def final_rank(c: Candidate) -> tuple[int, float, str]:
    """The judged finalists' order: balanced first, then the score."""
    return (0 if c.figures.verdict in (None, "balanced") else 1, -c.score, c.key)


class _Search:
    def __init__(self, cfg: SearchConfig, screen: Evaluator, judge: Evaluator | None, pool: BoardPool,
                 start: Board | None, locks: Locks | None, progress: ProgressFn | None,
                 cancel: threading.Event | None, clock: Clock = time.monotonic) -> None:
        cfg.check()
        self.cfg = cfg
        self.size = cfg.size if start is None else start.size
        self.params = cfg.params if start is None else start.params
        self.start_layout = layout_of(start) if start is not None else None
        if cfg.pairs is not None:
            self.range = cfg.pairs
        elif self.start_layout is not None:
            p = pairs_of(self.start_layout)
            self.range = PairRange(max(0, p - cfg.max_changes), min(half_of(self.size), p + cfg.max_changes))
        else:
            self.range = PairRange.default_for(self.size)
        self.locks = locks or Locks(self.size)
        if self.locks.size != self.size:
            raise LayoutError(f"the locks are for a {self.locks.size}x{self.locks.size} board, not "
                              f"{self.size}x{self.size}")
        self.mutator = Mutator(self.size, self.range, self.locks)
        self.base: Layout = self.start_layout or tuple([EMPTY] * half_of(self.size))
        if self.start_layout is None:
            self.mutator.check_locked(self.base)
        self.screen_fn = screen
        self.judge_fn = judge
        self.pool = pool
        self.progress = progress
        self.cancel = cancel
        self.clock = clock
        self.rng = Random(derive_seed(cfg.seed, _RNG_KEY))
        self.seen: dict[Layout, Candidate] = {}
        self.t0 = clock()
        self.rounds_done = 0
        self.time_limited = False
        self.cut = False
        # a timed run: the plan (core.generate.plan) and the times it works to
        self.timed = cfg.rounds is None and cfg.time_budget is not None
        self.budget = cfg.time_budget if self.timed and cfg.time_budget is not None else math.inf
        self.deadline = self.t0 + self.budget if self.timed else None
        self.work_end = self.t0 + self.budget - slack(self.budget) if self.timed else math.inf
        """The planned work ends here; what still runs at ``deadline`` is cancelled."""
        self.stop = _Stop(cancel, clock, self.deadline)
        self.costs: Costs | None = None
        self.plan: Plan | None = None
        self.round_walls: list[float] = []
        self.screen_probe = 0.0
        """Seconds one screen took in the timing (each worker screened one, side by side)."""
        self.screen_end = math.inf
        self.planned_end = self.deadline

    # -- helpers ------------------------------------------------------------------------
    @property
    def workers(self) -> int:
        return max(1, self.pool.workers)

    def report(self, phase: str, done: int, total: int, message: str, eta: float | None) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise GenerateCancelled("generation cancelled")
        if self.progress is not None:
            if self.timed and self.planned_end is not None and phase != "done":
                eta = max(0.0, min(self.planned_end, self.deadline or math.inf) - self.clock())
            best = min(self.seen.values(), key=_rank).screen_score if self.seen else None
            self.progress(GenerateProgress(phase, done, total, message, eta, best))

    def map(self, fn: Callable[[Board], Any], boards: list[Board], on: Callable[[int, Any], None],
            deadline: bool = True) -> bool:
        """``fn`` on every board through the pool; False when the deadline cancelled it (``on`` has seen the
        results delivered before), GenerateCancelled when the caller did.  ``deadline=False``: only the caller
        can stop it."""
        try:
            self.pool.map(fn, boards, on, self.stop if deadline else _Stop(self.cancel, self.clock, None))
        except RunCancelled:
            if self.stop.cancelled():
                raise GenerateCancelled("generation cancelled") from None
            self.cut = True
            return False
        return True

    def board(self, layout: Layout) -> Board:
        return board_of(layout, self.size, self.params)

    def allowed(self, layout: Layout) -> bool:
        start = self.start_layout
        return start is None or distance(layout, start) <= self.cfg.max_changes

    def fresh(self, make: Callable[[], Layout], taken: set[Layout]) -> Layout | None:
        """A layout neither screened nor already in this batch (None when the neighbourhood is exhausted)."""
        for _ in range(_RETRIES):
            layout = make()
            if layout not in self.seen and layout not in taken and self.allowed(layout):
                return layout
        return None

    def moves(self) -> int:
        """Moves for one child: one move 60% of the time (a local step), else 2..max_moves (a jump)."""
        if self.cfg.max_moves == 1 or self.rng.random() < 0.6:
            return 1
        return self.rng.randint(2, self.cfg.max_moves)

    def finals_wanted(self) -> int:
        return self.cfg.finalist_count + (1 if self.start_layout is not None else 0)

    # -- the plan (timed runs) -------------------------------------------------------------
    def probe_boards(self) -> list[Board]:
        """Boards to time the level on, one per worker: the host's board, or random layouts of the range drawn
        from their own seed (the search's own random stream stays that of an untimed run)."""
        if self.start_layout is not None:
            return [self.board(self.start_layout)] * self.workers
        rng = Random(derive_seed(self.cfg.seed, _PROBE_RNG_KEY))
        return [self.board(self.mutator.random_layout(self.base, rng)) for _ in range(self.workers)]

    def measure(self) -> None:
        """Time the level in every worker at once; refuse at once when not even one finalist could be judged."""
        judge = self.judge_fn
        if not isinstance(judge, TimedJudge):
            return  # a plain function: planned like a screen once the first round is timed
        boards = self.probe_boards()
        games = max(1, math.ceil(TIME_MEASURE_GAMES / len(boards)))
        results: list[ProbeResult] = []
        screens: list[float] = []
        message = f"timing {games * len(boards)} games of the level, a screen and an analysis's fixed part"

        def on(_i: int, r: tuple[ProbeResult, float]) -> None:
            results.append(r[0])
            screens.append(r[1])
            self.report("measure", len(results), len(boards), message, None)

        self.report("measure", 0, len(boards), message, None)
        # the timing runs to its end even past the deadline: a refusal must say what budget would do
        if not self.map(_Probe(judge.probe(games), self.screen_fn), boards, on, deadline=False):
            detail = (f"the time ran out while starting the workers and timing the level "
                      f"({self.clock() - self.t0:.0f} s)")
            raise BudgetTooSmall(f"the {self.budget:g} s budget is too short: {detail}", None, detail,
                                 level=self.level_name())
        self.costs = Costs.from_probes(results)
        self.screen_probe = sum(screens) / len(screens)
        if self.budget < self.required(RESERVE_ROUNDS):
            raise self.too_small(RESERVE_ROUNDS)

    def round_seconds(self) -> float:
        """Wall seconds of one screening round (the first one also started the workers when nothing was timed
        before it, so it counts only until others were timed)."""
        walls = self.round_walls[1:] or self.round_walls
        return sum(walls) / len(walls) if walls else 0.0

    def round_estimate(self) -> float:
        """A round's wall seconds: measured, or before the first, from the seconds of the screen each worker
        timed (all workers at once, so under the load a round puts on the machine)."""
        if self.round_walls:
            return self.round_seconds()
        return math.ceil(self.cfg.batch / self.workers) * self.screen_probe

    def required(self, rounds: int, margin: float = 1.0) -> float:
        """The budget this run needs by the one rule (``plan.required_budget``): the time used so far, ``rounds``
        more rounds of screening, one finalist at its wanted time and the slack."""
        assert self.costs is not None
        return required_budget(self.clock() - self.t0, rounds * self.round_estimate(), self.costs, margin)

    def level_name(self) -> str:
        return str(getattr(self.judge_fn, "level", ""))

    def too_small(self, rounds: int) -> BudgetTooSmall:
        """The refusal, with the budget :meth:`required` gives (the first refusal's answer is the one to give)."""
        assert self.costs is not None
        c = self.costs
        minimum = self.required(rounds, ADVICE_MARGIN)  # headroom for costs measured under a changing load
        rest = f"{c.overhead:.0f} s for the rest of the analysis" if c.complete else "and the rest of the analysis"
        detail = (f"one finalist's analysis needs about {c.slot_want():.0f} s of one worker here for a typical "
                  f"verdict, at least {c.slot_min():.0f} s ({c.game:.2f} s per game of the level measured now, "
                  f"about {c.games_needed:.0f} games for the quickest balanced verdict, {rest})")
        return BudgetTooSmall(f"the {self.budget:g} s budget is too short: {detail}; a budget of at least "
                              f"{minimum:.0f} s would judge one finalist", minimum, detail,
                              level_bound=c.games_needed * c.game > c.overhead, level=self.level_name())

    def make_plan(self) -> None:
        if self.costs is None:  # a plain judge: it costs what one screen costs
            screened = max(1, len(self.seen))
            first = self.round_walls[0] if self.round_walls else 0.0
            self.costs = Costs(overhead=first * self.workers / screened, game=0.0)
        cfg = self.cfg
        now = self.clock()
        cap = max(0.0, self.t0 + cfg.screen_share * self.budget - now)
        floor = min(cap, max(0.0, self.t0 + SCREEN_FLOOR * self.budget - now))
        try:
            self.plan = plan_run(self.work_end - now, self.workers, self.finals_wanted(), self.costs, cap, floor)
        except BudgetTooSmall:
            raise self.too_small(0) from None
        self.screen_end = now + self.plan.screen
        self.planned_end = self.finals_end(self.screen_end, 0)

    def finals_end(self, start: float, judged: int) -> float:
        """When the finals end at the latest, the next best after the planned ones included (for the ETA)."""
        assert self.costs is not None and self.plan is not None
        left = EXTRA_FACTOR * self.plan.finals.finalists - judged
        fp = plan_finals(self.work_end - start, self.workers, left, self.costs) if left > 0 else None
        return start + (fp.seconds if fp is not None else 0.0)

    def plan_info(self) -> dict[str, Any] | None:
        if self.costs is None:
            return None
        c = self.costs
        out: dict[str, Any] = {"budget_s": round(self.budget, 1), "slack_s": round(slack(self.budget), 1),
                               "game_s": round(c.game, 4), "analysis_fixed_s": round(c.overhead, 2),
                               "games_needed": round(c.games_needed, 1), "finalist_min_s": round(c.slot_min(), 1),
                               "round_s": round(self.round_seconds(), 2)}
        if self.plan is not None:
            f = self.plan.finals
            out.update(screen_s=round(self.plan.screen, 1), finalists=f.finalists, waves=f.waves,
                       finalist_s=round(f.slot, 1), analysis_budget_s=round(c.budget(f.slot), 1))
        return out

    # -- rounds -------------------------------------------------------------------------
    def first_batch(self) -> list[Layout]:
        taken: set[Layout] = set()
        out: list[Layout] = []
        if self.start_layout is not None:
            out.append(self.start_layout)
            taken.add(self.start_layout)
            start = self.start_layout

            def make() -> Layout:
                return self.mutator.mutate(start, self.rng, self.moves())
        else:
            def make() -> Layout:
                return self.mutator.random_layout(self.base, self.rng)
        while len(out) < self.cfg.batch:
            layout = self.fresh(make, taken)
            if layout is None:
                break
            out.append(layout)
            taken.add(layout)
        return out

    def next_batch(self) -> list[Layout]:
        parents = sorted(self.seen.values(), key=_rank)[: self.cfg.elite]
        immigrants = self.cfg.immigrants if self.start_layout is None else 0
        immigrants = min(immigrants, self.cfg.batch - 1)
        taken: set[Layout] = set()
        out: list[Layout] = []
        children = self.cfg.batch - immigrants
        for i in range(children):
            # the best parents get most children: index = len * (i / children)^2 gives the best about 40%
            parent = parents[min(len(parents) - 1, int(len(parents) * (i / children) ** 2))].layout

            def child(parent: Layout = parent) -> Layout:
                return self.mutator.mutate(parent, self.rng, self.moves())

            layout = self.fresh(child, taken)
            if layout is not None:
                out.append(layout)
                taken.add(layout)
        for _ in range(immigrants):
            layout = self.fresh(lambda: self.mutator.random_layout(self.base, self.rng), taken)
            if layout is not None:
                out.append(layout)
                taken.add(layout)
        return out

    def screen_batch(self, layouts: Sequence[Layout], round_no: int) -> bool:
        """Screen one round; False when the deadline cut it (the layouts screened before are kept)."""
        boards = [self.board(layout) for layout in layouts]
        planned = self.cfg.rounds * self.cfg.batch if self.cfg.rounds is not None else None
        before = len(self.seen)
        t_round = self.clock()

        def on(i: int, fig: Figures) -> None:
            layout = layouts[i]
            self.seen[layout] = Candidate(layout, boards[i], fig, round_no, self.range)
            done = len(self.seen)
            eta: float | None
            if self.timed:
                if self.plan is None:  # the first round: it times the rest
                    total = before + len(layouts)
                else:
                    per_round = self.round_seconds()
                    rounds_left = max(0.0, self.screen_end - t_round) / per_round if per_round > 0 else 0.0
                    total = max(done, before + round(len(layouts) * max(1.0, math.floor(rounds_left))))
                eta = None  # report() fills in the plan's
            else:
                assert planned is not None
                total = max(planned, done)
                elapsed = self.clock() - self.t0
                eta = elapsed / done * (total - done) if done else None
            self.report("screen", done, total, f"round {round_no + 1}: screened {done} layouts", eta)

        if not self.map(self.screen_fn, boards, on):
            return False
        assert len(self.seen) == before + len(layouts)
        self.round_walls.append(self.clock() - t_round)
        return True

    def run_rounds(self) -> None:
        batch = self.first_batch()
        while batch:
            if not self.screen_batch(batch, self.rounds_done):
                self.time_limited = True
                break
            self.rounds_done += 1
            if self.cfg.rounds is not None and self.rounds_done >= self.cfg.rounds:
                break
            if self.timed:
                if self.plan is None:
                    self.make_plan()
                if self.clock() + self.round_seconds() > self.screen_end:  # the next round would not finish
                    self.time_limited = True
                    break
            batch = self.next_batch()

    # -- finals -------------------------------------------------------------------------
    def pick_finalists(self, want: int) -> list[Candidate]:
        """The ``want`` best screened layouts, pairwise ``min_distance`` apart while there are enough."""
        spread = self.cfg.min_distance or max(1, self.range.low // 4)
        ranked = [c for c in sorted(self.seen.values(), key=_rank) if c.layout != self.start_layout]
        chosen: list[Candidate] = []
        for c in ranked:
            if len(chosen) >= want:
                break
            if all(distance(c.layout, o.layout) >= spread for o in chosen):
                chosen.append(c)
        for c in ranked:  # too few far apart: fill up with the next best
            if len(chosen) >= want:
                break
            if c not in chosen:
                chosen.append(c)
        return chosen

    def judge(self, finalists: list[Candidate], start: Candidate | None) -> None:
        """An untimed run: every finalist at once, each analysis to its game caps."""
        items = ([start] if start is not None else []) + finalists
        if self.judge_fn is None:
            for c in items:
                c.final = c.screen
            return
        judge_fn = self.judge_fn
        boards = [c.board for c in items]
        t_finals = self.clock()
        workers = self.workers

        def on(i: int, fig: Figures) -> None:
            items[i].final = fig
            done = i + 1
            left = len(items) - done
            per_wave = (self.clock() - t_finals) / math.ceil(done / workers)
            eta = per_wave * math.ceil(left / workers)
            self.report("finals", done, len(items), f"judged {done} of {len(items)} finalists", eta)

        self.report("finals", 0, len(items), f"judging {len(items)} finalists with the full analysis", None)
        self.map(judge_fn, boards, on)

    def judge_timed(self, queue: list[Candidate]) -> list[Candidate]:
        """A timed run: waves of one finalist per worker, best first, each analysis held to the wave's time; a
        wave starts only when the time left can finish it.  After the planned finalists, the next best follow
        while time is left (more verdicts at the level to rank by), up to ``EXTRA_FACTOR`` times as many.
        Returns the candidates judged, in order."""
        judge = self.judge_fn
        assert judge is not None and self.costs is not None
        planned = self.plan.finals.finalists if self.plan is not None else self.finals_wanted()
        limit = EXTRA_FACTOR * planned
        judged: list[Candidate] = []
        queue = list(queue)
        while queue and not self.cut and len(judged) < limit:
            want = planned - len(judged) if len(judged) < planned else limit - len(judged)
            now = self.clock()
            fp: FinalsPlan | None = plan_finals(self.work_end - now, self.workers, want, self.costs)
            if fp is None:
                self.time_limited = True
                break  # the time left cannot finish another finalist
            wave = queue[: min(self.workers, fp.finalists)]
            del queue[: len(wave)]
            self.planned_end = self.finals_end(now, len(judged)) if self.plan is not None else now + fp.seconds
            budget = self.costs.budget(fp.slot)
            fn = judge.timed(budget) if isinstance(judge, TimedJudge) else judge
            total = len(judged) + min(fp.finalists, len(wave) + len(queue))

            def on(i: int, fig: Figures, wave: list[Candidate] = wave, total: int = total) -> None:
                wave[i].final = fig
                judged.append(wave[i])
                self.report("finals", len(judged), total, f"judged {len(judged)} of {total} finalists", None)

            self.report("finals", len(judged), total, f"judging {len(wave)} finalists, {budget:.0f} s each "
                        f"({len(judged)} of {total} done)", None)
            self.map(fn, [c.board for c in wave], on)
        return judged

    def run(self) -> SearchResult:
        if self.timed:
            self.measure()
        self.report("screen", 0, self.cfg.batch, "screening the first layouts", None)
        self.run_rounds()
        start = self.seen.get(self.start_layout) if self.start_layout is not None else None
        if self.timed and self.judge_fn is not None and not self.cut:
            if self.plan is None:  # no second round was needed to plan (the layouts ran out)
                self.make_plan()
            queue = ([start] if start is not None else []) + self.pick_finalists(EXTRA_FACTOR * self.finals_wanted())
            finalists = [c for c in self.judge_timed(queue) if c is not start]
        elif self.timed and self.judge_fn is not None:
            finalists = []  # the deadline cut the screening: nothing could be judged
        else:
            finalists = self.pick_finalists(self.cfg.finalist_count)
            self.judge(finalists, start)
        if self.start_layout is not None:
            host = self.board(self.start_layout)
            for c in finalists:
                c.changed = changed_cells(host, c.board)
        finalists.sort(key=final_rank)
        result = SearchResult(candidates=finalists, screened=len(self.seen), rounds=self.rounds_done,
                              elapsed=self.clock() - self.t0, pair_range=self.range, start=start,
                              time_limited=self.time_limited, cut=self.cut, plan=self.plan_info())
        self.report("done", 1, 1, f"{len(finalists)} finalists judged", 0.0)
        return result


def generate(cfg: SearchConfig, screen: Evaluator, pool: BoardPool, judge: Evaluator | None = None,
             locks: Locks | None = None, start: Board | None = None, progress: ProgressFn | None = None,
             cancel: threading.Event | None = None, clock: Clock = time.monotonic) -> SearchResult:
    """Search new boards of ``cfg.size``; ``start`` only supplies the values of locked cells (and its params).

    ``clock`` measures the time budget (tests pass a simulated one).  Raises ``BudgetTooSmall`` when the budget
    cannot judge even one finalist, ``GenerateCancelled`` when ``cancel`` is set."""
    s = _Search(cfg, screen, judge, pool, None, locks, progress, cancel, clock)
    if start is not None:
        if start.size != s.size:
            raise LayoutError(f"the start board is {start.size}x{start.size}, not {s.size}x{s.size}")
        s.base = layout_of(start)
        s.params = start.params
        s.mutator.check_locked(s.base)
    return s.run()


def improve(board: Board, cfg: SearchConfig, screen: Evaluator, pool: BoardPool, judge: Evaluator | None = None,
            locks: Locks | None = None, progress: ProgressFn | None = None,
            cancel: threading.Event | None = None, clock: Clock = time.monotonic) -> SearchResult:
    """Up to ``cfg.count`` changed versions of ``board`` (locked pairs kept), each with its figures."""
    s = _Search(replace(cfg, size=board.size), screen, judge, pool, board, locks, progress, cancel, clock)
    result = s.run()
    result.candidates = result.candidates[: cfg.count]
    return result
