"""The typed report: the published ``--json`` keys, reading saved reports back whole, and clear errors.

The reports are real ``lits analyze --json`` runs saved in ``tests/data/reports`` (how they were made is in the
README there).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import pickle
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from core.analysis.results import (
    SCHEMA,
    AnalysisReport,
    BudgetRecord,
    ChartData,
    ReportFormatError,
    read_report,
)
from core.board.geometry import cell_name
from tests.paths import REPO

REPORTS = sorted((REPO / "tests" / "data" / "reports").glob("*.json"))

# -- the published contract: these sets are the pin (README: "lits analyze --json") --------------------------------
TOP = {"verdict", "reasons", "warnings", "pie", "raw", "per_agent", "agent", "deciding_agent", "board", "size", "s1",
       "seed", "quick", "time_budget_s", "elapsed_s", "effort", "heatmaps"}
TOP_EXTRAS = {"schema", "config", "budget", "screen", "model", "engines_disagree"}
PIE = {"agent", "value", "fair_openings", "tested", "screened", "fair_fraction", "not_shown_unfair", "games",
       "openings", "check_agent", "check_rule", "check_limit", "disputed"}
OPENING = {"cells", "v", "ci95", "games", "status", "abandoned", "screen_v", "refined_v", "swap_rate", "check"}
OPENING_EXTRAS = {"placement", "s1_wins", "swaps", "judges", "predicted"}
PIE_EXTRAS = {"judges", "undisputed"}
CHECK = {"agent", "games", "s1_wins", "v", "ci95", "agrees", "complete"}
RAW = {"agent", "games", "s1_win_rate", "ci95", "sprt", "tie_break_share", "margins", "margin", "mean_length",
       "legal_per_turn", "type_runout", "swap_rate", "swapper_win_rate", "distinct_games", "common_openings", "mirror"}
RAW_EXTRAS = {"s1_wins", "tie_breaks", "lengths", "swaps", "swapper_wins"}
MIRROR = {"games", "success_rate", "win_rate", "ci95", "full_mirror_win_rate"}
MIRROR_EXTRAS = {"full", "wins", "full_wins"}
COMMON = {"cells", "games", "swap_rate"}
AGENT = {"verdict", "reasons", "pie", "raw"}
HEATMAPS = {"coverage_s1", "coverage_s2", "survival"}
BUDGET = {"effort", "time_cap", "stopped_by_time", "games_done", "games_planned"}


def saved(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_the_saved_reports_cover_every_verdict_and_every_kind_of_opening() -> None:
    reports = [read_report(p) for p in REPORTS]
    assert {r.verdict for r in reports} == {"balanced", "lopsided", "inconclusive"}
    openings = [o for r in reports for o in r.pie.openings]
    assert {o.status for o in openings} == {"fair", "unfair", "undecided"}
    assert any(o.check is not None for o in openings) and any(o.refined_v is not None for o in openings)
    assert any(r.config.quick for r in reports) and {r.size for r in reports} == {6, 12}


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.stem)
def test_the_published_json_keys_are_pinned(path: Path) -> None:
    data = read_report(path).to_json()
    assert set(data) == TOP | TOP_EXTRAS and data["schema"] == SCHEMA
    assert set(AnalysisReport.PUBLISHED) == TOP and data["effort"] == data["budget"]["effort"]
    assert set(data["heatmaps"]) == HEATMAPS and set(data["budget"]) == BUDGET
    pies = [data["pie"]] + [a["pie"] for a in data["per_agent"].values()]
    raws = [data["raw"]] + [a["raw"] for a in data["per_agent"].values()]
    assert all(set(a) == AGENT for a in data["per_agent"].values())
    for pie in pies:
        assert set(pie) == PIE | PIE_EXTRAS
        for op in pie["openings"]:
            assert set(op) == OPENING | OPENING_EXTRAS
            if op["check"] is not None:
                assert set(op["check"]) == CHECK and op["judges"][0] == op["check"]
            assert all(set(judge) == CHECK for judge in op["judges"])
    for raw in raws:
        assert set(raw) == RAW | RAW_EXTRAS
        assert set(raw["mirror"]) == MIRROR | MIRROR_EXTRAS
        assert all(set(c) == COMMON | {"swaps"} for c in raw["common_openings"])


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.stem)
def test_a_saved_report_reads_back_whole(path: Path) -> None:
    report = read_report(path)
    assert AnalysisReport.from_json(report.to_json()) == report
    data, again = saved(path), report.to_json()
    data.pop("board_file")  # the command line's own addition beside the report
    assert again == data  # every value, published or extra, written as it was read


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.stem)
def test_the_json_names_map_to_the_fields(path: Path) -> None:
    """``cells`` are names in the JSON and indices in the record; ``s1_wins`` is ``wins``; rates are wins/games."""
    report, data = read_report(path), saved(path)
    for op, js in zip(report.pie.openings, data["pie"]["openings"], strict=True):
        assert js["cells"] == [cell_name(c, report.size) for c in op.cells] == list(op.names)
        assert js["s1_wins"] == op.wins and js["v"] == pytest.approx(op.wins / op.games, abs=1e-4)
        assert js["refined_v"] == op.refined_v and js["screen_v"] == op.screen_v
        if op.check is not None:
            assert js["check"]["s1_wins"] == op.check.wins and js["check"]["agent"] == op.check.agent
    assert data["raw"]["s1_win_rate"] == pytest.approx(report.raw.s1_wins / report.raw.games, abs=1e-4)
    assert data["deciding_agent"] == report.agent and data["board"] == report.board_name
    assert data["time_budget_s"] == (report.config.time_budget or None) and data["seed"] == report.config.seed


def test_a_fresh_report_survives_the_round_trip_to_the_published_precision() -> None:
    from tests.analysis.test_charts import make_report

    report, _board = make_report()
    report = dataclasses.replace(report, elapsed=12.3456789,
                                 coverage_s1=report.coverage_s1 / 3.0, budget=BudgetRecord("thorough", 600.0, True,
                                                                                           812, 900))
    back = AnalysisReport.from_json(json.loads(json.dumps(report.to_json())))
    assert back.to_json() == report.to_json()
    assert back.budget == BudgetRecord("thorough", 600.0, True, 812, 900)
    assert back.pie.openings[0].cells == (0, 1, 2, 3) and back.config == report.config
    assert back.elapsed == 12.35 and back.coverage_s1[0, 1] == pytest.approx(report.coverage_s1[0, 1], abs=5e-4)


def test_records_are_frozen_and_compare_by_value() -> None:
    report = read_report(REPORTS[0])
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.verdict = "lopsided"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.pie.openings[0].wins = 0  # type: ignore[misc]
    with pytest.raises(ValueError):
        report.survival[0, 0] = 1.0  # the grids are read-only too
    twin = read_report(REPORTS[0])
    assert twin == report and twin is not report
    assert any(math.isnan(v) for v in report.survival.flat)  # nan (no data) equals nan between the two
    changed = dataclasses.replace(report, coverage_s1=np.where(report.coverage_s1 > 0.5, 0.0, report.coverage_s1))
    assert changed != report
    assert dataclasses.replace(report.pie, screened=report.pie.screened + 1) != report.pie


def test_a_report_without_a_budget_has_the_custom_default() -> None:
    data = saved(REPORTS[0])
    data.pop("budget")
    effort = data.pop("effort")
    assert AnalysisReport.from_json(data).budget == BudgetRecord("custom", 0.0, False, 0, 0)
    assert AnalysisReport.from_json({**data, "effort": effort}).budget.effort == effort  # the published effort
    data["budget"] = {"effort": "heroic"}
    with pytest.raises(ReportFormatError, match=r"budget\.effort: 'heroic' is not one of quick, standard, thorough"):
        AnalysisReport.from_json(data)


@pytest.mark.parametrize(("key", "value", "words"), [
    ("quick", "yes", "config: quick: expected true or false, got 'yes'"),
    ("effort", "heroic", "config: effort must be one of quick, standard, thorough, not 'heroic'"),
    ("judging", 3, "config: judging: expected a string, got 3"),
])
def test_a_bad_effort_in_a_reports_config_is_named(key: str, value: object, words: str) -> None:
    data = saved(REPORTS[0])
    data["config"][key] = value
    with pytest.raises(ReportFormatError, match=re.escape(words)):
        AnalysisReport.from_json(data)


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.stem)
def test_a_saved_reports_config_is_written_back_as_it_was(path: Path) -> None:
    written = saved(path)["config"]
    again = read_report(path).to_json()["config"]
    assert list(again) == list(written) and again == written


def strip_extras(data: dict[str, Any]) -> dict[str, Any]:
    """The report as the JSON was published before it carried a schema number: the published keys only."""
    out = {k: copy.deepcopy(v) for k, v in data.items() if k in TOP}
    for pie in [out["pie"]] + [a["pie"] for a in out["per_agent"].values()]:
        for key in PIE_EXTRAS:
            pie.pop(key)
        for op in pie["openings"]:
            for key in OPENING_EXTRAS:
                op.pop(key)
    for raw in [out["raw"]] + [a["raw"] for a in out["per_agent"].values()]:
        for key in RAW_EXTRAS:
            raw.pop(key)
        for key in MIRROR_EXTRAS:
            raw["mirror"].pop(key)
        for c in raw["common_openings"]:
            c.pop("swaps")
    return out


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.stem)
def test_a_report_of_the_first_schema_reads_with_its_counts(path: Path) -> None:
    full = read_report(path)
    old = AnalysisReport.from_json(strip_extras(saved(path)))
    assert [(o.names, o.wins, o.games, o.swaps, o.status) for o in old.pie.openings] == \
        [(o.names, o.wins, o.games, o.swaps, o.status) for o in full.pie.openings]
    assert (old.raw.s1_wins, old.raw.tie_breaks, old.raw.swaps, old.raw.mirror_wins) == \
        (full.raw.s1_wins, full.raw.tie_breaks, full.raw.swaps, full.raw.mirror_wins)
    assert old.verdict == full.verdict and old.config.seed == full.config.seed
    def published(report: AnalysisReport) -> dict[str, Any]:
        data = strip_extras(report.to_json())
        for raw in [data["raw"]] + [a["raw"] for a in data["per_agent"].values()]:
            raw.pop("mean_length")  # schema 1 published the mean game length but not the lengths it came from
        return data

    assert published(old) == published(full)  # every other published value is the same


def test_a_newer_schema_and_bad_values_are_refused_with_the_key() -> None:
    data = saved(REPORTS[0])
    with pytest.raises(ReportFormatError, match=f"schema: this report was written as schema {SCHEMA + 1}"):
        AnalysisReport.from_json({**data, "schema": SCHEMA + 1})
    bad = copy.deepcopy(data)
    bad["pie"]["openings"][1]["games"] = "many"
    with pytest.raises(ReportFormatError, match=r"^pie\.openings\[1\]\.games: expected a whole number, got text$"):
        AnalysisReport.from_json(bad)
    bad = copy.deepcopy(data)
    bad["pie"]["openings"][0]["cells"][0] = "Z99"
    with pytest.raises(ReportFormatError, match=r"^pie\.openings\[0\]\.cells: "):
        AnalysisReport.from_json(bad)
    bad = copy.deepcopy(data)
    del bad["heatmaps"]["survival"][3]
    with pytest.raises(ReportFormatError, match=r"^heatmaps\.survival: expected 12 rows of 12 numbers"):
        AnalysisReport.from_json(bad)
    with pytest.raises(ReportFormatError, match=r"^verdict: 'fine' is not one of balanced, lopsided, inconclusive$"):
        AnalysisReport.from_json({**data, "verdict": "fine"})
    with pytest.raises(ReportFormatError, match=r"^the report: expected an object, got a list$"):
        AnalysisReport.from_json([data])


def test_reading_a_file_that_is_not_a_report_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    path.write_text('{"verdict": "balanced",\n  oops}')
    with pytest.raises(ValueError, match=r"notes\.json: not JSON \(line 2, column 3"):
        read_report(path)
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(ValueError, match=r"notes\.json: not a report \(not UTF-8 text\)"):
        read_report(path)
    path.write_text("{}")
    with pytest.raises(ValueError, match=r"notes\.json: size: missing"):
        read_report(path)
    with pytest.raises(ValueError, match=r"absent\.json: cannot read the report"):
        read_report(tmp_path / "absent.json")


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.stem)
def test_chart_data_is_small_picklable_and_the_reports_figures(path: Path) -> None:
    report = read_report(path)
    data = ChartData.of(report)
    assert pickle.loads(pickle.dumps(data)) == data
    assert len(pickle.dumps(data)) < len(pickle.dumps(report)) / 2
    played = [o for o in report.pie.openings if o.games]
    assert sorted(v.label for v in data.openings) == sorted(" ".join(o.names) for o in played)
    assert [abs(v.rate - 0.5) for v in data.openings] == sorted(abs(v.rate - 0.5) for v in data.openings)
    assert data.margins == tuple(report.raw.margins) and data.band == (report.config.fair_low, report.config.fair_high)
    assert data.raw is not None and data.raw.games == report.raw.games
