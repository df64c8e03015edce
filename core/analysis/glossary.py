"""The few words an analysis's output uses, each with the plain sentence it stands for.

One table for the command line's verdict (``core.cli.analyze``), the board's legend and the charts
(``core.analysis.palette``) and the designer's verdict text (``designer.panels.analysis_text``), so a word means
the same everywhere and every word a host meets can be looked up.  The command line prints a term's sentence where
the term is first used (:func:`defined`); the designer writes the plain words (:attr:`Term.plain`) instead.

It also says what one opening's games showed (:func:`opening_class`), in the words of what the sequential test
concluded: "shown fair" and "shown one-sided" only when a test decided; an opening the run stopped playing says
why, and one whose likely range lies wholly outside the fair band says that, since its games alone show it.
Plain Python, no engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.analysis.config import FAIR_BAND


@dataclass(frozen=True)
class Term:
    """One word of the output."""

    word: str
    """What the command line prints."""
    plain: str
    """The words the designer writes in its place (a phrase that fits in a sentence)."""
    meaning: str
    """The plain sentence the word stands for."""


def _band(band: tuple[float, float]) -> str:
    return f"{100 * band[0]:.0f}-{100 * band[1]:.0f}%"


S1 = Term("S1", "the player who moves first",
          "the player who places the first piece; the other player may then swap sides (the pie rule)")
S2 = Term("S2", "the second player", "the other player, who may swap sides after the first placement")
OPENING = Term("opening", "first placement", "a first placement: the first piece of the game, on four cells")
FAIR = Term("shown fair", "shown fair",
            f"a sequential test of its games placed S1's chance within {_band(FAIR_BAND)} (it errs about 1 time in "
            "20); the likely range printed beside it is the plain 95% range of the same games, which the test can "
            "leave a little wider")
ONE_SIDED = Term("shown one-sided", "shown one-sided",
                 f"a sequential test of its games placed S1's chance outside {_band(FAIR_BAND)}")
NOT_SETTLED = Term("not settled yet", "not settled yet", "its games cannot yet tell inside or outside the fair band")
SET_ASIDE = Term("set aside", "set aside",
                 "after its first games it was far from even, so the run spent its games on openings nearer to "
                 "even; too few games for the test to decide")
GIVEN_UP = Term("given up", "given up",
                "after its games it was very unlikely ever to be shown fair, so the run stopped playing it")
DISPUTED = Term("not confirmed", "not confirmed",
                "the deciding engine showed it fair, but a judge's games found it one-sided, so it does not count")
DISPUTED_COUNTED = Term("fair, disputed", "fair for the deciding engine, disputed",
                        "the deciding engine showed it fair, so it counts for the Thorough effort's verdict, but a "
                        "judge's games found it one-sided; that verdict also needs one fair opening no judge disputes")
JUDGE = Term("judge", "second engine",
             "a computer player of another kind that replays every opening shown fair; the opening counts only if "
             "no judge finds it one-sided (the Thorough effort counts it all the same and needs one that no judge "
             "disputes)")
LIKELY = Term("[a-b%]", "likely a-b%", "the 95% range: the true rate lies in it 19 times out of 20")
CLOSEST = Term("closest to even", "closest to even",
               "the opening whose games leave the weaker side the most; 50% is a perfectly even game")
SCREENED = Term("screened", "quick estimate",
                "every legal first placement got a short search's estimate, which chose the openings played out")
NO_SWAP = Term("without a swap", "without a swap",
               "the same computer player in both seats and no swap: the first-move advantage, which the swap rule "
               "is there to even out, so it is information beside the verdict, not the verdict")
TIE_RULE = Term("level", "level",
                "both players end with the same score; the last player to place a piece wins the tie")
SCORE_LEAD = Term("score lead", "score lead", "S1's score minus S2's at the end, averaged (symbols left uncovered)")
COPYCAT = Term("copycat", "copycat second player",
               "S2 answers each move with its 180-degree image; if that wins often, the board favours copying")
SEAL = Term("seal", "seal", "write the board as a sealed file whose digest you publish before the season")

GLOSSARY: tuple[Term, ...] = (S1, S2, OPENING, FAIR, ONE_SIDED, NOT_SETTLED, SET_ASIDE, GIVEN_UP, DISPUTED,
                              DISPUTED_COUNTED, JUDGE,
                              LIKELY, CLOSEST, SCREENED, NO_SWAP, TIE_RULE, SCORE_LEAD, COPYCAT, SEAL)
"""Every word the analysis output must use, in the order a reader meets them."""


def defined(term: Term) -> str:
    """The word with its sentence, for its first use: ``S1: the player who places the first piece; ...``."""
    return f"{term.word}: {term.meaning}"


def outside_band(ci: tuple[float, float], band: tuple[float, float] = FAIR_BAND) -> bool:
    """Whether a likely range lies wholly outside the fair band (its games alone then show the opening one-sided)."""
    return ci[1] < band[0] or ci[0] > band[1]


def opening_class(status: str, abandoned: bool, disputed: bool) -> Term:
    """What one opening's games showed, as the sequential tests left it: the term for its line and its tooltip."""
    if disputed:
        return DISPUTED_COUNTED if status == "fair" else DISPUTED
    if status == "fair":
        return FAIR
    if status == "unfair":
        return ONE_SIDED
    return GIVEN_UP if abandoned else NOT_SETTLED


def opening_term(status: str, abandoned: bool, disputed: bool, ci: tuple[float, float],
                 band: tuple[float, float] = FAIR_BAND) -> Term:
    """The term whose sentence explains :func:`opening_words` (an opening given up far from even was set aside)."""
    term = opening_class(status, abandoned, disputed)
    return SET_ASIDE if term is GIVEN_UP and outside_band(ci, band) else term


def opening_words(status: str, abandoned: bool, disputed: bool, rate: float, ci: tuple[float, float],
                  band: tuple[float, float] = FAIR_BAND) -> str:
    """One opening's class in a few words that agree with its figures: an opening the run stopped playing while
    its likely range already lay outside the band is called one-sided by that range (the test itself did not
    finish), never merely "undecided"."""
    term = opening_class(status, abandoned, disputed)
    if term is GIVEN_UP and outside_band(ci, band):
        side = "S1 wins" if rate > 0.5 else "S1 loses"
        return f"one-sided by its likely range ({side}); set aside before the test decided"
    if term is GIVEN_UP:
        return "given up: unlikely ever to be shown fair"
    if term is NOT_SETTLED and outside_band(ci, band):
        return "not settled yet (its likely range lies outside the band)"
    return term.word
