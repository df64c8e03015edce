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
    MAX_ACTIVE,
    ModelError,
    ValueModel,
    k_eval,
    k_features,
    load_model,
    model_from_bytes,
    opening_chances,
    position_inputs,
    position_value,
)
from core.board.model import Board
from core.engine.kernels import playout_moves
from core.learn.train import model_bytes
from tests.agents import value_reference as ref

REPO = Path(__file__).resolve().parents[2]


def random_weights(seed: int, h1: int = 16, h2: int = 8, scale: int = 1 << 11) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)

    def w(*shape: int, s: int = scale) -> np.ndarray:
        return rng.integers(-s, s, size=shape, dtype=np.int64)

    return {"w1": w(FEATURES, h1), "b1": w(h1), "w2": w(h1, h2), "b2": w(h2, s=scale << 10), "w3": w(h2, 2),
            "b3": w(2, s=scale << 10)}


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
    active = ref.features(board.size, sym.tolist(), ctype.tolist(), supply.tolist(), s1)
    return ref.evaluate(m.w1.tolist(), m.b1.tolist(), m.w2.tolist(), m.b2.tolist(), m.w3.tolist(), m.b3.tolist(),
                        m.q, active)


@pytest.mark.parametrize("size", [10, 12, 14])
def test_kernel_matches_reference_bit_for_bit(size: int) -> None:
    m = model_of(random_weights(size))
    checked = 0
    feats = np.empty(MAX_ACTIVE, dtype=np.int64)
    for board, moves in positions(size, 12, seed=100 + size):
        sym, ctype, supply, s1 = position_inputs(board, moves)
        n = k_features(size, sym, ctype, supply, s1, feats)
        assert feats[:n].tolist() == ref.features(size, sym.tolist(), ctype.tolist(), supply.tolist(), s1)
        assert position_value(board, moves, m) == reference_value(m, board, moves)
        checked += 1
    assert checked > 150


def test_every_opening_matches_the_reference() -> None:
    board = Board.random(12, pairs=30, seed=5)
    m = model_of(random_weights(7))
    got = opening_chances(board, m)
    assert len(got) > 1000
    one = 1 << (2 * m.q)
    for p in range(0, len(got), 3):
        win, _ = reference_value(m, board, [p])
        assert got[p] == min(max(win, 0), one) / one


def test_the_evaluation_is_integer_only_and_order_free() -> None:
    """Features in any order give the same outputs: sums of integers do not depend on their order."""
    m = model_of(random_weights(3))
    board = Board.random(12, pairs=20, seed=2)
    moves = playout_moves(board, seed=2)[:6]
    sym, ctype, supply, s1 = position_inputs(board, moves)
    feats = np.empty(MAX_ACTIVE, dtype=np.int64)
    n = k_features(12, sym, ctype, supply, s1, feats)
    a = np.zeros(2, dtype=np.int64)
    b = np.zeros(2, dtype=np.int64)
    k_eval(*m.arrays(), m.q, feats[:n].copy(), n, a)
    k_eval(*m.arrays(), m.q, feats[:n][::-1].copy(), n, b)
    assert a.tolist() == b.tolist()
    assert a.dtype == np.int64


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
    with pytest.raises(ModelError, match="version 99; this program reads version 1"):
        model_from_bytes(data, "old.npz")
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
    w["w2"][0, 0] = 1 << 20
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
    flat["b3"] = np.array([3 << 18, 0], dtype=np.int64)  # every placement's chance 0.75: ties everywhere
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
