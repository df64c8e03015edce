"""The "Fair openings" layer: each opening an analysis tested, as the board canvas draws and describes it.

The figures come from ``core.analysis.results.openings`` (rate, Wilson interval, games, status), the same
reading the analysis panel's chart uses, so the board and the chart can never disagree.  This module holds
the data and the words; ``designer.canvas.render`` paints it and ``designer.canvas.board_view`` hit-tests it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from core.board.geometry import parse_cell

STATUS_WORDS: dict[str, str] = {
    "fair": "fair",
    "unfair": "unfair (one side wins too often)",
    "undecided": "undecided (more games needed)",
}
STATUS_ORDER: tuple[str, ...] = ("undecided", "unfair", "fair")
"""Drawing order: fair openings, the ones a host looks for, are drawn last (on top)."""


@dataclass(frozen=True)
class OpeningMark:
    """One tested opening on the board: its four cells and its figures."""

    cells: tuple[int, ...]
    names: tuple[str, ...]
    rate: float
    """The first mover's win rate after this opening (no swap)."""
    ci: tuple[float, float]
    """Its 95% Wilson interval."""
    games: int
    status: str
    size: int
    """The board size the cells are numbered for."""
    check: str = ""
    """The cross-check in words ("" when none ran: only openings the deciding agent showed fair are checked)."""

    @property
    def wins(self) -> int:
        """Games the first mover won (the rate is wins / games, so this is exact)."""
        return round(self.rate * self.games)

    @property
    def label(self) -> str:
        """The small text drawn on the board."""
        return f"{100 * self.rate:.0f}%"

    def centre(self) -> tuple[float, float]:
        """(row, col) of the middle of the piece, in cells (cell centres at .5)."""
        rc = [divmod(cell, self.size) for cell in self.cells]
        return (sum(r for r, _c in rc) / len(rc) + 0.5, sum(c for _r, c in rc) / len(rc) + 0.5)


@dataclass(frozen=True)
class OpeningsLayer:
    """Every tested opening of one report, for a board of ``size`` cells a side."""

    size: int
    marks: tuple[OpeningMark, ...]
    decided_by: str
    """The agent (and its named level when it is one) whose games gave each opening its status."""
    first: str = ""
    """The first mover's symbol in the analysed board (O or X), for the words."""
    band: tuple[float, float] = (0.4, 0.6)
    by_cell: dict[int, tuple[int, ...]] = field(default_factory=dict, compare=False)
    """cell -> indices (into ``marks``) of the openings covering it."""

    def __post_init__(self) -> None:
        index: dict[int, list[int]] = {}
        for i, mark in enumerate(self.marks):
            for cell in mark.cells:
                index.setdefault(cell, []).append(i)
        self.by_cell.update({cell: tuple(ids) for cell, ids in index.items()})

    def drawing_order(self) -> list[int]:
        """Indices of the marks in the order they are painted (undecided, unfair, then fair on top)."""
        rank = {status: i for i, status in enumerate(STATUS_ORDER)}
        return sorted(range(len(self.marks)), key=lambda i: (rank.get(self.marks[i].status, -1), i))

    def pick(self, row: float, col: float) -> tuple[int | None, int]:
        """The opening under the point (``row``, ``col`` in cells) and how many openings cover that cell.

        Overlapping openings: the one whose middle is nearest the point wins; ties go to the one drawn on
        top, then to the earlier one in the report, so the same point always picks the same opening.
        """
        r, c = math.floor(row), math.floor(col)
        if not (0 <= r < self.size and 0 <= c < self.size):
            return None, 0
        ids = self.by_cell.get(r * self.size + c, ())
        if not ids:
            return None, 0
        on_top = {i: k for k, i in enumerate(self.drawing_order())}

        def distance(i: int) -> tuple[float, int, int]:
            mr, mc = self.marks[i].centre()
            return (round(math.hypot(mr - row, mc - col), 9), -on_top[i], i)

        return min(ids, key=distance), len(ids)

    def describe(self, index: int, count: int = 1) -> str:
        """The figures of one opening, one per line (the tooltip)."""
        mark = self.marks[index]
        low, high = mark.ci
        who = f"the first mover ({self.first})" if self.first else "the first mover"
        lines = [
            f"Opening {' '.join(mark.names)}: {STATUS_WORDS.get(mark.status, mark.status)}",
            f"{who[0].upper()}{who[1:]} won {mark.wins} of {mark.games} games: {100 * mark.rate:.0f}% "
            f"(95% interval {100 * low:.0f}-{100 * high:.0f}%; fair is {100 * self.band[0]:.0f}-"
            f"{100 * self.band[1]:.0f}%)",
            f"Decided by {self.decided_by}" if self.decided_by else "",
            f"Cross-check: {mark.check}" if mark.check else "",
        ]
        if count > 1:
            lines.append(f"{count} openings here: the one nearest the mouse is shown")
        return "\n".join(line for line in lines if line)

    def status_line(self, index: int) -> str:
        """The same figures on one line (the status bar after a click)."""
        return "; ".join(self.describe(index).split("\n"))


def decided_by(report: Any) -> str:
    """``expert level (puct:16000:t=2)`` or the plain spec: the agent whose games decided the statuses."""
    from core.agents.levels import level_of
    from core.analysis.results import get_field

    config = get_field(report, "config")
    spec = str(get_field(report, "agent", "") or get_field(config, "deciding_agent", "")
               or get_field(get_field(report, "pie"), "agent", "") or "")
    level = level_of(spec) if spec else None
    return f"{level.name} level ({level.spec})" if level is not None else spec


def layer_from_report(report: Any, size: int, first: str = "") -> OpeningsLayer:
    """The layer for ``report`` on a ``size`` board (openings whose cells do not fit the board are left out)."""
    from core.analysis.results import fair_band, get_field, openings

    marks: list[OpeningMark] = []
    for view in openings(report):
        try:
            cells = tuple(parse_cell(name, size) for name in view.cells)
        except ValueError:
            continue
        if not cells or math.isnan(view.rate):
            continue
        marks.append(OpeningMark(cells, tuple(view.cells), view.rate, view.ci, view.games, view.status, size,
                                 view.check))
    symbol = str(get_field(report, "s1_symbol", "") or first)
    return OpeningsLayer(size, tuple(marks), decided_by(report), symbol, fair_band(report))
