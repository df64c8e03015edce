"""The learned value: the compiled integer evaluation against the plain reference, bit for bit; model files."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.agents.value import (
    FEATURES,
    ModelError,
    ValueModel,
    k_eval,
    load_model,
    model_from_bytes,
    opening_chances,
    position_inputs,
    position_value,
)
from core.board.model import Board
from core.engine.kernels import playout_moves
from core.learn.train import model_bytes
from tests.agents import summary_reference
from tests.agents import value_reference as ref

REPO = Path(__file__).resolve().parents[2]


def random_weights(seed: int, h1: int = 16, h2: int = 8, shrink: int = 0) -> dict[str, np.ndarray]:
    """Weights of the scale a trained model has (layer 1 with 2q = 24 fractional bits on raw counts, the rest q),
    ``shrink`` bits smaller."""
    rng = np.random.default_rng(seed)

    def w(s: int, *shape: int) -> np.ndarray:
        s >>= shrink
        return rng.integers(-s, s, size=shape, dtype=np.int64)

    return {"w1": w(1 << 15, FEATURES, h1), "b1": w(1 << 23, h1), "w2": w(1 << 12, h1, h2), "b2": w(1 << 23, h2),
            "w3": w(1 << 12, h2, 2), "b3": w(1 << 23, 2)}


def tame_weights(seed: int) -> dict[str, np.ndarray]:
    """Random weights whose win output stays inside (0, 1) on most positions, so the values are not all clamped."""
    from core.learn.train import Q

    w = random_weights(seed, shrink=3)
    w["b3"][0] = 1 << (2 * Q - 1)
    return w


def model_of(weights: dict[str, np.ndarray]) -> ValueModel:
    return model_from_bytes(model_bytes(weights, {}), "test-model.npz")


def positions(size: int, games: int, seed: int) -> list[tuple[Board, list[int]]]:
    out = []
    for g in range(games):
        board = Board.random(size, pairs=(g * 7) % (size * size // 2) + 1, seed=seed + g)
        moves = playout_moves(board, seed=seed, game=g)
        out += [(board, moves[:k]) for k in range(len(moves) + 1)]
    return out


def reference_value(m: ValueModel, board: Board, moves: list[int]) -> tuple[int, int]:
    sym, ctype, supply, s1 = position_inputs(board, moves)
    x = summary_reference.summary(board.size, sym.tolist(), ctype.tolist(), supply.tolist(), s1)
    return ref.evaluate(m.w1.tolist(), m.b1.tolist(), m.w2.tolist(), m.b2.tolist(), m.w3.tolist(), m.b3.tolist(),
                        m.q, x)


@pytest.mark.parametrize("size", [10, 12, 14])
def test_kernel_matches_reference_bit_for_bit(size: int) -> None:
    m = model_of(random_weights(size))
    checked = 0
    outputs = set()
    for board, moves in positions(size, 8, seed=100 + size):
        got = position_value(board, moves, m)
        assert got == reference_value(m, board, moves)
        outputs.add(got)
        checked += 1
    assert checked > 100
    assert len(outputs) > checked // 2  # the positions differ, and so do the values: not a constant model


def test_every_opening_matches_the_reference() -> None:
    board = Board.random(12, pairs=30, seed=5)
    m = model_of(random_weights(7))
    got = opening_chances(board, m)
    assert len(got) > 1000
    one = 1 << (2 * m.q)
    for p in range(0, len(got), 7):
        win, _ = reference_value(m, board, [p])
        assert got[p] == min(max(win, 0), one) / one
    assert len(set(got.tolist())) > 20


def test_the_evaluation_is_integer_only() -> None:
    """The kernel's outputs are int64 and equal the reference's Python integers, also where sums run large."""
    w = random_weights(3)
    w["w1"] *= 64
    w["b1"] *= 64
    m = model_of(w)
    board = Board.random(12, pairs=20, seed=2)
    moves = playout_moves(board, seed=2)[:6]
    sym, ctype, supply, s1 = position_inputs(board, moves)
    x = np.array(summary_reference.summary(12, sym.tolist(), ctype.tolist(), supply.tolist(), s1), dtype=np.int64)
    out = np.zeros(2, dtype=np.int64)
    k_eval(*m.arrays(), m.q, x, out)
    assert out.dtype == np.int64
    assert tuple(out.tolist()) == reference_value(m, board, moves)


def test_fresh_process_with_an_empty_cache_gives_identical_values(tmp_path: Path) -> None:
    model = tmp_path / "m.npz"
    model.write_bytes(model_bytes(random_weights(11), {}))
    code = ("import sys, numpy as np; from core.agents.value import load_model, opening_chances; "
            "from core.board.model import Board; "
            "v = opening_chances(Board.random(12, pairs=25, seed=9), load_model(sys.argv[1])); "
            "sys.stdout.write(v.tobytes().hex())")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", code, str(model)], env=env, capture_output=True, text=True,
                         timeout=600, check=True).stdout
    here = opening_chances(Board.random(12, pairs=25, seed=9), load_model(model))
    assert out == here.tobytes().hex()


# -------------------------------------------------------------------------------- model files


def test_a_damaged_file_is_refused(tmp_path: Path) -> None:
    data = model_bytes(random_weights(1), {})
    bad = tmp_path / "cut.npz"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match=r"cut\.npz: damaged or not a model file"):
        load_model(bad)
    flipped = bytearray(data)
    flipped[len(data) // 3] ^= 0xFF
    bad.write_bytes(bytes(flipped))
    with pytest.raises(ModelError, match=r"cut\.npz"):
        load_model(bad)


def test_another_version_or_format_is_refused() -> None:
    data = model_bytes(random_weights(1), {"version": 99})
    with pytest.raises(ModelError, match="version 99; this program reads version 2"):
        model_from_bytes(data, "old.npz")
    data = model_bytes(random_weights(1), {"inputs": ["score_diff", "cells one by one"]})
    with pytest.raises(ModelError, match=r"made for the inputs .*; this program computes score_diff, s1_unc"):
        model_from_bytes(data, "other.npz")
    data = model_bytes(random_weights(1), {"format": "something-else"})
    with pytest.raises(ModelError, match="not a model file of the opening predictor"):
        model_from_bytes(data, "x.npz")


def test_another_board_size_is_refused() -> None:
    m = model_of(random_weights(1))
    with pytest.raises(ModelError, match="not 8x8"):
        opening_chances(Board.random(8, pairs=4, seed=1), m)


def test_pickled_content_is_never_loaded() -> None:
    buf = io.BytesIO()
    np.savez(buf, meta=np.array([{"format": "lits-value"}], dtype=object), w1=np.zeros((2, 2)))
    with pytest.raises(ModelError, match=r"pickle\.npz: .*allow_pickle=False"):
        model_from_bytes(buf.getvalue(), "pickle.npz")


def test_weights_beyond_the_fixed_point_limits_are_refused() -> None:
    w = random_weights(1)
    w["w2"][0, 0] = 1 << 50
    with pytest.raises(ModelError, match="beyond the fixed-point limits"):
        model_of(w)
    w = random_weights(1)
    w["w1"][3, 0] = 1 << 52  # one input's weight alone: its largest count times it passes 2**62
    with pytest.raises(ModelError, match="beyond the fixed-point limits"):
        model_of(w)
    w = random_weights(1)
    w["w1"] = w["w1"].astype(np.float64)  # type: ignore[assignment]
    with pytest.raises(ModelError, match="'w1' is float64"):
        model_of(w)


def test_the_estimate_names_the_opening_nearest_to_even_and_maps_every_covered_cell() -> None:
    from core.agents.value import estimate
    from core.engine.pieces import placement_table

    board = Board.random(12, pairs=20, seed=4)
    m = model_of(random_weights(5))
    e = estimate(board, m)
    assert abs(e.best_chance - 0.5) == np.abs(e.chances - 0.5).min()
    assert e.near_even == int(np.sum((e.chances >= 0.4) & (e.chances <= 0.6)))
    table = placement_table(12)
    for cell in range(144):  # every cell: the covering placement nearest to even, the lower index on a tie
        covering = [p for p in range(table.count) if cell in table.cells[p]]
        chosen = min(covering, key=lambda p: (abs(e.chances[p] - 0.5), p))
        assert e.cells.reshape(-1)[cell] == e.chances[chosen]
    assert e.digest == m.digest
    flat = {k: np.zeros_like(v) for k, v in random_weights(5).items()}
    flat["b3"] = np.array([3 << 22, 0], dtype=np.int64)  # every placement's chance 0.75 (q = 12): ties everywhere
    tied = estimate(board, model_of(flat))
    assert np.all(tied.chances == 0.75) and np.all(tied.cells == 0.75) and tied.best == 0


def test_the_shipped_model_loads_and_names_its_digest() -> None:
    from core.agents.value import default_model_path

    path = default_model_path()
    m = load_model(path)
    manifest = json.loads(path.with_suffix(".json").read_text())
    assert manifest["digest"] == m.digest
    for key in ("command", "commit", "data", "train_seed", "validation", "held_out"):
        assert manifest[key] is not None, key
