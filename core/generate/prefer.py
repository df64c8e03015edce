"""``--prefer skill``: rank the balanced boards by the board card's skill figure instead of the score.

The skill figure (``core.card``) is how often the stronger of two levels beats the weaker on the board, seats
swapped, the pie rule as each plays it: a death match eliminates a player, so a host may want the board on which
the better player wins most.  Every balanced finalist is measured with the same seed (its games seeded from the run's
seed and the pair's index only), so a seeded run writes the same boards on any worker count.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from core.board.model import Board
from core.card.config import SKILL_PAIRS, STRONG, WEAK
from core.generate.search import Candidate, final_rank

PREFERENCES = ("score", "skill")
"""What ranks the balanced boards: the documented score (docs/generate.md) or the card's skill figure."""
PAIRS = SKILL_PAIRS
"""Skill pairs per board, as on a board card."""

SkillFn = Callable[[Board], dict[str, Any]]


def card_skill(seed: int, workers: int = 0, strong: str = STRONG, weak: str = WEAK,
               cancel: threading.Event | None = None) -> SkillFn:
    """The card's skill figure of a board (its JSON ``skill``), measured with ``seed``."""

    def measure(board: Board) -> dict[str, Any]:
        from core.card.figures import skill_figure
        from core.card.skill import run_skill

        return skill_figure(run_skill(board, strong, weak, PAIRS, seed, workers, cancel=cancel), strong, weak)

    return measure


def by_skill(candidates: list[Candidate], skill: SkillFn,
             on_board: Callable[[int, int], None] | None = None) -> list[tuple[Candidate, dict[str, Any]]]:
    """The candidates with their skill figures, the highest skill score first (ties: the search's own order)."""
    measured: list[tuple[Candidate, dict[str, Any]]] = []
    for i, c in enumerate(candidates):
        measured.append((c, skill(c.board)))
        if on_board is not None:
            on_board(i + 1, len(candidates))
    return sorted(measured, key=lambda cs: (-float(cs[1]["score"]), final_rank(cs[0])))


def skill_words(skill: dict[str, Any], seed: int) -> str:
    """The skill figure for a board's notes."""
    low, high = skill["ci95"]
    one_in = ("the weaker player never won" if skill["upset_one_in"] is None
              else f"the weaker player wins about 1 game in {skill['upset_one_in']:.0f}")
    return (f"Skill (board card, seed {seed}): {skill['strong']} scores {100 * skill['score']:.0f}% "
            f"[{100 * low:.0f}-{100 * high:.0f}%] against {skill['weak']} over {skill['games']} games, seats swapped, "
            f"pie rule as each plays it: {one_in}.")
