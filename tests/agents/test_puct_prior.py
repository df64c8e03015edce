"""puct's learned prior (``prior=learned``): the score table, its spelling, the weights file, legal reproducible
play."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from core.agents import puct
from core.agents.puct import (
    DEFAULT_PRIOR,
    F_FIRST,
    F_MOVE,
    PRIOR_FEATURES,
    SCORE_MIN,
    SCORE_SCALE,
    PriorFileError,
    PuctBudget,
    PuctSearch,
    default_prior_weights,
    learned_scores,
    load_prior_weights,
    parse_puct,
    placement_features,
)
from core.agents.search import gain_for
from core.agents.spec import AgentSpecError, parse_agent, parse_net
from core.board.model import Board
from core.engine.kernels import H_TO_MOVE, k_apply, k_is_legal, k_legal_list, k_new_state, k_seed, kernel_tables
from core.engine.pieces import placement_table

WEIGHTS = np.linspace(-1.5, 2.0, len(PRIOR_FEATURES))


def reference_features(board: Board) -> list[list[list[float]]]:
    """The features in plain Python, cell by cell (``placement_features`` computes them with arrays)."""
    n = board.size
    table = placement_table(n)
    symbol = ["." if v.value == "." else v.value for v in board.cells]
    placements = [[int(c) for c in table.cells[p]] for p in range(table.count)]
    ptypes = [int(t) for t in table.ptype]

    def overlap_or_block(p: int, q: int) -> bool:
        return bool(int(table.blk[p, q >> 6]) >> (q & 63) & 1)

    def touches(p: int, q: int) -> bool:
        return bool(int(table.tch[p, q >> 6]) >> (q & 63) & 1)

    blocked = [sum(overlap_or_block(p, q) for q in range(table.count)) for p in range(table.count)]
    touching = [sum(touches(p, q) for q in range(table.count)) for p in range(table.count)]
    mean_b = max(sum(blocked) / len(blocked), 1.0)
    mean_t = max(sum(touching) / len(touching), 1.0)
    mid = (n - 1) / 2
    out: list[list[list[float]]] = []
    for own, opp in (("O", "X"), ("X", "O")):
        rows = []
        for p, cells in enumerate(placements):
            around = set()
            for c in cells:
                r, k = divmod(c, n)
                for rr, kk in ((r - 1, k), (r + 1, k), (r, k - 1), (r, k + 1)):
                    if 0 <= rr < n and 0 <= kk < n and rr * n + kk not in cells:
                        around.add(rr * n + kk)
            own_c = sum(symbol[c] == own for c in cells)
            opp_c = sum(symbol[c] == opp for c in cells)
            own_n = sum(symbol[c] == own for c in around)
            opp_n = sum(symbol[c] == opp for c in around)
            edge = sum(c // n in (0, n - 1) or c % n in (0, n - 1) for c in cells)
            dist = sum(max(abs(c // n - mid), abs(c % n - mid)) for c in cells) / 4 / mid
            rows.append([own_c, opp_c, own_n, opp_n, len(around) - own_n - opp_n, ptypes[p] == 0, ptypes[p] == 1,
                         ptypes[p] == 2, edge, dist, blocked[p] / mean_b, touching[p] / mean_t,
                         own_c + opp_c == 0, own_c > 0 and opp_c > 0])
        out.append([[float(v) for v in row] for row in rows])
    return out


@pytest.mark.parametrize(("size", "pairs", "seed"), [(6, 5, 1), (8, 14, 2), (10, 30, 3)])
def test_the_score_table_is_the_plain_computation(size: int, pairs: int, seed: int) -> None:
    board = Board.random(size=size, pairs=pairs, seed=seed)
    kt = kernel_tables(board)
    ref = np.array(reference_features(board))
    assert np.allclose(placement_features(kt), ref)
    score = learned_scores(kt, WEIGHTS)
    for sym in range(2):
        raw = []
        for row in ref[sym]:  # the feature terms added one at a time in order, as the search does (no BLAS)
            acc = 0.0
            for f, w in zip(row, WEIGHTS, strict=True):
                acc = acc + float(f) * float(w)
            raw.append(round(acc * SCORE_SCALE))
        want = [min(r - min(raw) + SCORE_MIN, puct.SCORE_MAX) for r in raw]
        assert score[sym].tolist() == want
        assert int(score[sym].min()) == SCORE_MIN
    # the mover's symbol gain is what it covers of the opponent's less what it covers of its own
    gain = gain_for(kt)
    for sym in range(2):
        assert np.array_equal(ref[sym, :, 1] - ref[sym, :, 0], gain[sym])


def test_prior_spells_and_is_refused_where_it_does_not_belong() -> None:
    spec = parse_puct("puct:2000:prior=learned")
    assert spec.params == {"prior": 1.0}
    assert spec.text == "puct:2000:prior=learned" and parse_puct(spec.text) == spec
    assert parse_agent("puct:2000:prior=learned").text == "puct:2000:prior=learned"
    assert parse_puct("puct:10:prior=gain").params == {"prior": 0.0}
    with pytest.raises(AgentSpecError, match="the prior is 'gain', 'learned' or 'position', not 'net'"):
        parse_puct("puct:10:prior=net")
    assert parse_net("net:100:mix=0.5:prior=learned").text == "net:100:prior=learned:mix=0.5"


def _game(board: Board, text: str, seed: int, weights: np.ndarray | None = None) -> list[int]:
    """Both sides played by one searcher of ``text``; every move checked legal before it is applied."""
    kt = kernel_tables(board)
    ps = parse_puct(text)
    search = PuctSearch(kt, gain_for(kt), k_seed(seed), ps.budget, params=ps.params, prior_weights=weights)
    s = k_new_state(kt)
    moves: list[int] = []
    while True:
        m = search.choose(s)
        if m < 0:
            return moves
        assert k_is_legal(kt, s, m)
        k_apply(kt, s, m)
        moves.append(m)


def test_learned_prior_plays_legal_reproducible_games_of_its_own() -> None:
    board = Board.random(size=8, pairs=14, seed=5)
    a = _game(board, "puct:60:prior=learned", 7, WEIGHTS)
    assert a and a == _game(board, "puct:60:prior=learned", 7, WEIGHTS)
    assert a != _game(board, "puct:60:prior=learned", 8, WEIGHTS)
    assert a != _game(board, "puct:60", 7)


def test_the_first_child_created_is_the_best_scored_legal_placement() -> None:
    board = Board.random(size=8, pairs=14, seed=9)
    kt = kernel_tables(board)
    s = k_new_state(kt)
    for weights in (WEIGHTS, -WEIGHTS):
        search = PuctSearch(kt, gain_for(kt), k_seed(1), PuctBudget(sims=1), params={"prior": 1.0},
                            prior_weights=weights)
        tree = search.search(s)
        first = int(tree.ti[int(tree.ti[0, F_FIRST]), F_MOVE])
        legal = np.empty(kt.nplace, dtype=np.int32)
        n = int(k_legal_list(kt, s, legal))
        score = learned_scores(kt, weights)[int(s[H_TO_MOVE])]
        assert score[first] == score[legal[:n]].max()


def write(tmp_path: Path, doc: object) -> Path:
    path = tmp_path / "prior.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


def good() -> dict[str, object]:
    return {"format": 1, "kind": "puct-prior", "scale": SCORE_SCALE,
            "weights": {k: float(v) for k, v in zip(PRIOR_FEATURES, WEIGHTS, strict=True)}}


@pytest.mark.parametrize(("change", "words"), [
    (lambda d: "{not json", "not readable JSON"),
    (lambda d: {**d, "kind": "opening-predictor"}, "not a weights file of the learned puct prior"),
    (lambda d: {**d, "scale": 4}, "scale 4; this program reads format 1, scale 8"),
    (lambda d: {**d, "weights": {"own covered": 1.0}}, "'weights' must name each feature once"),
    (lambda d: {**d, "weights": {**d["weights"], "L": "big"}}, "weight 'L' is 'big'"),  # type: ignore[dict-item]
    (lambda d: {**d, "weights": {**d["weights"], "I": 1e9}}, "weight 'I' is 1000000000.0"),  # type: ignore[dict-item]
])
def test_a_bad_weights_file_is_refused_by_name(tmp_path: Path, change: object, words: str) -> None:
    path = write(tmp_path, change(good()))  # type: ignore[operator]
    with pytest.raises(PriorFileError, match=words) as info:
        load_prior_weights(path)
    assert str(path) in str(info.value)
    with pytest.raises(PriorFileError, match="cannot read the weights file"):
        load_prior_weights(tmp_path / "missing.json")


def test_a_good_weights_file_is_read_in_feature_order(tmp_path: Path) -> None:
    assert np.array_equal(load_prior_weights(write(tmp_path, good())), WEIGHTS)


def test_the_shipped_weights_load_and_match_their_manifest() -> None:
    w = default_prior_weights()
    assert w.shape == (len(PRIOR_FEATURES),) and np.all(np.isfinite(w))
    manifest = json.loads(DEFAULT_PRIOR.with_suffix(".manifest.json").read_text(encoding="utf-8"))
    assert manifest["weights"] == DEFAULT_PRIOR.name
    assert manifest["digest"] == hashlib.sha256(DEFAULT_PRIOR.read_bytes()).hexdigest()
    assert {"gain_tau_0.5", "gain_tau_fitted", "learned"} <= set(manifest["held_out"])
    assert puct.default_prior_path() == DEFAULT_PRIOR


def test_a_learned_prior_spec_plays_wherever_an_agent_spec_goes() -> None:
    from core.engine.rules import GameState, Placement
    from core.selfplay.game import play_task
    from core.selfplay.tasks import BoardSpec, GameTask

    board = Board.random(size=8, pairs=12, seed=11)
    res = play_task(GameTask(BoardSpec.from_board(board), 3, "puct:40:prior=learned", "greedy", pie=True))
    state = GameState(board)
    for p in res.moves:
        state.push(Placement.from_index(p, board.size))
    assert state.is_over()


def test_the_prior_is_the_correctly_rounded_exponential() -> None:
    """The same bits on every machine: numpy's exp differs in the last bit on CPUs with AVX-512 for some of these
    arguments, so the table is checked against exp computed to 60 digits and rounded once."""
    from decimal import Decimal, localcontext

    score = np.arange(SCORE_MIN, SCORE_MIN + 3000, dtype=np.int64).reshape(2, -1)
    for tau in (0.5, 0.35, 0.7):
        table = puct.learned_prior_table(score, tau)
        with localcontext() as ctx:
            ctx.prec = 60
            want = [float((Decimal(int(v) - SCORE_MIN) / SCORE_SCALE * Decimal("0.5") / Decimal(tau)).exp())
                    for v in score.ravel()]
        assert table.ravel().tolist() == want


def test_net_creates_children_in_the_learned_prior_order_below_the_root() -> None:
    """``net:N:prior=learned``: the net kernel's own expansions (every node below the root) follow the learned
    order too, not only the root's first scan."""
    from core.agents.netsearch import net_search
    from core.agents.puct import F_NEXP, F_SIB, default_prior_weights

    board = Board.random(size=10, pairs=20, seed=4)
    kt = kernel_tables(board)
    root = k_new_state(kt)
    k_apply(kt, root, int(next(p for p in range(kt.nplace) if k_is_legal(kt, root, p))))
    tree = net_search("net:600:prior=learned", kt, gain_for(kt), k_seed(1)).search(root)
    score = learned_scores(kt, default_prior_weights())
    legal = np.empty(kt.nplace, dtype=np.int32)
    checked = 0
    child = int(tree.ti[0, F_FIRST])
    while child >= 0:
        first = int(tree.ti[child, F_FIRST])
        if first >= 0 and int(tree.ti[child, F_NEXP]) == 1:  # its one child is the first in prior order
            s = root.copy()
            k_apply(kt, s, int(tree.ti[child, F_MOVE]))
            n = int(k_legal_list(kt, s, legal))
            mover = score[int(s[H_TO_MOVE])]
            assert mover[int(tree.ti[first, F_MOVE])] == mover[legal[:n]].max()
            checked += 1
        child = int(tree.ti[child, F_SIB])
    assert checked >= 5
