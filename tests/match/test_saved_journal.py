"""A journal saved from the code as it stood before the match events were typed (every kind of event: posts counted
and refused, a chat line, the swap, a correction, pause and resume, a loss on time and a move taken back with
undo, a resignation, the end) still opens, re-judges to the very same bytes, and gives the same record and status.
Any later change to how events are held in memory must keep this test as it is."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from core.cli.match import status_dict
from core.match.host import Match
from core.match.journal import GENESIS, encode, line_digest

DATA = Path(__file__).parent / "data" / "journal-v1"
OLDER = [Path(__file__).parent / "data" / name for name in ("journal-f2c02a3", "journal-f2c02a3-time",
                                                             "journal-e75d33d")]
"""Journals written by the code before undo, chat lines and the pure rules (commit f2c02a3), and one by the code at
e75d33d with every refusal a correction can get, a post while paused, a post after the game is over, a correction
of the swap and an undo of two commands."""


def replayed(tmp_path: Path, data: Path) -> tuple[Match, bytes]:
    """Open a copy of a saved journal and check that every event is judged to the very bytes of its line, the record
    and the status to the saved ones; the match and the journal's bytes."""
    folder = tmp_path / "m"
    folder.mkdir()
    for name in ("journal.jsonl", "journal.check"):
        shutil.copy(data / name, folder / name)
    raw = (folder / "journal.jsonl").read_bytes()
    match = Match.open(folder)
    prev = GENESIS
    for (seq, judged), line in zip(match.session.events, raw.split(b"\n")[:-1], strict=True):
        assert encode(seq, judged, prev) == line, f"line {seq} is judged to other bytes"
        prev = line_digest(line)
    assert match.record_text() == (data / "record.txt").read_text(encoding="utf-8")
    saved = json.loads((data / "status.json").read_text(encoding="utf-8"))
    assert json.loads(json.dumps(status_dict(match.session, None))) == saved
    return match, raw


def test_a_saved_journal_replays_identically(tmp_path: Path) -> None:
    match, raw = replayed(tmp_path, DATA)
    session = match.session
    assert len(session.events) == len(raw.split(b"\n")[:-1]) == 18
    assert (tmp_path / "m" / "journal.jsonl").read_bytes() == raw, "opening writes nothing"
    assert session.undone == {12, 13, 15} and session.ended is not None


@pytest.mark.parametrize("data", OLDER, ids=lambda p: p.name)
def test_older_journals_still_replay_identically(tmp_path: Path, data: Path) -> None:
    replayed(tmp_path, data)
