"""Every sentence of the analysis output true for the figures beside it, in the glossary's words.

The designer's verdict text (``designer.panels.analysis_text``, no Qt), the charts' titles, the board's tooltips
(``core.analysis.palette``) and the command line's verdict (``core.cli.analyze.format_text``) are read against
the saved reports' own figures.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from core.analysis.glossary import GLOSSARY, S1, opening_words
from core.analysis.hostwords import describe_agent
from core.analysis.palette import STATUS_STYLE, status_explained, style
from core.analysis.results import AnalysisReport, ChartData, read_report
from tests.paths import REPO

REPORTS = REPO / "tests" / "data" / "reports"
SAVED = sorted(p.stem for p in REPORTS.glob("*.json"))


def saved(name: str) -> AnalysisReport:
    return read_report(REPORTS / f"{name}.json")


def edited(name: str, change: Any) -> AnalysisReport:
    """A saved report with its JSON changed by ``change(data)``."""
    data = json.loads((REPORTS / f"{name}.json").read_text())
    change(data)
    return AnalysisReport.from_json(data)


def shown_ranges(lines: list[str]) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for line in lines for a, b in re.findall(r"likely (\d+)-(\d+)%", line)]


@pytest.mark.parametrize("name", SAVED)
def test_the_panel_never_claims_a_band_its_own_ranges_leave(name: str) -> None:
    """"wins 40-60%" above "(likely 39-62%)" read as a contradiction: the sentence says what the test concluded,
    and says so when the ranges shown reach past the band."""
    from designer.panels.analysis_text import summarise

    summary = summarise(saved(name))
    text = "\n".join(summary.lines)
    assert not re.search(r"wins \d+-\d+%", text), text  # a band is never a rate the player "wins"
    ranges = shown_ranges(summary.lines)
    past = [r for r in ranges if r[0] < 40 or r[1] > 60]
    claim = next((line for line in summary.lines if "keep the game close: after each" in line), "")
    assert bool(claim) == (summary.verdict == "balanced")
    assert ("reach a little past 40-60%" in claim) == bool(claim and past), claim


def test_a_full_run_is_never_promised_in_one_to_two_minutes() -> None:
    from designer.panels.analysis_text import FULL_RUN

    assert "one to two minutes" not in FULL_RUN
    assert "idle" in FULL_RUN and "busy machine" in FULL_RUN  # the figure names the machine it holds for


def test_the_time_taken_keeps_the_compile_apart() -> None:
    """172.4 s "for the analysis" of which 155 s waited for the compile: the two are said apart."""
    from designer.panels.analysis_text import timing_line

    assert timing_line(17.4, 155.0) == ("The analysis took 17.4 s, after 155 s compiling the engine (once after "
                                        "installing; later runs skip it).")
    assert timing_line(17.4) == "The analysis took 17.4 s."
    assert timing_line(17.4, 0.3) == "The analysis took 17.4 s."


def test_the_openings_chart_title_counts_the_rows_it_shows() -> None:
    from core.analysis.charts import MAX_ROWS, openings_chart

    report = saved("tiny-inconclusive")
    data = ChartData.of(report)
    assert len(data.openings) > MAX_ROWS
    title = openings_chart(data).axes[0].get_title()
    assert "each opening tried" not in title
    assert f"the {MAX_ROWS} openings nearest to even of {len(data.openings)} tried" in title
    few = ChartData.of(saved("default-balanced"))
    assert "each opening tried" in openings_chart(few).axes[0].get_title()


@pytest.mark.parametrize("status", list(STATUS_STYLE))
@pytest.mark.parametrize("given_up", [False, True])
@pytest.mark.parametrize("rate", [0.08, 0.38, 0.5, 0.9])
def test_a_tooltip_starts_with_the_words_of_its_mark(status: str, given_up: bool, rate: float) -> None:
    """The board draws an 8% opening as "? not settled yet"; its tooltip said "not settled, given up"."""
    text = status_explained(status, rate, given_up=given_up)
    assert text.startswith(style(status).short), text


def test_an_opening_set_aside_far_from_even_says_why() -> None:
    text = status_explained("undecided", 0.08, given_up=True, ci=(0.01, 0.35))
    assert "set aside" in text and "far from even" in text and "given up" not in text
    near = status_explained("undecided", 0.38, given_up=True, ci=(0.30, 0.47))
    assert "given up" in near and "set aside" not in near


# -- the command line's verdict ---------------------------------------------------------------------------------
def cli_text(report: AnalysisReport, path: str = "b.yaml") -> str:
    from core.cli.analyze import format_text

    return format_text(report, path)


@pytest.mark.parametrize("name", [n for n in SAVED if n != "README"])
def test_the_command_line_speaks_the_glossary(name: str) -> None:
    text = cli_text(saved(name))
    for engine_word in ("pie: value", "mirror wins", "tie-break", "margin ", " screened", "raw seat advantage"):
        assert engine_word not in text, (engine_word, text)
    lines = text.splitlines()
    first_s1 = next(i for i, line in enumerate(lines) if re.search(r"\bS1\b", line))
    assert lines[first_s1].strip().startswith(f"{S1.word}: {S1.meaning}")  # defined where first used
    headline = lines[0]
    for spec in re.findall(r"\b(?:mcts|puct|ab):\d+", headline):
        assert f"{spec}, {describe_agent(spec)}" in headline, headline  # every engine said in words
    classes = {line.split("games  ", 1)[1] for line in lines if " games  " in line}
    for words in classes:  # every class printed is explained below the table
        head = words.split(":")[0].split(" (")[0].split(";")[0]
        assert any(head.startswith(t.word) or t.word in words for t in GLOSSARY), words


def test_a_plainly_one_sided_opening_is_called_so_by_its_range() -> None:
    """``S1 0% [0%-24%] undecided (given up)``: the test did not decide, but the range alone shows it one-sided."""

    def set_aside(data: dict[str, Any]) -> None:
        data["pie"]["openings"][0].update(status="undecided", abandoned=True)

    report = edited("tiny-inconclusive", set_aside)
    opening = report.pie.openings[0]
    assert opening.ci95[1] < 0.4 and opening.abandoned
    row = next(line for line in cli_text(report).splitlines() if line.startswith(f"  {' '.join(opening.names)}"))
    assert row.endswith("one-sided by its likely range (S1 loses); set aside before the test decided")
    assert "undecided" not in row
    assert "(set aside: after its first games it was far from even" in cli_text(report)
    assert opening_words("undecided", True, False, 0.45, (0.35, 0.55)) == "given up: unlikely ever to be shown fair"


def test_a_balanced_verdict_names_the_next_step() -> None:
    text = cli_text(saved("default-balanced"), "crossroads.yaml")
    assert text.splitlines()[-1] == ("Next step: seal it for a season: `lits seal crossroads.yaml --season NAME "
                                     "--out FOLDER` (play-test it first in the designer if you like).")
    inconclusive = cli_text(saved("tiny-inconclusive")).splitlines()[-1]
    assert inconclusive.startswith("Next step: ") and "seal" not in inconclusive


def test_the_panel_and_the_command_line_use_one_glossary() -> None:
    from designer.panels import analysis_text

    assert S1.plain == analysis_text.FIRST
    assert {STATUS_STYLE[s].short for s in STATUS_STYLE} <= {t.plain for t in GLOSSARY}


def test_the_markdown_report_speaks_the_same_words() -> None:
    from core.analysis.report import markdown
    from core.board.model import Board

    report = saved("default-balanced")
    text = markdown(report, Board(size=report.size), {})
    assert f"{S1.word}: {S1.meaning}" in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and " games" not in line and "%" in line]
    assert rows and not any("undecided (given up)" in row for row in rows)
    assert any("| given up: unlikely ever to be shown fair |" in row for row in rows)
