"""A small card for tests: an 8x8 board, an analysis with every phase but the cross-check, a few skill pairs."""

from __future__ import annotations

from typing import Any

from core.analysis.config import AnalysisConfig
from core.board.model import Board, GameParams
from core.card.config import CardConfig


def small_board() -> Board:
    return Board.random(size=8, pairs=10, seed=5, params=GameParams(supply=(3, 3, 3, 3)))


def small_config(**kw: Any) -> CardConfig:
    analysis = AnalysisConfig(agents=["greedy", "puct:40"], check_agent="", games=20, decider_games=60,
                              pie_games=120, max_candidates=3, candidates=4, screen_sims=20, refine_sims=40,
                              strong_raw_games=10, mirror_games=10, fair_low=0.3, fair_high=0.7,
                              min_fair_openings=2)
    base: dict[str, Any] = {"seed": 3, "strong": "puct:40", "weak": "greedy", "pairs": 5, "level_games": 10,
                            "level_names": ("greedy", "casual", "puct:40"), "analysis": analysis}
    base.update(kw)
    return CardConfig(**base)
