"""Planning a timed ``lits generate`` run: how long to screen, how many finalists, how long each one's analysis.

Plain arithmetic on costs the run measures itself, so tests assert the planner's decisions exactly (no clock).

The costs (:class:`Costs`): a few timed games of the level and the analysis's fixed part in every worker at once
(:class:`ProbeResult`, so the machine's current load is in them), and the wall time of each screening round.

- One finalist's analysis needs at least :meth:`Costs.slot_min` seconds of one worker: its fixed part (the
  opening screen and the weaker agent), the level games the quickest ``balanced`` verdict needs (the openings a
  verdict needs, each at the SPRTs' expected games at 50%, plus the seat-advantage and mirror games' share) and one
  game it may overrun.  Less cannot show a board balanced.
- A finalist wants ``WANT_FACTOR`` times that (:meth:`Costs.slot_want`): openings that turn out unfair or stay
  undecided cost games too, and a finalist held to its minimum ends inconclusive far more often than not.  A
  verdict is worth far more than a finalist left inconclusive, so :func:`plan_finals` plans waves (one finalist
  per worker) at the wanted time, as many as fit, at least one with whatever is left above the minimum.
- The one rule for the smallest budget (:func:`required_budget`): the time the run has used (start-up and the
  timing), the screening before the finals (``RESERVE_ROUNDS`` rounds), one finalist at its *wanted* time, and the
  slack.  A run refuses a budget below it right after the timing, and that first answer is the budget to give: a
  run with it (at the same costs) is not refused later, and its finalist gets the time a typical verdict takes.
- Screening gets what the finals do not take, at most ``screen_cap`` and at least ``screen_floor`` seconds (the
  floor gives way when one wave at the wanted time does not fit beside it).
- All of it ends :func:`slack` before the deadline; work still running at the deadline is cancelled, so a run
  ends at most :func:`tolerance` after ``--time`` (stopping the workers and writing the files take a few seconds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.generate.config import MAX_TIME

WANT_FACTOR = 2.5
"""A finalist's analysis is given up to this many times its minimum when time allows: a typical verdict took
about that (603 ``club`` games for a generated 12x12 board, 3 of the 8 openings tried shown fair, where the
quickest verdict takes 247)."""
SCREEN_FLOOR = 0.25
"""Share of the time budget that screening keeps when the finals would want it all (unless they then do not fit)."""
SLACK_SHARE, SLACK_MAX = 0.03, 10.0
"""Planned work ends this share of the budget (at most ``SLACK_MAX`` seconds) before the deadline."""
TOLERANCE_SHARE, TOLERANCE_MIN = 0.05, 10.0
"""The promise: a timed run ends at most max(5% of --time, 10 s) after --time."""
ROUND_UP = 10.0
"""A required budget is told rounded up to this many seconds."""
RESERVE_ROUNDS = 2
"""Screening rounds the required budget keeps before the finals: the first round (it times the others) and one
more, because a round under the load of every worker can take longer than the screens timed before it."""


def slack(budget: float) -> float:
    """Seconds between the planned end of the work and the deadline (for measurement error and overruns)."""
    return min(SLACK_MAX, SLACK_SHARE * budget)


def tolerance(budget: float) -> float:
    """How far past ``budget`` a timed run may end: cancelling work in flight, stopping workers, writing files."""
    return max(TOLERANCE_SHARE * budget, TOLERANCE_MIN)


ADVICE_MARGIN = 1.2
"""A refusal advises this much more than the costs measured now need: they are measured under the machine's
current load, and a second run measured 6% more (``--level casual`` at load 9: 330 s advised, then 350 s)."""


def required_budget(used: float, screening: float, costs: Costs, margin: float = 1.0) -> float:
    """The smallest budget with which a run judges one finalist at the time a typical verdict takes: ``used``
    seconds already spent (start-up, timing), ``screening`` seconds of rounds before the finals, the finalist's
    wanted time, all times ``margin``, and the slack; rounded up to ``ROUND_UP``.  A run refuses a budget below
    it at ``margin`` 1 and advises it at :data:`ADVICE_MARGIN`."""
    need = margin * (used + screening + costs.slot_want())
    return ROUND_UP * math.ceil((need + slack(need / (1.0 - SLACK_SHARE))) / ROUND_UP)


class BudgetTooSmall(ValueError):
    """The time budget cannot judge one finalist at the level; ``minimum`` is the budget that would (by
    :func:`required_budget`; None when the time ran out before the costs could be measured), ``detail`` says why
    without the budget."""

    def __init__(self, message: str, minimum: float | None, detail: str = "", level_bound: bool = False,
                 level: str = "") -> None:
        super().__init__(message)
        self.minimum = minimum
        self.detail = detail or message
        self.level_bound = level_bound
        """The level's games are most of what a finalist needs (a weaker level would need much less)."""
        self.level = level

    def sentence(self, extra: float = 0.0) -> str:
        """The refusal in plain words for a host (the designer shows it): what to give instead.  ``extra``:
        seconds the caller spent before the run that its budget counted too (the command line's start-up)."""
        at = f" at {self.level}" if self.level else ""
        if self.minimum is None:
            return (f"The time is too short to judge a board{at} on this computer now ({self.detail}). "
                    "Give more time.")
        minimum = ROUND_UP * math.ceil((self.minimum + extra) / ROUND_UP)
        if minimum > MAX_TIME:  # more time than a run may be given: only a weaker level or a smaller board helps
            return (f"The time is too short to judge a board{at} on this computer now: {self.detail}. It would need "
                    f"{minimum:.0f} s, more than the longest run ({MAX_TIME:.0f} s, a day): choose a weaker level "
                    "or a smaller board.")
        weaker = ", or choose a weaker level" if self.level_bound else ""
        return (f"The time is too short to judge a board{at} on this computer now: {self.detail}. Give at least "
                f"{minimum:.0f} s{weaker}.")


@dataclass(frozen=True)
class ProbeResult:
    """What one worker measured: the analysis's fixed part and the level's seconds per game."""

    overhead: float
    """Seconds of a finalist's analysis that do not depend on the level (opening screen, weaker agent)."""
    game_seconds: float
    """Seconds per game of the level, both seats at the level."""
    games: int
    """Games timed for ``game_seconds``."""
    games_needed: float = 0.0
    """Level games the quickest decided ``balanced`` verdict takes (raw and mirror games included)."""
    min_budget: float = 0.0
    """The smallest time budget the judge accepts (the analysis refuses less than its ``MIN_TIME``)."""
    complete: bool = True
    """False when the probe stopped after games that already could not fit (``overhead`` then not measured)."""


@dataclass(frozen=True)
class Costs:
    """Measured costs, in seconds of one worker."""

    overhead: float
    game: float
    games_needed: float = 0.0
    min_budget: float = 0.0
    complete: bool = True
    """False when the fixed part was not measured (the level's games alone were too many): a lower bound."""

    @classmethod
    def from_probes(cls, probes: list[ProbeResult]) -> Costs:
        """Means over the workers (they measured at the same time, under the same load)."""
        if not probes:
            raise ValueError("no measurements")
        games = sum(p.games for p in probes)
        game = sum(p.game_seconds * p.games for p in probes) / games if games else 0.0
        done = [p for p in probes if p.complete]
        overhead = sum(p.overhead for p in done) / len(done) if done else 0.0
        return cls(overhead=overhead, game=game, games_needed=max(p.games_needed for p in probes),
                   min_budget=max(p.min_budget for p in probes), complete=len(done) == len(probes))

    @property
    def overrun(self) -> float:
        """How far past its budget one analysis may run: it stops between games."""
        return self.game

    def slot_min(self) -> float:
        """Wall seconds of one worker that the quickest decided verdict needs."""
        return max(self.min_budget, self.overhead + self.games_needed * self.game) + self.overrun

    def slot_want(self) -> float:
        return WANT_FACTOR * self.slot_min()

    def budget(self, slot: float) -> float:
        """The analysis's own time budget inside a slot (its possible overrun kept back)."""
        return max(self.min_budget, slot - self.overrun)


@dataclass(frozen=True)
class FinalsPlan:
    finalists: int
    waves: int
    slot: float
    """Wall seconds of one wave: every finalist's analysis gets ``Costs.budget(slot)``."""

    @property
    def seconds(self) -> float:
        return self.waves * self.slot


@dataclass(frozen=True)
class Plan:
    screen: float
    """More seconds of screening from now."""
    finals: FinalsPlan

    @property
    def seconds(self) -> float:
        return self.screen + self.finals.seconds


def plan_finals(seconds: float, workers: int, want: int, costs: Costs) -> FinalsPlan | None:
    """Up to ``want`` finalists in waves of ``workers``: as many waves as ``seconds`` hold at the wanted time per
    finalist (rounded to the nearest, each at least the minimum), at least one; None when not even one finalist
    fits its minimum."""
    workers, want = max(1, workers), max(1, want)
    if seconds < costs.slot_min():
        return None
    waves = min(math.ceil(want / workers), max(1, round(seconds / costs.slot_want())))
    while waves > 1 and seconds / waves < costs.slot_min():
        waves -= 1
    return FinalsPlan(finalists=min(want, waves * workers), waves=waves, slot=min(costs.slot_want(), seconds / waves))


def plan_run(left: float, workers: int, want: int, costs: Costs, screen_cap: float, screen_floor: float) -> Plan:
    """Split ``left`` seconds between more screening and the finals (see the module notes).

    Raises :class:`BudgetTooSmall` (``minimum`` = the seconds that would fit one finalist) when not even one
    finalist fits."""
    floor = min(screen_floor, screen_cap)
    finals = plan_finals(left - floor, workers, want, costs)
    wanted = min(costs.slot_want(), left) - 1e-6
    if finals is None or finals.slot < wanted:  # the floor gives way to the finalists' wanted time
        finals = plan_finals(left, workers, want, costs)
        if finals is None:
            raise BudgetTooSmall(f"one finalist needs {costs.slot_min():.0f} s, {left:.0f} s are left",
                                 costs.slot_min())
    elif left - finals.seconds > screen_cap:  # more than screening may take: the finals get the rest
        finals = plan_finals(left - screen_cap, workers, want, costs) or finals
    return Plan(screen=max(0.0, min(screen_cap, left - finals.seconds)), finals=finals)
