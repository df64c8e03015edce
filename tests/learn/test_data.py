"""Training data for the opening predictor: reproducible by seed, resumable, never on held-out boards."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from core.board.boardfile import load_board
from core.board.model import Board
from core.engine.rules import GameState, Placement
from core.learn import data as d
from core.learn.play import play_data
from core.learn.train import fit, position_arrays, samples

REPO = Path(__file__).resolve().parents[2]
TINY = d.Plan(seed=3, shards=2, agent="greedy", games_per_board=2, boards_per_shard=2)


def arrays(folder: Path) -> dict[str, np.ndarray]:
    return d.load_games(folder).arrays()


def test_the_same_seed_gives_the_same_games_inline_and_on_two_workers(tmp_path: Path) -> None:
    assert play_data(tmp_path / "a", TINY, inline=True) == 2
    assert play_data(tmp_path / "b", TINY, workers=2) == 2
    a, b = arrays(tmp_path / "a"), arrays(tmp_path / "b")
    for key in a:
        assert np.array_equal(a[key], b[key], equal_nan=a[key].dtype.kind == "f"), key
    other = d.Plan(seed=4, shards=2, agent="greedy", games_per_board=2, boards_per_shard=2)
    play_data(tmp_path / "c", other, inline=True)
    assert not np.array_equal(arrays(tmp_path / "c")["cells"], a["cells"])


def test_games_start_after_an_opening_drawn_from_the_pool_given() -> None:
    from core.engine.pieces import placement_table

    reserved = d.reserved_cells()
    plan = d.Plan(seed=3, shards=2, agent="greedy", games_per_board=40, boards_per_shard=2)
    uniform = d.shard_tasks(plan, 1, reserved)
    count = placement_table(uniform[0][0].board.size).count
    # every placement is a pool of its own: the draw is the uniform one, game for game
    assert d.shard_tasks(plan, 1, reserved, lambda board: list(range(count))) == uniform
    asked: list[str] = []

    def pool(board: Board) -> list[int]:
        asked.append("".join(s.value for s in board.cells))
        return [7, 90, 400]

    narrowed = d.shard_tasks(plan, 1, reserved, pool)
    assert len(asked) == 2 and asked[0] != asked[1]  # asked once for each of the shard's two boards
    assert {t.opening for games in narrowed for t in games} == {7, 90, 400}  # 80 draws reach all three
    assert [t.seed for games in narrowed for t in games] == [t.seed for games in uniform for t in games]


def test_the_pool_reaches_the_games_played(tmp_path: Path) -> None:
    assert play_data(tmp_path / "a", TINY, inline=True, openings=lambda board: [5]) == 2
    assert set(arrays(tmp_path / "a")["moves"][:, 0].tolist()) == {5}


def test_a_run_resumes_with_the_missing_shards_only(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    play_data(folder, TINY, inline=True)
    before = arrays(folder)
    kept = d.shard_path(folder, 0).stat().st_mtime_ns
    d.shard_path(folder, 1).unlink()
    assert d.open_folder(folder, TINY) == [1]
    assert play_data(folder, TINY, inline=True) == 1
    assert d.shard_path(folder, 0).stat().st_mtime_ns == kept
    after = arrays(folder)
    for key in before:
        assert np.array_equal(before[key], after[key], equal_nan=before[key].dtype.kind == "f"), key
    assert play_data(folder, TINY, inline=True) == 0
    assert not list(folder.glob(".shard-*"))


def test_a_folder_of_other_settings_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    d.open_folder(folder, TINY)
    with pytest.raises(d.DataError, match=r"data\.json: this folder holds data made with other settings \(seed"):
        d.open_folder(folder, d.Plan(seed=9, shards=2, agent="greedy", games_per_board=2, boards_per_shard=2))


def test_a_damaged_shard_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    play_data(folder, TINY, inline=True)
    d.shard_path(folder, 1).write_bytes(b"not a shard")
    with pytest.raises(d.DataError, match=r"shard-00001\.npz: not a readable shard"):
        d.load_games(folder)


def test_games_replay_legally_and_their_results_are_the_rules(tmp_path: Path) -> None:
    play_data(tmp_path, TINY, inline=True)
    g = d.load_games(tmp_path)
    for i in range(len(g)):
        board = g.board_of(i)
        state = GameState(board)
        for p in g.game_moves(i):
            placement = Placement.from_index(p, board.size)
            assert state.is_legal(placement)
            state.push(placement)
        assert state.is_over()
        score = state.score()
        first = board.params.first
        s1, s2 = score[first], score[first.other]
        assert (int(g.s1_score[i]), int(g.s2_score[i])) == (s1, s2)


def test_held_out_boards_are_never_drawn() -> None:
    first = d.board_for(TINY.seed, 0, set())
    key = "".join(s.value for s in first.cells)
    again = d.board_for(TINY.seed, 0, {key})
    assert "".join(s.value for s in again.cells) != key
    reserved = d.reserved_cells()
    assert "".join(s.value for s in load_board(REPO / "boards" / "default.yaml").cells) in reserved
    assert len(reserved) >= 5 + 5 + d.HELDOUT_BOARDS


def test_boards_cover_the_sizes_and_densities_hosts_use() -> None:
    boards = [d.board_for(1, i, set()) for i in range(120)]
    assert {b.size for b in boards} == set(d.SIZES)
    share = [2 * sum(1 for c in b.cells if c.value == "O") / (b.size * b.size) for b in boards]
    assert min(share) < 0.15 and max(share) > 0.55
    for b in boards:
        from core.board.validation import Severity, validate

        assert not [p for p in validate(b) if p.severity is Severity.ERROR]


def test_a_game_position_is_rebuilt_from_its_moves(tmp_path: Path) -> None:
    """The training position after k plies: k pieces on the board, their supply spent, S1 to move after an even k."""
    folder = tmp_path / "data"
    play_data(folder, TINY, inline=True)
    games = d.load_games(folder)
    sym, ctype, supply, s1 = position_arrays(games, 0, 3)
    assert int((ctype > 0).sum()) == 12
    assert int(supply.sum()) == int(games.supply[0].sum()) - 3
    assert s1 is False
    assert set(sym.tolist()) <= {0, 1, 2}


def test_training_fits_and_writes_a_model_the_loader_accepts(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    from core.agents.value import FEATURES, model_from_bytes
    from core.learn.train import model_bytes

    folder = tmp_path / "data"
    plan = d.Plan(seed=5, shards=3, agent="greedy", games_per_board=4, boards_per_shard=4)
    play_data(folder, plan, inline=True)
    games = d.load_games(folder)
    s = samples(games, np.ones(len(games), dtype=bool), extra=2, seed=1)
    assert s.opening.sum() == len(games)
    assert s.x.shape[1] == FEATURES and len({tuple(r) for r in s.x}) > len(games)
    fitted = fit(games, seed=1, extra=2, max_iter=3)
    m = model_from_bytes(model_bytes(fitted.weights, {}), "fitted.npz")
    assert m.w1.shape == (FEATURES, 32)
    assert 0.0 <= fitted.figures["brier"] <= 1.0
    json.dumps(fitted.figures)


def test_a_searching_agent_records_its_value_for_every_placement_but_the_opening(tmp_path: Path) -> None:
    plan = d.Plan(seed=2, shards=1, agent="puct:50", games_per_board=1, boards_per_shard=2)
    play_data(tmp_path, plan, inline=True)
    g = d.load_games(tmp_path)
    for i in range(len(g)):
        n = len(g.game_moves(i))
        v = g.values[i]
        assert np.isnan(v[0]) and np.isnan(v[n:]).all()
        assert ((v[1:n] >= 0) & (v[1:n] <= 1)).all()



def test_the_data_command_plays_the_agent_it_is_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``--agent`` makes the next generation's data; a level is recorded as the spec it stands for, so the default
    (club) and ``--agent club`` name the same data, and a folder of one agent refuses another."""
    import core.learn.play
    from core.cli import EXIT_OK, EXIT_USAGE, main

    played: list[str] = []

    def play(_folder: Path, plan: d.Plan, **_: object) -> int:
        played.append(plan.agent)
        return 0

    monkeypatch.setattr(core.learn.play, "play_data", play)
    net = "net:50:mix=0.5"
    for folder, agent, want in (("a", None, d.AGENT), ("b", "club", d.AGENT), ("c", net, net)):
        argv = ["learn", "data", "--out", str(tmp_path / folder), "--shards", "1"]
        assert main(argv + (["--agent", agent] if agent else [])) == EXIT_OK
        assert json.loads((tmp_path / folder / "data.json").read_text(encoding="utf-8"))["agent"] == want
    assert played == [d.AGENT, d.AGENT, net]
    capsys.readouterr()
    assert main(["learn", "data", "--out", str(tmp_path / "a"), "--shards", "1", "--agent", "net:50"]) == EXIT_USAGE
    assert "other settings (agent: 'puct:2000')" in capsys.readouterr().err


def test_training_on_several_folders_fits_their_games_and_names_each(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A next generation trains on club's games and a net agent's together; the manifest says how to remake both."""
    pytest.importorskip("sklearn")
    from core.cli import EXIT_OK, main

    one = d.Plan(seed=5, shards=2, agent="greedy", games_per_board=4, boards_per_shard=4)
    two = d.Plan(seed=6, shards=1, agent="puct:20", games_per_board=4, boards_per_shard=4)
    play_data(tmp_path / "a", one, inline=True)
    play_data(tmp_path / "b", two, inline=True)
    out = tmp_path / "m.npz"
    argv = ["learn", "train", "--data", str(tmp_path / "a"), "--data", str(tmp_path / "b"), "--out", str(out),
            "--max-iter", "2"]
    assert main(argv) == EXIT_OK
    manifest = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert manifest["games"] == 2 * 16 + 16
    assert [m["agent"] for m in manifest["data"]] == ["greedy", "puct:20"]
    assert manifest["command"].startswith("lits learn data --out DATA1 --seed 5 --shards 2 --agent greedy && "
                                          "lits learn data --out DATA2 --seed 6 --shards 1 --agent puct:20 && "
                                          "lits learn train --data DATA1 --data DATA2 --out m.npz --seed 1")
    capsys.readouterr()
    assert main([*argv[:4], "--data", str(tmp_path / "missing"), *argv[6:]]) != EXIT_OK
    assert "missing" in capsys.readouterr().err
