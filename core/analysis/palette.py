"""How an opening's class looks and reads, shared by the charts (matplotlib) and the designer's board layer (Qt).

One table, so the board and the chart beside it can never colour or word an opening differently.  The classes are
the sequential tests' outcomes (``core.analysis.verdict``): two tests watch the edges of the fair band, and an
opening is "fair" once both show it inside, "unfair" once one shows it outside, and "undecided" while its games
cannot yet tell, which can be the case for a rate of 40% beside a band of 40-60%: the rate is near the edge,
and more games would place it on one side.  Plain Python: no Qt, no matplotlib.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.analysis.config import FAIR_BAND
from core.analysis.glossary import DISPUTED_COUNTED, FAIR, NOT_SETTLED, ONE_SIDED, outside_band


@dataclass(frozen=True)
class StatusStyle:
    """One class of opening: its colours (light and dark theme), its mark on the board and its words."""

    light: str
    dark: str
    mark: str
    """Drawn after the rate on the board (``48% ✓``)."""
    short: str
    """The class in two or three words (the board's legend, the chart's legend)."""

    def colour(self, dark: bool) -> str:
        return self.dark if dark else self.light


STATUS_STYLE: dict[str, StatusStyle] = {
    "fair": StatusStyle("#009e73", "#4fd8ae", "✓", FAIR.plain),
    "unfair": StatusStyle("#d55e00", "#ff9a4d", "✗", ONE_SIDED.plain),
    "undecided": StatusStyle("#6b6b6b", "#a8a8a8", "?", NOT_SETTLED.plain),
}
"""Okabe-Ito's bluish green and vermillion (told apart with every common colour blindness) and a grey, each at
least 3:1 against the charts' faces and the board's cells in both themes; the board also tells the classes apart
by outline (solid, hatched, dashed) and by each tag's mark."""
BAND_COLOUR = "#5cbf7a"
"""The fair band's shading in the charts."""


def style(status: str) -> StatusStyle:
    return STATUS_STYLE.get(status, STATUS_STYLE["undecided"])


def _band(band: tuple[float, float]) -> str:
    return f"{100 * band[0]:.0f}-{100 * band[1]:.0f}%"


def status_legend(status: str, band: tuple[float, float] = FAIR_BAND) -> str:
    """The legend line for a class: ``shown fair: the games show 40-60%``."""
    meaning = {
        "fair": f"the games show the first mover wins {_band(band)}",
        "unfair": f"the games show the first mover wins outside {_band(band)}",
        "undecided": f"too few games yet to tell inside or outside {_band(band)}",
    }
    return f"{style(status).short}: {meaning.get(status, meaning['undecided'])}"


def status_explained(status: str, rate: float, band: tuple[float, float] = FAIR_BAND, given_up: bool = False,
                     disputed: bool = False, ci: tuple[float, float] | None = None) -> str:
    """Why an opening has its class, in words that agree with its rate (a 40% opening that is undecided is so
    because its games cannot yet place it on either side of the band's edge, not because 40% is outside).  Every
    explanation starts with the class's own words, so the tooltip never contradicts the mark on the board; an
    opening the run stopped playing says why (``ci``, its likely range, tells one set aside far from even)."""
    where = f"{100 * rate:.0f}%"
    if disputed and status == "fair":
        return (f"{DISPUTED_COUNTED.plain}: the deciding engine's games put it within {_band(band)}, so it counts for "
                "the Thorough verdict, but a judge's games found it one-sided (that verdict also needs one fair "
                "opening no judge disputes)")
    if disputed:
        return (f"not counted fair: the deciding engine's games put it within {_band(band)}, but the second engine's "
                "games found it one-sided")
    if status == "fair":
        return (f"{FAIR.plain}: its games show the first mover wins within {_band(band)} (a test that is wrong about "
                "1 time in 20)")
    if status == "unfair":
        return (f"{ONE_SIDED.plain}: its games show the first mover wins outside {_band(band)} (a test that is wrong "
                "about 1 time in 20)")
    low, high = band
    near = min(abs(rate - low), abs(rate - high)) <= 0.05
    far = (outside_band(ci, band) if ci is not None
           else rate < low - 0.05 or rate > high + 0.05)
    if given_up and far:
        return (f"{NOT_SETTLED.plain}, set aside: at {where} after its first games it was far from even, so the run "
                f"played openings nearer to even instead; too few games for the test to show it outside "
                f"{_band(band)}")
    if given_up:
        return (f"{NOT_SETTLED.plain}, given up: at {where} after its games it was very unlikely ever to be shown "
                f"within {_band(band)}, so the run stopped playing it")
    if near:
        return (f"{NOT_SETTLED.plain}: {where} is close to the edge of {_band(band)}, and its games cannot yet tell "
                "which side it lies on")
    return f"{NOT_SETTLED.plain}: its games cannot yet tell whether it lies within {_band(band)}"
