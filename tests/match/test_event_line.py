"""``core.match.post.event_line``: one way of putting a journal event into words, for the CLI and the Host window."""

from __future__ import annotations

from core.match.post import event_line

TEMPLATES = {"resign": "{by} resigns at {clock}", "start": "{o} plays O, {x} plays X"}


def test_the_kind_picks_the_template_and_the_fields_fill_it() -> None:
    event = {"event": "resign", "at": "2026-12-01T14:03:27+01:00", "by": "Bo"}
    assert event_line(event, TEMPLATES, clock="0:42") == "Bo resigns at 0:42"


def test_extra_values_win_over_the_event_fields_of_the_same_name() -> None:
    event = {"event": "resign", "by": "Bo", "clock": "from the journal"}
    assert event_line(event, TEMPLATES, clock="0:42") == "Bo resigns at 0:42"


def test_a_missing_field_reads_as_none_like_event_get() -> None:
    assert event_line({"event": "start", "o": "Al"}, TEMPLATES) == "Al plays O, None plays X"


def test_a_kind_without_a_template_reads_as_the_kind_and_braces_in_values_stay_text() -> None:
    assert event_line({"event": "pause", "by": "x"}, TEMPLATES) == "pause"
    assert event_line({"event": "resign", "by": "{o}"}, TEMPLATES, clock="1:00") == "{o} resigns at 1:00"
    assert event_line({"at": "14:00"}, TEMPLATES) == "None"
