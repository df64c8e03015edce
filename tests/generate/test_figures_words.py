"""The generator's evidence in a host's words: what the Generate and Improve dialogs show."""

from __future__ import annotations

import math
import re

from core.generate.figures import Figures

JARGON = re.compile(r"score 0\.|margin spread|mirror wins|tie rule \d|\bnan\b|puct:|mcts:")


def test_a_judged_board_reads_without_statisticians_words() -> None:
    f = Figures(score=0.938, pairs=20, verdict="balanced", level="club", fair_openings=[["A1", "B1", "C1", "D1"]] * 3,
                tested=5, tie_break_share=0.14, margin_spread=2.2, mirror_win_rate=0.0)
    words = f.host_words()
    assert not JARGON.search(words), words
    assert words.startswith("balanced for club play; rated 94 of 100")
    assert "3 of 5 first placements tried keep the game close" in words
    assert "14% of games are won on the tie rule" in words and "copycat second player wins 0%" in words
    assert "score 0.938" in f.summary()  # the notes and logs keep the exact figures


def test_unknown_figures_are_said_in_words() -> None:
    words = Figures(score=0.5, pairs=12, verdict="inconclusive", level="club", tie_break_share=math.nan).host_words()
    assert "an unknown share of games" in words and "nan" not in words
    assert Figures(score=0.25, pairs=8).host_words() == "rated 25 of 100; 8 symbol pairs"
