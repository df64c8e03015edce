"""``lits generate --prefer skill``: the balanced boards ranked by the board card's skill figure, which goes into
each board's notes, and a seeded run writes other boards than the score would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import core.generate.prefer as prefer
from core.board.boardfile import load_board
from core.cli import main


def generate(tmp: Path, prefer_what: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    capsys.readouterr()
    code = main(["generate", "--size", "6", "--pairs", "4..7", "--count", "1", "--rounds", "1", "--level", "greedy",
                 "--seed", "3", "--workers", "1", "--out", str(tmp / prefer_what), "--json", "--prefer", prefer_what])
    assert code == 0, capsys.readouterr().err
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_the_preference_changes_the_written_board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(prefer, "PAIRS", 10)  # 20 games of club against casual per balanced board
    by_score = generate(tmp_path, "score", capsys)
    by_skill = generate(tmp_path, "skill", capsys)
    [plain] = by_score["boards"]  # type: ignore[misc]
    [skilled] = by_skill["boards"]  # type: ignore[misc]
    assert "skill" not in plain and by_skill["prefer"] == "skill"
    judged = by_skill["judged"]
    assert sum(j["verdict"] == "balanced" for j in judged) == 2  # type: ignore[attr-defined, index]
    board = load_board(skilled["file"])
    assert board.rows() != load_board(plain["file"]).rows()
    assert skilled["score"] < plain["score"]  # the score alone would have written the other one
    skill = skilled["skill"]
    assert 0.0 <= skill["ci95"][0] <= skill["score"] <= skill["ci95"][1] <= 1.0
    assert f"Skill (board card, seed 3): club scores {100 * skill['score']:.0f}%" in board.notes
    report = json.loads(Path(skilled["report"]).read_text(encoding="utf-8"))
    assert report["skill"]["games"] == 20 and report["skill"]["score"] == skill["score"]

