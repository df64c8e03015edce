"""Agent specs (``random``, ``greedy[:EPS]``, ``mcts:N[:greedy]``) and the agents' tuning constants.

Plain Python on purpose: the command line reads the accepted forms and the defaults from
here to build ``--help`` without loading numba; ``core.agents.search`` holds the compiled
agents that play the specs.
"""

from __future__ import annotations

import enum
import math
import zlib
from dataclasses import dataclass, replace


class AgentKind(enum.IntEnum):
    """The three agent families; the values are what the numba kernels receive (as plain ints)."""

    RANDOM = 0
    GREEDY = 1
    MCTS = 2

    @property
    def spelling(self) -> str:
        """How a spec writes the kind (``random``, ``greedy``, ``mcts``)."""
        return self.name.lower()


DEFAULT_C = 0.7
"""UCT exploration constant for rewards in [0, 1]."""
NOISE_PLIES = 4
"""Placements at the start of a game chosen at random among the well-searched moves."""
SOLVE_LIMIT = 14
"""Try the exact endgame solver when at most this many placements are legal."""
PLAYOUT_EPS = 0.15
"""Random-move share in greedy playouts."""
MAX_SIMS = 1_000_000
"""Upper limit for ``mcts:N``."""

SPEC_HELP = "agent specs: random, greedy, greedy:EPS (0-1), mcts:N (N simulations per move), mcts:N:greedy"


class AgentSpecError(ValueError):
    """An agent spec that cannot be read; the message shows the accepted forms."""


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec; ``text`` is its canonical spelling."""

    kind: AgentKind
    sims: int = 0
    eps: float = 0.0
    greedy_playouts: bool = False

    @property
    def text(self) -> str:
        if self.kind is AgentKind.MCTS:
            return f"mcts:{self.sims}" + (":greedy" if self.greedy_playouts else "")
        if self.kind is AgentKind.GREEDY and self.eps > 0:
            return f"greedy:{self.eps:g}"
        return self.kind.spelling

    @property
    def cheap(self) -> bool:
        """True for agents whose games cost microseconds (batched, given full game caps)."""
        return self.kind is not AgentKind.MCTS

    @property
    def strength(self) -> tuple[int, int]:
        return int(self.kind), self.sims

    @property
    def key(self) -> int:
        """A stable number for seed derivation."""
        return zlib.crc32(self.text.encode())

    def with_sims(self, sims: int) -> AgentSpec:
        return replace(self, sims=sims)


_BY_SPELLING = {k.spelling: k for k in AgentKind}


def parse_agent(text: str) -> AgentSpec:
    """Read ``random``, ``greedy[:EPS]`` or ``mcts:N[:greedy]``; errors say what is accepted."""
    parts = [p.strip().lower() for p in str(text).strip().split(":")]
    kind = _BY_SPELLING.get(parts[0])
    if kind is None:
        raise AgentSpecError(f"unknown agent {text!r}; {SPEC_HELP}")
    if kind is AgentKind.RANDOM:
        if len(parts) > 1:
            raise AgentSpecError(f"agent {text!r}: random takes no options; {SPEC_HELP}")
        return AgentSpec(AgentKind.RANDOM)
    if kind is AgentKind.GREEDY:
        if len(parts) == 1:
            return AgentSpec(AgentKind.GREEDY)
        if len(parts) > 2:
            raise AgentSpecError(f"agent {text!r}: too many ':' parts; {SPEC_HELP}")
        try:
            eps = float(parts[1])
        except ValueError:
            raise AgentSpecError(f"agent {text!r}: {parts[1]!r} is not a number; {SPEC_HELP}") from None
        if not 0.0 <= eps <= 1.0 or math.isnan(eps):
            raise AgentSpecError(f"agent {text!r}: the random-move share must be within 0-1")
        return AgentSpec(AgentKind.GREEDY, eps=eps)
    if len(parts) < 2 or not parts[1]:
        raise AgentSpecError(f"agent {text!r}: give the simulations per move, e.g. mcts:1000")
    if not parts[1].isdigit():
        raise AgentSpecError(f"agent {text!r}: {parts[1]!r} is not a whole number of simulations")
    sims = int(parts[1])
    if not 1 <= sims <= MAX_SIMS:
        raise AgentSpecError(f"agent {text!r}: simulations must be within 1..{MAX_SIMS}")
    greedy = False
    if len(parts) == 3:
        if parts[2] not in ("greedy", "random"):
            raise AgentSpecError(f"agent {text!r}: playouts are 'random' or 'greedy', not {parts[2]!r}")
        greedy = parts[2] == "greedy"
    elif len(parts) > 3:
        raise AgentSpecError(f"agent {text!r}: too many ':' parts; {SPEC_HELP}")
    return AgentSpec(AgentKind.MCTS, sims=sims, greedy_playouts=greedy)
