"""Taking back a slip: a time that would decide the match is asked about first (``--yes``), and ``lits match undo``
takes back the last command's events with an event of its own, printing the state it returns to; the journal
keeps both and every later command (and ``lits replay``) reads the match as it stands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli import main
from core.match.events import Move
from core.match.host import Match
from core.match.journal import JournalError
from tests.match.script import START, STEPS, play, write_board


def lits(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["match", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out + out.err


def journal(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "journal.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def begun(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """Al (O) has placed at 14:00:20; Bo (X) is to move with a 60 s turn and a 300 s bank."""
    folder = tmp_path / "m"
    assert lits(capsys, "start", str(write_board(tmp_path)), "--o", "Al", "--x", "Bo", "--dir", str(folder),
                "--at", START)[0] == 0
    assert lits(capsys, "move", str(folder), "a2 b2 c2 c3", "--by", "Al", "--at", "14:00:20")[0] == 0
    return folder


def test_a_wrong_hour_is_refused_naming_what_it_would_decide(begun: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (begun / "journal.jsonl").read_bytes()
    code, said = lits(capsys, "swap", str(begun), "--by", "Bo", "--at", "15:00:50")
    assert code == 1
    assert ("Not recorded: 15:00:50 is 1 h 0 min after the last event (14:00:20), past Bo (X)'s whole remaining "
            "clock (turn time and bank run out at 14:06:20): it would decide the match, Al (O) winning on time") in said
    assert "run it again with --yes" in said
    assert (begun / "journal.jsonl").read_bytes() == before, "nothing written"
    # the right time counts; the wrong one counts only when confirmed
    assert lits(capsys, "swap", str(begun), "--by", "Bo", "--at", "14:00:50")[0] == 0


def test_over_an_hour_is_asked_about_even_when_it_decides_nothing(
        begun: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert lits(capsys, "pause", str(begun), "--at", "14:00:30")[0] == 0
    code, said = lits(capsys, "resume", str(begun), "--at", "15:40:00")
    assert code == 1 and "15:40:00 is 1 h 39 min after the last event (14:00:30): over an hour with no event" in said
    code, said = lits(capsys, "resume", str(begun), "--at", "15:40:00", "--yes")
    assert code == 0 and "Resumed at 15:40:00" in said


def test_undo_takes_back_a_loss_on_time_and_the_right_time_counts(
        begun: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, said = lits(capsys, "swap", str(begun), "--by", "Bo", "--at", "15:00:50", "--yes")
    assert code == 1 and "Time: Bo's turn time and bank ran out at 14:06:20." in said
    assert Match.open(begun).session.over
    before = (begun / "journal.jsonl").read_bytes()
    code, said = lits(capsys, "undo", str(begun), "--at", "15:01:00")  # without --yes: shown, not written
    assert code == 1 and "Would take back:\n  line 3: Time: Bo's turn time and bank ran out at 14:06:20." in said
    assert ("and return to: after line 2 (move at 14:00:20; the clocks as then):\n"
            "  Bo (X) to move - turn 1:00, bank 5:00") in said
    assert (begun / "journal.jsonl").read_bytes() == before
    code, said = lits(capsys, "undo", str(begun), "--at", "15:01:00", "--yes")
    assert code == 0, said
    assert said.startswith("Taken back:\n  line 3: Time: Bo's turn time and bank ran out at 14:06:20.\n  line 4: ")
    assert ("The match stands again as after line 2 (move at 14:00:20; the clocks as then):\n"
            "  Bo (X) to move - turn 1:00, bank 5:00") in said
    assert journal(begun)[-1] == {"seq": 5, "event": "undo", "at": "2026-05-02T15:01:00+00:00", "count": 1,
                                  "lines": [4, 3], "prev": journal(begun)[-1]["prev"]}
    code, said = lits(capsys, "swap", str(begun), "--by", "Bo", "--at", "14:00:50")  # the post's real time
    assert code == 0 and "move 2: Bo swaps (pie rule)" in said
    s = Match.open(begun).session
    assert not s.over and len(s.actions) == 2 and s.undone == {3, 4}
    assert s.clocks()[1] == (60_000, 300_000, False), "Bo's bank is whole again"


def test_undo_of_a_swap_and_of_a_correction(begun: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert lits(capsys, "swap", str(begun), "--by", "Bo", "--at", "14:00:50")[0] == 0
    code, said = lits(capsys, "undo", str(begun), "--yes", "--at", "14:01:00")
    assert code == 0 and "after line 2 (move at 14:00:20; the clocks as then):\n  Bo (X) to move - turn 1:00" in said
    s = Match.open(begun).session
    assert not s.state.swapped and s.label(1) == "Bo (X)"
    assert lits(capsys, "move", str(begun), "E1 F1 D2 E2", "--by", "Bo", "--at", "14:01:10")[0] == 0
    assert lits(capsys, "correct", str(begun), "C1 D1 E1 F1", "--by", "Bo", "--at", "14:01:20")[0] == 0
    assert Match.open(begun).session.actions[-1].move.notation() == "C1 D1 E1 F1"
    code, said = lits(capsys, "undo", str(begun), "--yes", "--at", "14:01:30")
    assert code == 0 and "after line 5 (move at 14:01:10; the clocks as then):\n  Al (O) to move - turn 1:00" in said
    s = Match.open(begun).session
    assert s.actions[-1].move.notation() == "E1 F1 D2 E2"
    assert s.now == Match.open(begun).session.now  # rebuilt the same way every time
    # more commands than stand are refused; two at once go back to the start, and no further
    code, said = lits(capsys, "undo", str(begun), "--yes", "--count", "3", "--at", "14:01:40")
    assert code == 1 and "only 2 commands can be taken back" in said, said
    code, said = lits(capsys, "undo", str(begun), "--yes", "--count", "2", "--at", "14:01:40")
    assert code == 0 and "The match stands again as at its start (14:00:00)" in said, said
    code, said = lits(capsys, "undo", str(begun), "--yes", "--at", "14:01:50")
    assert code == 1 and "nothing can be taken back: the match stands as at its start" in said, said


def test_a_match_with_undos_replays_and_an_edited_undo_is_caught(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "m"
    play(folder, write_board(tmp_path), STEPS[:6])
    assert lits(capsys, "undo", str(folder), "--yes", "--at", "14:02:05")[0] == 0  # the correction
    assert Match.open(folder).session.actions[-1].move.notation() == "C1 D1 E1 F1"
    record = (folder / "record.txt").read_text(encoding="utf-8")
    assert [m for m in record.splitlines() if m and not m.startswith("#")] == ["A2 B2 C2 C3", "swap", "C1 D1 E1 F1"]
    assert main(["replay", str(folder / "board.yaml"), str(folder / "record.txt")]) == 0
    capsys.readouterr()
    path = folder / "journal.jsonl"
    path.write_text(path.read_text(encoding="utf-8").replace('"lines":[7]', '"lines":[6]'), encoding="utf-8")
    with pytest.raises(JournalError):
        Match.open(folder)


def test_once_a_move_counted_a_post_names_its_poster(begun: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Al posting twice in a row must not become Bo's move: without --by the post is refused, nothing written."""
    before = (begun / "journal.jsonl").read_bytes()
    code, said = lits(capsys, "move", str(begun), "E1 F1 D2 E2", "--at", "14:00:30")
    assert code == 2
    assert "who posted it? Once the match has begun every post names its poster (--by Al or --by Bo): Bo (X) is " \
           "to move" in said
    code, said = lits(capsys, "correct", str(begun), "A2 B2 C2 D2", "--at", "14:00:30")
    assert code == 2 and "only Al, who made move 1, may correct it" in said
    assert (begun / "journal.jsonl").read_bytes() == before
    code, said = lits(capsys, "move", str(begun), "E1 F1 D2 E2", "--by", "Al", "--at", "14:00:30")
    assert code == 1 and "it is Bo (X)'s turn, not Al's" in said


def test_a_post_repeated_after_a_crash_is_answered_already_counted(begun: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The command was killed after its line and check file were written, before it answered: run again as it was
    typed, it says the post already counted instead of refusing it as the wrong player's."""
    match = Match.open(begun)
    match.submit(Move(match.when("14:00:50"), "swap", "Bo"))  # the killed command
    before = (begun / "journal.jsonl").read_bytes()
    code, said = lits(capsys, "swap", str(begun), "--by", "Bo", "--at", "14:00:50")
    assert code == 0
    assert said == "Already counted as move 2 at 14:00:50 (journal line 3); nothing more was written.\n"
    code, said = lits(capsys, "move", str(begun), "E1 F1 D2 E2", "--by", "Al", "--at", "14:01:00")
    assert code == 0
    code, said = lits(capsys, "move", str(begun), "E1 F1 D2 E2", "--by", "Al", "--at", "14:01:00")
    assert code == 0 and said.startswith("Already counted as move 3 at 14:01:00 (journal line 4)")
    assert len((begun / "journal.jsonl").read_bytes().splitlines()) == len(before.splitlines()) + 1
    # the same cells at another time are a new post, judged as one
    code, said = lits(capsys, "move", str(begun), "E1 F1 D2 E2", "--by", "Al", "--at", "14:01:05")
    assert code == 1 and "it is Bo (O)'s turn, not Al's" in said
