"""Posts as people write them: the four cell names anywhere in a chat line are the move, "I'll swap" and "pie" are
the swap, cells given as separate arguments are joined; the reply quotes what it read, the journal keeps the line
as posted beside what was read, and a line without a move names what was found in it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.board.model import Symbol
from core.cli import main
from core.match.chat import read_post
from core.match.host import Match
from tests.match.script import START, write_board


def lits(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["match", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out + out.err


@pytest.mark.parametrize(("line", "read"), [
    ("I play e6 f6 g6 f7 please", "E6 F6 G6 F7"),
    ("oops, meant l5 l6 k7 l7", "L5 L6 K7 L7"),
    ("my move: h3 i3 j3 h4", "H3 I3 J3 H4"),
    ("h3 i3 j3 h4 gl", "H3 I3 J3 H4"),
    ("I'll swap", "swap"),
    ("Swap!", "swap"),
])
def test_a_chat_line_is_read_as_its_move(line: str, read: str) -> None:
    reading = read_post(line, 12)
    assert (reading.text, reading.found) == (read, read)


@pytest.mark.parametrize("line", ["e6 f6 g6 f7", "E6-F6-G6-F7", "e6f6g6f7", "swap", "pie", "e1f1d2"])
def test_notation_and_the_swap_words_are_taken_as_typed(line: str) -> None:
    assert read_post(line, 12).text == line and read_post(line, 12).found is None


def test_chat_lines_and_separate_cells_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "m"
    assert lits(capsys, "start", str(write_board(tmp_path)), "--o", "Al", "--x", "Bo", "--dir", str(folder),
                "--at", START)[0] == 0
    code, said = lits(capsys, "move", str(folder), "I", "play", "a2", "b2", "c2", "c3", "please", "--at",
                      "14:00:20")
    assert code == 0, said
    assert said.startswith("Read 'I play a2 b2 c2 c3 please' as A2 B2 C2 C3.\nCounted: move 1: Al places an L")
    code, said = lits(capsys, "move", str(folder), "I'll swap", "--by", "Bo", "--at", "14:00:50")
    assert code == 0 and "Read \"I'll swap\" as swap.\nCounted: move 2: Bo swaps" in said, said
    code, said = lits(capsys, "move", str(folder), "my move: C1 D1 E1", "--by", "Al", "--at", "14:01:10")
    assert code == 1
    assert "(In 'my move: C1 D1 E1' the move was not found: found 3 cell names in it: C1 D1 E1; a placement is " \
           "four cells.)" in said
    code, said = lits(capsys, "move", str(folder), "C1", "D1", "E1", "F1", "--by", "Al", "--at", "14:01:20")
    assert code == 0 and "move 3: Al places an I at C1 D1 E1 F1" in said
    lines = [json.loads(x) for x in (folder / "journal.jsonl").read_text(encoding="utf-8").splitlines()]
    assert (lines[1]["text"], lines[1]["posted"]) == ("A2 B2 C2 C3", "I play a2 b2 c2 c3 please")
    assert list(lines[1])[:6] == ["seq", "event", "at", "text", "posted", "by"]
    assert (lines[2]["text"], lines[2]["posted"]) == ("swap", "I'll swap")
    assert "posted" not in lines[4] and lines[4]["text"] == "C1 D1 E1 F1"  # notation as typed: no second copy
    s = Match.open(folder).session  # the journal with chat lines reads back
    assert len(s.actions) == 3 and s.symbol_of(1) is Symbol.O
