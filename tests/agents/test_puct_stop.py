"""``puct``'s ``stop=`` and ``bank=``: a search that ends when its move is settled, and a game's saved simulations.

``stop=1`` may change a move only where the skipped simulations would have found a proof (the most visited child
cannot be caught in visits by them), and must save simulations; ``bank=`` must spend what earlier moves saved and
nothing more.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.agents.puct import (
    F_NVIS,
    F_PROOF,
    LOSS,
    WIN,
    PuctSearch,
    _child_with_move,
    children,
    k_puct_pick,
    parse_puct,
)
from core.agents.search import gain_for
from core.agents.spec import SOLVE_LIMIT
from core.board.boardfile import load_board
from core.board.model import Board
from core.engine.kernels import H_NPLACED, KTables, k_apply, k_new_state, k_seed, kernel_tables
from core.selfplay.duel import play_duel_game
from tests.paths import BOARDS


def _searcher(kt: KTables, spec: str, rng: np.ndarray) -> PuctSearch:
    ps = parse_puct(spec)
    return PuctSearch(kt, gain_for(kt), rng, ps.budget, params=ps.params)


def _game_positions(kt: KTables, seed: int) -> list[np.ndarray]:
    """Every position of one ``puct:300`` self-play game."""
    players = [_searcher(kt, "puct:300", k_seed(seed + i)) for i in range(2)]
    s = k_new_state(kt)
    out = []
    while True:
        out.append(s.copy())
        m = players[int(s[H_NPLACED]) % 2].choose(s)
        if m < 0:
            return out
        k_apply(kt, s, m)


def _lead(ti: np.ndarray) -> int:
    visits = sorted((int(ti[c, F_NVIS]) for c in children(ti, 0)), reverse=True)
    return visits[0] - (visits[1] if len(visits) > 1 else 0)


def test_parse_stop_and_bank() -> None:
    assert parse_puct("puct:2000:stop=0.5:bank=1").params == {"stop": 0.5, "bank": 1.0}
    for text, words in [("puct:10:stop=2", "stop must"), ("puct:10:stop=-0.1", "stop must"),
                        ("puct:10:bank=11", "bank must"), ("puct:10:bank=x", "not a number")]:
        with pytest.raises(ValueError, match=words):
            parse_puct(text)


def _proof_of_move(ti: np.ndarray, move: int) -> int:
    c = _child_with_move(ti, 0, move)
    return int(ti[c, F_PROOF]) if c >= 0 else 0


@pytest.mark.parametrize("board_name", ["default.yaml", "original-10x10.yaml"])
def test_stop_1_plays_the_full_searchs_move_unless_a_later_proof_decides(board_name: str) -> None:
    """The most visited move cannot be overtaken in visits; only a proof the skipped simulations would have found
    (a move shown won, which is played at once, or the leader shown lost, which is avoided) picks another."""
    kt = kernel_tables(load_board(BOARDS / board_name))
    saved = compared = differ = 0
    for seed in (1, 2):
        for ply, s in enumerate(_game_positions(kt, 10 * seed)):
            if ply < 4:  # the noisy plies never stop early
                continue
            full = _searcher(kt, "puct:300", k_seed(1000 + ply)).search(s.copy())
            short = _searcher(kt, "puct:300:stop=1", k_seed(1000 + ply)).search(s.copy())
            noise = k_seed(0)
            m_full = int(k_puct_pick(full.ti, full.tf, False, noise)[0])
            m_short = int(k_puct_pick(short.ti, short.tf, False, noise)[0])
            assert short.root_visits <= full.root_visits
            saved += full.root_visits - short.root_visits
            compared += 1
            if m_short != m_full:
                differ += 1
                assert _proof_of_move(full.ti, m_full) == WIN or _proof_of_move(full.ti, m_short) == LOSS
    assert compared >= 10
    assert saved > 0
    assert differ <= compared // 10


def test_a_stopped_search_stops_only_when_its_lead_exceeds_the_share_of_what_is_left() -> None:
    kt = kernel_tables(load_board(BOARDS / "default.yaml"))
    positions = _game_positions(kt, 3)[4:12]
    stopped = 0
    for i, s in enumerate(positions):
        for share in (1.0, 0.5, 0.25):
            search = _searcher(kt, f"puct:600:stop={share}", k_seed(50 + i))
            tree = search.search(s.copy())
            n = tree.root_visits
            if n < 600 and tree.root_proof == 0:
                stopped += 1
                assert n % 16 == 0  # checked every 16 simulations
                assert _lead(tree.ti) > share * (600 - n)
    assert stopped > 0


def test_noisy_plies_search_in_full() -> None:
    kt = kernel_tables(load_board(BOARDS / "default.yaml"))
    s = k_new_state(kt)
    search = _searcher(kt, "puct:500:stop=1", k_seed(3))
    search.choose(s)
    assert search.last_sims == 500  # ply 0 is a noisy ply


def test_a_time_cap_keeps_the_stop_and_its_moves() -> None:
    """With ``t=`` as a cap the search runs in chunks (32, 128, 512, ... simulations); the stop compares the lead
    with the whole budget's simulations left, not the chunk's."""
    kt = kernel_tables(load_board(BOARDS / "default.yaml"))
    saved = 0
    for i, s in enumerate(_game_positions(kt, 5)[4:10]):
        full = _searcher(kt, "puct:3000", k_seed(70 + i))
        capped = _searcher(kt, "puct:3000:t=60:stop=1", k_seed(70 + i))
        assert capped.choose(s.copy()) == full.choose(s.copy())
        saved += full.last_sims - capped.last_sims
        tree = _searcher(kt, "puct:3000:t=60:stop=1", k_seed(70 + i)).search(s.copy())
        if tree.root_visits < 3000 and tree.root_proof == 0:
            assert _lead(tree.ti) > 3000 - tree.root_visits
    assert saved > 0


def test_bank_spends_what_earlier_moves_saved_and_no_more() -> None:
    kt = kernel_tables(load_board(BOARDS / "default.yaml"))
    n = 400
    for seed in (1, 2, 3):
        players = [_searcher(kt, f"puct:{n}:stop=0.5:bank=1", k_seed(seed + i)) for i in range(2)]
        s = k_new_state(kt)
        sims: list[list[int]] = [[], []]
        while True:
            side = int(s[H_NPLACED]) % 2
            m = players[side].choose(s)
            if m < 0:
                break
            sims[side].append(players[side].last_sims)
            k_apply(kt, s, m)
        for used in sims:
            searched = [u for u in used if u > 0]
            # never more than the budget plus one budget banked; over the game no more than the budgets' sum
            assert max(searched) <= 2 * n
            assert sum(searched) <= n * len(searched)
        if any(u > n for side in sims for u in side):
            break
    else:
        pytest.fail("no move ever used banked simulations")


def test_a_new_game_starts_with_an_empty_bank() -> None:
    kt = kernel_tables(load_board(BOARDS / "default.yaml"))
    search = _searcher(kt, "puct:300:stop=0.25:bank=2", k_seed(9))
    positions = _game_positions(kt, 4)
    for s in positions[4:14]:
        search.choose(s.copy())
    assert search._bank > 0
    assert search._banked(positions[12]) == search._bank  # a later ply of the same game keeps it
    assert search._banked(positions[4]) == 0  # an earlier ply: another game


def test_games_with_stop_and_bank_are_a_function_of_their_seeds() -> None:
    board = Board.random(size=8, pairs=12, seed=3)
    spec = "puct:120:stop=0.5:bank=1"
    assert play_duel_game(board, spec, "puct:100", 5, 6)[0] == play_duel_game(board, spec, "puct:100", 5, 6)[0]


def test_stop_and_bank_play_a_winning_move_wherever_minimax_finds_one() -> None:
    """On 6x6 positions a plain minimax can solve, with more legal placements than the endgame solver takes, a
    search with the stop and the bank on (no noisy plies here, so from the first move) still proves and plays a
    winning move whenever there is one: the check on the lead comes after the check on the root's proof."""
    from core.board.model import GameParams
    from core.engine.rules import GameState, Placement
    from tests.agents.test_solver_exact import random_prefix
    from tests.minimax import side_to_move_wins

    wins = 0
    for seed in range(8):
        board = Board.random(size=6, pairs=7, seed=100 + seed, params=GameParams(supply=(2, 2, 2, 2)))
        kt = kernel_tables(board)
        state: GameState = random_prefix(board, seed, plies=2)
        memo: dict[bytes, bool] = {}
        if not side_to_move_wins(state, memo):
            continue
        assert state.legal_placements().count() > SOLVE_LIMIT
        ps = parse_puct("puct:3000:stop=0.5:bank=1")
        agent = PuctSearch(kt, gain_for(kt), k_seed(seed), ps.budget, params=ps.params, noise_plies=0)
        move = agent.choose(state.kernel_state())
        state.push(Placement.from_index(move, board.size))
        assert not side_to_move_wins(state, memo), f"seed {seed}: {state.placements[-1].notation()} does not win"
        wins += 1
    assert wins >= 5
