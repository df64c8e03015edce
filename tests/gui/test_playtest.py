"""Play-test window: what it draws and how it forwards input to its session.

The game and every line of text the window shows are ``core.play``, tested without Qt in ``tests/play``.
"""

from __future__ import annotations

import random
import re
import threading
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QKeySequence, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QMainWindow, QMessageBox

import designer.playtest.window as playtest
from core.board.geometry import parse_cell
from core.board.model import Board, Symbol
from core.engine.rules import Placement
from core.play import view
from designer.playtest.window import PlaytestWindow
from tests.play.fakes import FakeTime, small_board


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime(500.0)


@pytest.fixture
def open_window(qtbot, fake_time):  # type: ignore[no-untyped-def]
    def make(board: Board) -> PlaytestWindow:
        window = PlaytestWindow(board, time_source=fake_time, tick_ms=60_000)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        return window

    return make


def first_legal(window: PlaytestWindow) -> Placement:
    return next(iter(window.session.state.legal_placements()))


def cell_point(window: PlaytestWindow, cell: int) -> QPoint:
    return window.canvas.cell_centre(cell).toPoint()


def place_by_mouse(window: PlaytestWindow, placement: Placement) -> None:
    """Hover one of the piece's cells, cycle the preview with R until it shows the piece, click."""
    canvas = window.canvas
    QTest.mouseMove(canvas, QPoint(1, 1))
    QTest.mouseMove(canvas, cell_point(window, placement.cells[0]))
    for _ in range(canvas.choice_count):
        if canvas.preview == placement.cells:
            break
        QTest.keyClick(canvas, Qt.Key.Key_R)
    assert canvas.preview == placement.cells, "the piece never showed up among the previews at its cell"
    QTest.mouseClick(canvas, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     cell_point(window, placement.cells[0]))


def type_move(window: PlaytestWindow, text: str) -> None:
    edit = window.notation_edit
    edit.clear()
    QTest.keyClicks(edit, text)
    QTest.keyClick(edit, Qt.Key.Key_Return)


def test_a_game_entered_by_mouse_and_by_notation_is_drawn(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=11))
    session, rng, played = window.session, random.Random(5), []
    window.hints_box.setChecked(True)
    while not session.is_over:
        shown = view.table_view(session, hints=True)
        assert [w.text() for w in (window.supply_label, window.score_label, window.turn_label, window.hint_label)] \
            == [shown.supply_line, shown.score_line, shown.turn_line, shown.hint_line]
        assert window.canvas.hint_counts == shown.hint_counts and window.canvas.pieces == shown.pieces
        choice = rng.choice(list(session.state.legal_placements()))
        if len(played) % 2:
            names = choice.cell_names()
            rng.shuffle(names)  # any order, any case, commas or spaces
            type_move(window, ", ".join(n.lower() for n in names))
        else:
            place_by_mouse(window, choice)
        played.append(choice)
        assert session.ply == len(played), window.message_label.text()
    assert session.moves == played
    assert [window.move_list.item(i).text() for i in range(window.move_list.count())] == session.move_texts()
    assert window.result_box.isVisible() and window.result_label.text() == session.result_text()
    assert window.canvas.preview == () and not window.canvas.interactive  # game over: nothing to place
    assert window.canvas.hint_counts is None and window.hint_label.text() == ""


def test_r_and_space_cycle_the_preview_when_the_focus_was_elsewhere(open_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=5))
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    canvas = window.canvas
    window.hints_box.setFocus()  # the host last clicked "Show hints"
    QTest.mouseMove(canvas, QPoint(1, 1))
    QTest.mouseMove(canvas, cell_point(window, parse_cell("C3", 6)))
    assert canvas.choice_count > 2
    first = canvas.preview
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Space)  # keys go where the focus is, as a keyboard's do
    assert not window.hints_box.isChecked()  # Space did not toggle the check box ...
    second = canvas.preview
    assert second != first  # ... it cycled the preview under the mouse
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_R)
    assert canvas.preview not in (first, second) or canvas.choice_count == 2
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_R, Qt.KeyboardModifier.ShiftModifier)
    assert canvas.preview == second
    window.notation_edit.setFocus()  # while a move is typed the entry keeps the focus: the mouse does not steal it
    QTest.mouseMove(canvas, cell_point(window, parse_cell("D4", 6)))
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_R)
    assert QApplication.focusWidget() is window.notation_edit and window.notation_edit.text() == "r"


@pytest.mark.parametrize("redo", ["Ctrl+Shift+Z", "Ctrl+Y"])  # the README promises Ctrl+Shift+Z
def test_undo_redo_keys_buttons_and_the_move_entry(open_window, qtbot, redo: str) -> None:  # type: ignore[no-untyped-def]
    window = open_window(Board(size=8))
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    edit, session = window.notation_edit, window.session
    edit.setFocus()
    type_move(window, "A1 B1 C1 A2")
    assert session.ply == 1 and edit.text() == "" and QApplication.focusWidget() is edit
    # Ctrl+Z with the focus still in the entry takes the move back (before commit a8d3dea: the typed cells came back).
    QTest.keyClick(edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert session.ply == 0 and edit.text() == ""
    QTest.keySequence(edit, window.redo_action.shortcut())
    assert session.ply == 1 and edit.text() == ""
    # While the entry holds text, Ctrl+Z edits the text, as in any text field.
    QTest.keyClicks(edit, "B2 C2")
    QTest.keyClick(edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert session.ply == 1 and edit.text() != "B2 C2"
    type_move(window, "D1 E1 F1 G1")
    window.canvas.setFocus()
    QTest.keyClick(window.canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert session.ply == 1 and window.canvas.pieces.keys() == {parse_cell(c, 8) for c in ("A1", "B1", "C1", "A2")}
    assert window.redo_action.isEnabled() and window.nav_buttons["next"].isEnabled()
    QTest.keySequence(window.canvas, QKeySequence(redo))
    assert session.ply == 2 and not window.redo_action.isEnabled()
    for key, ply in (("first", 0), ("next", 1), ("last", 2), ("prev", 1)):
        QTest.mouseClick(window.nav_buttons[key], Qt.MouseButton.LeftButton)
        assert session.ply == ply and window.move_list.currentRow() == ply - 1


def test_the_swap_button_and_the_long_swap_line(open_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=4, size=8, pairs=8))
    assert not window.swap_button.isEnabled()  # not before the first placement
    window.play(first_legal(window))
    QTest.mouseClick(window.swap_button, Qt.MouseButton.LeftButton)
    assert window.session.swapped and not window.swap_button.isEnabled()
    assert window.clock_labels[1].text().startswith("Player 2 (O)")  # the labels follow the symbols
    qtbot.wait(20)
    lst = window.move_list
    item, metrics = lst.item(1), lst.fontMetrics()
    assert metrics.horizontalAdvance(item.text()) > lst.viewport().width()  # the swap line is too long for one line
    rect = lst.visualItemRect(item)
    assert rect.right() <= lst.viewport().width()
    assert rect.height() >= 2 * metrics.lineSpacing()  # so it wraps onto a second line instead of being cut


def test_status_bar_count_follows_the_move_under_a_still_mouse(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window(Board(size=8))
    canvas = window.canvas
    QTest.mouseMove(canvas, QPoint(1, 1))
    QTest.mouseMove(canvas, cell_point(window, parse_cell("D4", 8)))
    before = window.statusBar().currentMessage()
    assert before == f"D4 — {canvas.choice_count} placements here (wheel, R/Space or right-click to cycle)"
    window.play(Placement.parse("A1 B1 C1 A2", 8))  # now a piece at D4 must also touch this one: fewer choices
    count = canvas.choice_count
    now = window.statusBar().currentMessage()
    assert now != before  # it kept the count from before the move
    assert now == (f"D4 — {count} placements here (wheel, R/Space or right-click to cycle)" if count else "D4")
    type_move(window, "H8 H7 H6 H5")  # an illegal move's message is not overwritten by the hover text
    assert "Illegal" in window.statusBar().currentMessage()
    type_move(window, "D1 E1 F1 G1")  # a legal move takes the refusal out: the cell under the mouse again
    assert window.statusBar().currentMessage().startswith("D4")
    type_move(window, "A1 B1")
    window.statusBar().showMessage("shown since the refusal")
    window.go_first()  # takes out only its own message, not one shown after it
    assert window.session.ply == 0 and window.statusBar().currentMessage() == "shown since the refusal"


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours (4.5 is the minimum for normal text)."""
    def luminance(c: QColor) -> float:
        channels = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4
                    for x in (c.redF(), c.greenF(), c.blueF())]
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_refusal_is_said_in_a_readable_red_and_its_cells_marked(open_window, theme: str) -> None:  # type: ignore[no-untyped-def]
    from designer.main_window import apply_theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, theme)
    try:
        window = open_window(Board(size=8))
        type_move(window, "A1 B1 C1 A2")
        type_move(window, "A3 A4 B4 C4")  # same type along an edge: refused with a message in red
        refusal = window.session.play_text("A3 A4 B4 C4")
        assert refusal is not None and refusal.reason is not None
        assert window.message_label.text() == view.refused_move_text(refusal) and "same type" in refusal.message
        assert window.canvas.problems == refusal.reason.cells and window.last_illegal == refusal.reason
        match = re.search(r"color:\s*(#[0-9a-fA-F]{6})", window.message_label.styleSheet())
        assert match is not None
        ink = QColor(match.group(1))
        assert ink.red() > ink.green() + 60  # still red, so it reads as an error
        background = window.message_label.palette().color(QPalette.ColorRole.Window)
        assert contrast(ink, background) >= 4.5  # 2.1 on the dark theme's grey with the red before commit 3893e5e
        type_move(window, "D1 E1 F1 G1")  # a legal move takes the words and the marks away
        assert window.message_label.text() == "" and window.canvas.problems == ()
    finally:
        apply_theme(app, "light")


def test_clock_controls_forward_to_the_session_and_labels_follow(open_window, fake_time: FakeTime) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=6, turn_time=5, bank=10))
    session = window.session
    assert window.turn_spin.value() == 5 and window.bank_spin.value() == 10
    fake_time.advance(30)
    window.tick_clocks()
    assert session.is_over and "OUT OF TIME" in window.clock_labels[0].text()
    assert not window.canvas.interactive and window.canvas.preview == ()
    assert not window.play(first_legal(window))
    assert window.message_label.text().startswith("The game was lost on time; restart the clocks")
    window.turn_spin.setValue(30)
    window.restart_clocks()  # the refusal that advised it is taken back
    assert not session.is_over and session.clock.reading(0).turn_left == 30 and window.message_label.text() == ""
    QTest.mouseClick(window.pause_button, Qt.MouseButton.LeftButton)
    assert session.clock.paused and window.pause_button.text() == "Resume" and not window.canvas.interactive
    assert not window.play(first_legal(window)) and "paused" in window.message_label.text()
    QTest.mouseClick(window.pause_button, Qt.MouseButton.LeftButton)
    assert not session.clock.paused and window.pause_button.text() == "Pause" and window.message_label.text() == ""
    window.set_clocks_enabled(False)
    assert not session.clock.enabled and "clocks off" in window.clock_labels[0].text()


def test_the_window_timer_drives_the_clock_display(qtbot, fake_time: FakeTime) -> None:  # type: ignore[no-untyped-def]
    window = PlaytestWindow(small_board(seed=6, turn_time=10, bank=60), time_source=fake_time, tick_ms=10)
    qtbot.addWidget(window)
    assert "turn 0:10" in window.clock_labels[0].text()
    fake_time.advance(4)
    qtbot.waitUntil(lambda: "turn 0:06" in window.clock_labels[0].text(), timeout=2000)
    fake_time.advance(66)
    qtbot.waitUntil(lambda: window.session.is_over, timeout=2000)
    assert "Player 1 (O) ran out of time" in window.result_label.text()


def test_records_through_the_menu_and_the_file_dialogs(open_window, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=13))
    for _ in range(3):
        window.play(first_legal(window))
    path = str(tmp_path / "from-menu.txt")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (path, "")))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (path, "")))
    actions = {a.text().replace("&", ""): a for a in window.menuBar().actions()[0].menu().actions()}
    actions["Save record…"].trigger()
    assert Path(path).read_text().count("\n") >= 3 and window.message_label.text() == f"Saved 3 moves to {path}."
    moves = window.session.moves
    actions["New game"].trigger()
    assert window.session.moves == [] and window.move_list.count() == 0
    actions["Open record…"].trigger()
    assert window.session.moves == moves and window.move_list.count() == 3
    assert window.message_label.text().startswith(f"Loaded 3 moves from {path}")
    assert not window.save_record(str(tmp_path / "no-such-folder" / "game.txt"))  # the refusal is said in red
    assert "does not exist" in window.message_label.text() and "color" in window.message_label.styleSheet()
    (bad := tmp_path / "bad.txt").write_text("A1 B1 C1 D1\nF3 F4 F5 F6\n")
    assert not window.load_record(str(bad)) and window.canvas.problems  # the cells that broke the rule
    assert "line 2" in window.message_label.text() and window.session.moves == moves
    # A name typed without a suffix gets one, or Open record… (game records only) would not list it.
    typed = str(tmp_path / "final-test")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (typed, "")))
    actions["Save record…"].trigger()
    assert not Path(typed).exists() and Path(typed + ".lits-game").read_text().count("\n") >= 2
    Path(typed + ".lits-game").write_text("kept\n")
    asked: list[str] = []
    monkeypatch.setattr(QMessageBox, "question", staticmethod(  # keeps the file
        lambda _parent, _title, text, *_a: asked.append(text) or QMessageBox.StandardButton.No))
    actions["Save record…"].trigger()
    assert asked == [f"{typed}.lits-game already exists. Replace it?"]
    assert Path(typed + ".lits-game").read_text() == "kept\n"


def test_opens_as_its_own_window_over_the_designer_and_notes_an_invalid_board(qtbot) -> None:  # type: ignore[no-untyped-def]
    main = QMainWindow()
    qtbot.addWidget(main)
    board = Board(size=6, name="Club final")
    board.set_raw(parse_cell("B2", 6), Symbol.O)  # partner E5 stays empty: broken anti-symmetry
    (window := PlaytestWindow(board, parent=main)).show()
    qtbot.waitExposed(window)
    assert window.isWindow() and window.parent() is main and "Club final" in window.windowTitle()
    assert window.message_label.text() == view.board_note(board)
    board.paint(0, Symbol.X)  # the designer keeps editing its own board; the play-test has a copy
    assert window.board is not board and window.session.board is window.board
    window.close()


def test_result_banner_scoring_marks_and_large_clocks_at_1000x700(open_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=11))
    window.resize(1000, 700)
    session = window.session
    rng = random.Random(5)
    while not session.is_over:
        window.play(rng.choice(list(session.state.legal_placements())))
    qtbot.wait(50)
    result, banner = session.result(), window.result_banner
    assert result is not None and result.winner is not None and banner.text() == result.headline()
    window.session.set_agent(1 - result.winner.seat, "mcts:20000")  # after the end: the banner gets longer
    window.session.set_agent(result.winner.seat, "mcts:20000")
    qtbot.wait(50)
    assert "(agent mcts:20000)" in banner.text() and session.thinking is None
    central, app_font = window.centralWidget(), QApplication.font()
    for label in (banner, window.turn_label, *window.clock_labels):
        assert label.isVisible()
        needed = label.heightForWidth(label.width()) if label.wordWrap() else label.sizeHint().height()
        assert label.height() >= needed, f"{label.text()!r} has lines cut off"
        shown = label.visibleRegion().boundingRect()
        assert shown.size() == label.size(), f"{label.text()!r} is cut off or scrolled away"
        top_left = label.mapTo(central, QPoint(0, 0))
        assert central.rect().contains(top_left) and central.rect().contains(top_left + QPoint(
            label.width() - 1, label.height() - 1))
    for label in window.clock_labels:
        assert label.font().pointSizeF() >= 1.5 * app_font.pointSizeF()
        assert "turn" in label.text() and "bank" in label.text()
    winner_cells, loser_cells = window.canvas.scoring  # the symbols that scored are marked
    assert (winner_cells, loser_cells) == view.table_view(session).scoring and winner_cells
    rect = window.canvas.board_geometry().cell_rect(winner_cells[0]).toRect()
    marked = window.canvas.grab(rect).toImage()
    window.undo()
    assert window.canvas.scoring == ((), ()) and not window.result_banner.isVisible()
    assert window.canvas.grab(rect).toImage() != marked  # the frame was painted (the cell itself is unchanged)


def test_agents_think_off_the_gui_thread_and_the_window_shows_their_game(open_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=30))
    window.session.agent_seed = 11
    window.pace_combo.setCurrentIndex(window.pace_combo.findData(0))
    with qtbot.waitSignal(window.game_over, timeout=120_000) as blocker:
        window.seat_combos[0].setCurrentIndex(window.seat_combos[0].findData("random"))  # what choosing does
        window.session.set_agent(1, "greedy")  # set from code: the list follows
    assert window.seat_combos[1].currentText() == "Greedy player" and window.session.is_over
    assert blocker.args == [window.session.result_text()] == [window.result_label.text()]
    qtbot.wait(100)
    assert not window._runner.busy and window.session.thinking is None  # nothing left running


def test_the_step_button_and_the_pace_reach_the_session(open_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=30))
    session = window.session
    assert session.pace_ms == playtest.PACE_CHOICES[playtest.DEFAULT_PACE][1]
    window.pace_combo.setCurrentIndex(window.pace_combo.findData(playtest.STEP))
    assert session.step_mode and not window.step_button.isEnabled()
    session.set_agent(0, "random")
    session.set_agent(1, "greedy")
    qtbot.wait(200)
    assert session.ply == 0 and "waits: press Agent move (F6)" in window.turn_label.text()
    for expected in (1, 2):
        QTest.mouseClick(window.step_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda n=expected: session.ply == n and session.thinking is None, timeout=60_000)
        qtbot.wait(100)
        assert session.ply == expected  # one move per click
    window.pace_combo.setCurrentIndex(window.pace_combo.findData(2000))
    assert session.pace_ms == 2000 and not session.step_mode


def test_an_answer_a_change_made_stale_is_dropped_by_the_runner(open_window, qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    real, gate, calls = playtest.agent_decision, threading.Event(), []

    def gated(*args: object) -> object:  # the agent answers when the test lets it
        calls.append(args)
        gate.wait(10)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(playtest, "agent_decision", gated)
    window = open_window(small_board(seed=41, pie=False))
    (session := window.session).set_agent(1, "greedy")
    window.play(first_legal(window))
    qtbot.waitUntil(lambda: len(calls) == 1)
    assert window._runner.busy and "thinking" in window.turn_label.text()
    window.undo()  # the person takes their move back while the agent thinks
    assert session.ply == 0 and session.thinking is None and not window._runner.busy
    gate.set()
    qtbot.wait(200)
    assert session.ply == 0 and len(session.moves) == 1
