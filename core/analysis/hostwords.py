"""Agents and the analysis's progress in a host's words (no agent specs, no statisticians' terms).

Shared by the designer's analysis panel and its board layer (``designer.canvas`` may not import the panels), and
plain Python over ``core.agents.levels``: the window's process reads it without loading the engine.
"""

from __future__ import annotations

import math
import re

from core.agents.levels import level_of
from core.agents.spec import describe
from core.analysis.config import AnalysisProgress


def strength_level(spec: str) -> str:
    """The strength a verdict holds for, as the host chose it: a level's name (``expert``, also for the spec a
    level stands for), else the agent spec itself (``mcts:1000``)."""
    level = level_of(spec)
    return level.name if level is not None else spec.strip().lower()


def describe_agent(spec: str) -> str:
    """``mcts:1000`` -> ``a searching computer player (1000 simulations a move)``; a level by its blurb (the words
    come from the kind's row in ``core.agents.spec.KINDS``)."""
    return describe(spec)


def agent_name(spec: str) -> str:
    """A short name for progress lines: the level's name (``club``), else the kind's words without the budget
    (``searching computer player``)."""
    level = level_of(spec)
    if level is not None:
        return level.name
    words = describe(spec).split(" (")[0]
    return words.removeprefix("a ").removeprefix("an ")


_SPEC = re.compile(r"^(?P<agent>[a-z]+(?::[^\s:]+)*): ")
_CELLS = re.compile(r"(?:[A-Z]+\d+ ){3}[A-Z]+\d+")
_FAIR = re.compile(r"fair so far: (\d+)")


_PHASE_WORDS = {
    "start": "Starting the computer players",
    "screen": "A quick estimate of every first placement{count}",
    "raw": "{lead}games without a swap{count}",
    "mirror": "{lead}games against a copycat second player{count}",
    "pie": "{lead}games from the first placement {opening}{count}{so_far}",
    "check": "Second opinion ({engine}): games from {opening}{count}",
    "done": "Done",
}
"""Each phase of an analysis in the host's words."""
_REFINING = "A closer look at the first placements nearest to even{count}"
"""The screen's second, closer look ("refining ...")."""


def progress_words(progress: AnalysisProgress) -> str:
    """One progress report of ``core.analysis.run`` as the panel shows it (the engine's lines name agent specs and
    statistical steps: "mcts:8000: cross-checking ...", "raw seat advantage")."""
    message = progress.message
    found = _SPEC.match(message)
    who = agent_name(found.group("agent")) if found else ""
    cells = _CELLS.search(message)
    opening = cells.group(0) if cells else "an opening"
    count = f" ({progress.done} of {progress.total})" if progress.total > 1 else ""
    phase = progress.phase
    if phase == "compile":
        return message[:1].upper() + message[1:]
    template = _REFINING if phase == "screen" and message.startswith("refining") else _PHASE_WORDS.get(phase)
    if template is None:
        return _SPEC.sub(lambda m: f"{agent_name(m.group('agent'))}: ", message)
    fair = _FAIR.search(message)
    return template.format(
        count=count, opening=opening, lead=f"{who[:1].upper()}{who[1:]}: " if who else "Test ",
        engine=who or "a second engine", so_far=f"; fair so far: {fair.group(1)}" if fair else "")


def eta_words(seconds: float | None) -> str:
    """An ETA as a host reads it, rounded to what it can promise: measured runs end between half and twice what it
    says early on (``docs/measurements.md``, "How true the ETA is"), so no seconds beside minutes."""
    if seconds is None or math.isnan(seconds):
        return ""
    if seconds < 55:
        return f"about {max(5, 5 * round(seconds / 5))} s left"
    return f"about {max(1, round(seconds / 60))} min left"
