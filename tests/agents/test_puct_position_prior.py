"""puct's position prior (``prior=position``): its compiled features against a plain reference, the tables a search
uses, its spelling, its weights file, legal reproducible play."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from random import Random

import numpy as np
import numpy.typing as npt
import pytest

from core.agents.puct import (
    DEFAULT_POSITION_PRIOR,
    F_MOVE,
    POSITION_PRIOR_FEATURES,
    POSITION_PRIOR_KIND,
    PRIOR_FEATURES,
    SCORE_MIN,
    SCORE_SCALE,
    PositionPrior,
    PriorFileError,
    PuctSearch,
    children,
    default_position_prior_weights,
    learned_prior_table,
    load_prior_weights,
    parse_puct,
    placement_features,
    raw_scores,
)
from core.agents.search import gain_for
from core.agents.spec import AgentSpecError, parse_agent, parse_net
from core.board.boardfile import load_board
from core.board.model import Board
from core.engine.kernels import (
    H_TO_MOVE,
    KTables,
    k_apply,
    k_legal_list,
    k_new_state,
    k_seed,
    kernel_tables,
)
from tests.paths import BOARDS

WEIGHTS = np.linspace(-1.0, 1.5, len(POSITION_PRIOR_FEATURES))


def bits(words: npt.NDArray[np.uint64], n: int) -> npt.NDArray[np.bool_]:
    """The first n bits of each row of words, one bool each (plain shifts)."""
    out = np.zeros((*words.shape[:-1], n), dtype=bool)
    for q in range(n):
        out[..., q] = (words[..., q >> 6] >> np.uint64(q & 63)) & np.uint64(1) != 0
    return out


def reference(kt: KTables, s: npt.NDArray[np.uint64]) -> npt.NDArray[np.float64]:
    """The position features by whole-board matrices: a placement's block and touch sets as rows of bools, the
    counts as products with the symbols each placement covers (the kernel counts bits by class instead)."""
    n = kt.nplace
    block = bits(kt.dblk, n)
    touch = bits(kt.dtch, n)
    legal = bits(s[kt.off_legal:kt.off_legal + kt.npw], n)
    ruled = bits(s[kt.off_blk:kt.off_blk + kt.npw], n)
    static = placement_features(kt)
    out = np.empty((2, n, len(POSITION_PRIOR_FEATURES)))
    for sym in range(2):
        own, opp = static[sym][:, 0], static[sym][:, 1]
        kill = (block & legal[None, :]).astype(float)
        opens = (touch & ~block & ~legal[None, :] & ~ruled[None, :]).astype(float)
        extra = np.column_stack([kill @ own, kill @ opp, opens @ own, opens @ opp,
                                 (kill @ own) / max(float(legal @ own), 1.0),
                                 (kill @ opp) / max(float(legal @ opp), 1.0)])
        extra[ruled] = 0.0  # a placement already ruled out: no search from here makes it
        out[sym] = np.column_stack([static[sym], extra])
    return out


def game_positions(kt: KTables, seed: int) -> list[npt.NDArray[np.uint64]]:
    rng = Random(seed)
    legal = np.empty(kt.nplace, dtype=np.int32)
    s = k_new_state(kt)
    out = []
    while True:
        out.append(s.copy())
        n = int(k_legal_list(kt, s, legal))
        if n == 0:
            return out
        k_apply(kt, s, int(legal[rng.randrange(n)]))


@pytest.mark.parametrize("board", [load_board(BOARDS / "original-10x10.yaml"), Board.random(size=8, pairs=14, seed=3)],
                         ids=["original-10x10", "random-8x8"])
def test_the_compiled_features_equal_the_reference_at_every_position_of_random_games(board: Board) -> None:
    kt = kernel_tables(board)
    prior = PositionPrior(kt, WEIGHTS, 0.5)
    checked = 0
    for seed in range(5):
        for s in game_positions(kt, seed):
            assert np.array_equal(prior.features(s), reference(kt, s))
            checked += 1
    assert checked > 40


def test_the_tables_are_integer_scores_and_the_exact_exponential_of_them() -> None:
    kt = kernel_tables(load_board(BOARDS / "default.yaml"))
    prior = PositionPrior(kt, WEIGHTS, 0.5)
    for s in game_positions(kt, 7)[::3]:
        score, table = prior.tables(s)
        raw = raw_scores(reference(kt, s), WEIGHTS)
        want = np.minimum(raw - raw.min(axis=1, keepdims=True) + SCORE_MIN, 4096)
        assert np.array_equal(score, want)
        assert np.array_equal(table, learned_prior_table(score, 0.5))


def test_the_search_creates_the_roots_children_in_the_positions_order() -> None:
    kt = kernel_tables(load_board(BOARDS / "default.yaml"))
    s = game_positions(kt, 2)[6]
    ps = parse_puct("puct:300:prior=position")
    search = PuctSearch(kt, gain_for(kt), k_seed(4), ps.budget, params=ps.params,
                        prior_weights=default_position_prior_weights())
    tree = search.search(s)
    score, _ = PositionPrior(kt, default_position_prior_weights(), 0.5).tables(s)
    legal = np.empty(kt.nplace, dtype=np.int32)
    n = int(k_legal_list(kt, s, legal))
    oldest_first = [int(tree.ti[c, F_MOVE]) for c in children(tree.ti, 0)][::-1]
    mine = score[int(s[H_TO_MOVE])]
    keys = [int(mine[m]) for m in oldest_first]
    assert keys == sorted(keys, reverse=True)  # created best score first
    assert keys[0] == int(mine[legal[:n]].max())


def test_spelling() -> None:
    ps = parse_puct("puct:500:prior=position:stop=0.5")
    assert dict(ps.options)["prior"] == 2.0
    assert parse_agent("puct:500:prior=position").text == "puct:500:prior=position"
    with pytest.raises(AgentSpecError, match="'gain', 'learned' or 'position'"):
        parse_puct("puct:500:prior=moves")
    with pytest.raises(AgentSpecError, match="prior=position is puct's"):
        parse_net("net:500:prior=position")


def write(tmp_path: Path, doc: object) -> Path:
    path = tmp_path / "prior.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def good() -> dict[str, object]:
    return {"format": 1, "kind": POSITION_PRIOR_KIND, "scale": SCORE_SCALE,
            "weights": {k: float(v) for k, v in zip(POSITION_PRIOR_FEATURES, WEIGHTS, strict=True)}}


def test_the_weights_file_is_read_by_kind_and_a_wrong_one_refused(tmp_path: Path) -> None:
    assert np.array_equal(load_prior_weights(write(tmp_path, good()), POSITION_PRIOR_KIND), WEIGHTS)
    with pytest.raises(PriorFileError, match="not a weights file of the position puct prior"):
        load_prior_weights(write(tmp_path, {**good(), "kind": "puct-prior"}), POSITION_PRIOR_KIND)
    static_only = {**good(), "weights": {k: 0.0 for k in PRIOR_FEATURES}}
    with pytest.raises(PriorFileError, match="'weights' must name each feature once") as info:
        load_prior_weights(write(tmp_path, static_only), POSITION_PRIOR_KIND)
    assert "prior.json" in str(info.value)
    with pytest.raises(PriorFileError, match="not a weights file of the learned puct prior"):
        load_prior_weights(write(tmp_path, good()))


def test_the_shipped_weights_load_and_match_their_manifest() -> None:
    w = default_position_prior_weights()
    assert w.shape == (len(POSITION_PRIOR_FEATURES),) and np.all(np.isfinite(w))
    manifest = json.loads(DEFAULT_POSITION_PRIOR.with_suffix(".manifest.json").read_text(encoding="utf-8"))
    assert manifest["weights"] == DEFAULT_POSITION_PRIOR.name
    assert manifest["digest"] == hashlib.sha256(DEFAULT_POSITION_PRIOR.read_bytes()).hexdigest()
    assert "--position" in manifest["command"]
    assert {"gain_tau_0.5", "learned_static", "learned"} <= set(manifest["held_out"])


def test_games_are_legal_and_a_function_of_their_seeds() -> None:
    from core.engine.rules import GameState, Placement
    from core.selfplay.game import play_task
    from core.selfplay.tasks import BoardSpec, GameTask

    board = Board.random(size=8, pairs=12, seed=11)
    spec = "puct:60:prior=position:stop=0.5:bank=1"
    first = play_task(GameTask(BoardSpec.from_board(board), 3, spec, "greedy", pie=True))
    again = play_task(GameTask(BoardSpec.from_board(board), 3, spec, "greedy", pie=True))
    assert first.moves == again.moves
    state = GameState(board)
    for p in first.moves:
        state.push(Placement.from_index(p, board.size))
    assert state.is_over()
