"""``lits reveal-bundle ... --card``: the revealed board's card beside it, and VERIFY.txt says how anyone
recomputes it from the revealed board and the seed (which gives the same figures)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import core.cli.card as card_command
from core.board.boardfile import save_board
from core.card.figures import figures_only
from core.cli import main
from tests.card.common import small_board, small_config


def test_the_bundle_carries_a_card_anyone_can_recompute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(card_command, "config_for",
                        lambda _effort, seed, _workers: small_config(seed=seed, inline=True))
    save_board(small_board(), tmp_path / "b.yaml")
    season = tmp_path / "season"
    assert main(["seal", str(tmp_path / "b.yaml"), "--season", "s1", "--out", str(season)]) == 0
    sealed = next(season.glob("*.lits-sealed"))
    stem = sealed.name.removesuffix(".lits-sealed")
    out = tmp_path / "bundle"
    assert main(["reveal-bundle", str(sealed), "--sums", str(season / "SHA256SUMS"), "--out", str(out), "--card",
                 "--card-seed", "5"]) == 0
    for suffix in ("-card.png", "-card.md", "-card.json"):
        assert (out / f"{stem}{suffix}").is_file(), suffix
    card = json.loads((out / f"{stem}-card.json").read_text(encoding="utf-8"))
    verify = (out / "VERIFY.txt").read_text(encoding="ascii")
    assert f"lits unseal {sealed.name} -o {stem}.yaml" in verify
    assert f"lits card {stem}.yaml --seed 5 --json" in verify and card["measured_at"]["seed"] == 5
    # what VERIFY.txt says, done: unseal, then the card from the revealed board and the seed
    assert main(["unseal", str(out / sealed.name), "-o", str(tmp_path / f"{stem}.yaml")]) == 0
    capsys.readouterr()
    assert main(["card", str(tmp_path / f"{stem}.yaml"), "--seed", "5", "--json"]) == 0
    mine = json.loads(capsys.readouterr().out)
    assert figures_only(mine)["skill"] == figures_only(card)["skill"]
    strip = ("board",)  # the file name differs; the board's fingerprint must not
    assert mine["board"]["fingerprint"] == card["board"]["fingerprint"]
    assert {k: v for k, v in figures_only(mine).items() if k not in strip} == \
        {k: v for k, v in figures_only(card).items() if k not in strip}


def test_without_card_the_bundle_is_unchanged(tmp_path: Path) -> None:
    save_board(small_board(), tmp_path / "b.yaml")
    season = tmp_path / "season"
    assert main(["seal", str(tmp_path / "b.yaml"), "--season", "s1", "--out", str(season)]) == 0
    sealed = next(season.glob("*.lits-sealed"))
    out = tmp_path / "bundle"
    assert main(["reveal-bundle", str(sealed), "--sums", str(season / "SHA256SUMS"), "--out", str(out)]) == 0
    assert not list(out.glob("*-card.*")) and "Board cards" not in (out / "VERIFY.txt").read_text()
