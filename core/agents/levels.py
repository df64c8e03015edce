"""Named strength levels for hosts: each a fixed agent spec with the Elo that duels measured.

Plain data (no numba) so ``core.agents.spec`` can accept the names wherever an agent spec goes.  The Elo is
against ``mcts:1000`` on ``boards/default.yaml`` (README, "How strong are the agents?").  The simulation budgets
keep the levels reproducible for a seed; ``expert`` also has a time cap so it never thinks longer than two
seconds on a slow machine (it stops at whichever comes first).  ``expert`` sits at 16,000 simulations because
that is as far as each doubling was shown to pay (SPRT on duels: 4,000 -> 8,000 +58 Elo, 8,000 -> 16,000 +32);
the doublings beyond gained +26 and +17 Elo, too little to tell from nothing, for four and sixteen times the time.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    """A named strength: the spec it stands for and what duels measured."""

    name: str
    spec: str
    elo_vs_mcts1000: int
    """Elo against mcts:1000 on boards/default.yaml (README ladder)."""
    blurb: str


LEVELS: dict[str, Level] = {
    lv.name: lv
    for lv in (
        Level("casual", "puct:100", -79, "a glance guided by the symbols; instant"),
        Level("club", "puct:2000", 305, "a short guided search, some milliseconds per move"),
        Level("expert", "puct:16000:t=2", 444, "a deep guided search, at most two seconds per move"),
    )
}


def level_of(text: str) -> Level | None:
    """The level ``text`` names, or the level whose spec it is (a report records ``puct:2000`` for ``club``)."""
    t = str(text).strip().lower()
    return LEVELS.get(t) or next((lv for lv in LEVELS.values() if lv.spec == t), None)


def resolve(text: str) -> str:
    """The spec a level name stands for (other specs unchanged, lower-cased and stripped)."""
    t = str(text).strip().lower()
    level = LEVELS.get(t)
    return level.spec if level is not None else t
