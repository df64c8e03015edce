"""Match events as records: the journal's one reader and one writer give back every saved line byte for byte, a line
that is not an event as the journal writes it is refused naming the file, the line and the field, and the one table
of words says every saved event as the command line, the Host window's journal list and a rebuild always said it."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from core.engine.rules import Rule
from core.match.events import (
    Correct,
    EventError,
    Judged,
    MatchRule,
    Move,
    Refusal,
    Undo,
    event_fields,
    read_event,
)
from core.match.host import Match
from core.match.journal import GENESIS, Journal, JournalError, encode, line_digest
from core.match.words import log_line, reply, status_refused, summary
from tests.match.script import STEPS, play, write_board

DATA = Path(__file__).parent / "data"
SAVED = ["journal-f2c02a3", "journal-f2c02a3-time", "journal-v1", "journal-e75d33d"]
"""Journals written by earlier code (the commit in the name; journal-v1 by the code before the records)."""


def _copy(name: str, tmp_path: Path) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    for file in ("journal.jsonl", "journal.check"):
        shutil.copy(DATA / name / file, folder / file)
    return folder


@pytest.mark.parametrize("name", SAVED)
def test_every_saved_line_is_read_into_a_record_and_written_back_to_the_same_bytes(tmp_path: Path, name: str) -> None:
    raw = (DATA / name / "journal.jsonl").read_bytes().split(b"\n")[:-1]
    entries = Journal(_copy(name, tmp_path)).read()
    assert len(entries) == len(raw)
    prev = GENESIS
    for entry, line in zip(entries, raw, strict=True):
        assert encode(entry.seq, entry.event, prev) == line, f"line {entry.seq} is written back otherwise"
        prev = line_digest(line)


@pytest.mark.parametrize("name", SAVED)
def test_the_words_of_every_saved_event_are_as_they_were(tmp_path: Path, name: str) -> None:
    """The reply, the journal-list line and the summary of every line, as the code before the table gave them."""
    said = json.loads((DATA / "words-e75d33d.json").read_text(encoding="utf-8"))[name]
    session = Match.open(_copy(name, tmp_path)).session
    assert len(said) == len(session.events)
    for (seq, event), words in zip(session.events, said, strict=True):
        assert seq == words["line"]
        if seq > 1:
            assert reply(event, session) == words["reply"], seq
        assert log_line(event) == words["log"], seq
        assert summary(event) == words["summary"], seq


def test_a_post_without_a_player_is_named_in_the_journal_list_and_the_status() -> None:
    late = Move("2026-05-02T14:30:00+00:00", "a2 b2 c2 c3", None,
                judged=Judged(None, None, None, None, (), Refusal(MatchRule.DECIDED, "the match is decided")))
    assert log_line(late) == "14:30:00  a post after the match was decided: post 'a2 b2 c2 c3' not counted (decided)"
    assert log_line(Move(late.at, late.text, "Bo", judged=late.judged)).startswith("14:30:00  Bo: post")
    assert status_refused(late) == "Last post not counted: a post 'a2 b2 c2 c3' (decided)"


def test_the_records_hold_the_enums_and_an_input_post_reads_and_writes_as_entered() -> None:
    refused = read_event({"event": "move", "at": "2026-05-02T14:02:20+00:00", "text": "D1 D2 D3 D4", "by": "Bo",
                          "player": "Bo", "counted": False, "ply": None, "action": "D1 D2 D3 D4", "piece": "I",
                          "covers": [], "refused": {"rule": "occupied", "message": "m", "cells": ["D2"]}})
    assert isinstance(refused, Move) and refused.refusal == Refusal(Rule.OCCUPIED, "m", ("D2",))
    assert not refused.counted
    entered = {"event": "correct", "at": "2026-05-02T14:02:00+00:00", "text": "E1 F1 D2 E2",
               "posted": "oops, meant e1 f1 d2 e2", "by": "Al"}
    post = read_event(entered)
    assert isinstance(post, Correct) and post.judged is None and event_fields(post) == entered
    undo = read_event({"event": "undo", "at": "2026-05-02T14:12:10+00:00", "count": 2})
    assert undo == Undo("2026-05-02T14:12:10+00:00", 2)


@pytest.mark.parametrize(("field", "value", "words"), [
    ("by", 5, "a move event's 'by' is 5, not text or null"),
    ("colour", "red", "unexpected field(s) colour in a move event"),
    ("refused", {"rule": "too-far", "message": "m", "cells": []}, "'too-far' is not a rule"),
    ("counted", True, "a move event that is counted names a refusal"),
    ("covers", "X B2", "a move event's 'covers' is 'X B2', not a list of text"),
])
def test_a_line_that_is_not_an_event_as_written_names_the_file_line_and_field(tmp_path: Path, field: str,
                                                                               value: object, words: str) -> None:
    """Even with its hash chain and check file rewritten, the line is refused by name before anything is judged."""
    folder = tmp_path / "m"
    play(folder, write_board(tmp_path), STEPS[:2])  # line 3: Al's post refused as the wrong player's
    path = folder / "journal.jsonl"
    objects = [json.loads(line) for line in path.read_bytes().split(b"\n")[:-1]]
    objects[2][field] = value
    prev, out = GENESIS, []
    for obj in objects:
        obj["prev"] = prev
        raw = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()
        prev = hashlib.sha256(raw).hexdigest()
        out.append(raw)
    path.write_bytes(b"".join(line + b"\n" for line in out))
    (folder / "journal.check").write_text(f"{len(out)} {prev}\n", encoding="utf-8")
    with pytest.raises(JournalError) as info:
        Match.open(folder)
    assert str(info.value) == f"{path}: line 3: does not fit the match: {words}"


def test_an_unknown_kind_and_a_start_that_cannot_be_read_are_said() -> None:
    with pytest.raises(EventError, match="unknown event 'teleport'"):
        read_event({"event": "teleport", "at": "2026-05-02T14:30:00+00:00"})
    with pytest.raises(EventError, match="a start event needs its 'board'"):
        read_event({"event": "start", "format": "lits-match-journal", "version": 1, "at": "x", "o": "Al", "x": "Bo",
                    "correction_window": 120})
    with pytest.raises(EventError, match="the board's source cannot be read"):
        read_event({"event": "start", "format": "lits-match-journal", "version": 1, "at": "x", "o": "Al", "x": "Bo",
                    "correction_window": 120, "source": {"file": 3},
                    "board": {"name": "", "size": 1, "rows": ["."], "first": "O", "pie": True, "supply": {},
                              "turn": 1, "bank": 1}})

