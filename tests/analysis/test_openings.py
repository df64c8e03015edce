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
from core.analysis.stats import pair_operating, sprt_pair_run, wilson
from core.analysis.verdict import sprt_pair
from core.board.boardfile import save_board
from core.board.model import Board, GameParams
from core.cli import main


def tiny() -> Board:
    board = Board.random(size=6, pairs=6, seed=12, params=GameParams(supply=(2, 2, 2, 2)))
    board.name = "tiny"
    return board


def inline(**kw: object) -> OpeningsConfig:
    base: dict[str, object] = {"agent": "greedy", "games": 24, "seed": 3, "inline": True, "fixed": True}
    base.update(kw)
    return OpeningsConfig(**base)  # type: ignore[arg-type]


def test_records_match_their_games_and_the_analysis_sprt() -> None:
    board = tiny()
    ps = legal_openings(board)[:4]
    recs = play_openings(board, ps, inline())
    assert [r.placement for r in recs] == ps
    for r in recs:
        d = r.to_json()
        assert set(d) == {"cells", "games", "s1_wins", "v", "ci95", "status", "predicted"}
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
                                               ({"games": 30}, "games"), ({"fixed": False}, "stop")])
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
        assert set(o) == {"cells", "games", "s1_wins", "v", "ci95", "status", "predicted"}
        assert o["games"] == 20 and o["ci95"][0] <= o["v"] <= o["ci95"][1]
        assert o["status"] in ("fair", "unfair", "undecided")


def test_cli_errors_name_the_problem(board_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["openings", str(board_file), "--opening", "A1 B1 C1 Q1", "--agent", "greedy"]) == 2
    err = capsys.readouterr().err
    assert "A1 B1 C1 Q1" in err and "Q1" in err and "Traceback" not in err
    assert main(["openings", str(board_file), "--opening", "A1 B1 C1 B2", "--agent", "chess"]) == 2
    assert "chess" in capsys.readouterr().err
    assert main(["openings", str(board_file), "--all", "--games", "3"]) == 2
    assert "--games 3" in capsys.readouterr().err
    assert main(["openings", str(board_file), "--top", "0"]) == 2
    assert "--top 0" in capsys.readouterr().err


def test_an_opening_stops_where_the_sprt_pair_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``fixed`` each opening's games end at the game that decided the verdict's pair (the same games on
    any batching), and an even opening is then called fair as often as the exact figures say."""
    from core.agents.spec import parse_agent
    from core.analysis.config import SeedPhase
    from core.selfplay.tasks import BoardSpec, GameTask, derive_seed
    from tests.analysis.simulated import SimulatedGames

    board = tiny()
    ps = legal_openings(board)[:24]
    sim = SimulatedGames(board, lambda p: 0.5).install(monkeypatch)
    cfg = inline(fixed=False, games=200, agent="greedy")
    recs = play_openings(board, ps, cfg)
    spec = parse_agent("greedy")
    for r in recs:
        outcomes = [sim.play(GameTask(BoardSpec.from_board(board), derive_seed(cfg.seed, SeedPhase.OPENINGS, spec.key,
                                                                                r.placement, i), "greedy", "greedy",
                                      opening=r.placement, pie=False)).s1_won for i in range(200)]
        pair = sprt_pair_run(outcomes, cap=200)
        assert (r.games, r.s1_wins) == (pair.trials, pair.successes)
        assert r.status == {"inside": "fair", "outside": "unfair"}.get(pair.status, "undecided")
    fair = sum(r.status == "fair" for r in recs)
    assert pair_operating(0.5, 200).inside > 0.95
    assert fair >= 20, [r.status for r in recs]  # 24 even openings: P(fewer than 20 fair) < 0.2%
    fixed = play_openings(board, ps, inline(fixed=True, games=60, agent="greedy"))
    assert all(r.games == 60 for r in fixed)
    assert sum(r.status == "fair" for r in fixed) <= 4  # the old default: fair 3% of the time


def test_cli_default_usually_calls_an_even_opening_fair(board_file: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The default stop and cap call a truly even opening fair at least 90% of the time (exactly computed), and
    --help states the figures of the stop it uses."""
    import core.analysis.openings as openings
    from core.cli.openings import DEFAULT_MAX_GAMES, pair_levels

    seen: list[OpeningsConfig] = []

    def capture(_board: Board, placements: list[int], cfg: OpeningsConfig, **_kw: object) -> list[object]:
        seen.append(cfg)
        return []

    monkeypatch.setattr(openings, "play_openings", capture)
    assert main(["openings", str(board_file), "--opening", "A1 B1 C1 B2", "--agent", "greedy"]) == 0
    (cfg,) = seen
    assert not cfg.fixed and cfg.games == DEFAULT_MAX_GAMES
    high, low = pair_levels()
    assert pair_operating(0.5, cfg.games, high, low, stop=not cfg.fixed).inside >= 0.9
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["openings", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    figures = pair_operating(0.5, DEFAULT_MAX_GAMES, high, low)
    assert f"at 50% fair {figures.inside:.0%}" in text and f"{figures.mean_games:.0f} games on average" in text
    assert "--games 60 would call an even opening fair only 3%" in text


def test_the_help_figures_use_the_verdicts_pair() -> None:
    from core.cli.openings import pair_levels

    pair = sprt_pair(AnalysisConfig())
    assert pair_levels() == ((pair.high.p0, pair.high.p1), (pair.low.p0, pair.low.p1))
    assert (pair.high.alpha, pair.high.beta) == (0.05, 0.05)  # pair_operating's default error rates


def test_ctrl_c_with_a_checkpoint_says_the_finished_openings_are_kept(board_file: Path, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A bare "interrupted" left the host to guess whether the openings already played were lost."""
    import core.analysis.openings as openings

    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(openings, "play_openings", interrupted)
    checkpoint = tmp_path / "map.jsonl"
    code = main(["openings", str(board_file), "--opening", "A1 B1 C1 B2", "--agent", "greedy", "--workers", "1",
                 "--checkpoint", str(checkpoint)])
    err = capsys.readouterr().err
    assert code == 130
    assert f"kept in {checkpoint}" in err and "the same command again goes on from there" in err
    assert main(["openings", str(board_file), "--opening", "A1 B1 C1 B2", "--agent", "greedy"]) == 130
    assert capsys.readouterr().err.strip() == "lits openings: interrupted"  # nothing kept: nothing promised


def test_undecided_openings_name_the_option_that_plays_them_further(board_file: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["openings", str(board_file), "--opening", "A1 B1 C1 B2", "--agent", "greedy", "--max-games", "10",
                 "--workers", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0 and lines[-2].endswith("1 undecided of 1")  # 10 games never decide the pair
    assert lines[-1] == ("undecided: the test had not decided within 10 games (--max-games 10); a larger --max-games "
                         "(at most 100,000) plays those openings further")


def test_a_checkpoint_it_cannot_use_is_refused_before_the_top_screen(board_file: Path, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """--top screens every opening first (minutes with club); a bad --checkpoint was only refused after that."""
    import core.analysis.openings as openings

    def no_screen(*_args: object, **_kwargs: object) -> list[int]:
        raise AssertionError("the screen ran before the checkpoint was checked")

    monkeypatch.setattr(openings, "top_openings", no_screen)
    missing = tmp_path / "no-such-folder" / "top.jsonl"
    assert main(["openings", str(board_file), "--top", "2", "--agent", "greedy", "--checkpoint", str(missing)]) == 2
    assert f"{missing}: cannot write the checkpoint" in capsys.readouterr().err
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"kind": "lits openings checkpoint", "board": "0", "agent": "greedy", "seed": 0,
                                 "games": 200, "stop": "sprt"}) + "\n")
    assert main(["openings", str(board_file), "--top", "2", "--agent", "greedy", "--checkpoint", str(other)]) == 2
    assert "this checkpoint was made for another run" in capsys.readouterr().err
