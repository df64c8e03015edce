"""Game records: parse, save/load round trip, replay with the offending ply named."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from core.board.boardfile import load_board
from core.board.model import Board, GameParams, Symbol
from core.engine.record import (
    RecordError,
    load_record,
    parse_record,
    record_to_text,
    replay,
    save_record,
)
from core.engine.rules import SWAP, GameState, Placement
from tests.paths import BOARDS


def test_parse_ignores_blanks_and_comments_and_reads_swap() -> None:
    text = "# a game\n\nC3 D3 E3 C4\n  SWAP \n# note\nf3,g3,h3,i3\n"
    actions = parse_record(text, 12)
    assert actions == [Placement.parse("C3 D3 E3 C4", 12), SWAP, Placement.parse("F3 G3 H3 I3", 12)]


def test_a_comment_after_a_move_is_a_comment() -> None:
    """Hosts annotate games: "'#' is not a cell name" for ``E6 F6 G6 F7  # the wall`` told them nothing useful."""
    from core.engine.record import action_line

    text = "# dm1\nC3 D3 E3 C4  # the wall\nswap# pie\n\nF3 G3 H3 I3\n"
    assert parse_record(text, 12) == [Placement.parse("C3 D3 E3 C4", 12), SWAP, Placement.parse("F3 G3 H3 I3", 12)]
    assert [action_line(text, ply) for ply in (1, 2, 3, 4)] == [2, 3, 5, None]


def test_parse_accepts_bom_and_crlf() -> None:
    actions = parse_record("\ufeffC3 D3 E3 C4\r\nswap\r\n", 12)
    assert actions == [Placement.parse("C3 D3 E3 C4", 12), SWAP]


def test_parse_errors_name_the_file_and_line() -> None:
    with pytest.raises(RecordError) as info:
        parse_record("C3 D3 E3 C4\n\nA1 B1 A2 B2\n", 12, path="game.txt")
    assert str(info.value).startswith("game.txt: line 3: ") and "2x2 square" in str(info.value)
    assert info.value.line == 3
    with pytest.raises(RecordError, match=r"line 1: .*column Q"):
        parse_record("Q1 A1 B1 C1", 12)


def test_save_load_round_trip(tmp_path: Path) -> None:
    board = load_board("boards/default.yaml")
    state = GameState(board)
    rng = random.Random(4)
    state.push(rng.choice(list(state.legal_placements())))
    state.push_swap()
    while not state.is_over():
        state.push(rng.choice(list(state.legal_placements())))
    path = tmp_path / "game.txt"
    save_record(path, state.actions, 12, header_comments=["board: default", "seed 4"])
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# board: default\n# seed 4\n")
    assert "swap\n" in text
    loaded = load_record(path, 12)
    assert loaded == state.actions
    replayed, error = replay(board, loaded)
    assert error is None
    assert replayed.covered == state.covered and replayed.swapped and replayed.result() == state.result()
    assert record_to_text(loaded, 12).splitlines() == [a if isinstance(a, str) else a.notation() for a in loaded]


def test_load_errors(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="no such file"):
        load_record(tmp_path / "missing.txt", 12)
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\x00\x01")
    with pytest.raises(RecordError, match="binary"):
        load_record(binary, 12)


def test_replay_names_the_offending_ply() -> None:
    board = Board(size=10, params=GameParams(pie=True, first=Symbol.X))
    actions = parse_record("A1 B1 C1 D1\nswap\nA2 A3 A4 B4\nE1 F1 G1 H1\n", 10)
    state, error = replay(board, actions)
    assert error is not None and error.ply == 4
    assert error.reason.rule == "same-type-adjacent" and "along D1-E1" in error.reason.message
    assert len(state.actions) == 3 and state.swapped
    assert "action 4 (E1 F1 G1 H1)" in error.message(10)
    _, late_swap = replay(board, parse_record("A1 B1 C1 D1\nA2 A3 A4 B4\nswap\n", 10))
    assert late_swap is not None and late_swap.ply == 3 and late_swap.reason.rule == "swap-not-allowed"
    _, early = replay(board, [SWAP])
    assert early is not None and early.ply == 1


def test_record_to_text_refuses_a_foreign_size() -> None:
    with pytest.raises(ValueError, match="10x10"):
        record_to_text([Placement.parse("A1 B1 C1 D1", 10)], 12)


def test_only_newlines_end_a_line() -> None:
    """Editors break lines at LF (and CRLF) only; a form feed or U+2028 inside a comment must not start a move."""
    text = "A1 B1 C1 D1\n# pasted note\u2028E1 E2\x0cstill the comment\r\nA5 A6 A7\n"
    with pytest.raises(RecordError) as info:
        parse_record(text, 12, "game.txt")
    assert info.value.line == 3
    assert "A5 A6 A7" in str(info.value)
    assert parse_record("A1 B1 C1 D1\n# a\u2028b\x0cc\nswap\n", 12) == [Placement.parse("A1 B1 C1 D1", 12), SWAP]


@pytest.mark.parametrize("text", [
    (BOARDS / "default.yaml").read_text(encoding="utf-8"),
    "{name: x, grid: ['....', '....', '....', '....']}\n",
    "grid:\n\t- '....'\n",
])
def test_a_board_file_given_as_a_record_is_named_as_such(tmp_path: Path, text: str) -> None:
    """A board file is another kind of file (no line to blame), not a record whose line 2 is a bad move."""
    path = tmp_path / "board.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RecordError) as info:
        load_record(path, 12)
    assert str(info.value) == (f"{path}: this is a board file, not a game record "
                               "(one placement per line, e.g. E6 F6 G6 F7, or swap)")
    assert info.value.line is None
    # a record with a line that only looks like a key is still a record with a bad line
    path.write_text("C3 D3 E3 C4\nname: x\n", encoding="utf-8")
    with pytest.raises(RecordError) as info:
        load_record(path, 12)
    assert info.value.line == 2
