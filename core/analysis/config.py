"""What a balance analysis plays and when it decides: the configuration and every limit, defined once.

Plain Python (no numpy, numba or scipy), so the command line and the designer can read the
defaults and limits without loading the engine.

Budget: an analysis is sized in work, never in seconds (:class:`Effort`, ``--effort``), so the same board,
settings and seed give the same verdict on any machine.  Measured costs of one core (``tests/benchmarks``,
``docs/measurements.md``): a ``club`` game about 0.1 s on 12x12, a ``mcts:8000`` check game about 0.45 s, the
screen about 1 ms per opening.  The standard preset's deciding agent plays each opening until its SPRT pair
decides (at most 400 games, about 100 near 50%), at most 1,200 games over all openings, racing up to
:data:`RACE_ACTIVE` openings side by side, and stops as soon as ``min_fair_openings`` are shown fair;
``core.analysis.verdict.futile`` gives up on openings stuck between.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any

from core.agents.levels import level_of
from core.agents.spec import AgentKind, parse_agent, reproducible

FAIR_BAND = (0.4, 0.6)
"""P(S1 wins) after the first placement within this band counts as fair."""
DEFAULT_AGENTS = ("greedy", "club")
"""``club`` decides the standard verdict: the strongest level whose games fit about a minute of 2 cores (about 0.1 s
of one core per game; ``expert``, about 8 times more, decides with ``--effort thorough``)."""
CHECK_AGENT = "mcts:8000"
"""The cross-check: a strong agent of another search family (plain MCTS, no gain priors) plays every opening the
deciding agent shows fair, and the opening stays fair unless this agent shows it one-sided.  Replays found two
strong agents disagreeing on single openings (dense ``L6 L7 L8 L9``: club 48%, ``mcts:8000`` 80%, ``expert`` 80%).
A stricter rule (the check's own rate within 35%-65%) disputed most openings on some boards (``mcts:8000`` gave S1
about 12 points more than ``club`` on the openings club found fair before the candidate order aimed at both; on
the 30 found by the 120-s time-budget benchmark at commit 23b3d25, 53% against 51%, with single openings 10 points
apart either way): a veto for clear
disagreement only keeps verdicts decidable.  ~0.4 s of one core per game."""
AB_JUDGE = "ab:8000"
"""The second judge, of another family again: alpha-beta search over an evaluation that plays no games
(``core.agents.alphabeta``).  Strong engines of different families disagree by about 10 points on single openings
and by up to 25 on some; an opening counts as fair only when no judge shows it one-sided, so "fair" holds
whoever the strong player is (``docs/alphabeta.md`` places it on the ladder)."""
JUDGE_SEPARATOR = "+"
"""Judges in one ``check_agent`` text: ``mcts:8000+ab:8000``."""
AUTO_CHECK = "auto"
"""The default ``check_agent``: when the deciding agent is a guided search (``puct``) at least as strong as
:data:`CHECK_FROM`, the judge :data:`CHECK_AGENT`, and with ``--effort thorough`` :data:`AB_JUDGE` beside it; else
no check.  Why not both by default: with both, the standard effort on the five bundled boards (seed 1, commit
e36e72c) ended 3 of 5 inconclusive; the alpha-beta judge disputed 5 openings the Monte Carlo judge had confirmed,
and without those disputes 2 of the 3 would have been balanced, where the standard effort is meant to decide nearly
every board (``docs/measurements.md``).  A weaker or cheap decider's verdict holds for its own strength, which a
strong check would only contradict (for greedy play most openings are one-sided for ``mcts:8000``), and an ``mcts``
decider is of the check's own family."""
CHECK_FROM = "club"
CHECK_GAMES = 60
"""Most cross-check games per fair opening.  The check is sequential: a pair of SPRTs (:data:`CHECK_HIGH`,
:data:`CHECK_LOW`) stops as soon as it can tell an opening the check agent finds within reach of the fair band from
one it finds one-sided; when 60 games leave it undecided, the opening is disputed only if the 95% Wilson interval
of the check's S1 rate lies wholly outside the band (44 or more S1 wins of 60, or 16 or fewer).  Exact operating
figures (``tests/analysis/test_cross_check.py`` computes them): an opening at 50% for the check agent is disputed
0.2% of the time after 28 games on average, at 60% 4% (37 games), at 65% 15%, at 70% 39% (46 games), at 75% 71%,
at 80% 93%; the 60-game rule of commit 26db833 (stopped only once the outcome was certain) had 0%, 2%, 11%, 34%, 68% and
39-53 games."""
CHECK_HIGH = (0.60, 0.75)
"""High side of the check's SPRT pair: H0 p = 0.60 (within reach of the band) against H1 p = 0.75 (one-sided)."""
CHECK_LOW = (0.40, 0.25)
"""Low side, the mirror image."""
CHECK_ALPHA = 0.05
"""Chance that an opening at an H0 rate is disputed by one side's SPRT."""
CHECK_BETA = 0.10
"""Chance that an opening at an H1 rate passes one side's SPRT (the 60-game rule then still catches some)."""
FIRM_CHECK_HIGH = (0.55, 0.70)
"""High side of the firm check's SPRT pair (see :data:`FIRM_CHECK_GAMES`); the low side mirrors it."""
FIRM_CHECK_GAMES = 150
"""Most games of the firm cross-check, which ``--effort thorough`` runs.  Why: the
standard check lets an opening at 70% for the check agent through 61% of the time, and replays of the openings
it confirmed found 3 of 59 one-sided for ``mcts:8000`` (60 games each; seed-1 benchmark runs at commits 8d9dfd2
and 23b3d25).
Testing 55% against 70% over at most 150 games disputes an opening at 50% 1.4% of the time (43 games on average),
at 55% 4.5% (50), at 60% 21% (65), at 65% 58% (69), at 70% 89% (53), at 75% 98%; the standard check disputes 0.2%,
0.8%, 4%, 15%, 39% and 71% after 28-46 games.  It costs about twice the standard check's games per confirmed
opening, which a 120-s run on 2 cores cannot pay for: there it left 10 of the 30 benchmark runs inconclusive
against the standard check's 2 (``tests/analysis/test_cross_check.py`` computes the figures above).  Measured with
a 600-s time budget on the ten benchmark boards, seeds 1-3 (commit 339d8c2): 30 balanced, median 117 s; 84 of 88
fair openings' replays reach the band (``docs/measurements.md``)."""
DEFAULT_GAMES = 160
MIN_GAMES = 10
"""Fewer games per question than this support no statistic at all."""
MAX_GAMES = 100_000
"""Upper limit for ``games`` (every game of a question is planned up front, so a huge cap exhausts memory)."""
SCREEN_TOTAL_SIMS = 400_000
"""Cap on the screen's simulations summed over all openings (the 12x12 default needs 395,200)."""
SCREEN_MIN_SIMS = 20
"""Fewest simulations per opening in the screen, however many openings a big board has."""


def screen_sims_for(screen_sims: int, openings: int) -> int:
    """The screen's simulations per opening on a board with ``openings`` placements: big boards have many more
    openings, so the screen's total work stays near that of the 12x12 default (:data:`SCREEN_TOTAL_SIMS`)."""
    return max(SCREEN_MIN_SIMS, min(screen_sims, SCREEN_TOTAL_SIMS // max(1, openings)))

REFINE_SIMS = 3000
"""Simulations of the deeper search (``puct``) that refines the screen for a search agent's candidates: on
random-103 its value correlated 0.86 (2,000) to 0.90 (8,000) with ``club``'s S1 rate over 30 games per opening,
where the 200-simulation screen correlated 0.65.  About 8 ms of one core per opening on 12x12."""
MAX_REFINE_SIMS = 1_000_000
REFINE_BATCH = 12
"""Openings refined at a time (the screen's nearest to 50% not yet refined)."""
REFINE_ROUNDS = 3
"""Most batches before one pick: the picker asks for more while no refined opening is predicted near 50%."""
SCREEN_TASKS = 16
"""The screen is split into about this many tasks whatever the worker count: each task's search draws
from its own seeded stream, so the split must not depend on ``--workers`` (16 is the split two workers got
before commit 6b6f3f4, so results published before it replay exactly)."""
RACE_ACTIVE = 6
"""Openings the deciding search agent keeps in play side by side (``AnalysisConfig.race``).  Why: played one at
a time, each opening costs its full SPRT even when its first games already show it far from even, and the
openings nearest to even are found only by playing them out in the candidates' order.  Racing starts up to this
many, plays :data:`RACE_FIRST` games of each, then always carries on with the one whose rate, less
:data:`RACE_OPTIMISM` standard errors, is nearest to 50%, :data:`RACE_BATCH` games at a time; one further than
:data:`RACE_FAR` from 50% after its first games is set aside (finished only when the board may be lopsided).
Each opening's games, seeds and SPRT are those of one-at-a-time play; only which opening plays next changes.
The standard analysis on simulated games (``python -m tests.benchmarks.bench_race``, 100 runs a row): with the
candidate rates of the hard boards 95% of runs balanced in a median of 592 deciding games, against 77% in 870 one
at a time; on a synthetic pool 93% in 553 against 87% in 674.  Eight or twelve in play did no better (60 runs)."""
MAX_RACE = 64
"""Most openings in play side by side (each holds its games in memory until it is decided)."""
RACE_FIRST = 12
"""First games of an opening before it is compared with the others."""
RACE_BATCH = 8
"""Games the chosen opening plays before the choice is made again."""
RACE_FAR = 0.20
"""An opening whose first games give S1 a rate further than this from 50% is set aside."""
RACE_OPTIMISM = 1.0
"""Standard errors (of a rate at 50%) by which an opening's distance from even is taken as smaller than measured,
so an opening with few games is not passed over for one measured longer at about the same distance."""
TIME_SIDE_SHARE = 0.15
"""Share of a board's judging the generator plans for the deciding agent's raw seat-advantage and mirror games."""
TIME_MEASURE_GAMES = 4
"""Games of an agent the generator times before it plans its rounds."""
PIE_GAMES_PER_FAIR = 3.4
"""For the ETA only (it never steers a run): deciding games a raced run plays for each fair opening it finds, in
units of the SPRT pair's expected games for an opening at 50%; the openings set aside, given up or shown unfair
cost the rest.  The 26 balanced runs of the 30-run benchmark (commit 9cb4fb1, ``docs/measurements.md``) played a
median of 704.5 deciding games for their 3 fair openings, against 70 expected each: 3.4.  With the SPRTs' own
figure alone, the ETA of a standard run said 40 s left when 130 s were."""
MIN_TIME = 5.0
"""A time cap shorter than this cannot even start the workers and screen the openings."""
MAX_TIME = 7 * 24 * 3600.0
"""Longest time cap (a week): anything longer is a typing slip, not a plan."""
CHEAP_BATCH = 25
"""Games of a cheap agent sent to a worker in one call, so process traffic does not dominate."""
MAX_WORKERS = 64
"""More processes than this only add start-up time: each worker compiles or loads the agents."""


@dataclass(frozen=True)
class Limit:
    """One limit of a setting, checked in one place and said in one wording, whoever set it: the command line
    names its option (``--games 5: ...``), a config its field (``games 5: ...``)."""

    field: str
    """The :class:`AnalysisConfig` field."""
    option: str
    """The command line's option for it."""
    low: float
    high: float
    rule: str
    """What may be given, in words."""
    off: float | None = None
    """A value that means "none" and is always allowed (a time cap of 0)."""

    def problem(self, value: float, option: bool = False) -> str | None:
        """None when ``value`` is allowed, else the one sentence that says what to give."""
        if value == self.off or self.low <= value <= self.high:
            return None
        shown = str(int(value)) if float(value).is_integer() else f"{value:g}"
        return f"{self.option if option else self.field} {shown}: {self.rule}"


LIMITS: tuple[Limit, ...] = (
    Limit("games", "--games", MIN_GAMES, MAX_GAMES,
          f"give {MIN_GAMES} to {MAX_GAMES:,} games per question (fewer support no statistic; the sequential tests "
          "decide almost every question within a few hundred)"),
    Limit("race", "--race", 1, MAX_RACE, f"give 1 (one opening at a time) to {MAX_RACE}"),
    Limit("workers", "--workers", 0, MAX_WORKERS, f"give 0 (all cores) or a count up to {MAX_WORKERS}"),
    Limit("time_budget", "--time", MIN_TIME, MAX_TIME,
          f"give {MIN_TIME:g} seconds to a week, or leave it out for a reproducible run", off=0.0),
)
"""The four limits a host sets (games, race, workers, time), each checked only here (:meth:`AnalysisConfig.check`
and the command line's ``lits analyze``)."""
WORKERS = next(limit for limit in LIMITS if limit.field == "workers")
"""The worker count's limit, which ``lits openings`` checks too."""


@dataclass(frozen=True)
class Effort:
    """A named amount of work: every cap of an analysis, fixed in games and simulations, never in seconds.

    Why: an analysis that stops when a clock runs out gives a different verdict on a busy or a cold machine
    than on an idle one; one that stops after a fixed amount of work gives the same verdict, openings and
    figures for the same board, settings and seed on any machine, at any load, on any number of workers.
    """

    name: str
    agents: tuple[str, ...]
    """The agents played (the strongest decides) unless the caller names others."""
    games: int
    """Most games per question for the weaker agents (one opening, or a cheap agent's raw run)."""
    decider_games: int
    """Most games of one opening for the deciding agent: its SPRT pair decides nearly every opening by then."""
    pie_games: int
    """Most games of the deciding agent over all openings it plays out (bounds the run's length)."""
    max_candidates: int
    """Openings played out before the run stops when the verdict is already decided."""
    candidates: int
    """Most openings the deciding agent plays out while the verdict is still undecided."""
    strong_raw_games: int
    """A search agent's raw seat-advantage games (information beside the verdict)."""
    mirror_games: int
    """Mirror-probe games of a cheap agent (a search agent plays a quarter, at least 10)."""
    screen_sims: int
    refine_sims: int
    sims_cap: int = 0
    """Simulations cap for every ``mcts`` and ``puct`` agent (0 = none; quick mode's first look)."""
    check: bool = True
    """Whether a strong deciding agent's fair openings are cross-checked (:data:`AUTO_CHECK`)."""
    race: int = RACE_ACTIVE
    """Openings the deciding search agent keeps in play side by side (:data:`RACE_ACTIVE`; 1 = one at a time)."""
    summary: str = ""
    """What a host reads about this preset (``--help``, the designer)."""


QUICK = Effort(
    name="quick", agents=("greedy", "casual"), games=120, decider_games=200, pie_games=700, max_candidates=8,
    candidates=16, strong_raw_games=20, mirror_games=20, screen_sims=60, refine_sims=0, sims_cap=100, check=False,
    race=1, summary="a first look in seconds while you edit: casual play, no cross-check; never publish it",
)
"""A first look: searches capped at 100 simulations (``club`` plays as ``casual``), no cross-check, openings one
at a time: its 700 games cannot pay for a race's first games (``boards/dense.yaml``, seeds 0-5: 3 of 6 balanced
one at a time, 0 of 6 raced, each raced run stopped at its 16-opening limit)."""
STANDARD = Effort(
    name="standard", agents=DEFAULT_AGENTS, games=160, decider_games=400, pie_games=1200, max_candidates=12,
    candidates=28, strong_raw_games=40, mirror_games=40, screen_sims=200, refine_sims=REFINE_SIMS,
    summary="the verdict to publish: club play, each fair opening judged again by a stronger plain Monte Carlo "
            "search (mcts:8000)",
)
"""The default: a 12x12 board's verdict takes 65-151 s of CPU, a median of 56 s on two idle cores (the benchmark's
ten boards, seeds 1-3, ``docs/measurements.md``)."""
THOROUGH = Effort(
    name="thorough", agents=("greedy", "expert"), games=160, decider_games=400, pie_games=1200, max_candidates=12,
    candidates=28, strong_raw_games=40, mirror_games=40, screen_sims=200, refine_sims=REFINE_SIMS,
    summary="decides at expert strength, judged by a Monte Carlo and an alpha-beta search: each game about "
            "eight times the work (a run: 4-10 minutes on two cores; or a cluster), and it decides less often",
)
"""Expert play decides: the same caps as :data:`STANDARD`, each game about eight times the work, two judges and the
firm check; balanced needs 3 openings fair for expert of which 1 is undisputed
(:attr:`AnalysisConfig.min_undisputed`).  Under the stricter rule that every fair opening passes every judge, a run
took 470-1,020 s of CPU on the five bundled boards (seeds 1 and 2) and decided 2 of 10, whose fair openings
held for all three strong agents, and none of three random boards at seed 1 (1,730-1,890 s of CPU on a day the
machine ran 1.8 times slower; ``docs/measurements.md``)."""
THOROUGH_UNDISPUTED = 1
"""Fair openings of a thorough run that no judge may dispute (see :attr:`AnalysisConfig.min_undisputed`)."""
EFFORTS: dict[str, Effort] = {e.name: e for e in (QUICK, STANDARD, THOROUGH)}
EFFORT_CHOICES = tuple(EFFORTS)
DEFAULT_EFFORT = STANDARD.name
QUICK_SIMS = QUICK.sims_cap
CUSTOM = "custom"
"""The effort's published name once a cap was set by hand (or when no preset was named)."""


def _unknown_effort(name: str) -> str:
    return f"effort must be one of {', '.join(EFFORTS)}, not {name!r}"


@dataclass(frozen=True)
class EffortChoice:
    """The effort of an analysis as one value: the preset its caps come from, and whether a cap was set by hand.

    Why one value: the published name, Quick, and the preset whose judges and check rule "auto" picks all follow
    from it, so they cannot disagree: ``--effort thorough --games 200`` is published as "custom" (its name no
    longer says what was played) and is still judged by both engines, firmly.
    """

    preset: str = ""
    """A name in :data:`EFFORTS`, or "" when no preset was named (every cap set by hand)."""
    hand_set: bool = False
    """A cap of the preset was set by hand."""

    def __post_init__(self) -> None:
        if self.preset and self.preset not in EFFORTS:
            raise ValueError(_unknown_effort(self.preset))
        if not self.preset and self.hand_set:  # without a preset every cap is the host's: one value says so
            object.__setattr__(self, "hand_set", False)

    @property
    def quick(self) -> bool:
        """A first look (:data:`QUICK`): weaker searches, smaller budgets, no cross-check."""
        return self.preset == QUICK.name

    @property
    def name(self) -> str:
        """The published name: the preset's, or :data:`CUSTOM` once a cap was set by hand.  A Quick look keeps its
        name whatever its caps: it is never a verdict to publish, and its name is what says so."""
        if self.quick or (self.preset and not self.hand_set):
            return self.preset
        return CUSTOM

    @property
    def judging(self) -> str:
        """The preset a hand-tuned effort still takes its judges from ("" when :attr:`name` says it)."""
        return self.preset if self.hand_set else ""

    @property
    def judged_as(self) -> str:
        """The preset whose judges and check rule "auto" picks (:data:`CUSTOM` without one)."""
        return self.preset or CUSTOM

    def to_json(self) -> dict[str, object]:
        """The report's config keys for it, as they have always been written: ``quick``, ``effort``, ``judging``."""
        return {"quick": self.quick, "effort": self.name, "judging": self.judging}

    @classmethod
    def from_json(cls, quick: object = False, effort: object = CUSTOM, judging: object = "") -> EffortChoice:
        """From a report's config keys (a report of schema 1 has only ``quick``); ValueError names a bad one."""
        if not isinstance(quick, bool):
            raise ValueError(f"quick: expected true or false, got {quick!r}")
        if not isinstance(effort, str):
            raise ValueError(f"effort: expected a string, got {effort!r}")
        if not isinstance(judging, str):
            raise ValueError(f"judging: expected a string, got {judging!r}")
        if quick:
            return cls(QUICK.name, hand_set=bool(judging))
        if effort == CUSTOM:
            return cls(judging, hand_set=bool(judging))
        if judging:
            raise ValueError(f"judging: {judging!r} goes only with the effort {CUSTOM!r}, not {effort!r}")
        return cls(effort)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class CheckRule:
    """A cross-check's sequential test: one SPRT per edge of the fair band (H0 within reach of the band, H1
    one-sided), and after ``games`` undecided games the Wilson rule (``core.analysis.verdict.check_disputes``)."""

    name: str
    high: tuple[float, float]
    low: tuple[float, float]
    games: int
    alpha: float = CHECK_ALPHA
    beta: float = CHECK_BETA


STANDARD_CHECK = CheckRule("standard", CHECK_HIGH, CHECK_LOW, CHECK_GAMES)
FIRM_CHECK = CheckRule("firm", FIRM_CHECK_HIGH, (1.0 - FIRM_CHECK_HIGH[0], 1.0 - FIRM_CHECK_HIGH[1]),
                       FIRM_CHECK_GAMES)
CHECK_RULES = {rule.name: rule for rule in (STANDARD_CHECK, FIRM_CHECK)}
CHECK_RULE_CHOICES = ("auto", *CHECK_RULES)
"""The ``check_rule`` names; "auto" is the firm check under ``--effort thorough``, else the standard one."""


class SeedPhase(enum.IntEnum):
    """Keys for ``derive_seed``: each question gets its own stream of seeds (values fixed: they make results)."""

    RAW = 1
    MIRROR = 2
    SCREEN = 3
    PIE = 4
    OPENINGS = 5
    CHECK = 6
    REFINE = 7


class AnalysisCancelled(Exception):
    """The caller asked to stop; no partial verdict is given."""


@dataclass
class AnalysisProgress:
    phase: str
    done: int
    total: int
    message: str
    eta: float | None = None
    """Expected seconds until the analysis ends (the work left at the measured rate), None until measured."""
    overall: float = 0.0
    """The share of the whole analysis done, 0 to 1, over all its stages: it never goes back within a run (one bar
    for the run, where ``done``/``total`` restart with each stage); 0 while the engine compiles, 1 at the end."""


def quick_agent(text: str) -> str:
    """An agent under quick mode's cap: searches get at most ``QUICK.sims_cap`` simulations a move (a level
    becomes the plain spec it stands for, e.g. ``club`` -> ``puct:100``, the ``casual`` level)."""
    spec = parse_agent(text)
    if spec.cheap:
        return spec.text
    capped = spec.capped(QUICK.sims_cap).text  # the kind's row says how its search is capped
    level = level_of(capped)
    return level.name if level is not None else capped


@dataclass
class AnalysisConfig:
    """What to play and when to decide.  Thresholds are documented where they are used."""

    agents: list[str] = field(default_factory=lambda: list(DEFAULT_AGENTS))
    deciding_agent: str = ""
    """The agent whose games decide every opening's fair/unfair status and so the verdict ("" = the strongest
    of ``agents``); weaker agents are reported beside it, and a warning names any disagreement."""
    games: int = DEFAULT_GAMES
    """Cap on the games spent on one question (one opening, or the raw seat advantage of one agent)."""
    seed: int = 0
    workers: int = 0
    """Worker processes; 0 uses every core."""
    effort: EffortChoice = EffortChoice()
    """The preset these caps come from and whether one was set by hand (see :meth:`from_effort`); :attr:`quick`
    and :attr:`judged_as` follow from it."""
    decider_games: int = 0
    """Most games of one opening for the deciding agent (0 = ``games``)."""
    candidates: int = 0
    """Most openings the deciding agent plays out while the verdict is undecided (0 = ``max_candidates``)."""
    min_fair_openings: int = 3
    """Distinct openings that must be shown fair for ``balanced``."""
    fair_low: float = FAIR_BAND[0]
    fair_high: float = FAIR_BAND[1]
    """The fair band for P(S1 wins); the SPRTs test its edges plus/minus ``sprt_margin``."""
    sprt_margin: float = 0.05
    max_candidates: int = 12
    """Openings played out with each agent (chosen by the candidate picker)."""
    futility_games: int = 40
    """Games after which an opening that is clearly not even (but not yet shown unfair) is given up."""
    screen_sims: int = 200
    """Simulations of the short search that estimates every opening in the screen."""
    refine_sims: int = REFINE_SIMS
    """Simulations of the deeper search that refines the screen near 50% before a search agent's picks (0: none;
    cheap agents never refine: their games cost less than the search)."""
    pie_games: int = 0
    """Cap on a search agent's games over all tested openings; 0 means five times ``games``
    (cheap agents always get ``games`` x ``max_candidates``)."""
    strong_raw_games: int = 60
    """Cap for the raw seat-advantage games of a search agent (cheap agents use ``games``)."""
    mirror_games: int = 40
    """Mirror-probe games per cheap agent (search agents use a quarter, at least 10)."""
    tie_break_warning: float = 0.5
    """Warn when more than this share of games is decided by the last-mover tie rule."""
    mirror_warning: float = 0.5
    """Warn when the mirror probe wins more than this share of its games."""
    min_verdict_games: int = 30
    """Never give a decided verdict from fewer pie games than this."""
    inline: bool = False
    """Play in this process instead of worker processes (tests)."""
    check_agent: str = AUTO_CHECK
    """The cross-check agent (:data:`AUTO_CHECK`, a spec, or "" = none; :attr:`checker` is the one a run uses): an
    opening the deciding agent shows fair stays fair unless this agent's games from it show it one-sided by the
    test :attr:`check_test` names."""
    check_games: int = CHECK_GAMES
    """Most games of the standard check (the firm one plays :data:`FIRM_CHECK_GAMES`)."""
    check_rule: str = "auto"
    """Which sequential test the cross-check runs: "standard", "firm" or "auto" (see :data:`CHECK_RULES`)."""
    race: int = RACE_ACTIVE
    """Openings the deciding search agent keeps in play side by side (:data:`RACE_ACTIVE`; 1 = one at a time, each
    played until its SPRT pair decides before the next is picked)."""
    time_budget: float = 0.0
    """An optional cap in seconds (``--time``; 0 = none, the default).  The work the caps above define is the
    same with or without it; a cap only cuts a run short, and a result it cut says so (it then depends on the
    machine's speed and load)."""

    def __post_init__(self) -> None:
        if not isinstance(self.effort, EffortChoice):  # a preset's name where the one value belongs
            raise TypeError(f"effort: give EffortChoice({self.effort!r}) or AnalysisConfig.from_effort("
                            f"{self.effort!r}), not {type(self.effort).__name__}")

    @classmethod
    def from_effort(cls, name: str = DEFAULT_EFFORT, **overrides: Any) -> AnalysisConfig:
        """The configuration of a named preset (:data:`EFFORTS`), with ``overrides`` on top; a cap set by hand
        makes the effort "custom", since the preset's name no longer says what was played."""
        if name not in EFFORTS:
            raise ValueError(_unknown_effort(name))
        e = EFFORTS[name]
        caps = {"games": e.games, "decider_games": e.decider_games, "pie_games": e.pie_games,
                "max_candidates": e.max_candidates, "candidates": e.candidates, "strong_raw_games": e.strong_raw_games,
                "mirror_games": e.mirror_games, "screen_sims": e.screen_sims, "refine_sims": e.refine_sims,
                "race": e.race}
        hand_set = any(k in caps and v != caps[k] for k, v in overrides.items())
        fields: dict[str, Any] = {"agents": list(e.agents), **caps, "effort": EffortChoice(e.name, hand_set)}
        fields.update(overrides)
        return cls(**fields)

    @property
    def quick(self) -> bool:
        """Smaller budgets (:data:`QUICK`: MCTS capped at QUICK.sims_cap simulations, fewer games) for a first look
        (:meth:`effective` applies them)."""
        return self.effort.quick

    @property
    def judging(self) -> str:
        """The preset a hand-tuned effort still takes its judges from ("" when the effort's name says it)."""
        return self.effort.judging

    @property
    def preset(self) -> Effort | None:
        """The named preset these caps come from, None for hand-set caps."""
        return EFFORTS.get(self.effort.name)

    @property
    def opening_cap(self) -> int:
        """Most games of one opening for the deciding agent."""
        return self.decider_games or self.games

    @property
    def candidate_limit(self) -> int:
        """Most openings the deciding agent plays out (beyond ``max_candidates`` only while undecided)."""
        return max(self.candidates, self.max_candidates)

    def effective(self) -> AnalysisConfig:
        """The budgets actually used (quick mode shrinks them)."""
        if not self.quick:
            return self
        agents = [quick_agent(text) for text in self.agents]
        # quick mode is a first look at casual play: a cross-check at full strength would cost more than the rest
        return replace(
            self, agents=agents, check_agent="", games=min(self.games, QUICK.games),
            decider_games=min(self.opening_cap, QUICK.decider_games),
            max_candidates=min(self.max_candidates, QUICK.max_candidates),
            candidates=min(self.candidate_limit, QUICK.candidates),
            screen_sims=min(self.screen_sims, QUICK.screen_sims), refine_sims=0,
            pie_games=min(self.pie_budget, QUICK.pie_games),
            strong_raw_games=min(self.strong_raw_games, QUICK.strong_raw_games),
            mirror_games=min(self.mirror_games, QUICK.mirror_games), race=min(self.race, QUICK.race),
        )

    @property
    def decider(self) -> str:
        """The deciding agent's canonical spec (after quick mode's caps when read from :meth:`effective`)."""
        specs = [parse_agent(a) for a in self.agents]
        if self.deciding_agent:
            return quick_agent(self.deciding_agent) if self.quick else parse_agent(self.deciding_agent).text
        return sorted(specs, key=lambda a: a.strength)[-1].text  # the order run.py plays them in

    @property
    def checkers(self) -> list[str]:
        """The judges this run uses, in the order they play (empty = none); see :data:`AUTO_CHECK`."""
        if self.check_agent != AUTO_CHECK:
            texts = [t for t in self.check_agent.split(JUDGE_SEPARATOR) if t.strip()]
            return list(dict.fromkeys(parse_agent(t).text for t in texts))
        decider = parse_agent(self.decider)
        strong = decider.kind is AgentKind.PUCT and decider.strength >= parse_agent(CHECK_FROM).strength
        if not strong:
            return []
        return [CHECK_AGENT, AB_JUDGE] if self.judged_as == THOROUGH.name else [CHECK_AGENT]

    @property
    def judged_as(self) -> str:
        """The preset whose judges and check rule this run takes (see :class:`EffortChoice`)."""
        return self.effort.judged_as

    @property
    def min_undisputed(self) -> int:
        """Fair openings that every judge must confirm for ``balanced``.

        The standard effort: all of them (a judge's dispute takes an opening out of the count), so "balanced" means
        :attr:`min_fair_openings` openings fair for club and confirmed.  Judged as thorough: one
        (:data:`THOROUGH_UNDISPUTED`); the others count fair for the deciding agent with each judge's figure shown,
        since strong engines of different families disagree on single openings by 10-25 points and with the pie rule
        one truly even opening is all the first mover needs."""
        return THOROUGH_UNDISPUTED if self.counts_disputed else self.min_fair_openings

    @property
    def counts_disputed(self) -> bool:
        """Whether an opening the deciding agent shows fair keeps its status when a judge disputes it (the thorough
        rule): every judge then plays it, so the verdict can give each one's figure."""
        return bool(self.checkers) and self.judged_as == THOROUGH.name

    @property
    def checker(self) -> str:
        """The first judge ("" = none): the Monte Carlo cross-check the published ``check`` key reports."""
        return next(iter(self.checkers), "")


    @property
    def check_test(self) -> CheckRule:
        """The cross-check's test this run uses (``check_rule``; "auto" is the firm one when :attr:`judged_as` is
        thorough, else the standard one)."""
        name = self.check_rule
        if name == "auto":
            name = FIRM_CHECK.name if self.judged_as == THOROUGH.name else STANDARD_CHECK.name
        rule = CHECK_RULES[name]
        return rule if rule is FIRM_CHECK else replace(rule, games=self.check_games)

    @property
    def pie_budget(self) -> int:
        return self.pie_games if self.pie_games > 0 else 5 * self.games

    def limit_problem(self, option: bool = False) -> str | None:
        """The first of :data:`LIMITS` this config breaks, in its one wording (``option``: as the command line's
        option), None when all hold."""
        for limit in LIMITS:
            problem = limit.problem(getattr(self, limit.field), option)
            if problem is not None:
                return problem
        return None

    def check(self) -> None:
        if not self.agents:
            raise ValueError("give at least one agent")
        for text in self.agents:
            reproducible(text)  # an agent sized in seconds would make the verdict the machine's
        if self.deciding_agent and parse_agent(self.deciding_agent).text not in {parse_agent(a).text
                                                                                for a in self.agents}:
            raise ValueError(f"the deciding agent {self.deciding_agent} must be one of the agents "
                             f"({', '.join(self.agents)})")
        if self.check_agent and self.check_agent != AUTO_CHECK:
            for text in self.check_agent.split(JUDGE_SEPARATOR):
                reproducible(text)
        if not 0 <= self.refine_sims <= MAX_REFINE_SIMS:
            raise ValueError(f"refine_sims must be 0 (no refinement) to {MAX_REFINE_SIMS}, not {self.refine_sims}")
        if self.check_rule not in CHECK_RULE_CHOICES:
            raise ValueError(f"check_rule must be one of {', '.join(CHECK_RULE_CHOICES)}, not {self.check_rule!r}")
        if not MIN_GAMES <= self.check_games <= MAX_GAMES:
            raise ValueError(f"check_games must be at least {MIN_GAMES} and at most {MAX_GAMES}, "
                             f"not {self.check_games}")
        problem = self.limit_problem()
        if problem is not None:
            raise ValueError(problem)
        if not 0.0 < self.fair_low < 0.5 < self.fair_high < 1.0:
            raise ValueError(f"the fair band {self.fair_low}-{self.fair_high} must contain 0.5")
        if not 0.0 < self.sprt_margin < min(self.fair_low, 1.0 - self.fair_high):
            raise ValueError(f"sprt_margin {self.sprt_margin} must be above 0 and keep the tested rates "
                             f"{self.fair_low} - margin and {self.fair_high} + margin within 0..1")
        if self.min_fair_openings < 1:
            raise ValueError("min_fair_openings must be at least 1")
        if self.max_candidates < 1:
            raise ValueError("max_candidates must be at least 1")

