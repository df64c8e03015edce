"""A full disk at every write of every command: the answer says whether the event counted, and the folder stays
one that every later command opens (an event counts only when its journal line and check file are both on disk).

The real test mounts a small tmpfs (root only; skipped elsewhere) and leaves exactly k free pages for k = 0, 1, 2,
... so that each write of a command in turn is the one that fails.  The tests without a mount make the check
file's write fail, and cut an append short, by hand.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.cli import main
from core.match.host import Match
from core.match.journal import JournalError
from tests.match.script import START, STEPS, play, resume, write_board

PAGE = 4096
MOVE, SWAP, CORRECT, END = 0, 2, 5, 12
"""Indices in STEPS of a counted move, the swap, a counted correction and the end."""


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("reference")
    play(root / "m", write_board(root))
    return root / "m"


@pytest.fixture(scope="module")
def disk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A 512 KiB tmpfs, or a skip where this account may not mount one."""
    point = tmp_path_factory.mktemp("disk")
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a small full filesystem needs root to mount a tmpfs")
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(point)], capture_output=True,
                          text=True, check=False)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", str(point)], check=False)


@contextlib.contextmanager
def full(disk: Path, pages: int) -> Iterator[None]:
    """The disk filled up to ``pages`` free pages while inside; freed again after."""
    filler = disk / "filler"
    stat = os.statvfs(disk)
    free = stat.f_bavail * stat.f_frsize
    assert free >= pages * PAGE
    filler.write_bytes(b"\0" * (free - pages * PAGE))
    try:
        yield
    finally:
        filler.unlink()


def journal_bytes(folder: Path) -> bytes:
    return (folder / "journal.jsonl").read_bytes()


def run(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str]:
    code = main(args)
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out + out.err


def prepared(disk: Path, steps_done: int) -> Path:
    """A match folder on the small disk holding the first ``steps_done`` steps (and no litter of earlier cases)."""
    root = disk / uuid.uuid4().hex[:8]
    root.mkdir()
    play(root / "m", write_board(root), STEPS[:steps_done])
    return root / "m"


@pytest.mark.parametrize("index", [MOVE, SWAP, CORRECT, END])
def test_a_full_disk_at_each_write_of_an_event_answers_honestly_and_the_match_goes_on(
        disk: Path, reference: Path, capsys: pytest.CaptureFixture[str], index: int) -> None:
    step = STEPS[index][0]
    outcomes = []
    for pages in range(6):
        folder = prepared(disk, index)
        before = journal_bytes(folder)
        with full(disk, pages):
            code, said = run(capsys, ["match", step[0], str(folder), *step[1:]])
        after = journal_bytes(folder)
        match = Match.open(folder)  # every later command opens the folder
        if code == 0:
            assert "Not counted" not in said and len(match.journal.entries) == index + 2
            assert after.startswith(before) and after != before
        else:
            assert code == 5, said
            assert "Not counted" in said and "the disk is full" in said, said
            assert after == before, "a write that failed leaves the journal as it was"
            assert len(match.journal.entries) == index + 1
        assert not list(folder.glob(".*.tmp"))
        outcomes.append(code)
        resume(match)  # the rest of the match, with space again: the same match as without the full disk
        assert journal_bytes(folder) == journal_bytes(reference)
        assert (folder / "record.txt").read_text() == (reference / "record.txt").read_text()
        shutil.rmtree(folder.parent)
        if code == 0 and "could not be rewritten" not in said:
            break
    assert outcomes[0] == 5 and outcomes[-1] == 0, outcomes


def test_a_full_disk_at_each_write_of_a_start_leaves_a_folder_a_start_can_use(
        disk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = write_board(disk)
    outcomes = []
    for pages in range(8):
        folder = disk / f"start{pages}"
        args = ["match", "start", str(board), "--o", "Al", "--x", "Bo", "--dir", str(folder), "--at", START]
        with full(disk, pages):
            code, said = run(capsys, args)
        outcomes.append(code)
        if code == 0:
            break
        assert code == 5 and "the disk is full" in said, said
        assert sorted(p.name for p in folder.iterdir() if p.name != ".journal.lock") == []
        code, said = run(capsys, args)  # with space again the same start works
        assert code == 0, said
        assert len(Match.open(folder).journal.entries) == 1
    assert outcomes[0] == 5 and outcomes[-1] == 0, outcomes


def test_a_full_disk_when_writing_a_post_says_so_and_changes_no_event(
        disk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = prepared(disk, 3)
    before = journal_bytes(folder)
    with full(disk, 0):
        code, said = run(capsys, ["match", "post", str(folder), "--no-picture"])
    assert code == 5 and "the disk is full" in said
    assert journal_bytes(folder) == before
    code, said = run(capsys, ["match", "post", str(folder), "--no-picture"])
    assert code == 0, said


# -- without a mount ---------------------------------------------------------------------------------------


def test_a_check_file_that_cannot_be_written_leaves_the_journal_as_before(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "m"
    play(folder, write_board(tmp_path), STEPS[:2])
    before = journal_bytes(folder)
    check = (folder / "journal.check").read_bytes()

    def no_space(path: object, text: str) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr("core.match.journal.atomic_write_text", no_space)
    code, said = run(capsys, ["match", *STEPS[2][0][:1], str(folder), *STEPS[2][0][1:]])
    assert code == 5 and "lits match: Not counted" in said and "The journal is as it was before" in said, said
    assert journal_bytes(folder) == before and (folder / "journal.check").read_bytes() == check
    monkeypatch.undo()
    code, said = run(capsys, ["match", *STEPS[2][0][:1], str(folder), *STEPS[2][0][1:]])
    assert code == 0 and "move 2: Bo swaps" in said, said  # the same post counts when run again


def test_an_append_without_its_check_file_did_not_count_and_is_cut_away_with_a_note(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: Path) -> None:
    folder = tmp_path / "m"
    play(folder, write_board(tmp_path), STEPS[:5])
    check = (folder / "journal.check").read_bytes()
    resume(Match.open(folder), STEPS[:6])  # the sixth event is written...
    (folder / "journal.check").write_bytes(check)  # ...but its command stopped before the check file
    code, said = run(capsys, ["match", "status", str(folder)])
    assert code == 0 and "line 7 (correct e1 F1 d2 E2" in said and "never counted" in said, said
    assert "cuts it away" in said
    assert len(Match.open(folder).journal.entries) == 6
    step = STEPS[5][0]
    code, said = run(capsys, ["match", step[0], str(folder), *step[1:]])
    assert code == 0 and "Corrected: move 3" in said and "it was cut away" in said, said
    resume(Match.open(folder))
    assert journal_bytes(folder) == journal_bytes(reference)


def test_two_lines_beyond_the_check_file_are_still_refused(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    play(folder, write_board(tmp_path), STEPS[:3])
    check = (folder / "journal.check").read_bytes()
    resume(Match.open(folder), STEPS[:5])
    (folder / "journal.check").write_bytes(check)
    with pytest.raises(JournalError, match=r"was added after journal\.check was written"):
        Match.open(folder)
