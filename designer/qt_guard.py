"""Refuse to run on a PySide6 build that corrupts ``None``'s reference count.

PySide6 6.12.0 drops one reference to ``None`` on every void-returning Qt call. On Python 3.12+ ``None`` is
immortal and nothing happens; on 3.11 the count reaches zero after a few seconds of painting and the process aborts
with ``none_dealloc``, losing the host's work. The guard names the fix at start-up instead. It checks the known-bad
releases and also probes the running build, so a bad build installed by hand is caught even if it is not listed.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

#: Releases known to leak references to ``None`` (checked on Python 3.11).
KNOWN_BAD: frozenset[tuple[int, ...]] = frozenset({(6, 12, 0)})
#: Void calls made by the probe; a leaking build loses exactly one reference per call.
PROBE_CALLS = 256
FIX_COMMAND = "python3 -m pip install \"PySide6-Essentials!=6.12.0\""


@dataclass(frozen=True)
class QtHealth:
    """Whether this PySide6 build is safe, and if not, the one-line explanation with the fix."""

    ok: bool
    message: str = ""


def parse_version(text: str) -> tuple[int, ...]:
    parts: list[int] = []
    for piece in text.split("."):
        digits = re.match(r"\d+", piece)
        if digits is None:
            break
        parts.append(int(digits.group()))
        if digits.end() < len(piece):  # "0a1": a pre-release tag ends the numeric part
            break
    return tuple(parts)


def none_is_mortal(python: tuple[int, int] | None = None) -> bool:
    """Python < 3.12 has a finite reference count on ``None`` (PEP 683 made it immortal)."""
    major_minor = python or (sys.version_info.major, sys.version_info.minor)
    return major_minor < (3, 12)


def known_bad(pyside_version: str, python: tuple[int, int] | None = None) -> bool:
    return none_is_mortal(python) and parse_version(pyside_version)[:3] in KNOWN_BAD


def probe_none_leak(calls: int = PROBE_CALLS) -> int:
    """References to ``None`` lost over ``calls`` void Qt calls (0 on a healthy build)."""
    from PySide6.QtCore import QObject

    obj = QObject()
    before = sys.getrefcount(None)
    for _ in range(calls):
        obj.setObjectName("probe")  # returns void
    after = sys.getrefcount(None)
    del obj
    return max(0, before - after)


def message_for(pyside_version: str) -> str:
    return (f"PySide6 {pyside_version} on Python {sys.version_info.major}.{sys.version_info.minor} "
            f"would crash the designer within seconds (a known Qt for Python bug). "
            f"Fix: {FIX_COMMAND}")


def check() -> QtHealth:
    """Known-bad release or a measured leak: either way the designer must not start."""
    import PySide6

    version = str(PySide6.__version__)
    if known_bad(version):
        return QtHealth(False, message_for(version))
    if none_is_mortal() and probe_none_leak() >= PROBE_CALLS // 2:
        return QtHealth(False, message_for(version))
    return QtHealth(True)
