"""The smaller match-day answers: a folder that never held a match is named as such (not as one to restore), a
temporary file a crash left is cleared, posts are named after the move, and a correction after the reply says it
is too late; an older journal's refusal worded differently still reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli import main
from core.match.host import Match
from tests.match.script import START, STEPS, play, write_board


def lits(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["match", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out + out.err


def test_a_folder_that_never_held_a_match_is_not_called_untrustworthy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    season = tmp_path / "season"
    season.mkdir()
    (season / "SHA256SUMS").write_text("", encoding="utf-8")
    code, said = lits(capsys, "status", str(season))
    assert code == 2
    assert f"{season}: holds no match (no journal.jsonl); start one there with `lits match start" in said
    assert "cannot be trusted" not in said and "Restore the folder" not in said


def test_a_temporary_file_left_by_a_crash_is_cleared_by_the_next_event(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    match = play(folder, write_board(tmp_path), STEPS[:2])
    leftover = folder / ".record.txt.abc123.tmp"
    leftover.write_text("half a record", encoding="utf-8")
    step = STEPS[2][0]
    assert main(["match", step[0], str(folder), *step[1:]]) == 0
    assert not leftover.exists()
    assert len(Match.open(folder).journal.entries) == len(match.journal.entries) + 1


def test_posts_are_named_after_the_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "m"
    play(folder, write_board(tmp_path), STEPS[:4])  # two moves counted, then a refused post
    assert lits(capsys, "post", str(folder), "--no-picture")[0] == 0
    assert sorted(p.name for p in (folder / "posts").iterdir()) == ["post-002.txt"]


def test_a_correction_after_the_reply_is_too_late(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "m"
    assert lits(capsys, "start", str(write_board(tmp_path)), "--o", "Al", "--x", "Bo", "--dir", str(folder),
                "--at", START)[0] == 0
    assert lits(capsys, "move", str(folder), "a2 b2 c2 c3", "--at", "14:00:20")[0] == 0
    assert lits(capsys, "move", str(folder), "E1 F1 D2 E2", "--by", "Bo", "--at", "14:00:40")[0] == 0
    code, said = lits(capsys, "correct", str(folder), "A2 B2 C2 D2", "--by", "Al", "--at", "14:00:50")
    assert code == 1
    assert "too late to correct move 1: Bo has replied with move 2, and a move may be corrected only until the " \
           "reply" in said


def test_a_refusal_worded_differently_in_an_older_journal_still_reads(tmp_path: Path) -> None:
    """The words of a refusal may change between versions; the rule, cells and count are what is re-judged."""
    folder = tmp_path / "m"
    play(folder, write_board(tmp_path), STEPS[:2])
    path = folder / "journal.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    old = json.loads(lines[2])
    assert old["refused"]["rule"] == "wrong-player"
    reworded = lines[2].replace("it is Bo (X)'s turn, not Al's", "Bo (X) is to move, not Al")
    assert reworded != lines[2]
    # a copy whose hash chain and check file agree with the reworded line: as an older version wrote it
    import hashlib
    raw = reworded.encode("utf-8")
    (folder / "journal.check").write_text(f"3 {hashlib.sha256(raw).hexdigest()}\n", encoding="utf-8")
    path.write_text("\n".join([*lines[:2], reworded]) + "\n", encoding="utf-8")
    assert len(Match.open(folder).journal.entries) == 3
    edited = reworded.replace('"rule":"wrong-player"', '"rule":"occupied"')
    (folder / "journal.check").write_text(f"3 {hashlib.sha256(edited.encode()).hexdigest()}\n", encoding="utf-8")
    path.write_text("\n".join([*lines[:2], edited]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="the line was edited"):
        Match.open(folder)
