"""The "Fair openings" layer: each opening an analysis tested, as the board canvas draws and describes it.

The figures come from ``core.analysis.results.openings`` (rate, Wilson interval, games, status), the same reading
the analysis panel's chart uses, and the colours, marks and words of each class from ``core.analysis.palette``,
which the chart uses too, so the board and the chart can never disagree.  This module holds the data, the words,
the legend and where each opening's tag goes; ``designer.canvas.render`` paints it and
``designer.canvas.board_view`` hit-tests it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from core.analysis.config import FAIR_BAND
from core.analysis.hostwords import describe_agent
from core.analysis.palette import STATUS_STYLE, status_explained, style
from core.analysis.results import AnalysisReport, OpeningView, band_text, fair_band, openings, pct
from core.board.geometry import parse_cell

STATUS_ORDER: tuple[str, ...] = ("undecided", "unfair", "fair")
"""Drawing order: fair openings, the ones a host looks for, are drawn last (on top)."""
TAG_SLOTS = 3
"""Tags one cell holds, stacked upwards from its bottom edge; a tag never shares a slot with another."""
BEST_FEW = 3
"""Besides the fair openings, this many others (those nearest an even game) are drawn on the board; the rest show
under the mouse only.  A standard run tries about 18 openings, and 18 overlapping outlines with their tags hid
the symbols they sit on."""
ALL_SHOWN_UP_TO = 6
"""A layer with at most this many openings draws them all."""


@dataclass(frozen=True)
class OpeningMark:
    """One tested opening on the board: its four cells and its figures."""

    cells: tuple[int, ...]
    size: int
    """The board size the cells are numbered for."""
    view: OpeningView
    """Its figures, as the chart reads them."""
    abandoned: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        return self.view.cells

    @property
    def rate(self) -> float:
        """The first mover's win rate after this opening (no swap)."""
        return self.view.rate

    @property
    def ci(self) -> tuple[float, float]:
        """Its 95% Wilson interval."""
        return self.view.ci

    @property
    def games(self) -> int:
        return self.view.games

    @property
    def status(self) -> str:
        return self.view.status

    @property
    def wins(self) -> int:
        """Games the first mover won (the rate is wins / games, so this is exact)."""
        return round(self.rate * self.games)

    @property
    def label(self) -> str:
        """The small tag drawn on the board: the rate and the class's mark (``48% ✓``, ``40% ?``), so a rate at
        the band's edge reads as "not settled", never as a contradiction of the band."""
        return f"{100 * self.rate:.0f}% {style(self.status).mark}"

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
    """The agent whose games gave each opening its status, in a host's words (its level's name when it is one)."""
    first: str = ""
    """The first mover's symbol in the analysed board (O or X), for the words."""
    band: tuple[float, float] = FAIR_BAND
    by_cell: dict[int, tuple[int, ...]] = field(default_factory=dict, compare=False)
    """cell -> indices (into ``marks``) of the openings covering it."""
    drawn: set[int] = field(default_factory=set, compare=False)
    """Indices of the openings drawn on the board: the fair ones and the :data:`BEST_FEW` best others (all of
    them when there are few); the others are drawn only under the mouse (:attr:`muted`)."""

    def __post_init__(self) -> None:
        index: dict[int, list[int]] = {}
        for i, mark in enumerate(self.marks):
            for cell in mark.cells:
                index.setdefault(cell, []).append(i)
        self.by_cell.update({cell: tuple(ids) for cell, ids in index.items()})
        everyone = range(len(self.marks))
        if len(self.marks) <= ALL_SHOWN_UP_TO:
            self.drawn.update(everyone)
            return
        fair = {i for i in everyone if self.marks[i].status == "fair"}
        others = sorted((i for i in everyone if i not in fair), key=lambda i: (abs(self.marks[i].rate - 0.5), i))
        self.drawn.update(fair | set(others[:BEST_FEW]))

    @property
    def muted(self) -> tuple[int, ...]:
        """Indices of the openings drawn only under the mouse."""
        return tuple(i for i in range(len(self.marks)) if i not in self.drawn)

    def drawing_order(self) -> list[int]:
        """Indices of all marks in the order they are painted (undecided, unfair, then fair on top)."""
        rank = {status: i for i, status in enumerate(STATUS_ORDER)}
        return sorted(range(len(self.marks)), key=lambda i: (rank.get(self.marks[i].status, -1), i))

    def drawn_order(self) -> list[int]:
        """:meth:`drawing_order` of the marks drawn on the board (:attr:`drawn`)."""
        return [i for i in self.drawing_order() if i in self.drawn]

    def tag_places(self) -> dict[int, tuple[int, int]]:
        """Mark index -> (cell, slot) of its tag: a slot no other tag uses, in the mark's own cells, as low and as
        near the piece's middle as possible (fair openings choose first).  When every slot of a mark's cells is
        taken (more than :data:`TAG_SLOTS` x 4 openings on four cells) the mark goes without a tag; its outline
        and tooltip still show it."""
        taken: set[tuple[int, int]] = set()
        out: dict[int, tuple[int, int]] = {}
        for i in reversed(self.drawn_order()):
            mark = self.marks[i]
            mr, mc = mark.centre()

            def rank(place: tuple[int, int], mr: float = mr, mc: float = mc) -> tuple[int, float, int]:
                r, c = divmod(place[0], self.size)
                return place[1], (r + 0.5 - mr) ** 2 + (c + 0.5 - mc) ** 2, place[0]

            free = [(cell, slot) for cell in mark.cells for slot in range(TAG_SLOTS) if (cell, slot) not in taken]
            if free:
                place = min(free, key=rank)
                taken.add(place)
                out[i] = place
        return out

    def legend(self) -> list[tuple[str, str]]:
        """(status, words) of each class on the board, in the chart's order, for the legend under the board."""
        shown = {self.marks[i].status for i in self.drawn}
        return [(status, f"{style(status).mark} {style(status).short}") for status in STATUS_STYLE
                if status in shown]

    def legend_title(self) -> str:
        more = len(self.marks) - len(self.drawn)
        hover = f"; {more} more under the mouse" if more else ""
        return f"Openings tried (first mover's wins; fair is {band_text(self.band)}{hover}):"

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
        view = mark.view
        low, high = mark.ci
        who = f"the first mover ({self.first})" if self.first else "the first mover"
        lines = [
            f"Opening {' '.join(mark.names)}: "
            + status_explained(mark.status, mark.rate, self.band, mark.abandoned, view.disputed),
            f"{who[0].upper()}{who[1:]} won {mark.wins} of {mark.games} games: {100 * mark.rate:.0f}% "
            f"(likely {100 * low:.0f}-{100 * high:.0f}%; fair is {band_text(self.band)})",
            self._estimates(view),
            f"Played by {self.decided_by}" if self.decided_by else "",
            self._check(view),
        ]
        if count > 1:
            lines.append(f"{count} openings here: the one nearest the mouse is shown")
        return "\n".join(line for line in lines if line)

    @staticmethod
    def _estimates(view: OpeningView) -> str:
        """What picked the opening before any game (the quick estimate and, when there was one, the deeper one),
        and the opening predictor's figure for club play beside the measured one."""
        lines = []
        if not (math.isnan(view.screen_v) or view.screen_v < 0):
            text = f"Picked from estimates before play: a quick look gave the first mover {pct(view.screen_v)}"
            if view.refined_v is not None:
                text += f", a closer look {pct(view.refined_v)}"
            lines.append(text)
        if view.predicted is not None:
            lines.append(f"Predicted for club play (the opening predictor, not a measurement): {pct(view.predicted)}")
        return "\n".join(lines)

    @staticmethod
    def _check(view: OpeningView) -> str:
        """One line per judge: its figure and whether it agrees (the opening counts only if all do)."""
        lines = []
        for judge in view.judges:
            if judge.rate is None:
                lines.append(f"Second opinion from {describe_agent(judge.agent)}: not played (the time limit came "
                             "first)")
                continue
            verdict = ("agrees" if judge.agrees else "was cut short, so it cannot confirm it" if not judge.complete
                       else "disagrees (the opening still counts for the deciding engine's Thorough verdict)"
                       if view.status == "fair" else "disagrees, so it does not count as fair")
            lines.append(f"Second opinion from {describe_agent(judge.agent)}: the first mover won "
                         f"{pct(judge.rate)} of {judge.games} games; it {verdict}")
        return "\n".join(lines)

    def status_line(self, index: int) -> str:
        """The same figures on one line (the status bar after a click)."""
        return "; ".join(self.describe(index).split("\n"))


def decided_by(report: AnalysisReport) -> str:
    """``club level (a short guided search, ...)`` or a plain description: whose games decided the statuses."""
    return describe_agent(report.agent) if report.agent else ""


def layer_from_report(report: AnalysisReport, size: int, first: str = "") -> OpeningsLayer:
    """The layer for ``report`` on a ``size`` board (openings whose cells do not fit the board are left out)."""
    abandoned = {tuple(o.names): o.abandoned for o in report.pie.openings}
    marks: list[OpeningMark] = []
    for view in openings(report):
        try:
            cells = tuple(parse_cell(name, size) for name in view.cells)
        except ValueError:
            continue
        if not cells or math.isnan(view.rate):
            continue
        marks.append(OpeningMark(cells, size, view, abandoned.get(view.cells, False)))
    return OpeningsLayer(size, tuple(marks), decided_by(report), report.s1_symbol or first, fair_band(report))
