"""The opening predictor's values beside the measured openings: in the analysis JSON and `lits openings --json`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import core.agents.value as value
from core.analysis.results import AnalysisReport
from core.analysis.run import analyze
from core.board.model import Board, GameParams
from core.cli import main
from tests.agents.test_value import model_of, random_weights
from tests.analysis.test_analysis import small_board, small_config


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> value.ValueModel:
    m = model_of(random_weights(21))
    monkeypatch.setattr(value, "default_model", lambda: m)
    return m


def ten_by_ten() -> Board:
    board = Board.random(size=10, pairs=14, seed=5, params=GameParams(supply=(2, 2, 2, 2)))
    board.name = "ten"
    return board


def test_every_opening_of_an_analysis_carries_the_prediction_and_the_report_names_the_model(
        model: value.ValueModel) -> None:
    board = ten_by_ten()
    report = analyze(board, small_config(max_candidates=2))
    expected = value.opening_chances(board, model)
    openings = report.pie.openings
    assert openings
    for op in openings:
        assert op.predicted == float(expected[op.placement])
    data = report.to_json()
    assert data["model"]["digest"] == model.digest
    assert [o["predicted"] for o in data["pie"]["openings"]] == [round(float(expected[o.placement]), 4)
                                                                for o in openings]
    back = AnalysisReport.from_json(json.loads(json.dumps(data)))
    assert back.model.digest == model.digest


def test_a_board_the_model_was_not_trained_for_says_why_and_predicts_nothing(model: value.ValueModel) -> None:
    report = analyze(small_board(), small_config())
    assert report.model.digest is None and "not 6x6" in report.model.note
    assert all(op.predicted is None for op in report.pie.openings)
    assert report.to_json()["model"]["note"] == report.model.note


def test_the_predictions_do_not_change_the_verdict(model: value.ValueModel, monkeypatch: pytest.MonkeyPatch) -> None:
    board = ten_by_ten()
    with_model = analyze(board, small_config(max_candidates=2)).to_json()
    monkeypatch.setattr(value, "default_model", lambda: value.load_model("/nonexistent/model.npz"))
    without = analyze(board, small_config(max_candidates=2)).to_json()
    def strip(data: object) -> object:
        if isinstance(data, dict):
            return {k: strip(v) for k, v in data.items() if k not in ("predicted", "model", "elapsed_s")}
        if isinstance(data, list):
            return [strip(v) for v in data]
        return data

    assert strip(with_model) == strip(without)
    assert with_model != without


def test_lits_openings_json_gives_predicted_beside_the_measured_rate(model: value.ValueModel, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from core.board.boardfile import save_board

    board = ten_by_ten()
    path = tmp_path / "ten.yaml"
    save_board(board, path)
    code = main(["openings", str(path), "--opening", "A1 B1 C1 D1", "--games", "10", "--agent", "greedy",
                 "--workers", "1", "--json", "--force"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    expected = value.opening_chances(board, model)
    op = data["openings"][0]
    from core.engine.rules import Placement

    assert op["predicted"] == round(float(expected[Placement.parse("A1 B1 C1 D1", 10).index]), 4)
    assert data["model"]["digest"] == model.digest
    assert np.isfinite(op["v"])
