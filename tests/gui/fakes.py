"""Stand-ins the GUI tests hand to the analysis panel in place of the engine's types."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FakeConfig:
    """The fields of ``core.analysis.config.AnalysisConfig`` the panel sets, with its checks on them."""

    agents: list[str] = field(default_factory=lambda: ["greedy"])
    games: int = 200
    quick: bool = False
    time_budget: float = 0.0

    def check(self) -> None:
        if self.games < 1:
            raise ValueError("games must be positive")
        if self.time_budget < 0:
            raise ValueError("a time budget cannot be negative")
