"""Fitting puct's learned prior: the likelihood and its gradient, the figures, the positions, ``lits learn prior``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from core.agents.puct import PRIOR_FEATURES, load_prior_weights
from core.cli import main
from core.learn import data as d
from core.learn import prior as pr
from core.learn.play import play_data

TINY = d.Plan(seed=3, shards=1, agent="greedy", games_per_board=2, boards_per_shard=20)


def toy() -> pr.Positions:
    """Three positions over a table of four rows with two features."""
    table = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [0.5, -1.0]])
    return pr.Positions(table=table, gain=np.array([0, 1, 1, 2]), block=np.array([0, 4]),
                        idx=np.array([0, 1, 2, 1, 3, 0, 1, 2, 3]), start=np.array([0, 3, 5, 9]),
                        label=np.array([2, 4, 6]))


def assert_gradient(data: pr.Positions, w: np.ndarray) -> None:
    """The gradient nll returns equals central differences of its value."""
    _f, g = pr.nll(w, data, data.table)
    step = 1e-6
    for k in range(len(w)):
        e = np.zeros(len(w))
        e[k] = step
        assert g[k] == pytest.approx((pr.nll(w + e, data, data.table)[0] - pr.nll(w - e, data, data.table)[0])
                                     / (2 * step), rel=1e-5)


def test_the_gradient_is_the_likelihoods() -> None:
    data = toy()
    w = np.array([0.3, -0.7])
    f, _g = pr.nll(w, data, data.table)
    assert_gradient(data, w)
    # by hand: position 0 has rows 0, 1, 2 and played row 2
    z = data.table @ w
    by_hand = -(z[2] - np.log(np.exp(z[[0, 1, 2]]).sum()) + z[3] - np.log(np.exp(z[[1, 3]]).sum())
                + z[1] - np.log(np.exp(z).sum())) / 3
    assert f == pytest.approx(by_hand + pr.L2 * w @ w)


def test_ties_split_the_top_k_evenly() -> None:
    data = toy()
    # row logits 1, 5, 0, 5: position 0 (rows 0-2) played row 2, below two; position 1 (rows 1, 3) played row 3,
    # tied with row 1 for first; position 2 (all rows) played row 1, tied with row 3 for first
    fig = pr.figures(data, np.array([1.0, 5.0, 0.0, 5.0]))
    assert fig.top1 == pytest.approx((0 + 0.5 + 0.5) / 3)
    assert fig.top5 == pytest.approx(1.0)
    # row logits 1, 1, 0, 5: only position 1's played row 3 is first
    assert pr.figures(data, np.array([1.0, 1.0, 0.0, 5.0])).top1 == pytest.approx(1 / 3)


def test_the_fit_prefers_the_features_of_the_played_rows_and_is_deterministic() -> None:
    data = toy()
    w = pr.fit_weights(data)
    assert np.array_equal(w, pr.fit_weights(data))
    assert pr.nll(w, data, data.table)[0] < pr.nll(np.zeros(2), data, data.table)[0]


def test_positions_replay_and_label_the_played_placement(tmp_path: Path) -> None:
    play_data(tmp_path, TINY, inline=True)
    games = d.load_games(tmp_path)
    train, held = pr.split(games)
    assert held.any() and train.any()
    pos = pr.sample_positions(games, train, 2, seed=1)
    assert len(pos) <= 2 * int(train.sum()) and len(pos) > 0
    assert np.all(np.diff(pos.start) >= 2)
    assert np.all((pos.start[:-1] <= pos.label) & (pos.label < pos.start[1:]))
    # greedy played a placement of the best gain among the legal ones (its random share aside)
    best = [pos.gain[pos.idx[pos.label[i]]] == pos.gain[pos.idx[pos.start[i]:pos.start[i + 1]]].max()
            for i in range(len(pos))]
    assert np.mean(best) > 0.7
    again = pr.sample_positions(games, train, 2, seed=1)
    assert np.array_equal(pos.idx, again.idx) and np.array_equal(pos.label, again.label)


def test_lits_learn_prior_writes_weights_and_a_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "data"
    play_data(folder, TINY, inline=True)
    out = tmp_path / "models" / "prior.json"
    assert main(["learn", "prior", "--data", str(folder), "--out", str(out), "--per-game", "2"]) == 0
    assert "held out" in capsys.readouterr().out
    w = load_prior_weights(out)
    assert w.shape == (len(PRIOR_FEATURES),)
    manifest = json.loads(out.with_suffix(".manifest.json").read_text(encoding="utf-8"))
    assert manifest["digest"] == pr.digest(out.read_text(encoding="utf-8"))
    assert manifest["held_out"]["learned"]["top1"] >= 0
    assert "lits learn prior --data DATA --out prior.json --seed 1 --per-game 2" in manifest["command"]
    assert main(["learn", "prior", "--data", str(tmp_path / "none"), "--out", str(out)]) != 0
    assert main(["learn", "prior", "--data", str(folder), "--out", str(tmp_path / "w.npz")]) != 0


def with_targets(data: pr.Positions, target: np.ndarray) -> pr.Positions:
    return pr.Positions(data.table, data.gain, data.block, data.idx, data.start, data.label, target)


def test_one_hot_targets_are_the_played_labels() -> None:
    data = toy()
    one_hot = np.zeros(len(data.idx))
    one_hot[data.label] = 1.0
    soft = with_targets(data, one_hot)
    w = np.array([0.3, -0.7])
    f, g = pr.nll(w, data, data.table)
    fs, gs = pr.nll(w, soft, soft.table)
    assert fs == pytest.approx(f) and np.allclose(gs, g)
    assert pr.figures(soft, soft.table @ w).cross_entropy == pytest.approx(-pr.figures(data, data.table @ w)
                                                                           .log_likelihood)


def test_the_gradient_is_the_cross_entropys() -> None:
    data = with_targets(toy(), np.array([0.2, 0.3, 0.5, 0.9, 0.1, 0.25, 0.25, 0.25, 0.25]))
    assert_gradient(data, np.array([0.4, 0.9]))
    fitted = pr.fit_weights(data)
    assert pr.nll(fitted, data, data.table)[0] < pr.nll(np.zeros(2), data, data.table)[0]


def test_a_search_teacher_gives_reproducible_visit_shares(tmp_path: Path) -> None:
    play_data(tmp_path, TINY, inline=True)
    games = d.load_games(tmp_path)
    train, _held = pr.split(games)
    pos = pr.sample_positions(games, train, 1, seed=1, teacher=pr.search_teacher("puct:64", 5))
    assert pos.target is not None and len(pos.target) == len(pos.idx)
    sums = np.add.reduceat(pos.target, pos.start[:-1])
    assert np.allclose(sums, 1.0)
    assert np.all(pos.target >= 0)
    # a search of 64 simulations spreads its visits: some position has more than one visited placement
    assert max(int(np.count_nonzero(pos.target[a:b])) for a, b in zip(pos.start[:-1], pos.start[1:], strict=True)) > 1
    again = pr.sample_positions(games, train, 1, seed=1, teacher=pr.search_teacher("puct:64", 5))
    assert again.target is not None and np.array_equal(pos.target, again.target)
    other = pr.sample_positions(games, train, 1, seed=1, teacher=pr.search_teacher("puct:64", 6))
    assert other.target is not None and not np.array_equal(pos.target, other.target)
    with pytest.raises(pr.PriorError, match="simulation budget"):
        pr.search_teacher("puct:t=0.1", 5)


def test_lits_learn_prior_fits_a_teachers_visits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "data"
    play_data(folder, TINY, inline=True)
    out = tmp_path / "prior.json"
    assert main(["learn", "prior", "--data", str(folder), "--out", str(out), "--per-game", "1",
                 "--teacher", "puct:32"]) == 0
    assert "cross-entropy" in capsys.readouterr().out
    manifest = json.loads(out.with_suffix(".manifest.json").read_text(encoding="utf-8"))
    assert manifest["teacher"] == "puct:32"
    assert manifest["command"].endswith("--per-game 1 --teacher puct:32")
    assert manifest["held_out"]["learned"]["cross_entropy"] > 0
    assert main(["learn", "prior", "--data", str(folder), "--out", str(tmp_path / "b.json"),
                 "--teacher", "mcts:100"]) == 2
    assert "--teacher" in capsys.readouterr().err
    assert not (tmp_path / "b.json").exists()


def test_lits_learn_prior_position_fits_the_position_prior(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from core.agents.puct import POSITION_PRIOR_FEATURES, POSITION_PRIOR_KIND

    folder = tmp_path / "data"
    play_data(folder, TINY, inline=True)
    games = d.load_games(folder)
    train, _held = pr.split(games)
    pos = pr.sample_positions(games, train, 2, seed=1, position=True)
    static = pr.sample_positions(games, train, 2, seed=1)
    # the same positions and labels; each position has rows of its own, the static columns first
    assert np.array_equal(pos.start, static.start) and np.array_equal(pos.label, static.label)
    assert pos.table.shape == (len(pos.idx), len(POSITION_PRIOR_FEATURES))
    assert np.array_equal(pos.table[pos.idx][:, : len(PRIOR_FEATURES)], static.table[static.idx])
    out = tmp_path / "position.json"
    assert main(["learn", "prior", "--data", str(folder), "--out", str(out), "--per-game", "2", "--position"]) == 0
    printed = capsys.readouterr().out
    assert "learned (shipped)" in printed and "position" in printed
    assert load_prior_weights(out, POSITION_PRIOR_KIND).shape == (len(POSITION_PRIOR_FEATURES),)
    manifest = json.loads(out.with_suffix(".manifest.json").read_text(encoding="utf-8"))
    assert manifest["command"].endswith("--per-game 2 --position")
    assert {"learned_static", "learned"} <= set(manifest["held_out"])
    with pytest.raises(Exception, match="not a weights file of the learned puct prior"):
        load_prior_weights(out)
    assert main(["learn", "prior", "--data", str(folder), "--out", str(out), "--position", "--teacher", "club"]) != 0
