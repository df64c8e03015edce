"""The main board's designer layers: the fair openings of the last analysis, and the lock brush.

Real widgets and real mouse, key and tooltip events: the layer comes from a report shaped by
``core.analysis.results`` (the dataclasses the engine returns), reaches the canvas through the analysis panel's
``reportReady``, is drawn into the cached picture, and follows edits as the heatmap does; locks are document
state with undo steps, shown on the board and shared with "Improve this board".
"""

from __future__ import annotations

import dataclasses
import gc
import itertools
import json
import re
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QHelpEvent, QImage, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu, QToolTip
from pytestqt.qtbot import QtBot

from core.agents.levels import LEVELS
from core.analysis.config import CHECK_AGENT, AnalysisConfig
from core.analysis.palette import STATUS_STYLE
from core.analysis.results import AgentResult, AnalysisReport, CheckResult, OpeningResult, PieResult, RawResult
from core.analysis.stats import wilson
from core.board.geometry import cell_name, parse_cell, partner
from core.board.model import Board, Symbol
from core.generate.layout import layout_of
from designer.canvas.board_view import LOCK_BRUSH
from designer.canvas.openings import OpeningsLayer, layer_from_report
from designer.canvas.render import PALETTES
from designer.dialogs.improve import ImproveDialog
from designer.document.autosave import autosave_dir, find_recoveries
from designer.document.document import Document
from designer.main_window import MainWindow
from tests.gui.reports import CHECKED, REFINED, saved_report
from tests.gui.test_generate_dialogs import engine_for, improve_with_proposals
from tests.gui.windows import open_window

OPENINGS = [  # cells, S1 wins, games, status
    ("E6 F6 G6 F7", 47, 100, "fair"),
    ("F6 G6 H6 I6", 70, 80, "unfair"),
    ("J10 K10 L10 L11", 30, 60, "undecided"),
    ("H4 I4 J4 K4", 51, 100, "fair"),
    ("F5 F6 F7 E7", 55, 90, "fair"),
]


CHECKS = {3: CheckResult(CHECK_AGENT, 20, 40, agrees=True),
          2: CheckResult(CHECK_AGENT, 31, 40, agrees=False)}  # shown fair, then disputed by the check


def make_report(size: int = 12, agent: str = LEVELS["expert"].spec, refined: bool = True) -> AnalysisReport:
    """Openings placed to overlap (F6 lies in three): the typed records built directly, since no saved run has
    this layout; the saved real reports are in ``tests/data/reports``."""
    ops = []
    for i, (names, wins, games, status) in enumerate(OPENINGS):
        cells = [parse_cell(n, size) for n in names.split()]
        ops.append(OpeningResult(i, cells, names.split(), wins, games, status, screen_v=0.5,  # type: ignore[arg-type]
                                 check=CHECKS.get(i), refined_v=0.49 if refined and i == 0 else None))
    pie = PieResult(agent, 100, ops, check_agent=CHECK_AGENT)
    raw = RawResult(agent, games=60, s1_wins=31)
    grid = np.full((size, size), 0.5)
    return AnalysisReport("test", size, AnalysisConfig(agents=["greedy", agent]), agent, "balanced", [], [],
                          pie, raw, {agent: AgentResult(agent, "balanced", [], raw, pie)}, grid, grid, grid)


def deliver(win: MainWindow, report: AnalysisReport | None = None) -> AnalysisReport:
    """What the panel does when an analysis finishes: show the report, then emit reportReady."""
    report = report or make_report(win.document.board.size)
    win.analysis.show_report(report, report.size, 1.0, win.document.snapshot())
    win.analysis.reportReady.emit(report)
    return report


def at(win: MainWindow, name: str) -> QPoint:
    return win.view.cell_center(parse_cell(name, win.document.board.size)).toPoint()


def picture(win: MainWindow) -> QImage:
    QTest.mouseMove(win.view, QPoint(1, 1))  # no hover mark in the way
    win.view.clearFocus()
    return win.view.grab().toImage()


def tooltip_at(win: MainWindow, point: QPoint) -> str:
    """The tooltip a real tooltip event shows at ``point`` ("" when the canvas declines to show one)."""
    event = QHelpEvent(QEvent.Type.ToolTip, point, win.view.mapToGlobal(point))
    QApplication.sendEvent(win.view, event)
    return QToolTip.text() if event.isAccepted() and QToolTip.isVisible() else ""


@pytest.fixture
def window(qtbot: QtBot) -> MainWindow:
    win = open_window(qtbot)  # the default board, 12x12
    win.analysis.heat_select.setCurrentIndex(0)
    return win


def test_report_turns_the_layer_on_and_draws_it_into_the_cached_picture(window: MainWindow) -> None:
    view = window.view
    assert not window.openings_action.isEnabled() and view.visible_openings() is None
    before = picture(window)
    before_geo = view.geometry_
    assert before_geo is not None
    paints = view.full_paints
    deliver(window)
    window.analysis.heat_select.setCurrentIndex(0)  # the panel picks a heatmap: take it away to compare
    assert window.openings_action.isEnabled() and window.openings_action.isChecked()
    layer = view.visible_openings()
    assert layer is not None and len(layer.marks) == len(OPENINGS)
    on = picture(window)
    assert view.full_paints > paints, "the layer is part of the cached picture, so it was redrawn"
    assert on != before
    # The tint sits inside the opening's cells: H8 (in no opening) is untouched, I4 (fair, H4-K4) is not.  The
    # legend under the board takes room, so the cells are found in each picture's own geometry.
    for name, changed in (("H8", False), ("I4", True)):
        now, then = at(window, name), before_geo.cell_rect(parse_cell(name, 12)).topLeft().toPoint()
        spot = view.cell_rect(parse_cell(name, 12)).topLeft().toPoint()
        assert (on.pixelColor(spot + QPoint(4, 4)) != before.pixelColor(then + QPoint(4, 4))) is changed, name
        assert now is not None
    window.openings_action.trigger()  # off: the very same picture as before the report
    assert not window.openings_action.isChecked() and view.visible_openings() is None
    assert picture(window) == before
    hovered = view.full_paints
    for name in ("A1", "B2", "C3", "D4"):
        QTest.mouseMove(view, at(window, name))
        view.repaint()
    assert view.full_paints == hovered, "hovering reuses the cached picture"
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.openings_action.isChecked() and picture(window) == on
    view_menu = next(m for m in window.menuBar().findChildren(QMenu) if m.title() == "&View")
    assert window.openings_action in view_menu.actions()


def test_a_finished_analysis_run_brings_the_layer(window: MainWindow, qtbot: QtBot) -> None:
    """Through the panel's own run (engine replaced by one that returns a report at once), not a hand-made signal."""
    panel = window.analysis
    panel.analyzer = lambda board, config, **kw: make_report(board.size)
    window.openings_action.setChecked(False)  # a new report turns the layer on again
    with qtbot.waitSignal(panel.reportReady, timeout=10_000):
        assert panel.start()
    assert window.openings_action.isChecked() and window.view.visible_openings() is not None
    assert not window.openings.stale


def test_a_report_about_another_board_size_is_not_drawn(window: MainWindow) -> None:
    """New board while the analysis ran: the report describes the 12x12 board, the window shows an 8x8 one."""
    analysed = window.document.snapshot()
    window.document.new_board(8)
    report = make_report(12)
    window.analysis.show_report(report, 12, 1.0, analysed)
    window.analysis.reportReady.emit(report)
    assert window.openings.layer is not None and window.openings.layer.size == 12
    assert window.view.visible_openings() is None
    QTest.mouseClick(window.view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "C3"))
    assert window.view.opening_selected is None and window.document.board[parse_cell("C3", 8)] is Symbol.O


def test_status_colours_are_colour_blind_safe_and_readable_on_both_themes() -> None:
    def luminance(hex_colour: str) -> float:
        rgb = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    def contrast(a: str, b: str) -> float:
        hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
        return (hi + 0.05) / (lo + 0.05)

    okabe_ito = {"#009e73", "#d55e00"}  # bluish green and vermillion, and lighter ones for the dark theme
    assert {STATUS_STYLE["fair"].light, STATUS_STYLE["unfair"].light} == okabe_ito
    for theme, pal in PALETTES.items():
        assert set(pal.openings) == {"fair", "unfair", "undecided"}
        # the board's colours are the charts' (one palette module)
        assert pal.openings == {s: v.colour(theme == "dark") for s, v in STATUS_STYLE.items()}
        for colour in (*pal.openings.values(), pal.lock):
            for background in (pal.cell, pal.cell_alt):
                assert contrast(colour, background) >= 3.0, (colour, background)


def test_hover_tooltip_gives_the_openings_figures(window: MainWindow) -> None:
    deliver(window)
    low, high = wilson(51, 100)
    text = tooltip_at(window, at(window, "J4"))
    assert "Opening H4 I4 J4 K4: shown fair: its games show the first mover wins within 40-60%" in text
    assert "won 51 of 100 games: 51%" in text
    assert f"(likely {100 * low:.0f}-{100 * high:.0f}%; fair is 40-60%)" in text
    assert f"Played by expert level ({LEVELS['expert'].blurb})" in text
    assert "openings here" not in text  # J4 lies in one opening only
    assert "Second opinion from a searching computer player (8000 simulations a move): the first mover won 50% " \
        "of 40 games; it agrees" in text
    assert tooltip_at(window, at(window, "A12")) == ""  # no opening there: no tooltip
    disputed = tooltip_at(window, at(window, "L11"))
    assert "not counted fair" in disputed and "won 78% of 40 games; it disagrees" in disputed
    assert "Second opinion" not in tooltip_at(window, at(window, "F7"))  # not checked: no line about it
    for point in ("J4", "L11", "F7", "E6"):  # host words only: no agent specs, no test names
        assert not re.search(r"\b(mcts|puct):|SPRT|\bS1\b|interval", tooltip_at(window, at(window, point)))


def test_overlapping_openings_pick_the_nearest_deterministically(window: MainWindow) -> None:
    deliver(window)
    view = window.view
    layer = view.openings
    assert layer is not None
    f6 = view.cell_rect(parse_cell("F6", 12))
    g6 = view.cell_rect(parse_cell("G6", 12))
    # F6 lies in three openings: at its middle the T (E6 F6 G6 F7) is nearest, near its lower left corner the
    # L (F5 F6 F7 E7); G6 lies in two, and at its right edge the I (F6 G6 H6 I6) is nearest.
    expected = [(f6.center(), ("E6", "F6", "G6", "F7"), 3),
                (QPointF(f6.left() + 0.05 * f6.width(), f6.bottom() - 0.05 * f6.height()),
                 ("F5", "F6", "F7", "E7"), 3),
                (QPointF(g6.right() - 0.05 * g6.width(), g6.center().y()), ("F6", "G6", "H6", "I6"), 2)]
    for point, names, many in expected:
        index, count = view.opening_at(point)
        assert index is not None and layer.marks[index].names == names and count == many, names
    east = expected[2][0]
    pick_east = view.opening_at(east)[0]
    assert [view.opening_at(east)[0] for _ in range(5)] == [pick_east] * 5
    text = tooltip_at(window, east.toPoint())
    assert "Opening F6 G6 H6 I6: shown one-sided" in text and "2 openings here" in text


def test_click_selects_an_opening_and_shows_it_in_the_status_bar(window: MainWindow) -> None:
    deliver(window)
    view, doc = window.view, window.document
    steps, cells = doc.undo_stack.count(), list(doc.board.cells)
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "J4"))
    assert doc.board.cells == cells and doc.undo_stack.count() == steps, "a click on an opening does not paint"
    layer = view.openings
    assert layer is not None and view.opening_selected is not None
    assert layer.marks[view.opening_selected].names == ("H4", "I4", "J4", "K4")
    message = window.statusBar().currentMessage()
    assert message.startswith("Opening H4 I4 J4 K4: shown fair") and "51 of 100 games" in message
    # the selection is a mark over the cached picture: no full repaint
    view.repaint()
    paints = view.full_paints
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "L11"))
    view.repaint()
    assert view.full_paints == paints and "not counted fair" in window.statusBar().currentMessage()
    # the lock brush still locks on an opening's cells
    window.set_brush(LOCK_BRUSH)
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "J4"))
    assert parse_cell("J4", 12) in doc.locks and view.opening_selected is None


def test_an_edit_hides_the_layer_as_stale_and_undo_brings_it_back(window: MainWindow) -> None:
    deliver(window)
    view, doc = window.view, window.document
    window.analysis.heat_select.setCurrentIndex(0)
    on = picture(window)
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "J4"))
    assert view.opening_selected is not None
    empty = next(n for n in ("A12", "B12", "A11", "B11") if doc.board[parse_cell(n, 12)] is Symbol.EMPTY)
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, empty))
    assert doc.board[parse_cell(empty, 12)] is Symbol.O  # outside every opening the click paints
    assert window.openings.stale and view.visible_openings() is None and view.opening_selected is None
    assert "Fair openings hidden" in window.statusBar().currentMessage()
    assert tooltip_at(window, at(window, "J4")) == ""
    assert picture(window) != on
    doc.undo_stack.undo()
    assert not window.openings.stale and view.visible_openings() is not None
    assert picture(window) == on
    doc.set_param("pie", not doc.board.params.pie)  # game parameters change the analysis too
    assert window.openings.stale and view.visible_openings() is None
    doc.undo_stack.undo()
    assert view.visible_openings() is not None
    doc.new_board(12)  # another board: the layer goes for good
    assert window.openings.layer is None and view.openings is None and not window.openings_action.isEnabled()


def test_lock_brush_locks_partner_pairs_with_undo_and_redo(window: MainWindow) -> None:
    view, doc = window.view, window.document
    window.set_brush(LOCK_BRUSH)
    assert window.lock_action.isChecked() and window.brush_label.text() == "Brush: lock"
    cells = list(doc.board.cells)
    before = picture(window)
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "C3"))
    assert doc.locks == {parse_cell("C3", 12), parse_cell("J10", 12)}
    assert doc.board.cells == cells, "locking changes no symbol"
    assert picture(window) != before, "locked cells are drawn (hatched) in the picture"
    assert not doc.dirty and not window.isWindowModified(), "locks are not in the board file"
    assert doc.undo_stack.undoText() == "Lock from C3"
    QTest.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert doc.locks == frozenset() and picture(window) == before
    QTest.keyClick(window, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert doc.locks == {parse_cell("C3", 12), parse_cell("J10", 12)}
    # starting on a locked cell unlocks (its partner too)
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "J10"))
    assert doc.locks == frozenset()
    QTest.mouseMove(view, at(window, "C3"))
    assert "locked" not in window.hover_label.text()


def test_a_lock_drag_is_one_undo_step_and_right_drag_unlocks(window: MainWindow) -> None:
    view, doc = window.view, window.document
    window.set_brush(LOCK_BRUSH)
    QTest.mousePress(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "A2"))
    QTest.mouseMove(view, at(window, "F2"))  # one move jumps five cells: none is skipped
    QTest.mouseMove(view, at(window, "F5"))
    QTest.mouseRelease(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "F5"))
    dragged = [parse_cell(n, 12) for n in ("A2", "B2", "C2", "D2", "E2", "F2", "F3", "F4", "F5")]
    assert doc.locks == {c for cell in dragged for c in (cell, partner(cell, 12))}
    assert doc.undo_stack.count() == 1
    QTest.mouseMove(view, at(window, "B2"))
    assert window.hover_label.text().endswith("(locked with its partner)")
    QTest.mousePress(view, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, at(window, "B2"))
    QTest.mouseMove(view, at(window, "D2"))
    QTest.mouseRelease(view, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, at(window, "D2"))
    unlocked = {c for n in ("B2", "C2", "D2") for c in (parse_cell(n, 12), partner(parse_cell(n, 12), 12))}
    assert not doc.locks & unlocked and len(doc.locks) == 2 * len(dragged) - len(unlocked)
    assert doc.undo_stack.count() == 2
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert doc.locks == frozenset()
    # the symbol brushes paint again afterwards
    window.set_brush(Symbol.X)
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, "A12"))
    assert doc.board[parse_cell("A12", 12)] is Symbol.X and doc.locks == frozenset()


def test_l_key_chooses_the_lock_brush_space_locks_and_clear_locks_is_one_step(window: MainWindow) -> None:
    view, doc = window.view, window.document
    view.setFocus()
    view.cursor_cell = parse_cell("D4", 12)
    QTest.keyClick(view, Qt.Key.Key_L)
    assert view.locking and window.lock_action.isChecked() and doc.locks == frozenset()  # the brush only
    QTest.keyClick(view, Qt.Key.Key_Space)
    assert doc.locks == {parse_cell("D4", 12), parse_cell("I9", 12)}
    QTest.keyClick(view, Qt.Key.Key_Right)
    QTest.keyClick(view, Qt.Key.Key_Space)
    assert parse_cell("E4", 12) in doc.locks and len(doc.locks) == 4
    edit = next(m for m in window.menuBar().findChildren(QMenu) if m.title() == "&Edit")
    assert {window.lock_action, window.clear_locks_action} <= set(edit.actions())
    steps = doc.undo_stack.count()
    window.clear_locks_action.trigger()
    assert doc.locks == frozenset() and doc.undo_stack.count() == steps + 1
    assert doc.undo_stack.undoText() == "Clear locks"
    doc.undo_stack.undo()
    assert len(doc.locks) == 4
    QTest.keyClick(view, Qt.Key.Key_1)  # a paint key picks the symbol brush again
    assert not view.locking and window.brush_actions[Symbol.O].isChecked()


def test_locks_do_not_make_the_board_unsaved_but_edits_around_them_do(window: MainWindow) -> None:
    doc = window.document
    assert not doc.dirty
    doc.toggle_lock(0)
    assert not doc.dirty and not window.isWindowModified()
    doc.paint(5, Symbol.O)  # after a lock step the stack was already "not clean": the title must still follow
    assert doc.dirty and window.isWindowModified()
    doc.toggle_lock(7)
    assert doc.dirty
    doc.undo_stack.undo()
    doc.undo_stack.undo()  # the paint: only a lock step is left between the saved state and now
    assert not doc.dirty and not window.isWindowModified()
    doc.new_board(8)
    assert doc.locks == frozenset(), "locks name cells of the old board"


def test_improve_dialog_shares_the_documents_locks(qtbot: QtBot) -> None:
    host = Board.random(6, 6, seed=21)
    win = MainWindow(Document(host.copy()))
    qtbot.addWidget(win)
    win.resize(900, 700)
    win.show()
    qtbot.waitExposed(win)
    doc, view = win.document, win.view
    symbols = [c for c in range(36) if host[c] is not Symbol.EMPTY]
    win.set_brush(LOCK_BRUSH)
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     view.cell_center(symbols[0]).toPoint())
    assert doc.locks == {symbols[0], partner(symbols[0], 6)}

    dialog = win.improve_board()
    assert isinstance(dialog, ImproveDialog)
    qtbot.addWidget(dialog)
    assert dialog.locked == set(doc.locks), "the dialog opens with the main window's locks"
    qtbot.waitUntil(lambda: dialog.lock_board.geometry_ is not None)
    geo = dialog.lock_board.geometry_
    assert geo is not None
    centre = geo.cell_rect(symbols[1]).center()
    qtbot.mouseClick(dialog.lock_board, Qt.MouseButton.LeftButton, pos=QPoint(int(centre.x()), int(centre.y())))
    assert {symbols[1], partner(symbols[1], 6)} <= doc.locks, "a lock made in the dialog is the document's"
    assert doc.undo_stack.undoText().startswith("Lock from")
    # and a lock made on the main board shows in the dialog while it is open
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     view.cell_center(symbols[2]).toPoint())
    assert symbols[2] in dialog.locked and cell_name(symbols[2], 6) in dialog.lock_label.text()

    target = list(layout_of(host))
    free = [s for s in range(len(target)) if target[s] == 0]
    target[free[0]], target[free[1]] = 1, 2
    dialog.engine = engine_for(tuple(target))
    dialog.time_box.setValue(10)
    with qtbot.waitSignal(dialog.runner.finished, timeout=30_000):
        assert dialog.start()
    assert dialog.proposals
    locked = set(doc.locks)
    for proposal in dialog.proposals:
        assert not set(proposal.changed) & locked
    assert dialog.apply(0)
    for cell in locked:
        assert doc.board[cell] is host[cell], "locked cells are kept"
    dialog.reject()
    assert set(doc.locks) == locked, "closing the dialog keeps the locks"


def test_improve_refuses_a_proposal_that_touches_a_cell_locked_since(qtbot: QtBot, dialogs: Any) -> None:
    host = Board.random(6, 6, seed=21)
    doc = Document(host.copy())
    dialog = improve_with_proposals(qtbot, doc)
    changed = dialog.proposals[0].changed[0]
    doc.toggle_lock(changed)  # locked after the proposals were made
    assert not dialog.apply(0)
    assert doc.board.cells == host.cells
    assert dialogs.calls[-1][0] == "warning" and "locked" in dialogs.calls[-1][2]


def test_locks_ride_in_the_autosave_and_come_back_on_recovery(qtbot: QtBot, dialogs: Any) -> None:
    from PySide6.QtWidgets import QMessageBox

    first = open_window(qtbot)
    first.document.paint(0, Symbol.O)  # unsaved work: the autosave is written
    first.document.set_locks([parse_cell("C3", 12)])
    first.autosaver.write_now()
    assert first.autosaver.wait()
    meta = json.loads(first.autosaver.meta_path.read_text())
    assert meta["locks"] == ["C3", "J10"]
    board_path, meta_path = first.autosaver.board_path, first.autosaver.meta_path
    # A crashed session leaves its files behind without a live lock file: copy them as such.
    dead = autosave_dir() / "99999-dead"
    dead.with_suffix(".yaml").write_bytes(board_path.read_bytes())
    dead.with_suffix(".json").write_bytes(meta_path.read_bytes())
    assert [r.locks for r in find_recoveries()] == [["C3", "J10"]]
    dialogs.answer = QMessageBox.StandardButton.Yes
    second = open_window(qtbot)
    assert second.document.locks == {parse_cell("C3", 12), parse_cell("J10", 12)}
    assert second.document.dirty


def test_long_hover_session_over_the_layer_does_not_grow(window: MainWindow, qtbot: QtBot) -> None:
    """2,000 hover moves with tooltips over the openings: Python's object count stays flat.

    The engine warm-up and the panel's charts run in the background and create objects of their own, so
    both are finished before counting."""
    from designer import warmup

    warmup.warm(window.document.board)
    deliver(window)
    qtbot.waitUntil(window.analysis.charts_ready, timeout=60_000)
    view = window.view
    centres = [view.cell_center(c).toPoint() for c in range(144)]

    def session(rounds: int) -> None:
        for i in range(rounds):
            point = centres[(i * 7) % 144]
            QTest.mouseMove(view, point)
            QApplication.sendEvent(view, QHelpEvent(QEvent.Type.ToolTip, point, view.mapToGlobal(point)))
            view.repaint()
        QToolTip.hideText()
        QApplication.processEvents()

    session(200)  # warm caches and fonts
    gc.collect()
    before = len(gc.get_objects())
    paints = view.full_paints
    session(2000)
    gc.collect()
    grown = len(gc.get_objects()) - before
    print(f"objects after 2,000 hovers over the layer: {grown:+d}; full repaints {view.full_paints - paints}")
    assert grown < 200, f"{grown} more Python objects after 2,000 hover moves"
    assert view.full_paints == paints, "hovering never repaints the cached picture"


def test_the_host_summary_names_the_cross_check() -> None:
    """Balanced only counts openings both engines agree on; a disputed one is named, not silently dropped."""
    from designer.panels.analysis_text import summarise

    report = make_report()
    summary = summarise(report)
    assert summary.headline.startswith("Balanced")
    assert "second engine, a searching computer player (8000 simulations a move), replayed each of them and agrees" \
        in summary.lines[0]
    (disputed,) = [line for line in summary.lines if "did not confirm" in line]
    assert disputed.startswith("J10 K10 L10 L11 looked even") and "but a searching computer player (8000" in disputed
    assert "mcts:" not in disputed
    firm = dataclasses.replace(report, pie=dataclasses.replace(report.pie, check_rule="firm", check_limit=150))
    assert "replayed each of them up to 150 times (the firm check of the Thorough effort) and agrees" \
        in summarise(firm).lines[0]  # a long time limit's check is named as such
    json_firm = summarise(AnalysisReport.from_json(firm.to_json()))  # the saved report reads the same
    assert "up to 150 times" in json_firm.lines[0]
    unchecked = dataclasses.replace(report, pie=dataclasses.replace(
        report.pie, check_agent="", judges=(),
        openings=[dataclasses.replace(o, check=None, judges=()) for o in report.pie.openings]))
    plain = summarise(unchecked)
    assert not any("second engine" in line for line in plain.lines)


# -- the layer speaks the chart's language: colours, legend, tags, words --------------------------------------------
def test_the_board_has_a_legend_in_the_charts_words(window: MainWindow) -> None:
    from designer.canvas.render import paint_openings_legend

    view = window.view
    off = picture(window)
    deliver(window)
    window.analysis.heat_select.setCurrentIndex(0)
    on = picture(window)
    geo = view.geometry_
    assert geo is not None
    board_bottom = geo.top + 12 * geo.cell
    below = [(x, y) for y in range(int(board_bottom) + 2, min(on.height(), int(board_bottom + 1.5 * geo.cell)))
             for x in range(0, on.width(), 3)]
    assert any(on.pixelColor(x, y) != off.pixelColor(x, y) for x, y in below), "the legend is drawn under the board"
    layer = view.openings
    assert layer is not None
    image = QImage(on.size(), QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        drawn = paint_openings_legend(painter, geo, PALETTES["light"], layer, board_bottom + 0.1 * geo.cell)
    finally:
        painter.end()
    texts = [text for text, _rect in drawn]
    assert texts[0] == "Openings tried (first mover's wins; fair is 40-60%):"
    assert texts[1:] == [f"{v.mark} {v.short}" for v in STATUS_STYLE.values()]  # the chart's legend words
    for _text, rect in drawn:
        assert rect.top() >= board_bottom and rect.bottom() <= on.height() and rect.right() <= on.width()


def crowded_layer(size: int = 12) -> OpeningsLayer:
    """Fourteen openings over the same few cells (more than ever share a cell in a real run)."""
    names = ["E6 F6 G6 F7", "F6 G6 H6 I6", "F5 F6 F7 E7", "F6 F7 F8 F9", "D6 E6 F6 G6", "F4 F5 F6 G6",
             "E5 F5 F6 G6", "F6 G6 G7 H7", "E6 F6 F7 G7", "F6 F7 G7 G8", "E7 F7 F6 F5", "G5 G6 F6 F7",
             "F6 F7 E7 E8", "D7 E7 F7 F6"]
    ops = [OpeningResult(i, [parse_cell(c, size) for c in n.split()], n.split(), 20 + 3 * i, 60,
                         ("fair", "unfair", "undecided")[i % 3], screen_v=0.5)  # type: ignore[arg-type]
           for i, n in enumerate(names)]
    report = dataclasses.replace(make_report(size), pie=PieResult("club", 100, ops))
    return layer_from_report(report, size)


@pytest.mark.parametrize("cell", [18.0, 40.0, 75.0])
def test_overlapping_openings_tags_never_overlap(cell: float, qapp: QApplication) -> None:
    from designer.canvas.render import BoardGeometry, tag_font, tag_rects

    for layer in (crowded_layer(), layer_from_report(make_report(), 12),
                  layer_from_report(saved_report(CHECKED), 12)):
        geo = BoardGeometry(12, 30.0, 30.0, cell)
        font = tag_font(layer, cell)
        if cell < 20:  # too small for a legible tag: none rather than tags over each other
            assert font is None
            continue
        assert font is not None and font.pixelSize() >= 7
        rects = tag_rects(geo, layer, font)
        assert set(rects) == layer.drawn, "every opening drawn on the board gets its tag"
        for i, rect in rects.items():
            cell_rect = geo.cell_rect(layer.tag_places()[i][0])
            assert cell_rect.contains(rect), (layer.marks[i].names, rect, cell_rect)  # inside its own cell
            assert layer.tag_places()[i][0] in layer.marks[i].cells
        for (i, a), (j, b) in itertools.combinations(rects.items(), 2):
            assert not a.intersects(b), (layer.marks[i].label, layer.marks[j].label)


def test_an_undecided_opening_at_the_band_edge_reads_as_not_settled() -> None:
    """A 40% opening next to "fair is 40-60%" was labelled plain "undecided"; its tag and words now say why."""
    op = OpeningResult(0, [0, 1, 2, 3], ["A1", "B1", "C1", "D1"], 24, 60, "undecided", screen_v=0.45)
    report = dataclasses.replace(make_report(), pie=PieResult("club", 10, [op]))
    layer = layer_from_report(report, 12)
    (mark,) = layer.marks
    assert mark.label == "40% ?"
    text = layer.describe(0)
    assert text.startswith("Opening A1 B1 C1 D1: not settled yet: 40% is close to the edge of 40-60%, and its games "
                           "cannot yet tell which side it lies on")
    assert "undecided" not in text
    assert [m.label[-1] for m in layer_from_report(make_report(), 12).marks] == \
        [STATUS_STYLE[m.status].mark for m in layer_from_report(make_report(), 12).marks]


def test_the_refined_estimate_reaches_the_designer(window: MainWindow) -> None:
    deliver(window)
    text = tooltip_at(window, at(window, "E6"))  # E6 F6 G6 F7 was picked by a refined estimate
    assert "Picked from estimates before play: a quick look gave the first mover 50%, a closer look 49%" in text
    assert "a closer look" not in tooltip_at(window, at(window, "J4"))  # not refined: no such line
    real = layer_from_report(saved_report(REFINED), 12)
    for i, op in enumerate(real.marks):
        assert op.view.refined_v is not None
        assert f"a closer look {100 * op.view.refined_v:.0f}%" in real.describe(i)


def test_a_standard_runs_many_openings_leave_the_symbols_readable(window: MainWindow, qtbot: QtBot) -> None:
    """A run that tried many openings draws the fair ones and the best few, and the others only under the mouse:
    28 dashed outlines and tags over 12x12 cells hid the symbols."""
    view = window.view
    report = saved_report(REFINED)  # 28 openings tried, none settled
    deliver(window, report)
    window.analysis.heat_select.setCurrentIndex(0)
    layer = view.visible_openings()
    assert layer is not None and len(layer.marks) == 28
    fair = {i for i, mark in enumerate(layer.marks) if mark.status == "fair"}
    assert fair <= layer.drawn and len(layer.drawn) <= len(fair) + 3
    best = sorted(range(28), key=lambda i: abs(layer.marks[i].rate - 0.5))[:3]
    assert set(best) <= layer.drawn  # the nearest to an even game are among those drawn
    assert "25 more under the mouse" in layer.legend_title()
    # Every opening still answers the mouse: one the board does not draw is drawn while the mouse is on it.
    only_muted = next(cell for cell, ids in layer.by_cell.items() if not set(ids) & layer.drawn)
    point = view.cell_center(only_muted).toPoint()
    QTest.mouseMove(view, point)
    hovered = view.opening_hovered
    assert hovered is not None and hovered not in layer.drawn
    assert "Opening " in view.opening_tooltip(QPointF(point))
    paints = view.full_paints
    with_mark = view.grab().toImage()
    view.opening_hovered = None
    without = view.grab().toImage()
    assert view.full_paints == paints, "the hovered opening is a mark over the cached picture"
    assert with_mark != without, "the opening under the mouse is drawn"
    view.opening_hovered = hovered
    QTest.mouseMove(view, QPoint(1, 1))
    assert view.opening_hovered is None


def test_the_hover_shows_the_predicted_rate_beside_the_measured_one() -> None:
    op = OpeningResult(0, [0, 1, 2, 3], ["A1", "B1", "C1", "D1"], 30, 60, "fair", screen_v=0.45, predicted=0.473)
    report = dataclasses.replace(make_report(), pie=PieResult("club", 10, [op]))
    text = layer_from_report(report, 12).describe(0)
    assert "won 30 of 60 games: 50%" in text
    assert "Predicted for club play (the opening predictor, not a measurement): 47%" in text
    plain = OpeningResult(0, [0, 1, 2, 3], ["A1", "B1", "C1", "D1"], 30, 60, "fair", screen_v=0.45)
    report = dataclasses.replace(make_report(), pie=PieResult("club", 10, [plain]))
    assert "Predicted" not in layer_from_report(report, 12).describe(0)
