"""Game state: legality against the independent reference, rule vectors, swap, tie rule, push/pop."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.board.boardfile import load_board
from core.board.model import Board, GameParams, Symbol
from core.engine.rules import (
    SWAP,
    GameState,
    IllegalMoveError,
    Placement,
)
from tests.paths import DATA
from tests.reference_rules import RefGame, all_pieces

BOARDS = "boards"


def rc_placement(cells: list[tuple[int, int]], size: int) -> Placement:
    return Placement.from_cells([r * size + c for r, c in cells], size)


def engine_set(state: GameState) -> set[frozenset[tuple[int, int]]]:
    n = state.size
    return {frozenset(divmod(c, n) for c in p.cells) for p in state.legal_placements()}


def blank(size: int, supply: tuple[int, int, int, int] = (5, 5, 5, 5), pie: bool = True,
          first: Symbol = Symbol.O) -> Board:
    return Board(size=size, params=GameParams(supply=supply, pie=pie, first=first))


def _differential(size: int, games: int, seed: int) -> int:
    rng = random.Random(seed)
    candidates = sorted(all_pieces(size), key=sorted)
    positions = 0
    for g in range(games):
        if g % 5 == 4:
            supply = (rng.randint(0, 3), rng.randint(0, 3), rng.randint(1, 3), rng.randint(0, 3))
        else:
            supply = (5, 5, 5, 5)
        state = GameState(blank(size, supply))
        ref = RefGame(size, supply)
        while True:
            mine = engine_set(state)
            theirs = ref.legal()
            assert mine == theirs, f"game {g} ply {len(ref.pieces)}: extra {mine - theirs}, missing {theirs - mine}"
            assert len(state.legal_placements()) == len(theirs)
            assert bool(state.legal_placements()) == bool(theirs)
            positions += 1
            # The reason given for an illegal placement is one of the rules the reference says it breaks.
            for piece in rng.sample(candidates, 4):
                p = rc_placement(sorted(piece), size)
                reason = state.why_illegal(p)
                broken = ref.broken_rules(piece)
                if piece in theirs:
                    assert reason is None
                else:
                    assert reason is not None
                    assert reason.rule in broken or (reason.rule == "game-over" and not theirs)
            if not theirs:
                assert state.is_over() and state.result() is not None
                break
            piece = rng.choice(sorted(theirs, key=sorted))
            state.push(rc_placement(sorted(piece), size))
            ref.play(piece)
    return positions


def test_engine_agrees_with_reference_on_200_games_12x12() -> None:
    assert _differential(12, 200, seed=1) > 200 * 10


def test_engine_agrees_with_reference_on_100_games_10x10() -> None:
    assert _differential(10, 100, seed=2) > 100 * 8


def test_engine_agrees_with_reference_small_and_odd_sizes() -> None:
    _differential(4, 30, seed=3)
    _differential(6, 30, seed=4)


def test_empty_board_counts() -> None:
    assert len(GameState(blank(12)).legal_placements()) == 1976
    assert len(GameState(blank(10)).legal_placements()) == 1292
    assert GameState(blank(12, (0, 0, 0, 0))).is_over()


def test_three_piece_2x2_is_illegal() -> None:
    """The gap in one peer engine: a 2x2 filled by three different pieces."""
    state = GameState(blank(10))
    state.push(rc_placement([(1, 7), (2, 7), (3, 7), (4, 7)], 10))
    state.push(rc_placement([(5, 6), (5, 7), (6, 6), (7, 6)], 10))
    s_piece = rc_placement([(4, 8), (5, 8), (5, 9), (6, 9)], 10)
    assert s_piece.ptype == "S"
    assert s_piece not in state.legal_placements()
    reason = state.why_illegal(s_piece)
    assert reason is not None and reason.rule == "2x2"
    assert set(reason.cells) == {4 * 10 + 7, 4 * 10 + 8, 5 * 10 + 7, 5 * 10 + 8}
    assert "H5 I5 H6 I6" in reason.message and "the I at" in reason.message and "the L at" in reason.message
    with pytest.raises(IllegalMoveError) as info:
        state.push(s_piece)
    assert info.value.reason.rule == "2x2"


def test_one_cell_window_filled_by_an_l() -> None:
    """A piece covering three cells of a 2x2 whose fourth cell an earlier piece covers is illegal."""
    state = GameState(blank(8))
    state.push(Placement.parse("B3 C3 D3 E3", 8))            # I covering E3
    ell = Placement.parse("F2 F3 F4 E4", 8)                  # J covering F3 E4 F4 of window E3 F3 E4 F4
    assert ell.ptype == "L"
    reason = state.why_illegal(ell)
    assert reason is not None and reason.rule == "2x2"
    assert reason.cells == (2 * 8 + 4, 2 * 8 + 5, 3 * 8 + 4, 3 * 8 + 5)
    assert "E3 F3 E4 F4" in reason.message and "the I at B3 C3 D3 E3" in reason.message
    shifted = Placement.parse("F3 F4 F5 E5", 8)              # leaves E4 open: fine
    assert shifted in state.legal_placements()


def test_mirror_images_share_a_type() -> None:
    state = GameState(blank(10))
    s_shape = Placement.parse("B1 C1 A2 B2", 10)       # S
    z_shape = Placement.parse("D2 E2 E3 F3", 10)       # Z orientation
    assert s_shape.ptype == z_shape.ptype == "S"
    state.push(s_shape)
    z_touching = Placement.parse("C2 D2 D3 E3", 10)    # Z sharing edges C1-C2 and B2-C2
    reason = state.why_illegal(z_touching)
    assert reason is not None and reason.rule == "same-type-adjacent"
    assert "the S at B1 C1 A2 B2" in reason.message
    state2 = GameState(blank(10))
    state2.push(Placement.parse("A1 A2 A3 B3", 10))    # L
    j_touching = Placement.parse("B1 B2 C2 D2", 10)    # J shape, touches the L
    assert j_touching.ptype == "L"
    assert state2.why_illegal(j_touching).rule == "same-type-adjacent"  # type: ignore[union-attr]


def test_litsbotv2_vectors_supply_one() -> None:
    state = GameState(blank(10, (1, 1, 1, 1)))
    state.push(rc_placement([(0, 0), (0, 1), (0, 2), (1, 0)], 10))
    legal = list(state.legal_placements())
    assert len(legal) == 22
    assert {t: sum(1 for p in legal if p.ptype == t) for t in "LITS"} == {"L": 0, "I": 6, "T": 8, "S": 8}
    state.push(rc_placement([(0, 3), (0, 4), (0, 5), (0, 6)], 10))
    legal = list(state.legal_placements())
    assert len(legal) == 36
    assert {t: sum(1 for p in legal if p.ptype == t) for t in "LITS"} == {"L": 0, "I": 0, "T": 20, "S": 16}
    reason = state.why_illegal(Placement.parse("A3 B3 C3 D3", 10))
    assert reason is not None and reason.rule in ("supply", "not-touching")
    supply_case = Placement.parse("A3 A4 A5 A6", 10)  # touches the L, is an I: only the supply is broken
    assert state.why_illegal(supply_case).rule == "supply"  # type: ignore[union-attr]


def test_reasons_name_the_rule_and_cells() -> None:
    state = GameState(blank(12))
    first = Placement.parse("C3 D3 E3 C4", 12)
    state.push(first)
    occ = state.why_illegal(Placement.parse("E3 F3 G3 H3", 12))
    assert occ is not None and occ.rule == "occupied" and "E3" in occ.message and "the L at C3 D3 E3 C4" in occ.message
    far = state.why_illegal(Placement.parse("A10 B10 C10 D10", 12))
    assert far is not None and far.rule == "not-touching"
    same = state.why_illegal(Placement.parse("C5 C6 C7 D7", 12))
    assert same is not None and same.rule == "same-type-adjacent"
    assert "touches the L at C3 D3 E3 C4 along C4-C5" in same.message
    with pytest.raises(IllegalMoveError) as info:
        state.push(Placement.parse("C5 C6 C7 D7", 12))
    assert info.value.reason == same
    other = state.why_illegal(Placement.parse("A1 B1 C1 D1", 10))
    assert other is not None and other.rule == "off-board"


def test_first_piece_goes_anywhere_and_later_pieces_must_touch() -> None:
    state = GameState(blank(12))
    assert Placement.parse("L12 K12 J12 I12", 12) in state.legal_placements()
    state.push(Placement.parse("E5 F5 G5 F6", 12))
    assert Placement.parse("L12 K12 J12 I12", 12) not in state.legal_placements()
    assert all(any(state.covered >> nb & 1 for nb in state.table.neighbours[p.index])
               for p in state.legal_placements())


def _play_random(state: GameState, rng: random.Random) -> None:
    while not state.is_over():
        state.push(rng.choice(list(state.legal_placements())))


def test_turns_alternate_by_symbol_and_first_symbol_setting() -> None:
    for first in (Symbol.O, Symbol.X):
        state = GameState(blank(10, first=first))
        assert state.to_move is first and state.last_mover is None
        state.push(Placement.parse("A1 B1 C1 D1", 10))
        assert state.to_move is first.other and state.last_mover is first
        assert state.placement_owner(0) is first and state.placement_owner(1) is first.other


def test_swap_rules() -> None:
    state = GameState(blank(10))
    assert not state.can_swap()
    with pytest.raises(IllegalMoveError) as info:
        state.push_swap()
    assert info.value.reason.rule == "swap-not-allowed"
    state.push(Placement.parse("A1 B1 C1 D1", 10))
    assert state.can_swap()
    state.push_swap()
    assert state.swapped and state.actions[-1] == SWAP
    # Symbol level: the second symbol still makes placement 2.
    assert state.to_move is Symbol.X
    assert not state.can_swap()
    with pytest.raises(IllegalMoveError):
        state.push_swap()
    state.push(next(iter(state.legal_placements())))
    with pytest.raises(IllegalMoveError):
        state.push_swap()
    assert state.pop() != SWAP
    assert state.pop() == SWAP and not state.swapped and state.can_swap()
    no_pie = GameState(blank(10, pie=False))
    no_pie.push(Placement.parse("A1 B1 C1 D1", 10))
    assert not no_pie.can_swap()
    with pytest.raises(IllegalMoveError) as info:
        no_pie.push_swap()
    assert "pie rule" in info.value.reason.message


def test_swap_after_one_placement_only_not_later() -> None:
    state = GameState(blank(10))
    rng = random.Random(5)
    state.push(rng.choice(list(state.legal_placements())))
    state.push(rng.choice(list(state.legal_placements())))
    assert not state.can_swap()
    with pytest.raises(IllegalMoveError):
        state.push_swap()


def test_tie_goes_to_last_placer_with_and_without_swap() -> None:
    # A board without symbols always ties; the last placer must win whoever that is.
    for seed in range(6):
        for swap in (False, True):
            state = GameState(blank(8))
            rng = random.Random(seed)
            state.push(rng.choice(list(state.legal_placements())))
            if swap:
                state.push_swap()
            _play_random(state, rng)
            result = state.result()
            assert result is not None and result.reason == "tie-rule"
            assert result.winner is state.last_mover
            expected = Symbol.O if len(state.placements) % 2 == 1 else Symbol.X
            assert result.winner is expected
            assert "tie rule" in result.explain()


def test_score_decides_when_not_tied() -> None:
    board = load_board(f"{BOARDS}/default.yaml")
    rng = random.Random(3)
    seen = set()
    for _ in range(20):
        state = GameState(board)
        assert state.result() is None
        _play_random(state, rng)
        result = state.result()
        assert result is not None
        o = sum(1 for c in range(144) if board[c] is Symbol.O and not state.covered >> c & 1)
        x = sum(1 for c in range(144) if board[c] is Symbol.X and not state.covered >> c & 1)
        assert result.score == {Symbol.O: o, Symbol.X: x}
        if o != x:
            assert result.reason == "score" and result.winner is (Symbol.O if o > x else Symbol.X)
        seen.add(result.reason)
        assert result.explain().startswith("Game over")
    assert "score" in seen


def test_piece_at_supply_and_copy() -> None:
    state = GameState(blank(10))
    p = Placement.parse("C3 D3 E3 C4", 10)
    state.push(p)
    assert state.piece_at(22) == 0 and state.piece_at(0) is None
    assert state.supply_left("L") == 4 and state.supply_left("I") == 5
    clone = state.copy()
    clone.push(next(iter(clone.legal_placements())))
    assert len(state.placements) == 1 and len(clone.placements) == 2


def test_game_over_reason() -> None:
    state = GameState(blank(6, (1, 1, 0, 0)))
    _play_random(state, random.Random(1))
    assert state.is_over()
    some = next(p for p in (Placement.from_index(i, 6) for i in range(state.table.count))
                if p not in state.legal_placements())
    reason = state.why_illegal(some)
    assert reason is not None and reason.rule == "game-over"
    assert not state.can_swap()


def _snapshot(state: GameState) -> tuple[object, ...]:
    return (list(state.actions), state.covered, state.swapped, state.kernel_state().tobytes(),
            [state.piece_at(c) for c in range(state.size * state.size)], state.to_move,
            [state.supply_left(t) for t in "LITS"], sorted(p.index for p in state.legal_placements()))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.sampled_from([6, 8, 10, 12]), depth=st.integers(0, 12),
       undo=st.integers(1, 6), swap=st.booleans())
def test_push_pop_restores_state_exactly(seed: int, size: int, depth: int, undo: int, swap: bool) -> None:
    rng = random.Random(seed)
    state = GameState(blank(size))
    snapshots = [_snapshot(state)]
    for _ in range(depth):
        if state.can_swap() and swap:
            state.push_swap()
        elif state.is_over():
            break
        else:
            state.push(rng.choice(list(state.legal_placements())))
        snapshots.append(_snapshot(state))
    for _ in range(min(undo, len(state.actions))):
        state.pop()
        snapshots.pop()
        assert _snapshot(state) == snapshots[-1]
    state.check_consistency()


def test_pop_on_empty_raises() -> None:
    with pytest.raises(IndexError):
        GameState(blank(6)).pop()


PERFT_FILES = sorted((DATA / "perft").glob("*.json"))


@pytest.mark.parametrize("path", PERFT_FILES, ids=[p.stem for p in PERFT_FILES])
def test_perft_counts(path: Path) -> None:
    """Legal counts after fixed move sequences, computed once by the reference and stored as data."""
    data = json.loads(path.read_text(encoding="utf-8"))
    size = data["size"]
    state = GameState(blank(size, tuple(data["supply"])))
    plies = {int(k): v for k, v in data["perft2"].items()}
    for ply, expected in enumerate(data["counts"]):
        legal = list(state.legal_placements())
        assert len(legal) == expected, f"{path.name}: ply {ply}"
        assert {t: sum(1 for p in legal if p.ptype == t) for t in "LITS"} == data["counts_by_type"][ply]
        if ply in plies:
            total = 0
            for p in legal:
                state.push(p)
                total += len(state.legal_placements())
                state.pop()
            assert total == plies[ply], f"{path.name}: perft(2) at ply {ply}"
        if ply < len(data["moves"]):
            state.push(Placement.parse(data["moves"][ply], size))
    assert state.is_over()


def test_perft_data_present() -> None:
    assert len(PERFT_FILES) >= 6


def test_supply_reason_for_a_type_the_board_does_not_supply() -> None:
    state = GameState(blank(8, (0, 5, 5, 5)))
    reason = state.why_illegal(Placement.parse("A1 A2 A3 B3", 8))
    assert reason is not None and reason.rule == "supply"
    assert "all 0" not in reason.message and "no L pieces" in reason.message
    state = GameState(blank(8, (1, 5, 5, 5)))
    state.push(Placement.parse("A1 A2 A3 B3", 8))
    state.push(Placement.parse("B1 C1 D1 E1", 8))
    reason = state.why_illegal(Placement.parse("F1 F2 F3 G3", 8))
    assert reason is not None and reason.rule == "supply" and "all 1 have been placed" in reason.message


def test_rule_ids_are_an_enum_with_the_published_json_values() -> None:
    from core.engine.rules import RULES, Rule

    assert RULES == ("off-board", "occupied", "not-touching", "same-type-adjacent", "2x2", "supply", "game-over",
                     "swap-not-allowed")
    assert [r.value for r in Rule] == list(RULES)
    assert Rule("2x2") is Rule.FULL_2X2 and Rule.FULL_2X2 == "2x2"
