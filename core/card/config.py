"""What a board card plays: its levels, its work and its seed, in plain Python (no engine).

A card is sized in work, never in seconds, exactly as an analysis is (``core.analysis.config``): the same board,
settings, effort and seed give the same card on any machine and any number of workers.  Its extra work beside
the analysis it contains is small (measured in ``docs/card.md``): ``SKILL_PAIRS`` pairs of games between two
levels and ``LEVEL_GAMES`` games of each weaker level on each fair opening.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.agents.levels import resolve
from core.analysis.config import AnalysisConfig

CARD_EFFORTS = ("standard", "thorough")
"""The analysis efforts a card may contain (a quick look's verdict is never one to publish)."""
LEVELS: dict[str, tuple[str, ...]] = {"standard": ("greedy", "casual", "club"),
                                      "thorough": ("greedy", "casual", "club", "expert")}
"""The strengths whose S1 rates on the fair openings a card shows, weakest first."""
STRONG = "club"
WEAK = "casual"
SKILL_PAIRS = 100
"""Pairs of games (seats swapped) of the stronger level against the weaker one.  200 games put the score's 95%
interval within about 5 points either side at the scores measured (docs/card.md)."""
LEVEL_GAMES = 100
"""Games of each weaker level on each fair opening (no swap, fixed count, as ``lits openings --games``)."""
MAX_OPENINGS = 3
"""Openings a card draws and plays at every level: the fair ones, else the tested ones nearest to even."""
CARD_KEY = 0x00CA4D
"""Seed coordinate of the card's skill games, apart from the analysis questions' and the duels'."""


@dataclass
class CardConfig:
    """A card's settings; ``analysis`` is the analysis it contains (its effort preset, the card's seed)."""

    seed: int = 0
    workers: int = 0
    effort: str = "standard"
    strong: str = STRONG
    weak: str = WEAK
    pairs: int = SKILL_PAIRS
    level_games: int = LEVEL_GAMES
    inline: bool = False
    level_names: tuple[str, ...] = ()
    """The levels played on the drawn openings; empty for the effort's (:data:`LEVELS`)."""
    analysis: AnalysisConfig = field(default_factory=AnalysisConfig)
    """Set by :meth:`make`; tests pass a smaller one."""

    @classmethod
    def make(cls, effort: str = "standard", seed: int = 0, workers: int = 0, **overrides: object) -> CardConfig:
        if effort not in CARD_EFFORTS:
            raise ValueError(f"effort must be one of {', '.join(CARD_EFFORTS)}, not {effort!r}")
        analysis = AnalysisConfig.from_effort(effort, seed=seed, workers=workers)
        return cls(seed=seed, workers=workers, effort=effort, analysis=analysis, **overrides)  # type: ignore[arg-type]

    @property
    def levels(self) -> tuple[str, ...]:
        return self.level_names or LEVELS.get(self.effort, LEVELS["standard"])

    def check(self) -> None:
        from core.agents.spec import parse_agent

        if self.pairs < 1:
            raise ValueError(f"pairs must be at least 1, not {self.pairs}")
        if self.level_games < 1:
            raise ValueError(f"level games must be at least 1, not {self.level_games}")
        strong, weak = parse_agent(self.strong), parse_agent(self.weak)
        strong.fixed_work()
        weak.fixed_work()
        if strong.text == weak.text:
            raise ValueError(f"the skill figure needs two different levels, not {self.strong} twice")
        if self.workers < 0:
            raise ValueError("workers must be 0 (all cores) or more")

    def work(self) -> dict[str, object]:
        """What the card played beside its analysis, for the card itself (it names what it was measured at)."""
        return {"effort": self.effort, "seed": self.seed, "skill": f"{self.strong} against {self.weak}",
                "skill_pairs": self.pairs, "level_games": self.level_games, "levels": list(self.levels),
                "strong_spec": resolve(self.strong), "weak_spec": resolve(self.weak)}
