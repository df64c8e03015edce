"""Named strength levels for hosts, and one factory for every agent spec (plain specs, ``puct`` and levels).

Each level is a fixed spec; its Elo is measured with ``lits duel`` against ``mcts:1000`` on
``boards/default.yaml`` (README, "How strong are the agents?").  The simulation budgets make the levels
reproducible for a seed; ``expert`` also has a time cap so it never thinks longer than a few seconds on a slow
machine (it stops at whichever comes first).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from core.agents.puct import PuctSearch, parse_puct
from core.agents.search import AgentSpecError, _gain_for, make_agent, parse_agent
from core.board.model import Board
from core.engine.kernels import k_seed, kernel_tables


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
        Level("casual", "greedy:0.1", -500, "plays the biggest symbol gain, with a slip now and then; instant"),
        Level("club", "puct:1000", 150, "a short guided search, a few milliseconds per move"),
        Level("expert", "puct:64000:t=2", 450, "a deep guided search, at most two seconds per move"),
    )
}


def resolve(text: str) -> str:
    """The spec a level name stands for (other specs unchanged, lower-cased and stripped)."""
    t = str(text).strip().lower()
    level = LEVELS.get(t)
    return level.spec if level is not None else t


LEVEL_HELP = "levels: " + ", ".join(LEVELS)


def canonical_spec(text: str) -> str:
    """Check any agent spec and return its canonical spelling (a level keeps its name); ValueError if bad."""
    t = str(text).strip().lower()
    if t in LEVELS:
        return t
    if t.split(":", 1)[0] == "puct":
        return parse_puct(t).text
    try:
        return parse_agent(t).text
    except AgentSpecError as exc:
        raise AgentSpecError(f"{exc}; puct:N, puct:t=SECONDS; {LEVEL_HELP}") from None


class Player(Protocol):
    """What a game loop needs of an agent."""

    last_value: float

    def choose(self, state: npt.NDArray[np.uint64]) -> int: ...

    def wants_swap(self, state: npt.NDArray[np.uint64], opening: int, searched: bool = False) -> bool: ...


def make_player(text: str, board: Board, seed: int) -> Player:
    """A seeded player for any spec: ``random``, ``greedy[:EPS]``, ``mcts:N[:greedy]``, ``puct...`` or a level."""
    spec = resolve(text)
    if spec.split(":", 1)[0] == "puct":
        ps = parse_puct(spec)
        kt = kernel_tables(board)
        return PuctSearch(kt, _gain_for(kt), k_seed(seed), ps.budget, params=ps.params)
    return make_agent(spec, board, seed)
