"""The one chart module: what each figure shows, for the report and the designer panel alike."""

from __future__ import annotations

import ast
import math
import subprocess
import sys
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from matplotlib.colors import to_rgb

from core.analysis import charts
from core.analysis.config import FAIR_BAND, AnalysisConfig
from core.analysis.palette import STATUS_STYLE
from core.analysis.results import AgentResult, AnalysisReport, ChartData, OpeningResult, PieResult, RawResult
from core.board.model import Board
from tests.paths import REPO


def make_report(fair: tuple[float, float] = FAIR_BAND) -> tuple[AnalysisReport, Board]:
    board = Board.random(size=6, pairs=6, seed=12)
    openings = [
        OpeningResult(1, [0, 1, 2, 3], ["A1", "B1", "C1", "D1"], wins=30, games=60, status="fair", screen_v=0.5),
        OpeningResult(2, [3, 9, 15, 21], ["D1", "D2", "D3", "D4"], wins=45, games=50, status="undecided",
                      screen_v=0.7),
        OpeningResult(3, [30, 31, 32, 33], ["A6", "B6", "C6", "D6"], wins=0, games=0, status="undecided",
                      screen_v=0.2),
    ]
    pie = PieResult(agent="mcts:30", screened=40, openings=openings)
    raw = RawResult(agent="mcts:30", games=8, s1_wins=5, margins=[-3, -1, 0, 0, 1, 2, 2, 5])
    greedy = RawResult(agent="greedy", games=4, s1_wins=1, margins=[1, 1, -2, 0])
    grid = np.linspace(0.0, 1.0, 36).reshape(6, 6)
    report = AnalysisReport(
        board_name="tiny", size=6, config=AnalysisConfig(fair_low=fair[0], fair_high=fair[1]), agent="mcts:30",
        verdict="inconclusive", reasons=["r"], warnings=[], pie=pie, raw=raw,
        per_agent={"greedy": AgentResult("greedy", "balanced", [], greedy, PieResult("greedy", 40)),
                   "mcts:30": AgentResult("mcts:30", "inconclusive", [], raw, pie)},
        coverage_s1=grid, coverage_s2=grid[::-1], survival=grid)
    return report, board


def _span_x(ax: object) -> tuple[float, float]:
    (band,) = [p for p in ax.patches if p.get_label().startswith("fair band")]  # type: ignore[attr-defined]
    xs = band.get_patch_transform().transform(band.get_path().vertices)[:, 0]  # Rectangle or Polygon alike
    return float(min(xs)), float(max(xs))


def _luminance(colour: object) -> float:
    rgb = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in to_rgb(colour)]  # type: ignore[arg-type]
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]


def _contrast(a: object, b: object) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _marks(ax: Any) -> list[Any]:
    """The rate markers drawn (one point each), in drawing order."""
    return [line for line in ax.get_lines() if line.get_marker() == "o" and len(line.get_xdata()) == 1]


def _ranges(ax: Any) -> list[tuple[float, float]]:
    """The 95% ranges drawn as horizontal error bars, as (low, high)."""
    out = []
    for coll in ax.collections:
        for seg in coll.get_segments():
            if len(seg) == 2 and seg[0][1] == seg[1][1]:  # horizontal: an x-range
                out.append((float(seg[0][0]), float(seg[1][0])))
    return out


def test_raw_chart_shows_the_raw_rate_its_interval_and_the_reports_band() -> None:
    report, _board = make_report(fair=(0.35, 0.65))
    fig = charts.raw_chart(ChartData.of(report))
    (ax1,) = fig.axes
    (mark,) = [line for line in _marks(ax1) if list(line.get_xdata()) == [5 / 8]]
    low, high = report.raw.ci95
    assert _ranges(ax1) == [pytest.approx((low, high))]
    assert _span_x(ax1) == pytest.approx((0.35, 0.65))  # the report's own band, not a constant
    assert "wins 62%" in ax1.get_title() and "of 8 games" in ax1.get_title()
    dark = charts.raw_chart(ChartData.of(report), dark=True)
    face = dark.get_facecolor()
    (mark,) = [line for line in _marks(dark.axes[0]) if list(line.get_xdata()) == [5 / 8]]
    assert _contrast(mark.get_color(), face) >= 3.0
    assert _contrast(dark.axes[0].title.get_color(), face) >= 4.5


def test_raw_chart_says_when_no_games_were_reported() -> None:
    report, _board = make_report()
    report = replace(report, raw=RawResult(agent="mcts:30"))
    (ax,) = charts.raw_chart(ChartData.of(report)).axes
    assert not _marks(ax) and "no games reported" in ax.get_title()
    assert _span_x(ax) == pytest.approx(FAIR_BAND)


def test_margins_chart_counts_every_game_and_marks_the_tie() -> None:
    report, _board = make_report()
    for dark in (False, True):
        fig = charts.margins_chart(ChartData.of(report), dark=dark)
        (ax2,) = fig.axes
        assert sum(p.get_height() for p in ax2.patches) == len(report.raw.margins)
        assert [list(line.get_xdata()) for line in ax2.get_lines()] == [[0, 0]]
        assert _contrast(ax2.get_lines()[0].get_color(), fig.get_facecolor()) >= 3.0
    report = replace(report, raw=RawResult(agent="mcts:30"))
    (ax,) = charts.margins_chart(ChartData.of(report)).axes
    assert not ax.patches and [t.get_text() for t in ax.texts] == ["no margins reported"]


def test_openings_chart_draws_one_range_per_opening_played_against_the_band() -> None:
    report, _board = make_report(fair=(0.45, 0.55))
    (ax,) = charts.openings_chart(ChartData.of(report)).axes
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["A1 B1 C1 D1", "D1 D2 D3 D4"]  # sorted by rate; the unplayed opening is left out
    assert [float(m.get_xdata()[0]) for m in _marks(ax)] == pytest.approx([0.5, 0.9])
    played = [o for o in report.pie.openings if o.games]
    assert _ranges(ax) == [pytest.approx(o.ci95) for o in played]  # drawn from the lowest rate up
    assert _span_x(ax) == pytest.approx((0.45, 0.55))
    fair_mark, undecided_mark = _marks(ax)  # fair filled, undecided hollow, in the status colours
    assert fair_mark.get_color() == STATUS_STYLE["fair"].light
    assert undecided_mark.get_markerfacecolor() == "none"
    (legend,) = ax.figure.legends
    assert [t.get_text() for t in legend.get_texts()] == [v.short for v in STATUS_STYLE.values()]


def test_openings_chart_reads_the_json_report_the_same_way() -> None:
    report, _board = make_report()
    (from_json,) = charts.openings_chart(ChartData.of(AnalysisReport.from_json(report.to_json()))).axes
    (from_report,) = charts.openings_chart(ChartData.of(report)).axes
    assert [t.get_text() for t in from_json.get_yticklabels()] == \
        [t.get_text() for t in from_report.get_yticklabels()]
    assert [float(m.get_xdata()[0]) for m in _marks(from_json)] == pytest.approx([0.5, 0.9])


def test_openings_chart_keeps_the_twelve_closest_to_even_and_says_when_none_was_played() -> None:
    report, _board = make_report()
    pie = PieResult("mcts:30", 40, [OpeningResult(i, [i], [f"C{i}"], wins=i, games=24, status="undecided",
                                                  screen_v=0.5) for i in range(1, 21)])
    report = replace(report, pie=pie)
    (ax,) = charts.openings_chart(ChartData.of(report)).axes
    assert len(_marks(ax)) == charts.MAX_ROWS
    assert max(abs(float(m.get_xdata()[0]) - 0.5) for m in _marks(ax)) <= 6 / 24 + 1e-9
    report = replace(report, pie=replace(pie, openings=()))
    (ax,) = charts.openings_chart(ChartData.of(report)).axes
    assert not _marks(ax) and [t.get_text() for t in ax.texts] == ["no opening was played out"]


def test_panel_charts_are_as_wide_as_asked_at_the_screen_pixel_ratio() -> None:
    report, _board = make_report()
    for make in charts.PANEL_CHARTS:
        fig = make(ChartData.of(report), 300, 2.0, False)
        assert fig.get_figwidth() * fig.dpi == pytest.approx(600)


def test_the_report_shows_the_panels_openings_and_raw_charts() -> None:
    from core.analysis import report as report_module

    report, board = make_report()
    (win_rates,) = report_module.CHARTS["winrates"][1](report, board).axes
    (panel,) = charts.openings_chart(ChartData.of(report)).axes
    assert [t.get_text() for t in win_rates.get_yticklabels()] == [t.get_text() for t in panel.get_yticklabels()]
    (raw,) = report_module.CHARTS["raw"][1](report, board).axes
    assert [float(m.get_xdata()[0]) for m in _marks(raw)] == pytest.approx([5 / 8])


def test_opening_grid_averages_the_openings_covering_a_cell() -> None:
    report, _board = make_report()
    grid = charts.opening_grid(report.pie.openings, 6)
    assert grid[0, 0] == pytest.approx(0.5)
    assert grid[0, 3] == pytest.approx((0.5 + 0.9) / 2)  # D1 is in both played openings
    assert grid[3, 3] == pytest.approx(0.9)
    assert math.isnan(grid[5, 0])  # the unplayed opening colours nothing
    assert int(np.isfinite(grid).sum()) == 7


def test_swap_map_hatches_only_the_undecided_openings_played() -> None:
    report, board = make_report()
    ax = charts.openings_figure(report, board).axes[0]
    outlines = [p for p in ax.patches if not p.get_fill()]
    assert len(outlines) == 8  # two played openings, four cells each
    assert sum(p.get_hatch() == "//" for p in outlines) == 4
    values = {t.get_text() for t in ax.texts}
    assert {"50", "90"} <= values


def test_heatmaps_get_one_colour_bar_each_and_the_symbols() -> None:
    report, board = make_report()
    fig = charts.heatmaps_figure([("a", report.coverage_s1), ("b", report.coverage_s2)], board)
    images = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in images] == ["a", "b"]
    assert len(fig.axes) == 4  # two maps, two colour bars
    symbols = sum(s.value != "." for s in board.cells)
    assert all(len(ax.texts) == symbols for ax in images)
    assert charts.png_bytes(fig)[:8] == b"\x89PNG\r\n\x1a\n"


def test_charts_never_touch_pyplot_and_the_report_draws_nothing_itself() -> None:
    code = ("import sys; from tests.analysis.test_charts import make_report; from core.analysis import charts; "
            "r, b = make_report(); charts.png_bytes(charts.openings_figure(r, b)); "
            "d = charts.ChartData.of(r); charts.png_bytes(charts.openings_chart(d)); "
            "charts.png_bytes(charts.raw_chart(d)); charts.png_bytes(charts.margins_chart(d)); "
            "print('matplotlib.pyplot' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120,
                         env={"PYTHONPATH": str(REPO), "PATH": ""})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
    tree = ast.parse((REPO / "core" / "analysis" / "report.py").read_text())
    for node in ast.walk(tree):  # imports for the type checker only do not draw anything
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            node.body = []
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert "core.analysis" in imported and "core.analysis.results" in imported
    assert not any(name.startswith("matplotlib") for name in imported), imported
