"""``lits openings``: the JSON contract, the same figures on any worker count, checkpoint resume, clear errors."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from core.analysis.config import AnalysisCancelled, AnalysisConfig, AnalysisProgress
from core.analysis.openings import (
    OpeningsConfig,
    OpeningsError,
    legal_openings,
    play_openings,
    resolve_openings,
)
from core.analysis.stats import wilson
from core.analysis.verdict import sprt_pair
from core.board.boardfile import save_board
from core.board.model import Board, GameParams
from core.cli import main


def tiny() -> Board:
    board = Board.random(size=6, pairs=6, seed=12, params=GameParams(supply=(2, 2, 2, 2)))
    board.name = "tiny"
    return board


def inline(**kw: object) -> OpeningsConfig:
    base: dict[str, object] = {"agent": "greedy", "games": 24, "seed": 3, "inline": True}
    base.update(kw)
    return OpeningsConfig(**base)  # type: ignore[arg-type]


def test_records_match_their_games_and_the_analysis_sprt() -> None:
    board = tiny()
    ps = legal_openings(board)[:4]
    recs = play_openings(board, ps, inline())
    assert [r.placement for r in recs] == ps
    for r in recs:
        d = r.to_json()
        assert set(d) == {"cells", "games", "s1_wins", "v", "ci95", "status"}
        assert len(d["cells"]) == 4 and all(isinstance(c, str) for c in d["cells"])
        assert d["games"] == 24 and 0 <= d["s1_wins"] <= 24
        assert d["v"] == pytest.approx(d["s1_wins"] / 24, abs=1e-4)
        assert d["ci95"] == pytest.approx(list(wilson(d["s1_wins"], 24)), abs=1e-4)
        assert d["status"] in ("fair", "unfair", "undecided")
    # a one-sided stream is shown unfair by the same SPRT pair the verdict uses
    pair = sprt_pair(AnalysisConfig())
    for _ in range(24):
        pair.update(True)
    assert pair.status == "outside"


def test_same_seed_same_figures_on_one_or_two_workers() -> None:
    board = tiny()
    ps = legal_openings(board)[:3]
    one = play_openings(board, ps, inline(inline=False, workers=1, agent="mcts:20", games=12))
    two = play_openings(board, ps, inline(inline=False, workers=2, agent="mcts:20", games=12))
    assert [r.to_json() for r in one] == [r.to_json() for r in two]
    other = play_openings(board, ps, inline(inline=False, workers=2, agent="mcts:20", games=12, seed=4))
    assert [r.to_json() for r in other] != [r.to_json() for r in one]


def test_checkpoint_resumes_after_an_interruption(tmp_path: Path) -> None:
    board = tiny()
    ps = legal_openings(board)[:5]
    fresh = [r.to_json() for r in play_openings(board, ps, inline())]
    ck = tmp_path / "ck.jsonl"
    cancel = threading.Event()

    def stop_after_two(_p: AnalysisProgress) -> None:
        if ck.exists() and len(ck.read_text().splitlines()) >= 3:  # header + 2 finished openings
            cancel.set()

    with pytest.raises(AnalysisCancelled):
        play_openings(board, ps, inline(), progress=stop_after_two, cancel=cancel, checkpoint=ck)
    lines = ck.read_text().splitlines()
    assert len(lines) == 3
    # a kill in the middle of a write leaves a cut-off line: it is dropped, not misread
    with ck.open("a") as f:
        f.write('{"placement": 7, "cells": ["A')
    played: list[str] = []
    resumed = play_openings(board, ps, inline(), progress=lambda p: played.append(p.message), checkpoint=ck)
    assert [r.to_json() for r in resumed] == fresh
    assert not any(" ".join(fresh[0]["cells"]) in m for m in played)  # finished openings are not replayed
    assert len(ck.read_text().splitlines()) == 1 + len(ps)
    # a finished checkpoint answers without playing
    played.clear()
    assert [r.to_json() for r in play_openings(board, ps, inline(), progress=lambda p: played.append(p.message),
                                                   checkpoint=ck)] == fresh
    assert played == []


@pytest.mark.parametrize(("change", "named"), [({"seed": 4}, "seed"), ({"agent": "random"}, "agent"),
                                               ({"games": 30}, "games")])
def test_checkpoint_of_another_run_is_refused(tmp_path: Path, change: dict[str, object], named: str) -> None:
    board = tiny()
    ps = legal_openings(board)[:1]
    ck = tmp_path / "ck.jsonl"
    play_openings(board, ps, inline(), checkpoint=ck)
    with pytest.raises(OpeningsError, match=rf"another run.*{named}"):
        play_openings(board, ps, inline(**change), checkpoint=ck)
    other = Board.random(size=6, pairs=6, seed=13, params=GameParams(supply=(2, 2, 2, 2)))
    with pytest.raises(OpeningsError, match=r"another run.*board"):
        play_openings(other, legal_openings(other)[:1], inline(), checkpoint=ck)
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"a": 1}\n')
    with pytest.raises(OpeningsError, match=r"junk\.jsonl: not a checkpoint"):
        play_openings(board, ps, inline(), checkpoint=junk)


def test_openings_in_words_and_their_errors() -> None:
    board = tiny()
    first = legal_openings(board)[0]
    from core.analysis.openings import opening_names

    names = opening_names(board, first)
    assert resolve_openings(board, [" ".join(reversed(names)).lower(), " ".join(names)]) == [first]
    with pytest.raises(OpeningsError, match=r"'A1 B1 C1 Z9'.*Z9"):
        resolve_openings(board, ["A1 B1 C1 Z9"])
    with pytest.raises(OpeningsError, match="'A1 B1 A2 B2'"):
        resolve_openings(board, ["A1 B1 A2 B2"])  # a square is no LITS piece
    with pytest.raises(OpeningsError, match="'A1 B1'"):
        resolve_openings(board, ["A1 B1"])
    no_i = Board.random(size=6, pairs=6, seed=12, params=GameParams(supply=(2, 0, 2, 2)))
    with pytest.raises(OpeningsError, match="'A1 B1 C1 D1' is not a legal first placement"):
        resolve_openings(no_i, ["A1 B1 C1 D1"])


@pytest.fixture()
def board_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    save_board(tiny(), path)
    return path


def test_cli_json_contract(board_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["openings", str(board_file), "--opening", "A1 B1 C1 B2", "--opening", "F6 E6 D6 E5",
                 "--agent", "greedy", "--games", "20", "--workers", "1", "--json", "--seed", "2"])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert [o["cells"] for o in data["openings"]] == [["A1", "B1", "C1", "B2"], ["D6", "E6", "F6", "E5"]] or \
        [sorted(o["cells"]) for o in data["openings"]] == [["A1", "B1", "B2", "C1"], ["D6", "E5", "E6", "F6"]]
    for o in data["openings"]:
        assert set(o) == {"cells", "games", "s1_wins", "v", "ci95", "status"}
        assert o["games"] == 20 and o["ci95"][0] <= o["v"] <= o["ci95"][1]
        assert o["status"] in ("fair", "unfair", "undecided")


def test_cli_errors_name_the_problem(board_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["openings", str(board_file), "--opening", "A1 B1 C1 Q1", "--agent", "greedy"]) == 1
    err = capsys.readouterr().err
    assert "A1 B1 C1 Q1" in err and "Q1" in err and "Traceback" not in err
    assert main(["openings", str(board_file), "--opening", "A1 B1 C1 B2", "--agent", "chess"]) == 1
    assert "chess" in capsys.readouterr().err
    assert main(["openings", str(board_file), "--all", "--games", "3"]) == 1
    assert "--games 3" in capsys.readouterr().err
    assert main(["openings", str(board_file), "--top", "0"]) == 1
    assert "--top 0" in capsys.readouterr().err
