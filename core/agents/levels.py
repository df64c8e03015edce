"""Named strength levels for hosts, and one factory for every agent spec (plain specs, ``puct`` and levels).

Each level is a fixed spec; its Elo is measured with ``lits duel`` against ``mcts:1000`` on
``boards/default.yaml`` (README, "How strong are the agents?").  The simulation budgets make the levels
reproducible for a seed; ``expert`` also has a time cap so it never thinks longer than a few seconds on a slow
machine (it stops at whichever comes first).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np
import numpy.typing as npt

from core.agents.puct import PuctSearch, parse_puct
from core.agents.search import AgentSpec, AgentSpecError, make_agent, parse_agent
from core.board.model import Board
from core.engine.kernels import KTables


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
        Level("casual", "puct:100", 0, "a glance guided by the symbols; instant"),
        Level("club", "puct:2000", 0, "a short guided search, some milliseconds per move"),
        Level("expert", "puct:64000:t=2", 0, "a deep guided search, at most two seconds per move"),
    )
}


def resolve(text: str) -> str:
    """The spec a level name stands for (other specs unchanged, lower-cased and stripped)."""
    t = str(text).strip().lower()
    level = LEVELS.get(t)
    return level.spec if level is not None else t


def canonical_spec(text: str) -> str:
    """Check any agent spec and return its canonical spelling (a level keeps its name); ValueError if bad."""
    return parse_agent(text).text


class Player(Protocol):
    """What a game loop needs of an agent."""

    last_value: float

    def choose(self, state: npt.NDArray[np.uint64]) -> int: ...

    def wants_swap(self, state: npt.NDArray[np.uint64], opening: int, searched: bool = False) -> bool: ...


def level_or_puct_spec(text: str) -> AgentSpec | None:
    """``parse_agent``'s reading of a level name or a ``puct`` spec (None for other kinds)."""
    t = str(text).strip().lower()
    level = LEVELS.get(t)
    if level is not None:
        return replace(parse_agent(level.spec), detail=level.name)
    if t.split(":", 1)[0] != "puct":
        return None
    try:
        ps = parse_puct(t)
    except ValueError as exc:
        raise AgentSpecError(str(exc)) from None
    return AgentSpec("puct", sims=ps.budget.sims, detail=ps.text)


def puct_search(text: str, kt: KTables, gain: npt.NDArray[np.int64], rng: npt.NDArray[np.uint64]) -> PuctSearch:
    """The searcher behind a ``puct`` spec or a level that stands for one, on the caller's random stream."""
    ps = parse_puct(resolve(text))
    return PuctSearch(kt, gain, rng, ps.budget, params=ps.params)


def make_player(text: str, board: Board, seed: int) -> Player:
    """A seeded player for any spec: ``random``, ``greedy[:EPS]``, ``mcts:N[:greedy]``, ``puct...`` or a level."""
    return make_agent(text, board, seed)
