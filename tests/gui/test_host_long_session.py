"""The Host window through a long match evening: tens of thousands of clock ticks and judged pastes leave its
memory and its widgets where they were (a leak per tick would show after minutes, not in a single step)."""

from __future__ import annotations

import gc
import tracemalloc
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QCoreApplication, QEvent, QObject

from core.board.boardfile import load_board
from core.match.host import Match
from core.match.times import parse_iso
from designer.host.window import HostWindow
from tests.match.script import START, write_board

pytestmark = pytest.mark.gui

TICKS = 20_000
"""At the window's 200-ms tick, a bit over an hour of a live match."""
PASTES = ("a2 b2 c2 c3", "A2 B2 C2", "D1 D2 D3 D4", "")
"""A move that counts, a malformed one, one the rules refuse, and an emptied box."""


def test_clock_ticks_and_judged_pastes_do_not_grow(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    Match.create(tmp_path / "m", load_board(write_board(tmp_path)), "Al", "Bo", START)
    now = [parse_iso("2026-05-02T14:00:00+00:00")[0]]
    window = HostWindow(Match.open(tmp_path / "m"), clock=lambda: now[0], tick_ms=3_600_000, draw_pictures=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)

    def evening(rounds: int) -> None:
        for i in range(rounds):
            now[0] += 200
            window._on_timer()
            if i % 8 == 0:
                window.paste_edit.setText(PASTES[(i // 8) % len(PASTES)])  # judged as typed (textChanged)
            if i % 500 == 0:
                qtbot.wait(1)  # let queued repaints and deleteLater run, as the event loop would

    def settled_children() -> Counter[str]:
        """The window's QObjects by class, once posted events and deferred deletions have run."""
        qtbot.wait(20)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        gc.collect()
        return Counter(child.metaObject().className() for child in window.findChildren(QObject))

    evening(2_000)  # caches, fonts, first layouts
    children = settled_children()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    evening(TICKS)
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    assert grown < 256 * 1024, [str(s) for s in after.compare_to(before, "lineno")[:5]]
    # A leak per tick or per paste would add thousands; Qt may keep one transient helper of its own (a style
    # animation, a text control) alive at either count on a loaded machine, so a difference of two is allowed.
    grown_children = settled_children() - children
    assert sum(grown_children.values()) <= 2, grown_children
    assert "Bo (X)" in window.clock_labels[1].text() and window.verdict_label.text() == ""
