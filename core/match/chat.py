"""Posts as people write them in a game room: the move read out of a chat line, before the rules judge it.

"I play e6 f6 g6 f7 please", "oops, meant l5 l6 k7 l7", "my move: h3 i3 j3 h4", "h3 i3 j3 h4 gl": the four cell
names anywhere in the line are the move; "swap", "I'll swap", "pie" are the swap.  A line the engine's own
notation reads (``Placement.parse``: any order, case and separators) is taken as it is.  The journal keeps both
what was posted and what was read, and the rules judge only what was read, so older journals (whose posts were
judged as typed) replay unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.board.geometry import CellNameError, cell_name, parse_cell
from core.engine.purerules import SWAP_WORDS
from core.engine.rules import SWAP, NotationError, Placement

_CELL_IN_LINE_RE = re.compile(r"(?<![A-Za-z0-9'])([A-Za-z])(\d{1,2})(?![A-Za-z0-9])")
"""A cell name standing on its own or run together with others (``e6``, ``E6,F6``, ``e6f6g6f7``)."""
_RUN_RE = re.compile(r"(?:[A-Za-z]\d{1,2}){2,}")
_WORD_RE = re.compile(r"[a-z']+")


@dataclass(frozen=True)
class Reading:
    """What a chat line was read as: ``text`` for the rules, and ``found`` to quote back (None: read as typed)."""

    text: str
    found: str | None = None


def cells_in(line: str, size: int) -> list[int]:
    """The cells named anywhere in ``line`` (each once, in the order written), skipping names off the board."""
    cells: list[int] = []
    for token in re.split(r"[\s,;/\-\u2013\u2014.!?:()]+", line):
        names = re.findall(r"[A-Za-z]\d{1,2}", token) if _RUN_RE.fullmatch(token) else \
            [m.group(0) for m in _CELL_IN_LINE_RE.finditer(token)]
        for name in names:
            try:
                cell = parse_cell(name, size)
            except CellNameError:
                continue
            if cell not in cells:
                cells.append(cell)
    return cells


def read_post(line: str, size: int) -> Reading:
    """The move in a chat line; the line itself when it is notation already or holds no move (then the rules'
    refusal names what is wrong, and :func:`found_text` what was found)."""
    raw = line.strip()
    words = _WORD_RE.findall(raw.lower())
    if raw.lower() in SWAP_WORDS:
        return Reading(raw)
    try:
        Placement.parse(raw, size)
        return Reading(raw)
    except NotationError:
        pass
    cells = cells_in(raw, size)
    if not cells and any(w in SWAP_WORDS or w.rstrip("s") == SWAP for w in words):
        return Reading(SWAP, SWAP)
    if len(cells) == 4:
        text = " ".join(cell_name(c, size) for c in cells)
        return Reading(text, text)
    return Reading(raw)


def found_text(line: str, size: int) -> str:
    """What a line that holds no move did hold, for the refusal: ``found 3 cell names: E6 F6 G6``."""
    cells = cells_in(line, size)
    if not cells:
        return "found no cell name in it"
    return f"found {len(cells)} cell name{'s' if len(cells) != 1 else ''} in it: " + \
        " ".join(cell_name(c, size) for c in cells)


__all__ = ["Reading", "cells_in", "found_text", "read_post"]
