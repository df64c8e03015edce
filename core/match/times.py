"""Times of a match: what the host types (``14:03:27`` or full ISO 8601) as instants in milliseconds.

The clock counts in whole milliseconds so that a bank runs out at an exact instant: float seconds since 1970
would lose the last microseconds and a bank could end a hair above zero.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta, tzinfo

_TIME_OF_DAY_RE = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.(\d{1,3}))?)?$")
HALF_DAY_MS = 12 * 3600 * 1000
AN_HOUR_MS = 3600 * 1000
PAST_MIDNIGHT_MS = AN_HOUR_MS
"""A bare time of day taken as the next day must lie within this of the last event (a match running past
midnight); further on it is refused.  Why: "08:05" typed for 20:05 (a 12-hour clock, a dropped digit) would be read
as the next morning, and the hours in between would empty a bank: a loss on time the journal can never take back."""


class TimeError(ValueError):
    """A time the host typed that cannot be used; the message says why and what to type."""


def local_zone() -> tzinfo:
    """This machine's time zone (the one the host reads post times in)."""
    zone = datetime.now().astimezone().tzinfo
    assert zone is not None
    return zone


def to_ms(moment: datetime) -> int:
    return round(moment.timestamp() * 1000)


def from_ms(ms: int, zone: tzinfo) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=zone)


def iso(ms: int, zone: tzinfo) -> str:
    """ISO 8601 with the zone's offset; milliseconds only when there are any."""
    return from_ms(ms, zone).isoformat(timespec="milliseconds" if ms % 1000 else "seconds")


def parse_iso(text: str) -> tuple[int, tzinfo]:
    """An instant written by :func:`iso` (or any ISO 8601 with an offset): milliseconds and its zone."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise TimeError(f"{text!r} has no UTC offset")
    return to_ms(moment), moment.tzinfo


def clock_text(ms: int, zone: tzinfo) -> str:
    """``14:03:27`` as a post shows it."""
    return from_ms(ms, zone).strftime("%H:%M:%S")


def _duration(ms: int) -> str:
    """``11 h 53 min`` (whole minutes)."""
    minutes = ms // 60_000
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"


def span_text(ms: int) -> str:
    """``41 s``, ``5 min 49 s``, ``1 h 0 min``: a stretch of time as a host says it."""
    seconds = ms // 1000
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return _duration(ms)


def now_ms() -> int:
    return round(time.time() * 1000)


def parse_when(text: str | None, after: tuple[int, tzinfo] | None = None) -> tuple[int, tzinfo]:
    """The instant the host means: ``None`` is now; ``14:03:27`` is that time on the day of ``after`` (the last
    event), or the next day when that would lie more than 12 hours before it and at most an hour after it (a match
    that runs past midnight; further on, TimeError asks for the date, see :data:`PAST_MIDNIGHT_MS`); a full ISO 8601
    time without an offset is in this machine's zone.
    """
    if text is None:
        zone = after[1] if after is not None else local_zone()
        return now_ms(), zone
    raw = text.strip()
    match = _TIME_OF_DAY_RE.match(raw)
    if match is not None:
        hours, minutes, seconds, fraction = match.groups()
        zone = after[1] if after is not None else local_zone()
        day = from_ms(after[0], zone) if after is not None else datetime.now(zone)
        moment = day.replace(hour=int(hours), minute=int(minutes), second=int(seconds or 0),
                             microsecond=int((fraction or "0").ljust(3, "0")) * 1000)
        ms = to_ms(moment)
        if after is not None and ms < after[0] - HALF_DAY_MS:
            ms = to_ms(moment + timedelta(days=1))
            if ms - after[0] > PAST_MIDNIGHT_MS:
                meant = from_ms(ms, zone)
                raise TimeError(
                    f"{raw} would be the next day ({meant.strftime('%Y-%m-%d %H:%M:%S')}), "
                    f"{_duration(ms - after[0])} after the last event at {clock_text(after[0], zone)}; if that is "
                    f"meant, give the date too: {meant.isoformat(timespec='seconds')}")
        return ms, zone
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        read_as = "today, this machine's zone" if after is None else "on the day of the last event, in its zone"
        raise TimeError(f"{text!r} is not a time: write the post's time as 14:03:27 ({read_as}) or in full as "
                        "2026-05-02T14:03:27+02:00") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=local_zone())
    return to_ms(moment), moment.tzinfo if moment.tzinfo is not None else UTC
