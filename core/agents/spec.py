"""Agent specs, the table of agent kinds (:data:`KINDS`) and tuning constants.

Each kind (``random``, ``greedy[:EPS]``, ``mcts:N[:greedy]``, ``puct...``, ``ab...``, ``net...``) is one
:class:`AgentKindInfo` row: its grammar, its words for hosts, its cost class, its strength rank,
where its move choice and warm-up live, and its pie decision.  A new agent is a kernel module
plus one :func:`register` call.  Plain Python on purpose: the command line reads the accepted
forms and the defaults from here to build ``--help`` without loading numba; the compiled
choosers the rows name (``core.agents.search``, ``.puct``, ``.alphabeta``, ``.netsearch``) play the
specs.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from core.agents.levels import LEVELS, level_of, resolve

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
                 "threads": 1.0, "prior": 0.0, "stop": 0.0, "bank": 0.0}
"""The puct search's parameters, tuned by duels (README: "How strong are the agents?")."""
PRIORS = ("gain", "learned", "position")
"""``prior=`` values, numbered as the search's ``prior`` parameter."""



class AgentSpecError(ValueError):
    """An agent spec that cannot be read; the message shows the accepted forms."""


@dataclass(frozen=True)
class PuctBudget:
    """Simulations per move, seconds per move, or both (the search stops at whichever comes first)."""

    sims: int = 0
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.sims <= 0 and self.seconds <= 0:
            raise ValueError("a search budget needs simulations or seconds per move")




PUCT_HELP = ("puct:N (N simulations per move), puct:t=S (S seconds per move), puct:N:t=S (whichever ends first); "
             "tuning options c=, tau=, fpu=, eps=, play=random|greedy, solver=0|1, reuse=0|1, "
             "prior=gain|learned|position (learned: the prior fitted to club's moves, docs/agents.md; position: "
             "the same with what each placement rules out and opens where the search starts); stop=F ends a "
             "search once its most visited move leads the next by more than F times the simulations left (1: when "
             "no move can overtake it in visits); bank=B lets a move use the simulations earlier moves of the game "
             "saved, up to B times N; threads=K runs K searches of the budget at once on K cores and plays the "
             "move their summed root visits prefer")
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
            parts.append(f"play={'greedy' if v else 'random'}" if k == "play"
                         else f"prior={PRIORS[int(v)]}" if k == "prior" else f"{k}={v:g}")
        return ":".join(parts)


def _budget_count(text: str, part: str, current: int, what: str, most: int) -> int:
    """A search's per-move count (``puct:N``'s simulations, ``ab:N``'s nodes), read once and within 1..most."""
    if current:
        raise AgentSpecError(f"agent {text!r}: the {what} are given twice")
    count = int(part)
    if not 1 <= count <= most:
        raise AgentSpecError(f"agent {text!r}: {what} must be within 1..{most}")
    return count


def _budget_seconds(text: str, value: str) -> float:
    """A search's ``t=S`` seconds per move (an ``s`` suffix allowed), within 0.001..MAX_PUCT_SECONDS."""
    try:
        seconds = float(value.removesuffix("s"))
    except ValueError:
        raise AgentSpecError(f"agent {text!r}: {value!r} is not a number of seconds") from None
    if not 0.001 <= seconds <= MAX_PUCT_SECONDS:  # also refuses nan
        raise AgentSpecError(f"agent {text!r}: seconds per move must be within 0.001..{MAX_PUCT_SECONDS:g}")
    return seconds


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
            sims = _budget_count(text, part, sims, "simulations", MAX_PUCT_SIMS)
            continue
        key, eq, value = part.partition("=")
        if not eq:
            raise AgentSpecError(f"agent {text!r}: {part!r} is neither a number of simulations nor key=value; "
                                 f"{PUCT_HELP}")
        if key == "t":
            seconds = _budget_seconds(text, value)
            continue
        if key == "play":
            if value not in ("random", "greedy"):
                raise AgentSpecError(f"agent {text!r}: playouts are 'random' or 'greedy', not {value!r}")
            options[key] = 1.0 if value == "greedy" else 0.0
            continue
        if key == "prior":
            if value not in PRIORS:
                raise AgentSpecError(f"agent {text!r}: the prior is 'gain', 'learned' or 'position', not {value!r}")
            options[key] = float(PRIORS.index(value))
            continue
        if key not in PUCT_DEFAULTS:
            raise AgentSpecError(f"agent {text!r}: unknown option {key!r}; {PUCT_HELP}")
        try:
            number = float(value)
        except ValueError:
            raise AgentSpecError(f"agent {text!r}: {key}={value!r} is not a number") from None
        limits = {"c": (0.0, 100.0), "tau": (0.0, 100.0), "fpu": (-1.0, 1.0), "eps": (0.0, 1.0),
                  "solver": (0.0, 1.0), "reuse": (0.0, 1.0), "threads": (1.0, float(MAX_THREADS)),
                  "stop": (0.0, 1.0), "bank": (0.0, 10.0)}[key]
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


# ---------------------------------------------------------------------------------- learned-value specs

NET_HELP = ("net:N (the puct search with the learned value at its leaves, N simulations per move), net:N:mix=M "
            "(leaf value M * model + (1 - M) * playout, M in 0..1, default 1); puct's options except threads")


@dataclass(frozen=True)
class NetSpec:
    """A parsed ``net`` spec: the puct search it runs and the share of the model in the leaf value."""

    puct: PuctSpec
    mix: float = 1.0

    @property
    def text(self) -> str:
        rest = self.puct.text.removeprefix("puct")
        return "net" + rest + (f":mix={self.mix:g}" if self.mix != 1.0 else "")


def parse_net(text: str) -> NetSpec:
    """Read ``net:N[:mix=M]`` with puct's options (AgentSpecError if not)."""
    parts = [p.strip().lower() for p in str(text).strip().split(":")]
    if parts[0] != "net":
        raise AgentSpecError(f"agent {text!r} is not a net spec; {NET_HELP}")
    mix = 1.0
    rest = []
    for part in parts[1:]:
        key, eq, value = part.partition("=")
        if eq and key == "mix":
            try:
                mix = float(value)
            except ValueError:
                raise AgentSpecError(f"agent {text!r}: mix={value!r} is not a number") from None
            if not 0.0 <= mix <= 1.0:  # also refuses nan
                raise AgentSpecError(f"agent {text!r}: mix must be within 0..1")
        elif eq and key == "threads":
            raise AgentSpecError(f"agent {text!r}: net searches on one core; {NET_HELP}")
        elif eq and key == "prior" and value == "position":
            raise AgentSpecError(f"agent {text!r}: net orders its children by prior=gain or prior=learned; "
                                 "prior=position is puct's")
        else:
            rest.append(part)
    try:
        ps = parse_puct(":".join(["puct", *rest]))
    except AgentSpecError as exc:
        raise AgentSpecError(str(exc).replace("'puct", "'net", 1).replace(PUCT_HELP, NET_HELP)
                             .replace("puct:1000 or puct:t=2", "net:1000")) from None
    return NetSpec(ps, mix)


# ---------------------------------------------------------------------------------- alpha-beta specs

MAX_AB_NODES = 100_000_000
MAX_AB_DEPTH = 64
MAX_AB_NOISE = 64
AB_EVALS = ("hand", "net", "mix")
"""``ab``'s leaf evaluations: the hand-made one, the learned model's, or their sum (``core.agents.alphabeta``)."""


@dataclass(frozen=True)
class AbSpec:
    """A parsed ``ab`` spec: a node budget (reproducible), seconds per move (not), or both; an optional depth cap."""

    nodes: int = 0
    seconds: float = 0.0
    depth: int = 0
    noise: int = NOISE_PLIES
    """Placements from the start of a game in which the move is drawn among those near the best."""
    evaluation: str = "hand"
    """The leaf evaluation, one of :data:`AB_EVALS`."""

    @property
    def text(self) -> str:
        parts = ["ab"]
        if self.nodes:
            parts.append(str(self.nodes))
        if self.seconds:
            parts.append(f"t={self.seconds:g}")
        if self.depth:
            parts.append(f"d={self.depth}")
        if self.noise != NOISE_PLIES:
            parts.append(f"n={self.noise}")
        if self.evaluation != "hand":
            parts.append(f"eval={self.evaluation}")
        return ":".join(parts)


AB_HELP = ("ab:N (alpha-beta, N nodes per move), ab:t=S (S seconds per move), ab:N:t=S (whichever ends first), "
           "optional :d=D (at most D placements deep) and :n=P (the first P placements of a game drawn among moves "
           f"near the best; default {NOISE_PLIES}), and :eval=net or :eval=mix (leaves valued by the learned model, "
           "or by the model plus the hand-made evaluation)")


def parse_ab(text: str) -> AbSpec:
    """Read ``ab:N``, ``ab:t=S``, ``ab:N:t=S`` with optional ``d=D``, ``n=P``, ``eval=E`` (AgentSpecError if not)."""
    parts = [p.strip().lower() for p in str(text).strip().split(":")]
    if parts[0] != "ab":
        raise AgentSpecError(f"agent {text!r} is not an ab spec; {AB_HELP}")
    nodes, seconds, depth, noise, evaluation = 0, 0.0, 0, NOISE_PLIES, ""
    for part in parts[1:]:
        if part.isdigit():
            nodes = _budget_count(text, part, nodes, "nodes", MAX_AB_NODES)
            continue
        key, eq, value = part.partition("=")
        if key == "t" and eq:
            seconds = _budget_seconds(text, value)
            continue
        if key == "d" and eq:
            if not value.isdigit() or not 1 <= int(value) <= MAX_AB_DEPTH:
                raise AgentSpecError(f"agent {text!r}: the depth must be a whole number within 1..{MAX_AB_DEPTH}")
            depth = int(value)
            continue
        if key == "n" and eq:
            if not value.isdigit() or not 0 <= int(value) <= MAX_AB_NOISE:
                raise AgentSpecError(f"agent {text!r}: the noisy placements must be a whole number within "
                                     f"0..{MAX_AB_NOISE}")
            noise = int(value)
            continue
        if key == "eval" and eq:
            if value not in AB_EVALS:
                raise AgentSpecError(f"agent {text!r}: the evaluation must be one of {', '.join(AB_EVALS)}, "
                                     f"not {value!r}")
            if evaluation:
                raise AgentSpecError(f"agent {text!r}: the evaluation is given twice")
            evaluation = value
            continue
        raise AgentSpecError(f"agent {text!r}: {part!r} is not understood; {AB_HELP}")
    if not nodes and not seconds:
        raise AgentSpecError(f"agent {text!r}: give nodes or seconds per move, e.g. ab:20000 or ab:t=1")
    return AbSpec(nodes, seconds, depth, noise, evaluation or "hand")


# ---------------------------------------------------------------------------------- the table of agent kinds

Cost = Literal["cheap", "search"]
"""``cheap``: a game costs microseconds (batched, given full game caps); ``search``: a search per move."""
SwapRule = Literal["value", "gain", "coin"]
"""The pie decision: ``value`` swaps when the move search's value for the side to move is below one half,
``gain`` when the opening gained its maker symbols, ``coin`` on a fair coin from the game's random stream."""


@dataclass(frozen=True, eq=False)
class AgentKindInfo:
    """One agent kind: everything the rest of the project asks of it, in one row of :data:`KINDS`.

    ``chooser`` and ``warm_up`` name compiled code as ``"module:function"`` (imported only when a game is
    played, so reading specs never loads numba) or are the function itself.  The chooser is called as
    ``chooser(spec, kt, gain, rng)`` and returns an object with ``choose(state) -> placement`` and a
    ``last_value`` (the side to move's expected share, for the ``value`` swap rule); ``warm_up(kt, gain, rng)``
    compiles (or loads) the kind's kernels on a tiny board.
    """

    name: str
    """How a spec starts (``mcts``)."""
    grammar: str
    """The accepted forms, for ``--help`` and error messages."""
    parse: Callable[[str, list[str]], AgentSpec]
    """(the spec as given, its ``:``-separated parts lower-cased) -> the spec; AgentSpecError if not readable."""
    describe: Callable[[AgentSpec], str]
    """The agent in a host's words (``a searching computer player (1000 simulations a move)``)."""
    cost: Cost
    rank: int
    """Strength order between kinds (higher = stronger, whatever the budget); within a kind the budget orders."""
    chooser: str | Callable[..., Any]
    swap: SwapRule
    warm_up: str | Callable[..., Any] | None = None
    warm_up_weight: int = 1
    """Share of a cold compile its warm-up takes (its measured seconds of the cold compile on the idle 2-core machine,
    ``core.agents.agent.BASE_WARM_UP_WEIGHTS``)."""
    budget: Callable[[AgentSpec], int] = lambda spec: spec.sims
    """The size of the search within the kind (simulations, nodes), for the strength order."""
    capped: Callable[[AgentSpec, int], AgentSpec] = lambda spec, sims: spec
    """The same agent at most ``sims`` simulations' worth of search (quick mode); cheap agents are unchanged."""
    threaded: Callable[[AgentSpec, int], str] = lambda spec, threads: spec.text
    """The spec searching on ``threads`` cores at once; agents that search on one core are unchanged."""
    spell: Callable[[AgentSpec], str] = lambda spec: spec.kind.name
    """The canonical spelling from the spec's fields, for kinds whose parser leaves ``detail`` empty."""
    untimed: Callable[[AgentSpec], AgentSpec | None] = lambda spec: spec
    """The same agent on its simulations or nodes alone (a per-move time cap dropped); None when seconds are its
    only budget.  Kinds with no time budget are unchanged."""

    @property
    def spelling(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"AgentKindInfo({self.name!r})"


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec; ``text`` is its canonical spelling."""

    kind: AgentKindInfo
    sims: int = 0
    """Simulations (``mcts``, ``puct``) or nodes (``ab``) per move; 0 for none or a time budget only."""
    eps: float = 0.0
    greedy_playouts: bool = False
    detail: str = ""
    """The canonical spelling when the kind's own fields do not make it (``puct``, ``ab``, a level name)."""

    @property
    def text(self) -> str:
        return self.detail or self.kind.spell(self)

    @property
    def cheap(self) -> bool:
        """True for agents whose games cost microseconds (batched, given full game caps)."""
        return self.kind.cost == "cheap"

    @property
    def strength(self) -> tuple[int, int]:
        """Orders agents weakest first: by the kind's rank, then by the search's size."""
        return self.kind.rank, self.kind.budget(self)

    @property
    def key(self) -> int:
        """A stable number for seed derivation."""
        return zlib.crc32(self.text.encode())


    def capped(self, sims: int) -> AgentSpec:
        """The same agent searching at most ``sims`` simulations' worth (see ``AgentKindInfo.capped``)."""
        return self.kind.capped(self, sims)

    def fixed_work(self) -> AgentSpec:
        """What a run that must give the same figures on any machine plays (an analysis, ``lits openings``): the
        agent on its simulations or nodes alone.  Why: a per-move time cap (``expert``'s two seconds) is for live
        play; on a slow or busy machine it would cut searches short and change the games a seed gives.  Searches
        a time cap never reaches play the same moves either way.  AgentSpecError for an agent sized in seconds
        only."""
        played = self.kind.untimed(self)
        if played is None:
            raise AgentSpecError(
                f"agent {self.text!r} is sized in seconds per move, so its games would depend on this machine's "
                "speed and load; give it simulations or nodes per move instead (e.g. puct:2000 or ab:8000; "
                "puct:2000:t=2 is played on its 2000 simulations)")
        return played


def _no_options(text: str, parts: list[str]) -> None:
    if len(parts) > 1:
        raise AgentSpecError(f"agent {text!r}: {parts[0]} takes no options; {SPEC_HELP}")


def _parse_random(text: str, parts: list[str]) -> AgentSpec:
    _no_options(text, parts)
    return AgentSpec(RANDOM)


def _parse_greedy(text: str, parts: list[str]) -> AgentSpec:
    if len(parts) == 1:
        return AgentSpec(GREEDY)
    if len(parts) > 2:
        raise AgentSpecError(f"agent {text!r}: too many ':' parts; {SPEC_HELP}")
    try:
        eps = float(parts[1])
    except ValueError:
        raise AgentSpecError(f"agent {text!r}: {parts[1]!r} is not a number; {SPEC_HELP}") from None
    if not 0.0 <= eps <= 1.0 or math.isnan(eps):
        raise AgentSpecError(f"agent {text!r}: the random-move share must be within 0-1")
    return AgentSpec(GREEDY, eps=eps)


def _parse_mcts(text: str, parts: list[str]) -> AgentSpec:
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
    return AgentSpec(MCTS, sims=sims, greedy_playouts=greedy)


def _parse_puct(text: str, parts: list[str]) -> AgentSpec:
    ps = parse_puct(text)
    return AgentSpec(PUCT, sims=ps.budget.sims, detail=ps.text)


def _puct_capped(spec: AgentSpec, sims: int) -> AgentSpec:
    """The same search with at most ``sims`` simulations (a level becomes the plain spec it stood for)."""
    ps = parse_puct(resolve(spec.text))
    return parse_agent(PuctSpec(PuctBudget(min(spec.sims or sims, sims), ps.budget.seconds), ps.options).text)


def _puct_untimed(spec: AgentSpec) -> AgentSpec | None:
    ps = parse_puct(resolve(spec.text))
    if not ps.budget.seconds:
        return spec
    return parse_agent(PuctSpec(PuctBudget(ps.budget.sims), ps.options).text) if ps.budget.sims else None


def _puct_threaded(spec: AgentSpec, threads: int) -> str:
    if threads <= 1:
        return spec.text
    ps = parse_puct(resolve(spec.text))
    options = dict(ps.options)
    options["threads"] = float(min(threads, MAX_THREADS))
    return PuctSpec(ps.budget, tuple(sorted(options.items()))).text


def _parse_ab(text: str, parts: list[str]) -> AgentSpec:
    ab = parse_ab(text)
    return AgentSpec(ALPHABETA, sims=ab.nodes, detail=ab.text)


AB_NODES_PER_SIM = 4
"""Alpha-beta nodes that cost about as much time as one ``puct`` simulation (``ab:8000`` against ``puct:2000``:
about 7 ms of one core a move each on the 12x12 default board, docs/alphabeta.md)."""


def _ab_capped(spec: AgentSpec, sims: int) -> AgentSpec:
    ab = parse_ab(spec.text)
    cap = sims * AB_NODES_PER_SIM
    return parse_agent(AbSpec(min(ab.nodes or cap, cap), ab.seconds, ab.depth, evaluation=ab.evaluation).text)


def _ab_untimed(spec: AgentSpec) -> AgentSpec | None:
    ab = parse_ab(spec.text)
    if not ab.seconds:
        return spec
    return parse_agent(replace(ab, seconds=0.0).text) if ab.nodes else None


def _ab_describe(spec: AgentSpec) -> str:
    ab = parse_ab(spec.text)
    budget = f"{ab.nodes} positions a move" if ab.nodes else f"{ab.seconds:g} s a move"
    how = {"hand": "", "net": ", learned evaluation", "mix": ", hand-made and learned evaluation"}[ab.evaluation]
    return f"a look-ahead computer player (alpha-beta, {budget}{how})"


def _search_budget(spec: AgentSpec) -> str:
    if spec.sims:
        return f"{spec.sims} simulations a move"
    return f"{parse_puct(resolve(spec.text)).budget.seconds:g} s a move"


def _parse_net(text: str, parts: list[str]) -> AgentSpec:
    ns = parse_net(text)
    return AgentSpec(NET, sims=ns.puct.budget.sims, detail=ns.text)


def _net_budget(spec: AgentSpec) -> str:
    if spec.sims:
        return f"{spec.sims} simulations a move"
    return f"{parse_net(spec.text).puct.budget.seconds:g} s a move"


def _net_capped(spec: AgentSpec, sims: int) -> AgentSpec:
    ns = parse_net(spec.text)
    budget = PuctBudget(min(spec.sims or sims, sims), ns.puct.budget.seconds)
    return parse_agent(replace(ns, puct=PuctSpec(budget, ns.puct.options)).text)


def _net_untimed(spec: AgentSpec) -> AgentSpec | None:
    ns = parse_net(spec.text)
    if not ns.puct.budget.seconds:
        return spec
    if not ns.puct.budget.sims:
        return None
    return parse_agent(replace(ns, puct=PuctSpec(PuctBudget(ns.puct.budget.sims), ns.puct.options)).text)


RANDOM = AgentKindInfo(
    "random", "random", _parse_random, lambda spec: "a random player", "cheap", rank=0,
    chooser="core.agents.search:random_chooser", swap="coin")
GREEDY = AgentKindInfo(
    "greedy", "greedy, greedy:EPS (0-1)", _parse_greedy,
    lambda spec: "a greedy computer player (best immediate gain)", "cheap", rank=10,
    chooser="core.agents.search:greedy_chooser", swap="gain",
    warm_up="core.agents.search:warm_up_simple", warm_up_weight=1,
    spell=lambda spec: f"greedy:{spec.eps:g}" if spec.eps > 0 else "greedy")
MCTS = AgentKindInfo(
    "mcts", "mcts:N (N simulations per move), mcts:N:greedy", _parse_mcts,
    lambda spec: f"a searching computer player ({spec.sims} simulations a move)", "search", rank=20,
    chooser="core.agents.search:mcts_chooser", swap="value",
    warm_up="core.agents.search:warm_up_mcts", warm_up_weight=12,
    capped=lambda spec, sims: replace(spec, sims=min(spec.sims, sims)),
    spell=lambda spec: f"mcts:{spec.sims}" + (":greedy" if spec.greedy_playouts else ""))
ALPHABETA = AgentKindInfo(
    "ab", "ab:N (N nodes per move), ab:t=SECONDS, ab:N:t=SECONDS, :eval=net|mix", _parse_ab, _ab_describe, "search",
    rank=30,
    chooser="core.agents.alphabeta:ab_chooser", swap="value",
    warm_up="core.agents.alphabeta:warm_up_ab", warm_up_weight=11, capped=_ab_capped, untimed=_ab_untimed)
PUCT = AgentKindInfo(
    "puct", "puct:N, puct:t=SECONDS, puct:N:t=SECONDS", _parse_puct,
    lambda spec: f"a guided searching computer player ({_search_budget(spec)})", "search", rank=40,
    chooser="core.agents.puct:puct_chooser", swap="value",
    warm_up="core.agents.puct:warm_up_puct", warm_up_weight=30,
    budget=lambda spec: spec.sims or 1 << 62,  # a time budget only: above any simulation count
    capped=_puct_capped,
    untimed=_puct_untimed,
    threaded=_puct_threaded)

NET = AgentKindInfo(
    "net", "net:N, net:N:mix=M", _parse_net,
    lambda spec: f"a guided searching computer player with a learned evaluation ({_net_budget(spec)})", "search",
    rank=40,  # puct's until duels with the trained model place it
    chooser="core.agents.netsearch:net_chooser", swap="value",
    warm_up="core.agents.netsearch:warm_up_net",
    warm_up_weight=13,  # 12.8 CPU s cold (its kernels and value.py's, puct's cached) on the loaded 2-core machine
    budget=lambda spec: spec.sims or 1 << 62,
    capped=_net_capped, untimed=_net_untimed)

KINDS: dict[str, AgentKindInfo] = {}
"""Every agent kind by the name its specs start with, in the order ``--help`` lists them."""


def register(info: AgentKindInfo) -> AgentKindInfo:
    """Add a kind to the table (a new agent is a kernel module plus one call of this); returns it."""
    if info.name in KINDS or info.name in LEVELS:
        raise ValueError(f"agent kind {info.name!r} is already taken")
    KINDS[info.name] = info
    return info


def unregister(name: str) -> None:
    """Remove a kind from the table (for kinds a test registers)."""
    KINDS.pop(name, None)


for _row in (RANDOM, GREEDY, MCTS, PUCT, ALPHABETA, NET):
    register(_row)


class AgentKind:
    """The built-in kinds by name (``spec.kind is AgentKind.MCTS``); the table itself is :data:`KINDS`."""

    RANDOM = RANDOM
    GREEDY = GREEDY
    MCTS = MCTS
    PUCT = PUCT
    ALPHABETA = ALPHABETA
    NET = NET


def spec_help() -> str:
    """The accepted forms of every registered kind and the level names."""
    return "agent specs: " + ", ".join(k.grammar for k in KINDS.values()) + ", or a level: " + ", ".join(LEVELS)


SPEC_HELP = spec_help()
FIXED_WORK_HELP = ("agents sized in seconds only (puct:t=2, ab:t=1) are refused, since their games would depend "
                   "on the machine; puct:N:t=S and the expert level play on their N simulations")
"""Said where :meth:`AgentSpec.fixed_work` applies (analyze, openings), beside :data:`SPEC_HELP`."""


def parse_agent(text: str) -> AgentSpec:
    """Read any registered kind's spec or a level; errors say what is accepted."""
    parts = [p.strip().lower() for p in str(text).strip().split(":")]
    level = LEVELS.get(parts[0]) if len(parts) == 1 else None
    if level is not None:
        return replace(parse_agent(level.spec), detail=level.name)
    kind = KINDS.get(parts[0])
    if kind is None:
        raise AgentSpecError(f"unknown agent {text!r}; {spec_help()}")
    return kind.parse(text, parts)


def reproducible(text: str) -> str:
    """The canonical spelling of an agent a fixed-work run can play (see :meth:`AgentSpec.fixed_work`);
    AgentSpecError for an unreadable spec or one sized in seconds only."""
    spec = parse_agent(text)
    spec.fixed_work()
    return spec.text


def describe(text: str) -> str:
    """An agent spec in a host's words: a level by its blurb, another spec by its kind's words; a text that is
    no spec is returned as it is."""
    level = level_of(text)
    if level is not None:
        return f"{level.name} level ({level.blurb})"
    try:
        spec = parse_agent(text)
    except AgentSpecError:
        return text
    return spec.kind.describe(spec)


def with_threads(text: str, threads: int) -> str:
    """``text`` searching on ``threads`` cores at once (root parallel) when its kind can (``puct`` and the levels
    that stand for one); other agents are returned unchanged (they search on one core)."""
    spec = parse_agent(text)
    return spec.kind.threaded(spec, threads)
