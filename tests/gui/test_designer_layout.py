"""Layout and long sessions: the board gets the space first at 1000x700, the validation panel is no empty box,
and thousands of hover repaints and edits in one window do not keep growing memory."""

from __future__ import annotations

import gc
import os
import tracemalloc
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from core.board.model import Symbol
from designer.app import create_window
from designer.main_window import MainWindow

BROKEN = """grid:
  - "O....."
  - "......"
  - "..X..."
  - "......"
  - "......"
  - "...O.O"
"""


def shown_window(qtbot: QtBot, width: int, height: int) -> MainWindow:
    win = create_window(None)
    assert isinstance(win, MainWindow)
    qtbot.addWidget(win)
    win.resize(width, height)
    win.show()
    qtbot.waitExposed(win)
    qtbot.wait(50)
    return win


def test_the_board_gets_the_space_first_at_1000_by_700(qtbot: QtBot) -> None:
    """At 1000x700 the board comes first: with two docks beside it (the layout before commit b0c0061) it got 310 px."""
    win = shown_window(qtbot, 1000, 700)
    win.view.grab()
    geo = win.view.geometry_
    assert geo is not None
    print(f"cell size at 1000x700: {geo.cell:.1f} px, canvas {win.view.width()}x{win.view.height()}")
    assert geo.cell >= 40  # 22.8 with the two docks before commit b0c0061
    assert win.view.width() >= 0.55 * win.width()
    dock = win.validation_dock
    assert dock.width() <= 0.4 * win.width()
    assert win.tabifiedDockWidgets(dock)  # the three panels are tabs of one column
    assert {d.windowTitle() for d in [dock, *win.tabifiedDockWidgets(dock)]} == {"Validation", "Properties",
                                                                                 "Analysis"}


def test_the_validation_panel_is_no_empty_box(qtbot: QtBot, tmp_path: Path) -> None:
    win = shown_window(qtbot, 1000, 700)
    panel = win.validation
    assert win.document.board.is_antisymmetric()
    assert panel.list.isHidden() and panel.repair_all_button.isHidden()  # nothing to list: no box
    assert "valid" in panel.status.text() and win.valid_label.text().startswith("✔ valid")
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN)
    assert win.load_path(str(path))
    assert not panel.list.isHidden() and not panel.repair_all_button.isHidden()
    rows = sum(panel.list.row_height(i) for i in range(panel.list.count()))
    assert panel.list.height() <= rows + 40  # as tall as its rows, not the whole dock
    assert win.valid_label.text().startswith("✖ 3 broken pair")


def _rss_mib() -> float | None:
    try:
        with open(f"/proc/{os.getpid()}/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, AttributeError):
        return None


def test_a_long_session_does_not_keep_growing_memory(qtbot: QtBot) -> None:
    """Thousands of hover repaints and edits with undo in one window: the second half of the session must not
    allocate more than the first left behind (Python objects by tracemalloc, the process by its RSS)."""
    from designer import warmup

    win = shown_window(qtbot, 1000, 700)
    view, doc = win.view, win.document
    # The start-up warm-up imports the engine and matplotlib once; let it finish so only the session is measured.
    warmup.start(doc.board)
    qtbot.waitUntil(warmup.done.is_set, timeout=300_000)
    doc.new_board(12)
    centres = [view.cell_center(c).toPoint() for c in range(144)]

    def session(rounds: int) -> None:
        for i in range(rounds):
            QTest.mouseMove(view, centres[(i * 7) % 144])
            view.repaint()  # a real paint for every hover, not a coalesced update
            if i % 3 == 0:
                cell = (i * 5) % 144
                doc.paint(cell, Symbol.O if i % 2 else Symbol.X)
                if i % 6 == 0:
                    doc.undo_stack.undo()
                    doc.undo_stack.redo()
                    doc.undo_stack.undo()
            if i % 50 == 0:
                doc.set_meta("notes", f"round {i}")
        QTest.mouseMove(view, QPoint(-5, -5))

    session(300)  # warm caches, fonts, the undo stack's first growth
    doc.undo_stack.clear()
    gc.collect()
    tracemalloc.start()
    try:
        session(1000)
        doc.undo_stack.clear()
        gc.collect()
        first, _ = tracemalloc.get_traced_memory()
        rss_first = _rss_mib()
        session(1000)
        doc.undo_stack.clear()
        gc.collect()
        second, _ = tracemalloc.get_traced_memory()
        rss_second = _rss_mib()
    finally:
        tracemalloc.stop()
    grow_kib = (second - first) / 1024
    print(f"long session: Python memory {first / 2**20:.2f} -> {second / 2**20:.2f} MiB ({grow_kib:+.0f} KiB), "
          f"RSS {rss_first} -> {rss_second} MiB")
    assert grow_kib < 512, f"Python allocations grew by {grow_kib:.0f} KiB over 1000 more hovers and edits"
    if rss_first is not None and rss_second is not None:
        assert rss_second - rss_first < 24, f"RSS grew {rss_second - rss_first:.1f} MiB"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_screenshot_walk_sizes_render_without_overlap(qtbot: QtBot, theme: str) -> None:
    """Every dock tab at both sizes: the panel fits its dock (no horizontal overflow)."""
    for size in ((1000, 700), (1400, 900)):
        win = shown_window(qtbot, *size)
        win.set_theme(theme)
        for dock in (win.validation_dock, win.properties_dock, win.analysis_dock):
            dock.raise_()
            qtbot.wait(20)
            area = dock.widget()
            inner = area.widget()
            assert inner.width() <= area.viewport().width(), (size, dock.windowTitle())
        win.set_theme("light")
        win.close()


def test_hover_repaints_reuse_the_board_picture(qtbot: QtBot) -> None:
    """Moving the mouse repainted all 144 cells (15 ms a move on a busy machine, far more on 26x26);
    now the board is kept as a picture and only the marks are drawn, until something on the board changes."""
    win = shown_window(qtbot, 1000, 700)
    view, doc = win.view, win.document
    view.repaint()
    before = view.full_paints
    picture = view.grab().toImage()
    for cell in range(0, 144, 5):
        QTest.mouseMove(view, view.cell_center(cell).toPoint())
        view.repaint()
    assert view.full_paints == before
    QTest.mouseMove(view, QPoint(-5, -5))
    assert view.grab().toImage() == picture  # the marks leave nothing behind
    empty = doc.board.cells.index(Symbol.EMPTY)
    doc.paint(empty, Symbol.O)
    assert view.grab().toImage() != picture and view.full_paints == before + 1
    doc.undo_stack.undo()
    assert view.grab().toImage() == picture
    win.set_theme("dark")
    assert view.grab().toImage() != picture
    win.set_theme("light")
