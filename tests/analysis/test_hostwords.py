"""The analysis's progress in a host's words: every line a real run reports, with no agent spec or statistical term."""

from __future__ import annotations

import re

from core.analysis.config import AnalysisProgress
from core.analysis.hostwords import agent_name, describe_agent, progress_words
from core.analysis.run import analyze
from tests.analysis.test_analysis import small_board, small_config

JARGON = re.compile(r"\b(mcts|puct):|\bS1\b|\bS2\b|SPRT|raw seat|mirror probe|screening|refining|cross-checking")


def test_every_progress_line_of_a_real_run_reads_in_host_words() -> None:
    seen: list[AnalysisProgress] = []
    analyze(small_board(), small_config(check_agent="mcts:20", refine_sims=50), progress=seen.append)
    phases = {p.phase for p in seen}
    assert {"start", "screen", "raw", "mirror", "pie", "done"} <= phases, phases
    assert any(JARGON.search(p.message) for p in seen)  # what the engine says ...
    for p in seen:
        text = progress_words(p)
        assert text and not JARGON.search(text), (p, text)  # ... and what the host reads
    pie = next(p for p in seen if p.phase == "pie")
    cells = re.search(r"(?:[A-Z]+\d+ ){3}[A-Z]+\d+", pie.message)
    assert cells and cells.group(0) in progress_words(pie)  # the opening being played is still named
    starts = {progress_words(p).split(" (")[0].rsplit(" ", 4)[0] for p in seen if p.phase == "pie"}
    assert starts == {"Greedy computer player: games from the first placement",
                      "Searching computer player: games from the first placement"}, starts


def test_agents_are_named_by_level_or_in_words() -> None:
    assert [agent_name(a) for a in ("club", "puct:2000", "expert", "greedy", "mcts:8000", "random", "puct:500")] == \
        ["club", "club", "expert", "greedy computer player", "searching computer player", "random player",
         "guided searching computer player"]
    assert describe_agent("mcts:8000") == "a searching computer player (8000 simulations a move)"
