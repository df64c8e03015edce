"""The generator's settings, in plain Python so the command line can build its help without the engine."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from core.agents.spec import FIXED_WORK_HELP, SPEC_HELP, AgentSpecError, parse_agent
from core.board.geometry import DEFAULT_SIZE, check_size
from core.board.model import GameParams
from core.generate.layout import PairRange

DEFAULT_TIME = 600.0
"""Seconds for a whole ``lits generate`` run when no ``rounds`` are given (``core.generate.plan`` holds it).
At the default level (``club``) a finalist wants about 200 s of one worker on the 2-core development machine
(measured: 201 s per finalist, 10 of 11 balanced), so 600 s judge two waves of finalists there and still one when
the machine is twice as slow or busy; 300 s left room for one wave at best and were refused under load."""
MAX_TIME = 24 * 3600.0
"""The longest ``lits generate`` or Improve run: a day (the designer's time boxes offer the same range)."""
MAX_COUNT = 50


class GenerateCancelled(Exception):
    """The caller asked to stop; no partial result is given."""


class LevelError(ValueError):
    """A level that is neither an agent spec nor a named level; the message lists what is accepted."""


def accepted_levels_help() -> str:
    """What a level may be, with the specs the generator refuses said beside the list (it names them too)."""
    return f"an agent spec or a level: {SPEC_HELP.removeprefix('agent specs: ')}; {FIXED_WORK_HELP}"


def resolve_level(text: str) -> str:
    """The agent spec text of a level: ``parse_agent`` reads agent specs and the named levels alike.  Plain
    Python, so the command line and the designer check a level before any worker starts."""
    try:
        spec = parse_agent(text.strip().lower())
    except AgentSpecError:
        raise LevelError(f"unknown level {text!r}: give {accepted_levels_help()}") from None
    try:
        spec.fixed_work()  # the verdicts must be the seed's, not the machine's
    except AgentSpecError as exc:
        raise LevelError(str(exc)) from None
    return spec.text


@dataclass
class SearchConfig:
    """What to search and how long.  ``rounds`` fixes the work exactly; otherwise ``time_budget`` plans it."""

    size: int = DEFAULT_SIZE
    pairs: PairRange | None = None
    """Density range in symbol pairs; None uses ``PairRange.default_for(size)`` (or, improving, the start's
    pairs plus or minus ``max_changes``)."""
    count: int = 3
    """Boards wanted (generate) or proposals wanted (improve)."""
    seed: int = 0
    rounds: int | None = None
    time_budget: float | None = DEFAULT_TIME
    screen_share: float = 0.5
    """Most of ``time_budget`` that screening may take; it takes less when the finalists' analyses need more
    (``core.generate.plan``), and the run ends early when cheap finalists are done."""
    batch: int = 16
    """New layouts screened per round (fixed: it must not depend on the worker count)."""
    elite: int = 6
    """The best layouts so far that parent each round's children."""
    immigrants: int = 4
    """Fresh random layouts per round (generate only; improving stays near the host's board)."""
    max_moves: int = 3
    """Local moves applied to make one child (1..max_moves, drawn per child)."""
    finalists: int = 0
    """Layouts given to the judge; 0 means ``count + max(1, count // 2)``."""
    min_distance: int = 0
    """Pairs in which two finalists must differ; 0 means a quarter of the range's low end (at least 1)."""
    max_changes: int = 4
    """Improving: proposals differ from the host's board in at most this many pairs."""
    params: GameParams = field(default_factory=GameParams)

    def check(self) -> None:
        check_size(self.size)
        if not 1 <= self.count <= MAX_COUNT:
            raise ValueError(f"count must be within 1..{MAX_COUNT}, not {self.count}")
        if self.rounds is None and self.time_budget is None:
            raise ValueError("give rounds or a time budget")
        if self.rounds is not None and self.rounds < 1:
            raise ValueError(f"rounds must be at least 1, not {self.rounds}")
        if self.time_budget is not None and not (self.time_budget > 0 and math.isfinite(self.time_budget)):
            raise ValueError(f"the time budget must be a positive number of seconds, not {self.time_budget}")
        if not 0.0 < self.screen_share <= 1.0:
            raise ValueError(f"screen_share must be within (0, 1], not {self.screen_share}")
        if self.batch < 2 or self.elite < 1 or self.max_moves < 1 or self.immigrants < 0:
            raise ValueError("batch must be at least 2, elite and max_moves at least 1, immigrants at least 0")
        if self.max_changes < 1:
            raise ValueError(f"max_changes must be at least 1, not {self.max_changes}")

    @property
    def finalist_count(self) -> int:
        return self.finalists if self.finalists > 0 else self.count + max(1, self.count // 2)
