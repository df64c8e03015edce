"""The journal: a process killed between events loses nothing and resumes; a crash inside an append is
recovered (a line written without its check file: tests/match/test_full_disk.py); a truncated or hand-edited
journal is refused with its line named, never read as another game."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import main
from core.match.host import Match
from core.match.journal import JournalError
from tests.match.script import STEPS, play, resume, write_board
from tests.paths import REPO

LINES = len(STEPS) + 1


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole scripted match played without interruption."""
    root = tmp_path_factory.mktemp("reference")
    play(root / "m", write_board(root))
    return root


def fresh_copy(reference: Path, tmp_path: Path) -> Path:
    shutil.copytree(reference, tmp_path / "copy")
    return tmp_path / "copy" / "m"


def journal_lines(folder: Path) -> list[bytes]:
    return (folder / "journal.jsonl").read_bytes().split(b"\n")[:-1]


def refused_at(folder: Path) -> JournalError:
    with pytest.raises(JournalError) as info:
        Match.open(folder)
    return info.value


def test_the_reference_journal_is_complete(reference: Path) -> None:
    lines = journal_lines(reference / "m")
    assert len(lines) == LINES
    assert Match.open(reference / "m").session.ended is not None


# -- killed between events --------------------------------------------------------------------------------

CHILD = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from tests.match.script import play

def answered(number):
    print(number, flush=True)
    time.sleep(0.3)

play(Path(sys.argv[1]), Path(sys.argv[2]), on_step=answered)
"""


@pytest.mark.parametrize("killed_after", [1, 5, 9, 12])
def test_a_process_killed_between_events_resumes_with_nothing_lost(reference: Path, tmp_path: Path,
                                                                   killed_after: int) -> None:
    board = write_board(tmp_path)
    folder = tmp_path / "m"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(folder), str(board), str(REPO)],
                             stdout=subprocess.PIPE, text=True, env=env, cwd=REPO)
    assert child.stdout is not None
    answered = 0
    while answered < killed_after:
        line = child.stdout.readline()
        assert line, "the child stopped before it was killed"
        answered = int(line)
    child.kill()
    child.wait(timeout=60)
    child.stdout.close()
    match = Match.open(folder)  # resumes: nothing to repair by hand
    written = len(match.journal.entries) - 1
    assert written in (killed_after, killed_after + 1), "every answered event is in the journal"
    assert journal_lines(folder) == journal_lines(reference / "m")[:written + 1]
    resume(match)
    assert (folder / "journal.jsonl").read_bytes() == (reference / "m" / "journal.jsonl").read_bytes()
    assert (folder / "record.txt").read_text() == (reference / "m" / "record.txt").read_text()


def test_a_crash_inside_a_line_drops_the_unanswered_line(reference: Path, tmp_path: Path) -> None:
    folder = tmp_path / "m"
    play(folder, write_board(tmp_path), STEPS[:5])
    sixth = journal_lines(reference / "m")[6]
    with open(folder / "journal.jsonl", "ab") as handle:
        handle.write(sixth[: len(sixth) // 2])  # cut off before its line end: that command never answered
    match = Match.open(folder)
    assert len(match.journal.entries) == 6
    resume(match)
    assert (folder / "journal.jsonl").read_bytes() == (reference / "m" / "journal.jsonl").read_bytes()


# -- truncated and edited journals -------------------------------------------------------------------------


def test_a_journal_cut_inside_a_line_is_refused_naming_it(reference: Path, tmp_path: Path) -> None:
    folder = fresh_copy(reference, tmp_path)
    lines = journal_lines(folder)
    keep = sum(len(line) + 1 for line in lines[:5]) + 40  # 40 bytes into line 6
    path = folder / "journal.jsonl"
    path.write_bytes(path.read_bytes()[:keep])
    error = refused_at(folder)
    assert error.line == 6 and "is cut off" in str(error)


def test_a_journal_cut_at_a_line_end_is_refused_naming_the_missing_line(reference: Path, tmp_path: Path) -> None:
    folder = fresh_copy(reference, tmp_path)
    lines = journal_lines(folder)
    (folder / "journal.jsonl").write_bytes(b"".join(line + b"\n" for line in lines[:9]))
    error = refused_at(folder)
    assert error.line == 10
    assert f"is missing: journal.check records {LINES} lines but the journal ends after line 9" in str(error)


def test_an_edited_line_is_named_by_the_hash_the_next_line_carries(reference: Path, tmp_path: Path) -> None:
    folder = fresh_copy(reference, tmp_path)
    lines = journal_lines(folder)
    assert b'"counted":false' in lines[2]
    lines[2] = lines[2].replace(b'"counted":false', b'"counted":true')
    (folder / "journal.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
    error = refused_at(folder)
    assert error.line == 3 and "line 3 was changed after it was written" in str(error)


def test_an_edited_last_line_is_named_by_the_check_file(reference: Path, tmp_path: Path) -> None:
    folder = fresh_copy(reference, tmp_path)
    lines = journal_lines(folder)
    lines[-1] = lines[-1].replace(b"14:05:20", b"14:05:21")
    (folder / "journal.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
    error = refused_at(folder)
    assert error.line == LINES and "its hash differs from the one in journal.check" in str(error)


def test_a_removed_line_is_named(reference: Path, tmp_path: Path) -> None:
    folder = fresh_copy(reference, tmp_path)
    lines = journal_lines(folder)
    del lines[6]
    (folder / "journal.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
    error = refused_at(folder)
    assert error.line == 7 and "says it is line 8" in str(error)


def test_an_edit_with_every_hash_recomputed_is_caught_by_the_rules(reference: Path, tmp_path: Path) -> None:
    """Even a careful forger who rewrites the chain cannot make a refused move count: each line is re-judged."""
    folder = fresh_copy(reference, tmp_path)
    events = [json.loads(line) for line in journal_lines(folder)]
    wrong = events[7]  # Bo's D1 D2 D3 D4, refused because D2 is covered
    assert wrong["refused"]["rule"] == "occupied"
    wrong.update(counted=True, refused=None, piece="I", ply=4, covers=[])
    prev = "0" * 64
    out = []
    for event in events:
        event["prev"] = prev
        raw = json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode()
        prev = hashlib.sha256(raw).hexdigest()
        out.append(raw)
    (folder / "journal.jsonl").write_bytes(b"".join(line + b"\n" for line in out))
    (folder / "journal.check").write_text(f"{len(out)} {prev}\n")
    error = refused_at(folder)
    assert error.line == 8
    assert "says move D1 D2 D3 D4 by Bo counted but the rules judge it move 'D1 D2 D3 D4' refused (occupied)" \
        in str(error)


def test_the_command_line_refuses_a_damaged_journal_with_exit_2(reference: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    folder = fresh_copy(reference, tmp_path)
    path = folder / "journal.jsonl"
    path.write_bytes(path.read_bytes()[:-30])
    before = path.read_bytes()
    for argv in (["status", str(folder)], ["move", str(folder), "A1 A2 A3 A4"], ["post", str(folder)]):
        assert main(["match", *argv]) == 2
        err = capsys.readouterr().err
        assert f"{path}: line {LINES}: is cut off" in err and "Traceback" not in err
    assert path.read_bytes() == before, "a refused journal is never written to"
