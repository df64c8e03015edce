"""Agent specs (``random``, ``greedy[:EPS]``, ``mcts:N[:greedy]``, ``puct...``, the levels) and tuning constants.

Plain Python on purpose: the command line reads the accepted forms and the defaults from
here to build ``--help`` without loading numba; ``core.agents.search`` holds the compiled
agents that play the specs.
"""

from __future__ import annotations

import enum
import math
import zlib
from dataclasses import dataclass, replace

from core.agents.levels import LEVELS, resolve


class AgentKind(enum.IntEnum):
    """The agent families; the values are what the numba kernels receive (as plain ints)."""

    RANDOM = 0
    GREEDY = 1
    MCTS = 2
    PUCT = 3

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

PUCT_DEFAULTS = {"c": 4.0, "tau": 0.5, "fpu": 0.0, "play": 1.0, "eps": 0.15, "solver": 1.0, "reuse": 0.0,
                 "threads": 1.0}
"""The puct search's parameters, tuned by duels (README: "How strong are the agents?")."""

SPEC_HELP = ("agent specs: random, greedy, greedy:EPS (0-1), mcts:N (N simulations per move), mcts:N:greedy, "
             "puct:N, puct:t=SECONDS, puct:N:t=SECONDS, or a level: " + ", ".join(LEVELS))


class AgentSpecError(ValueError):
    """An agent spec that cannot be read; the message shows the accepted forms."""


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec; ``text`` is its canonical spelling."""

    kind: AgentKind
    sims: int = 0
    eps: float = 0.0
    greedy_playouts: bool = False
    detail: str = ""
    """The spelling of a ``puct`` spec or a level name, which ``text`` returns."""

    @property
    def text(self) -> str:
        if self.detail:
            return self.detail
        if self.kind is AgentKind.MCTS:
            return f"mcts:{self.sims}" + (":greedy" if self.greedy_playouts else "")
        if self.kind is AgentKind.GREEDY and self.eps > 0:
            return f"greedy:{self.eps:g}"
        return self.kind.spelling

    @property
    def cheap(self) -> bool:
        """True for agents whose games cost microseconds (batched, given full game caps)."""
        return self.kind not in (AgentKind.MCTS, AgentKind.PUCT)

    @property
    def strength(self) -> tuple[int, int]:
        if self.kind is AgentKind.PUCT and self.sims == 0:  # a time budget only: above any simulation count
            return int(self.kind), 1 << 62
        return int(self.kind), self.sims

    @property
    def key(self) -> int:
        """A stable number for seed derivation."""
        return zlib.crc32(self.text.encode())

    def with_sims(self, sims: int) -> AgentSpec:
        """The same agent with another simulation budget (a level becomes the plain spec it stood for)."""
        if self.kind is AgentKind.PUCT:
            ps = parse_puct(resolve(self.text))
            return parse_agent(PuctSpec(PuctBudget(sims, ps.budget.seconds), ps.options).text)
        return replace(self, sims=sims)


_BY_SPELLING = {k.spelling: k for k in AgentKind}


def parse_agent(text: str) -> AgentSpec:
    """Read ``random``, ``greedy[:EPS]``, ``mcts:N[:greedy]``, ``puct...`` or a level; errors say what is accepted."""
    parts = [p.strip().lower() for p in str(text).strip().split(":")]
    level = LEVELS.get(parts[0]) if len(parts) == 1 else None
    if level is not None:
        return replace(parse_agent(level.spec), detail=level.name)
    kind = _BY_SPELLING.get(parts[0])
    if kind is AgentKind.PUCT:
        ps = parse_puct(text)
        return AgentSpec(AgentKind.PUCT, sims=ps.budget.sims, detail=ps.text)
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


@dataclass(frozen=True)
class PuctBudget:
    """Simulations per move, seconds per move, or both (the search stops at whichever comes first)."""

    sims: int = 0
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.sims <= 0 and self.seconds <= 0:
            raise ValueError("a search budget needs simulations or seconds per move")




PUCT_HELP = ("puct:N (N simulations per move), puct:t=S (S seconds per move), puct:N:t=S (whichever ends first); "
             "tuning options c=, tau=, fpu=, eps=, play=random|greedy, solver=0|1, reuse=0|1; threads=K runs K "
             "searches of the budget at once on K cores and plays the move their summed root visits prefer")
MAX_THREADS = 256
MAX_PUCT_SIMS = 10_000_000
MAX_PUCT_SECONDS = 600.0


@dataclass(frozen=True)
class PuctSpec:
    """A parsed ``puct`` spec; ``text`` is its canonical spelling."""

    budget: PuctBudget
    options: tuple[tuple[str, float], ...] = ()

    @property
    def params(self) -> dict[str, float]:
        return dict(self.options)

    @property
    def text(self) -> str:
        parts = ["puct"]
        if self.budget.sims:
            parts.append(str(self.budget.sims))
        if self.budget.seconds:
            parts.append(f"t={self.budget.seconds:g}")
        for k, v in self.options:
            parts.append(f"play={'greedy' if v else 'random'}" if k == "play" else f"{k}={v:g}")
        return ":".join(parts)


def with_threads(text: str, threads: int) -> str:
    """``text`` searching on ``threads`` cores at once (root parallel) when it is a ``puct`` spec or a level
    that stands for one; other agents are returned unchanged (they search on one core)."""
    spec = parse_agent(text)
    if spec.kind is not AgentKind.PUCT or threads <= 1:
        return spec.text
    ps = parse_puct(resolve(spec.text))
    options = dict(ps.options)
    options["threads"] = float(min(threads, MAX_THREADS))
    return PuctSpec(ps.budget, tuple(sorted(options.items()))).text


def parse_puct(text: str) -> PuctSpec:
    """Read ``puct:N``, ``puct:t=S``, ``puct:N:t=S`` with optional ``key=value`` options (AgentSpecError if not)."""
    parts = [p.strip().lower() for p in str(text).strip().split(":")]
    if parts[0] != "puct":
        raise AgentSpecError(f"agent {text!r} is not a puct spec; {PUCT_HELP}")
    sims = 0
    seconds = 0.0
    options: dict[str, float] = {}
    for part in parts[1:]:
        if part.isdigit():
            if sims:
                raise AgentSpecError(f"agent {text!r}: the simulations are given twice")
            sims = int(part)
            if not 1 <= sims <= MAX_PUCT_SIMS:
                raise AgentSpecError(f"agent {text!r}: simulations must be within 1..{MAX_PUCT_SIMS}")
            continue
        key, eq, value = part.partition("=")
        if not eq:
            raise AgentSpecError(f"agent {text!r}: {part!r} is neither a number of simulations nor key=value; "
                                 f"{PUCT_HELP}")
        if key == "t":
            try:
                seconds = float(value.removesuffix("s"))
            except ValueError:
                raise AgentSpecError(f"agent {text!r}: {value!r} is not a number of seconds") from None
            if not 0.001 <= seconds <= MAX_PUCT_SECONDS:  # also refuses nan
                raise AgentSpecError(f"agent {text!r}: seconds per move must be within 0.001..{MAX_PUCT_SECONDS:g}")
            continue
        if key == "play":
            if value not in ("random", "greedy"):
                raise AgentSpecError(f"agent {text!r}: playouts are 'random' or 'greedy', not {value!r}")
            options[key] = 1.0 if value == "greedy" else 0.0
            continue
        if key not in PUCT_DEFAULTS:
            raise AgentSpecError(f"agent {text!r}: unknown option {key!r}; {PUCT_HELP}")
        try:
            number = float(value)
        except ValueError:
            raise AgentSpecError(f"agent {text!r}: {key}={value!r} is not a number") from None
        limits = {"c": (0.0, 100.0), "tau": (0.0, 100.0), "fpu": (-1.0, 1.0), "eps": (0.0, 1.0),
                  "solver": (0.0, 1.0), "reuse": (0.0, 1.0), "threads": (1.0, float(MAX_THREADS))}[key]
        if not limits[0] <= number <= limits[1]:
            raise AgentSpecError(f"agent {text!r}: {key} must be within {limits[0]:g}..{limits[1]:g}")
        if key in ("solver", "reuse") and number not in (0.0, 1.0):
            raise AgentSpecError(f"agent {text!r}: {key} is 0 or 1")
        if key == "threads" and not number.is_integer():
            raise AgentSpecError(f"agent {text!r}: threads is a whole number")
        options[key] = number
    if not sims and not seconds:
        raise AgentSpecError(f"agent {text!r}: give simulations or seconds per move, e.g. puct:1000 or puct:t=2")
    return PuctSpec(PuctBudget(sims, seconds), tuple(sorted(options.items())))
