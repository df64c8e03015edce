"""``lits card``: the JSON scripts rely on, the files it writes, and the text beside them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import core.cli.card as command
from core.board.boardfile import save_board
from core.card.render import card_lines, wrapped
from core.cli import main
from tests.card.common import small_board, small_config


@pytest.fixture()
def board_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(command, "config_for", lambda _effort, seed, _workers: small_config(seed=seed, inline=True))
    path = tmp_path / "b.yaml"
    save_board(small_board(), path)
    return str(path)


def test_json_and_picture(board_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svg = tmp_path / "card.svg"
    assert main(["card", board_file, "--seed", "4", "--json", "-o", str(svg)]) == 0
    card = json.loads(capsys.readouterr().out)
    skill = card["skill"]
    assert 0.0 <= skill["ci95"][0] <= skill["score"] <= skill["ci95"][1] <= 1.0
    assert skill["games"] == 10 and skill["strong"] == "puct:40" and skill["weak"] == "greedy"
    m = card["measured_at"]
    assert m["seed"] == 4 and m["effort"] == "standard" and m["version"] and "commit" in m
    assert card["files"] == [str(svg)]
    shown = svg.read_text(encoding="utf-8")
    assert wrapped(next(line.text for line in card_lines(card) if line.key == "skill"))[0].replace("&", "&amp;") \
        in shown


def test_text_and_page(board_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "card.md"
    assert main(["card", board_file, "-o", str(page)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{board_file}: board card\nVerdict:\n")
    assert f"wrote {tmp_path / 'card.png'}" in out and f"wrote {page}" in out
    assert "Skill:\n  puct:40 scores" in out
    assert (tmp_path / "card.png").stat().st_size > 10_000


def test_listed_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "card" in capsys.readouterr().out
