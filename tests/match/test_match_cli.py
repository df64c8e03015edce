"""``lits match`` in fresh processes, as a host runs it: a whole scripted match, a bank that runs out, a sealed
board revealed at the start, and the exit codes for bad arguments."""

from __future__ import annotations

import hashlib
import itertools
import json
import struct
from pathlib import Path

import pytest

from core.cli import main
from tests.lits_process import run_lits
from tests.match.script import FINAL_RECORD_MOVES, START, STEPS, write_board


def journal_events(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "journal.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[int, str, str]]]:
    """The scripted match played step by step through ``python -m core.cli``; every reply kept."""
    root = tmp_path_factory.mktemp("played")
    board = write_board(root)
    folder = root / "m"
    replies = []
    proc = run_lits(["match", "start", str(board), "--o", "Al", "--x", "Bo", "--dir", str(folder), "--at", START])
    replies.append((proc.returncode, proc.stdout, proc.stderr))
    for step, _code, _words in STEPS:
        proc = run_lits(["match", step[0], str(folder), *step[1:]])
        replies.append((proc.returncode, proc.stdout, proc.stderr))
    proc = run_lits(["match", "post", str(folder), "--json"])
    replies.append((proc.returncode, proc.stdout, proc.stderr))
    return folder, replies


def test_every_step_answers_and_exits_as_the_rules_say(played: tuple[Path, list[tuple[int, str, str]]]) -> None:
    _folder, replies = played
    code, out, err = replies[0]
    assert code == 0, err
    assert "Al (O) vs Bo (X) on Tiny (6x6); Al (O) places first" in out
    for (step, want_code, words), (got_code, out, err) in zip(STEPS, replies[1:], strict=False):
        assert got_code == want_code, (step, out, err)
        assert words in out, (step, out)
        assert "Traceback" not in err


def test_refusals_name_the_rule_the_cell_or_who_is_to_move(played: tuple[Path, list[tuple[int, str, str]]]) -> None:
    _folder, replies = played
    wrong_player, malformed, illegal, late = replies[2][1], replies[4][1], replies[7][1], replies[11][1]
    assert wrong_player.startswith("Not counted (wrong-player): it is Bo (X)'s turn, not Al's")
    assert "Not counted (notation): 'e1f1d2' is not a placement: E1 F1 D2: 3 cells given" in malformed
    assert "Not counted (occupied): D1 D2 D3 D4 covers D2, already covered by the S at E1 F1 D2 E2" in illegal
    assert "Not counted (window-closed)" in late and "move 4 was posted at 14:02:30" in late
    # the clock line after a refusal: the same player still to move, the turn time running on
    assert "Al (X) to move - turn 0:40, bank 5:00 | Bo (O): bank 5:00" in malformed


def test_the_journal_records_every_post_and_which_counted(played: tuple[Path, list[tuple[int, str, str]]]) -> None:
    folder, _replies = played
    events = journal_events(folder)
    assert [e["seq"] for e in events] == list(range(1, 15))
    assert [e["event"] for e in events] == ["start", "move", "move", "move", "move", "move", "correct", "move",
                                            "move", "pause", "resume", "correct", "move", "end"]
    posts = [e for e in events if e["event"] in ("move", "correct")]
    assert [(e["player"], e["counted"], e["action"]) for e in posts] == [
        ("Al", True, "A2 B2 C2 C3"), ("Al", False, None), ("Bo", True, "swap"), ("Al", False, None),
        ("Al", True, "C1 D1 E1 F1"), ("Al", True, "E1 F1 D2 E2"), ("Bo", False, "D1 D2 D3 D4"),
        ("Bo", True, "E3 D4 E4 E5"), ("Bo", False, None), ("Al", True, "C6 D6 E6 F6")]
    assert [p["refused"]["rule"] for p in posts if not p["counted"]] == ["wrong-player", "notation", "occupied",
                                                                        "window-closed"]
    correction = events[6]
    assert correction["replaces"] == "C1 D1 E1 F1" and correction["ply"] == 3 and correction["piece"] == "S"
    assert events[1]["at"] == "2026-05-02T14:00:20+00:00" and events[1]["text"] == "a2,b2,c2,c3"
    assert events[-1]["result"] == {"winner": "Al", "winner_symbol": "X", "loser": "Bo", "reason": "tie-rule",
                                    "score": {"O": 3, "X": 3}, "text": events[-1]["result"]["text"]}
    assert events[0]["board"]["rows"] == [".O..O.", ".XX...", "OX....", "....OX", "...OO.", ".X..X."]
    # each line carries the hash of the line before it
    lines = (folder / "journal.jsonl").read_bytes().split(b"\n")[:-1]
    for before, line in itertools.pairwise(lines):
        assert json.loads(line)["prev"] == hashlib.sha256(before).hexdigest()
    assert (folder / "journal.check").read_text() == f"14 {hashlib.sha256(lines[-1]).hexdigest()}\n"


def test_the_final_record_replays_to_the_same_result(played: tuple[Path, list[tuple[int, str, str]]]) -> None:
    folder, _replies = played
    record = (folder / "record.txt").read_text(encoding="utf-8")
    moves = [line for line in record.splitlines() if line and not line.startswith("#")]
    assert moves == FINAL_RECORD_MOVES
    assert "# Result: Al (X) wins by the tie rule: 3 to 3" in record
    proc = run_lits(["replay", str(folder / "board.yaml"), str(folder / "record.txt"), "--json"])
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] and report["over"] and report["swapped"]
    assert (report["winner"], report["result_reason"], report["score"]) == ("X", "tie-rule", {"O": 3, "X": 3})


def test_the_post_has_the_move_the_result_and_a_picture(played: tuple[Path, list[tuple[int, str, str]]]) -> None:
    _folder, replies = played
    code, out, err = replies[-1]
    assert code == 0, err
    report = json.loads(out)
    text = report["text"]
    assert text.splitlines()[:3] == [
        "Move 5 | Al (X) | C6 D6 E6 F6 | I piece | covers X E6",
        "Result: Al (X) wins by the tie rule: 3 to 3 in visible symbols (no legal placement is left after 4 "
        "placements), and the tie goes to the last placement, made by X.",
        "Score (visible symbols): O 3 (Bo), X 3 (Al)"]
    assert "6 . X I I I I" in text and "2 l l l s s ." in text
    assert len(text) < 2000
    assert Path(report["text_file"]).read_text(encoding="utf-8") == text + "\n"
    png = Path(report["picture"]).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (800, 800)


def test_a_bank_that_runs_out_ends_the_match(tmp_path: Path) -> None:
    board = write_board(tmp_path, turn=10, bank=20, name="Quick")
    folder = tmp_path / "quick"
    assert run_lits(["match", "start", str(board), "--o", "Al", "--x", "Bo", "--dir", str(folder), "--at",
                     START]).returncode == 0
    assert run_lits(["match", "move", str(folder), "A2 B2 C2 C3", "--at", "14:00:05"]).returncode == 0
    # Bo's turn runs from 14:00:05: 10 s of turn time, then the 20 s bank, empty at 14:00:35
    status = run_lits(["match", "status", str(folder), "--at", "14:00:36"])
    assert status.returncode == 0
    assert "Bo (X)'s bank ran out at 14:00:35: the next command records the loss on time" in status.stdout
    assert len(journal_events(folder)) == 2, "status only reads"
    late = run_lits(["match", "move", str(folder), "E1 F1 D2 E2", "--by", "Bo", "--at", "14:00:40", "--yes"])
    assert late.returncode == 1
    assert "Time: Bo's turn time and bank ran out at 14:00:35." in late.stdout
    assert "Not counted (decided): the match is decided: Al (O) wins on time" in late.stdout
    end = run_lits(["match", "end", str(folder), "--at", "14:00:50", "--json"])
    assert end.returncode == 0
    events = journal_events(folder)
    assert [(e["event"], e["at"][11:19]) for e in events] == [
        ("start", "14:00:00"), ("move", "14:00:05"), ("timeout", "14:00:35"), ("move", "14:00:40"),
        ("end", "14:00:50")]
    assert events[2]["player"] == "Bo" and events[3]["counted"] is False
    assert events[-1]["result"]["reason"] == "time" and events[-1]["result"]["winner"] == "Al"
    assert "# Result: Al (O) wins on time: Bo (X) used up the turn time and the bank at 14:00:35." in \
        (folder / "record.txt").read_text(encoding="utf-8")


# -- bad arguments and files: exit 2 (in this process, to keep the suite quick) -----------------------------


@pytest.fixture
def started(tmp_path: Path) -> Path:
    board = write_board(tmp_path)
    folder = tmp_path / "m"
    assert main(["match", "start", str(board), "--o", "Al", "--x", "Bo", "--dir", str(folder), "--at", START]) == 0
    return folder


@pytest.mark.parametrize(("argv", "words"), [
    (["move", "{m}", "A2 B2 C2 C3", "--by", "Cy", "--at", "14:00:10"], "'Cy' does not play in this match"),
    (["move", "{m}", "A2 B2 C2 C3", "--at", "soon"], "'soon' is not a time"),
    (["move", "{m}", "A2 B2 C2 C3", "--at", "2026-05-02T13:59:00+00:00"], "is before the last event"),
    (["status", "{m}/nowhere"], "no such folder"),
    (["resign", "{m}", "Zed", "--at", "14:00:10"], "'Zed' does not play in this match"),
])
def test_bad_arguments_exit_2_and_write_nothing(started: Path, argv: list[str], words: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    before = (started / "journal.jsonl").read_bytes()
    assert main(["match", *[a.replace("{m}", str(started)) for a in argv]]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
    assert (started / "journal.jsonl").read_bytes() == before


def test_refused_host_commands_exit_1_and_write_nothing(started: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (started / "journal.jsonl").read_bytes()
    assert main(["match", "resume", str(started), "--at", "14:00:10"]) == 1
    assert main(["match", "end", str(started), "--at", "14:00:10"]) == 1
    assert main(["match", "correct", str(started), "A2 B2 C2 C3", "--at", "14:00:10"]) == 1
    out = capsys.readouterr().out
    assert "Refused: the match is not paused" in out
    assert "Refused: the game goes on (Al (O) to move)" in out
    assert "Not counted (nothing-to-correct)" in out
    journal = (started / "journal.jsonl").read_bytes()
    assert journal.startswith(before) and journal.count(b"\n") == 2  # only the post (a refused correction)


def test_a_second_start_in_the_same_folder_is_refused(started: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    before = (started / "journal.jsonl").read_bytes()
    assert main(["match", "start", str(write_board(tmp_path)), "--o", "A", "--x", "B", "--dir", str(started)]) == 1
    assert "already holds a match" in capsys.readouterr().err
    assert (started / "journal.jsonl").read_bytes() == before


def test_names_must_differ(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "start", str(write_board(tmp_path)), "--o", "Al", "--x", "al", "--dir",
                 str(tmp_path / "m")]) == 2
    assert "both players are called 'Al'" in capsys.readouterr().err
    assert not (tmp_path / "m").exists()


# -- a sealed board: the reveal is the journal's first event ---------------------------------------------------


def test_a_sealed_board_is_checked_and_its_reveal_journaled(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    board = write_board(tmp_path)
    season = tmp_path / "season"
    assert main(["seal", str(board), "--season", "s1", "--out", str(season)]) == 0
    sealed, sums = season / "dm1.lits-sealed", season / "SHA256SUMS"
    capsys.readouterr()
    assert main(["match", "start", str(sealed), "--o", "Al", "--x", "Bo", "--dir", str(tmp_path / "no-key")]) == 2
    assert "needs its published digest" in capsys.readouterr().err
    assert main(["match", "start", str(sealed), "--o", "Al", "--x", "Bo", "--dir", str(tmp_path / "wrong"),
                 "--digest", "0" * 64]) == 1
    assert "NOT the committed one" in capsys.readouterr().err
    assert not (tmp_path / "wrong").exists()
    folder = tmp_path / "m"
    assert main(["match", "start", str(sealed), "--o", "Al", "--x", "Bo", "--dir", str(folder), "--sums",
                 str(sums), "--at", START]) == 0
    digest = hashlib.sha256(sealed.read_bytes()).hexdigest()
    assert f"checked against SHA256SUMS: SHA-256 {digest}" in capsys.readouterr().out
    first = journal_events(folder)[0]
    assert first["source"]["sha256"] == digest and first["source"]["checked_with"] == "SHA256SUMS"
    assert first["source"]["sealed"] == sealed.read_text(encoding="ascii")
    assert first["board"]["rows"] == [".O..O.", ".XX...", "OX....", "....OX", "...OO.", ".X..X."]
    assert main(["match", "move", str(folder), "A2 B2 C2 C3", "--at", "14:00:10"]) == 0


def test_a_board_that_cannot_be_played_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = tmp_path / "broken.yaml"
    board.write_text(write_board(tmp_path).read_text().replace('"OX...."', '"OO...."'), encoding="utf-8")
    assert main(["match", "start", str(board), "--o", "Al", "--x", "Bo", "--dir", str(tmp_path / "m")]) == 1
    assert "this board cannot be played in a match" in capsys.readouterr().err
    assert not (tmp_path / "m").exists()


def test_json_replies_carry_the_journaled_events_and_the_status(started: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "move", str(started), "A2-B2-C2-C3", "--at", "14:00:20", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True
    assert [(e["event"], e["action"], e["piece"]) for e in report["events"]] == [("move", "A2 B2 C2 C3", "L")]
    status = report["status"]
    assert status["to_move"] == "Bo" and status["players"] == {"O": "Al", "X": "Bo"}
    assert status["clocks"]["Bo"] == {"turn": 60.0, "bank": 300.0, "running": True}
    assert status["moves"] == [{"ply": 1, "player": "Al", "action": "A2 B2 C2 C3", "piece": "L",
                                "at": "2026-05-02T14:00:20+00:00", "line": 2}]


def readme_match_example() -> list[list[str]]:
    """The README's `lits match` example, one argument list per line, its comments dropped."""
    import shlex

    from tests.paths import REPO

    text = (REPO / "README.md").read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines() if line.startswith("    lits match ")]
    return [shlex.split(line.split("  #")[0])[1:] for line in lines]


def test_the_readme_s_match_example_is_accepted_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A host copies the manual's commands: each must be counted (an example the rules refuse teaches the wrong
    thing)."""
    from tests.paths import REPO

    example = readme_match_example()
    assert [args[1] for args in example] == ["start", "move", "swap", "move", "correct", "post", "end"]
    assert main(["seal", str(REPO / "boards" / "default.yaml"), "--season", "readme", "--out", str(tmp_path)]) == 0
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    for args in example[:-1]:  # `end` closes a decided match, which four moves do not make
        assert main(args) == 0, (args, capsys.readouterr())
        out = capsys.readouterr().out
        assert "Not counted" not in out, (args, out)
    events = journal_events(tmp_path / "dm1-match")
    played = [(e["event"], e["action"], e["counted"]) for e in events if e["event"] in ("move", "correct")]
    assert played == [("move", "F6 G6 E7 F7", True), ("move", "swap", True), ("move", "F8 G8 H8 G9", True),
                      ("correct", "D7 C8 D8 D9", True)]


def test_folders_a_match_must_not_use_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A board file where the match folder belongs, the season's secret folder as a match folder, a journal copied
    without its check file: each refused with what it is and, for a journal, the way on."""
    board = write_board(tmp_path)
    assert main(["match", "status", str(board)]) == 2
    assert f"{board}: is a file, not a match folder" in capsys.readouterr().err
    season = tmp_path / "season"
    season.mkdir()
    (season / "PRIVATE-slots.txt").write_text("dm1 default.yaml\n", encoding="utf-8")
    assert main(["match", "start", str(board), "--o", "Al", "--x", "Bo", "--dir", str(season), "--at", START]) == 1
    assert "this is a season's secret folder (it holds PRIVATE-slots.txt)" in capsys.readouterr().err
    assert sorted(p.name for p in season.iterdir()) == ["PRIVATE-slots.txt"]
    folder = tmp_path / "m"
    assert main(["match", "start", str(board), "--o", "Al", "--x", "Bo", "--dir", str(folder), "--at", START]) == 0
    assert main(["match", "move", str(folder), STEPS[0][0][1], *STEPS[0][0][2:]]) == STEPS[0][1]
    (folder / "journal.check").unlink()
    capsys.readouterr()
    assert main(["match", "status", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "journal.check: is missing: it is rewritten beside journal.jsonl after every event" in err
    assert "start the match again in a new folder and enter the game room's posts in order" in err


def test_a_post_after_the_match_was_decided_is_shown_without_a_question_mark(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = write_board(tmp_path)
    folder = tmp_path / "m"
    assert main(["match", "start", str(board), "--o", "Al", "--x", "Bo", "--dir", str(folder), "--at", START]) == 0
    late = "14:30:00"  # the first player's turn time and bank ran out long before
    assert main(["match", "move", str(folder), STEPS[0][0][1], "--at", late, "--yes"]) == 1
    capsys.readouterr()
    assert main(["match", "status", str(folder), "--at", late]) == 0
    out = capsys.readouterr().out
    assert f"Last post not counted: a post {STEPS[0][0][1]!r} (decided)" in out, out
    assert "?" not in out


def test_a_match_never_overwrites_files_it_did_not_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A folder of the host's own boards given as the match folder: its board.yaml would be replaced by the
    match's copy without a word; a folder whose journal went missing would get a new match over the old check."""
    board = write_board(tmp_path)
    mine = tmp_path / "my-boards"
    mine.mkdir()
    (mine / "board.yaml").write_text("my secret board\n", encoding="utf-8")
    (mine / "notes.txt").write_text("ideas\n", encoding="utf-8")
    assert main(["match", "start", str(board), "--o", "Al", "--x", "Bo", "--dir", str(mine), "--at", START]) == 1
    err = capsys.readouterr().err
    assert f"{mine}: already holds board.yaml, which a match started here would overwrite" in err
    assert (mine / "board.yaml").read_text(encoding="utf-8") == "my secret board\n"
    assert sorted(p.name for p in mine.iterdir()) == ["board.yaml", "notes.txt"]
    lost = tmp_path / "dm1-match"
    assert main(["match", "start", str(board), "--o", "Al", "--x", "Bo", "--dir", str(lost), "--at", START]) == 0
    (lost / "journal.jsonl").unlink()
    for name in ("board.yaml", "record.txt"):
        (lost / name).unlink()
    capsys.readouterr()
    assert main(["match", "start", str(board), "--o", "Al", "--x", "Bo", "--dir", str(lost), "--at", START]) == 1
    assert "holds journal.check but no journal.jsonl: the journal of a match played here is missing" in \
        capsys.readouterr().err
    ready = tmp_path / "dm2-match"  # the sealed file and its sums put there first: a match starts beside them
    ready.mkdir()
    (ready / "dm2.lits-sealed").write_text("x\n", encoding="utf-8")
    assert main(["match", "start", str(board), "--o", "Al", "--x", "Bo", "--dir", str(ready), "--at", START]) == 0
