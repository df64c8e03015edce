"""The search: screen many anti-symmetric layouts cheaply, walk locally around the best, judge the finalists.

Each round screens a fixed batch of new layouts (``batch``, 16 by default): children of the best layouts so far
(one local move 60% of the time, else 2..``max_moves``: move, step, turn, add or remove a pair; locked pairs never
change) plus a few fresh random layouts so the search keeps exploring.  After the last round the best distinct
layouts (pairwise at least ``min_distance`` pairs apart) are judged by the second evaluator, and the judged boards
are ranked: the verdict ``balanced`` first (when the evaluator gives verdicts), then by the documented score
(``core.generate.figures``).

Reproducibility: every random choice comes from one ``Random`` seeded by ``seed``; the batch size does not depend
on the worker count; pools return results in submission order; evaluators seed a board's games from the board
itself.  So a fixed number of ``rounds`` gives the same boards for a seed on any number of workers.  With a time
budget instead, the rounds completed depend on the machine; the result reports them, and ``rounds=N`` repeats
the run exactly.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from random import Random

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
from core.generate.pool import BoardPool
from core.selfplay.runner import RunCancelled
from core.selfplay.tasks import derive_seed

Evaluator = Callable[[Board], Figures]
_RNG_KEY = 31
_RETRIES = 60

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
    """``screen``, ``finals`` or ``done``."""
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

    def balanced(self) -> list[Candidate]:
        return [c for c in self.candidates if c.figures.verdict in (None, "balanced")]


def _rank(c: Candidate) -> tuple[float, str]:
    return (-c.screen_score, c.key)


def _final_rank(c: Candidate) -> tuple[int, float, str]:
    return (0 if c.figures.verdict in (None, "balanced") else 1, -c.score, c.key)


class _Search:
    def __init__(self, cfg: SearchConfig, screen: Evaluator, judge: Evaluator | None, pool: BoardPool,
                 start: Board | None, locks: Locks | None, progress: ProgressFn | None,
                 cancel: threading.Event | None) -> None:
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
        self.rng = Random(derive_seed(cfg.seed, _RNG_KEY))
        self.seen: dict[Layout, Candidate] = {}
        self.t0 = time.monotonic()
        self.rounds_done = 0
        self.time_limited = False

    # -- helpers ------------------------------------------------------------------------
    def report(self, phase: str, done: int, total: int, message: str, eta: float | None) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise GenerateCancelled("generation cancelled")
        if self.progress is not None:
            best = min(self.seen.values(), key=_rank).screen_score if self.seen else None
            self.progress(GenerateProgress(phase, done, total, message, eta, best))

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

    def screen_deadline(self) -> float | None:
        if self.cfg.rounds is not None or self.cfg.time_budget is None:
            return None
        return self.t0 + self.cfg.time_budget * self.cfg.screen_share

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

    def screen_batch(self, layouts: Sequence[Layout], round_no: int) -> None:
        boards = [self.board(layout) for layout in layouts]
        planned = self.cfg.rounds * self.cfg.batch if self.cfg.rounds is not None else None
        deadline = self.screen_deadline()
        before = len(self.seen)

        def on(i: int, fig: Figures) -> None:
            layout = layouts[i]
            self.seen[layout] = Candidate(layout, boards[i], fig, round_no, self.range)
            done = len(self.seen)
            elapsed = time.monotonic() - self.t0
            if deadline is not None:
                # the plan: screening until the deadline, then the finals in the rest of the budget
                assert self.cfg.time_budget is not None
                eta: float | None = max(0.0, self.t0 + self.cfg.time_budget - time.monotonic())
                total = max(done, round(done * (deadline - self.t0) / max(elapsed, 1e-6)))
            else:
                assert planned is not None
                total = max(planned, done)
                eta = elapsed / done * (total - done) if done else None
            self.report("screen", done, total, f"round {round_no + 1}: screened {done} layouts", eta)

        try:
            self.pool.map(self.screen_fn, boards, on, self.cancel)
        except RunCancelled:
            raise GenerateCancelled("generation cancelled") from None
        assert len(self.seen) == before + len(layouts)

    def run_rounds(self) -> None:
        deadline = self.screen_deadline()
        batch = self.first_batch()
        while batch:
            self.screen_batch(batch, self.rounds_done)
            self.rounds_done += 1
            if self.cfg.rounds is not None and self.rounds_done >= self.cfg.rounds:
                break
            if deadline is not None and time.monotonic() >= deadline:
                self.time_limited = True
                break
            batch = self.next_batch()

    # -- finals -------------------------------------------------------------------------
    def pick_finalists(self) -> list[Candidate]:
        want = self.cfg.finalist_count
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
        items = ([start] if start is not None else []) + finalists
        if self.judge_fn is None:
            for c in items:
                c.final = c.screen
            return
        judge_fn = self.judge_fn
        boards = [c.board for c in items]
        t_finals = time.monotonic()
        workers = max(1, self.pool.workers)

        def on(i: int, fig: Figures) -> None:
            items[i].final = fig
            done = i + 1
            left = len(items) - done
            per_wave = (time.monotonic() - t_finals) / math.ceil(done / workers)
            eta = per_wave * math.ceil(left / workers)
            self.report("finals", done, len(items), f"judged {done} of {len(items)} finalists", eta)

        self.report("finals", 0, len(items), f"judging {len(items)} finalists with the full analysis", None)
        try:
            self.pool.map(judge_fn, boards, on, self.cancel)
        except RunCancelled:
            raise GenerateCancelled("generation cancelled") from None

    def run(self) -> SearchResult:
        self.report("screen", 0, self.cfg.batch, "screening the first layouts", None)
        self.run_rounds()
        finalists = self.pick_finalists()
        start = self.seen.get(self.start_layout) if self.start_layout is not None else None
        self.judge(finalists, start)
        if self.start_layout is not None:
            host = self.board(self.start_layout)
            for c in finalists:
                c.changed = changed_cells(host, c.board)
        finalists.sort(key=_final_rank)
        result = SearchResult(candidates=finalists, screened=len(self.seen), rounds=self.rounds_done,
                              elapsed=time.monotonic() - self.t0, pair_range=self.range, start=start,
                              time_limited=self.time_limited)
        self.report("done", 1, 1, f"{len(finalists)} finalists judged", 0.0)
        return result


def generate(cfg: SearchConfig, screen: Evaluator, pool: BoardPool, judge: Evaluator | None = None,
             locks: Locks | None = None, start: Board | None = None, progress: ProgressFn | None = None,
             cancel: threading.Event | None = None) -> SearchResult:
    """Search new boards of ``cfg.size``; ``start`` only supplies the values of locked cells (and its params)."""
    s = _Search(cfg, screen, judge, pool, None, locks, progress, cancel)
    if start is not None:
        if start.size != s.size:
            raise LayoutError(f"the start board is {start.size}x{start.size}, not {s.size}x{s.size}")
        s.base = layout_of(start)
        s.params = start.params
        s.mutator.check_locked(s.base)
    return s.run()


def improve(board: Board, cfg: SearchConfig, screen: Evaluator, pool: BoardPool, judge: Evaluator | None = None,
            locks: Locks | None = None, progress: ProgressFn | None = None,
            cancel: threading.Event | None = None) -> SearchResult:
    """Up to ``cfg.count`` changed versions of ``board`` (locked pairs kept), each with its figures."""
    s = _Search(replace(cfg, size=board.size), screen, judge, pool, board, locks, progress, cancel)
    result = s.run()
    result.candidates = result.candidates[: cfg.count]
    return result
