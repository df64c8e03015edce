"""Play-test window: complete games through the GUI, the pie rule, the tie rule, clocks and records.

Settings isolation and dialog fakes come from ``tests/gui/conftest.py``.
"""

from __future__ import annotations

import itertools
import random
import re
import threading
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QMainWindow, QMessageBox

import designer.playtest.window as playtest
from core.board.geometry import parse_cell
from core.board.model import Board, GameParams, Symbol
from core.engine.rules import GameState, Placement
from designer.playtest.window import PlaytestWindow


class FakeTime:
    """A time source the test advances by hand, so clock tests never wait."""

    def __init__(self) -> None:
        self.t = 500.0

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


@pytest.fixture
def open_window(qtbot, fake_time):  # type: ignore[no-untyped-def]
    def make(board: Board) -> PlaytestWindow:
        window = PlaytestWindow(board, time_source=fake_time, tick_ms=60_000)
        qtbot.addWidget(window)
        window.resize(1100, 760)
        window.show()
        qtbot.waitExposed(window)
        return window

    return make


def small_board(seed: int = 3, size: int = 6, pairs: int = 7, **params: object) -> Board:
    return Board.random(size=size, pairs=pairs, seed=seed, params=GameParams(**params))  # type: ignore[arg-type]


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


def expected_result_lines(window: PlaytestWindow) -> GameState:
    """An independent replay of the window's moves with the rules engine."""
    state = GameState(window.board)
    for move in window.moves:
        state.push_action(move)
    return state


def test_hot_seat_game_entered_by_mouse(open_window) -> None:  # type: ignore[no-untyped-def]
    board = small_board(seed=11)
    window = open_window(board)
    rng = random.Random(5)
    played: list[Placement] = []
    while not window.is_over:
        legal = list(window.state.legal_placements())
        choice = rng.choice(legal)
        before = window.ply
        place_by_mouse(window, choice)
        assert window.ply == before + 1, window.message_label.text()
        played.append(choice)
    assert window.moves == played
    state = expected_result_lines(window)
    result = state.result()
    assert result is not None and state.is_over()
    text = window.result_text()
    assert window.result_box.isVisible()
    assert f"O {result.score[Symbol.O]}, X {result.score[Symbol.X]}" in text
    assert f"{result.winner.value} wins" in text
    assert window.move_list.count() == len(played)
    first = board.params.first
    assert window.move_list.item(0).text().startswith(f"1. {first.value} {played[0].notation()}")
    if len(played) > 1:
        assert window.move_list.item(1).text().startswith(f"2. {first.other.value} ")
    assert window.canvas.preview == ()  # game over: nothing to place


def test_r_and_space_cycle_the_preview_when_the_focus_was_elsewhere(open_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=5))
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow())
    canvas = window.canvas
    window.hints_box.setFocus()  # the host last clicked "Show hints"
    assert QApplication.focusWidget() is window.hints_box
    QTest.mouseMove(canvas, QPoint(1, 1))
    QTest.mouseMove(canvas, cell_point(window, parse_cell("C3", 6)))
    assert canvas.choice_count > 2
    first = canvas.preview
    # Keys go wherever the focus is, as a real keyboard's do.
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Space)
    assert not window.hints_box.isChecked()  # Space did not toggle the check box ...
    second = canvas.preview
    assert second != first  # ... it cycled the preview under the mouse
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_R)
    assert canvas.preview not in (first, second) or canvas.choice_count == 2
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_R, Qt.KeyboardModifier.ShiftModifier)
    assert canvas.preview == second
    # While a move is being typed the text field keeps the focus: moving the mouse does not steal it.
    window.notation_edit.setFocus()
    QTest.mouseMove(canvas, cell_point(window, parse_cell("D4", 6)))
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_R)
    assert QApplication.focusWidget() is window.notation_edit
    assert window.notation_edit.text() == "r"


def test_ctrl_z_in_the_empty_move_entry_takes_the_move_back(open_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = open_window(Board(size=8))
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow())
    edit = window.notation_edit
    edit.setFocus()
    type_move(window, "A1 B1 C1 A2")
    assert window.ply == 1 and edit.text() == "" and QApplication.focusWidget() is edit
    # Ctrl+Z with the focus still in the entry takes the move back (before commit a8d3dea: the typed cells came back).
    QTest.keyClick(edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.ply == 0 and edit.text() == ""
    redo = window.redo_action.shortcut()
    QTest.keySequence(edit, redo)
    assert window.ply == 1 and edit.text() == ""
    # While the entry holds text, Ctrl+Z edits the text, as in any text field.
    QTest.keyClicks(edit, "B2 C2")
    QTest.keyClick(edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.ply == 1 and edit.text() != "B2 C2"


@pytest.mark.parametrize("keys", ["Ctrl+Shift+Z", "Ctrl+Y"])
def test_redo_keys_in_the_play_test(open_window, qtbot, keys: str) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QKeySequence

    window = open_window(Board(size=8))
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow())
    type_move(window, "A1 B1 C1 A2")
    window.canvas.setFocus()
    QTest.keyClick(window.canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.ply == 0
    QTest.keySequence(window.canvas, QKeySequence(keys))  # the README promises Ctrl+Shift+Z
    assert window.ply == 1


def test_long_move_list_lines_wrap_instead_of_being_cut(open_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=4, size=8, pairs=8))
    window.play(next(iter(window.state.legal_placements())))
    assert window.swap()
    qtbot.wait(20)
    lst = window.move_list
    item = lst.item(1)
    metrics = lst.fontMetrics()
    assert metrics.horizontalAdvance(item.text()) > lst.viewport().width()  # the swap line is too long for one line
    rect = lst.visualItemRect(item)
    assert rect.right() <= lst.viewport().width()
    assert rect.height() >= 2 * metrics.lineSpacing()  # so it wraps onto a second line instead of being cut


def test_status_bar_count_follows_the_move_under_a_still_mouse(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window(Board(size=8))
    canvas = window.canvas
    d4 = parse_cell("D4", 8)
    QTest.mouseMove(canvas, QPoint(1, 1))
    QTest.mouseMove(canvas, cell_point(window, d4))
    before = window.statusBar().currentMessage()
    assert before == f"D4 — {canvas.choice_count} placements here (wheel, R/Space or right-click to cycle)"
    window.play(Placement.parse("A1 B1 C1 A2", 8))  # now a piece at D4 must also touch this one: fewer choices
    count = canvas.choice_count
    now = window.statusBar().currentMessage()
    assert now != before  # it kept the count from before the move
    assert now == (f"D4 — {count} placements here (wheel, R/Space or right-click to cycle)" if count else "D4")
    type_move(window, "H8 H7 H6 H5")  # an illegal move's message is not overwritten by the hover text
    assert "Illegal" in window.statusBar().currentMessage()


def test_hot_seat_game_entered_by_notation(open_window) -> None:  # type: ignore[no-untyped-def]
    board = small_board(seed=4, first=Symbol.X)
    window = open_window(board)
    rng = random.Random(9)
    played = []
    while not window.is_over:
        choice = rng.choice(list(window.state.legal_placements()))
        names = choice.cell_names()
        rng.shuffle(names)  # any order, any case, commas or spaces
        type_move(window, ", ".join(n.lower() for n in names))
        played.append(choice)
        assert window.notation_edit.text() == ""
    assert window.moves == played
    assert window.move_list.item(0).text().startswith("1. X ")  # the board's first-moving symbol starts
    result = expected_result_lines(window).result()
    assert result is not None
    assert f"{result.winner.value} wins" in window.result_text()


def test_illegal_attempt_names_the_rule_and_highlights_cells(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window(Board(size=8))
    type_move(window, "A1 B1 C1 A2")  # L
    assert window.ply == 1
    # Same type sharing an edge (mirror image J counts as L).
    type_move(window, "A3 A4 B4 C4")
    assert window.ply == 1
    assert window.last_illegal is not None and window.last_illegal.rule == "same-type-adjacent"
    assert "same type" in window.message_label.text()
    highlighted = set(window.canvas.problems)
    assert {parse_cell(c, 8) for c in ("A3", "A2")} <= highlighted
    # Not touching any piece.
    type_move(window, "E5 F5 G5 H5")
    assert window.last_illegal.rule == "not-touching"
    assert "shares no edge" in window.message_label.text()
    assert set(window.canvas.problems) == {parse_cell(c, 8) for c in ("E5", "F5", "G5", "H5")}
    # Overlap.
    type_move(window, "C1 D1 E1 F1")
    assert window.last_illegal.rule == "occupied"
    assert "C1" in window.message_label.text()
    # Not a piece at all: the notation error is reported in words, no highlight of a rule.
    type_move(window, "D1 E1 D2 E2")
    assert "2x2 square" in window.message_label.text()
    type_move(window, "Z9 A1 A2 A3")
    assert "Z9" in window.message_label.text()
    assert window.ply == 1
    # A legal move afterwards clears the message and the marks.
    type_move(window, "D1 E1 F1 G1")
    assert window.ply == 2 and window.message_label.text() == "" and window.canvas.problems == ()


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours (4.5 is the minimum for normal text)."""
    def luminance(c: QColor) -> float:
        channels = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4
                    for x in (c.redF(), c.greenF(), c.blueF())]
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_illegal_message_is_readable_in_both_themes(open_window, theme: str) -> None:  # type: ignore[no-untyped-def]
    from designer.main_window import apply_theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, theme)
    try:
        window = open_window(Board(size=8))
        type_move(window, "A1 B1 C1 A2")
        type_move(window, "A3 A4 B4 C4")  # same type along an edge: refused with a message in red
        assert "same type" in window.message_label.text()
        match = re.search(r"color:\s*(#[0-9a-fA-F]{6})", window.message_label.styleSheet())
        assert match is not None
        ink = QColor(match.group(1))
        assert ink.red() > ink.green() + 60  # still red, so it reads as an error
        background = window.message_label.palette().color(QPalette.ColorRole.Window)
        assert contrast(ink, background) >= 4.5  # 2.1 on the dark theme's grey with the red before commit 3893e5e
    finally:
        apply_theme(app, "light")


def test_two_by_two_completed_by_three_pieces_is_refused(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window(Board(size=10))
    # The case peers got wrong: I and L each cover one cell of a 2x2, the S would cover the other two.
    for text in ("H2 H3 H4 H5", "G6 H6 G7 G8"):
        type_move(window, text)
    assert window.ply == 2
    type_move(window, "I5 I6 J6 J7")
    assert window.ply == 2
    assert window.last_illegal is not None and window.last_illegal.rule == "2x2"
    assert set(window.canvas.problems) == {parse_cell(c, 10) for c in ("H5", "I5", "H6", "I6")}


def test_pie_swap_offered_once_to_the_second_player(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=2))
    assert not window.swap_button.isEnabled()  # not before the first placement
    type_move(window, "swap")
    assert window.ply == 0 and window.last_illegal is not None and window.last_illegal.rule == "swap-not-allowed"
    first = next(iter(window.state.legal_placements()))
    window.play(first)
    assert window.swap_button.isEnabled()
    assert window.mover() is not None and window.mover().name == "Player 2"
    QTest.mouseClick(window.swap_button, Qt.MouseButton.LeftButton)
    assert window.swapped
    # Player 2 now owns O (the first placement), Player 1 owns X and places next: symbol order unchanged.
    assert window.seat_info(1).symbol is Symbol.O and window.seat_info(0).symbol is Symbol.X
    mover = window.mover()
    assert mover is not None and mover.name == "Player 1" and mover.symbol is Symbol.X
    assert window.state.to_move is Symbol.X
    assert not window.swap_button.isEnabled()
    assert window.move_list.item(1).text().strip() == "swap: Player 2 takes over O and the first placement (pie rule)"
    second = next(iter(window.state.legal_placements()))
    window.play(second)
    assert window.move_list.item(2).text().startswith("2. X ")
    type_move(window, "swap")
    assert window.last_illegal is not None and window.last_illegal.rule == "swap-not-allowed"
    assert window.ply == 3


def test_no_swap_on_a_board_without_the_pie_rule(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=2, pie=False))
    window.play(next(iter(window.state.legal_placements())))
    assert not window.swap_button.isEnabled()
    type_move(window, "swap")
    assert "without the pie rule" in window.message_label.text()


@pytest.mark.parametrize("swap", [False, True])
def test_game_on_a_board_without_symbols_ends_on_the_tie_rule(open_window, swap: bool) -> None:  # type: ignore[no-untyped-def]
    window = open_window(Board(size=6))
    rng = random.Random(1)
    with_game_over: list[str] = []
    window.game_over.connect(with_game_over.append)
    window.play(rng.choice(list(window.state.legal_placements())))
    if swap:
        assert window.swap()
    while not window.is_over:
        window.play(rng.choice(list(window.state.legal_placements())))
    placements = [m for m in window.moves if isinstance(m, Placement)]
    last_symbol = Symbol.O if len(placements) % 2 == 1 else Symbol.X
    last_seat = window.seat_of(last_symbol)
    text = window.result_text()
    assert "Score (uncovered symbols): O 0, X 0." in text
    assert "tie rule" in text
    assert f"{last_symbol.value} wins: Player {last_seat + 1}" in text
    if swap:
        # The swap moved the first symbol (O) to Player 2.
        assert window.seat_of(Symbol.O) == 1
    assert with_game_over == [text]


def test_undo_redo_and_a_new_move_cuts_the_future(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=8))
    moves = []
    for _ in range(3):
        p = next(iter(window.state.legal_placements()))
        window.play(p)
        moves.append(p)
    window.undo()
    window.undo()
    assert window.ply == 1 and len(window.state.placements) == 1
    assert window.canvas.pieces.keys() == set(moves[0].cells)
    window.redo()
    assert window.ply == 2 and window.state.placements == moves[:2]
    window.activateWindow()
    QTest.qWaitForWindowActive(window)
    window.canvas.setFocus()
    QTest.keyClick(window.canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # the standard Undo key
    assert window.ply == 1
    other = next(p for p in window.state.legal_placements() if p != moves[1])
    window.play(other)
    assert window.moves == [moves[0], other]
    assert not window.redo_action.isEnabled()


def test_hints_show_count_and_coverable_cells(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=5))
    window.play(next(iter(window.state.legal_placements())))
    assert window.canvas.hint_counts is None
    window.hints_box.setChecked(True)
    legal = list(window.state.legal_placements())
    coverable = {c for p in legal for c in p.cells}
    assert window.hint_label.text().startswith(f"{len(legal)} legal placements; {len(coverable)} cells coverable")
    counts = window.canvas.hint_counts
    assert counts is not None and set(counts) == coverable
    for cell in coverable:
        assert counts[cell] == sum(1 for p in legal if cell in p.cells)
    window.canvas.grab()  # paints the hints without error
    window.hints_box.setChecked(False)
    assert window.canvas.hint_counts is None


def test_supply_is_always_shown(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window(Board(size=8, params=GameParams(supply=(1, 2, 0, 3))))
    assert window.supply_label.text() == "Supply left: L 1  I 2  T 0  S 3"
    type_move(window, "A1 B1 C1 A2")
    assert window.supply_label.text() == "Supply left: L 0  I 2  T 0  S 3"
    type_move(window, "A3 B3 B2 C2")  # S
    type_move(window, "D1 D2 D3 C3")  # an L: none left
    assert window.last_illegal is not None and window.last_illegal.rule in ("supply", "same-type-adjacent")


def test_bank_runs_out_and_that_player_loses(open_window, fake_time: FakeTime) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=6, turn_time=5, bank=10))
    assert window.turn_spin.value() == 5 and window.bank_spin.value() == 10
    fake_time.advance(3)
    window.play(next(iter(window.state.legal_placements())))  # Player 1 used 3 s of the turn time
    fake_time.advance(8)  # Player 2: 5 s turn time, then 3 s of the bank
    window.tick_clocks()
    assert window.clock.bank_of(1) == pytest.approx(7)
    assert "bank 0:07" in window.clock_labels[1].text()
    window.play(next(iter(window.state.legal_placements())))
    assert window.clock.reading(0).turn_left == 5  # refilled for Player 1's new turn
    assert window.clock.bank_of(0) == 10
    fake_time.advance(14.5)
    window.tick_clocks()
    assert not window.is_over
    fake_time.advance(1)
    window.tick_clocks()
    assert window.is_over
    text = window.result_text()
    assert "Player 1 (O) ran out of time" in text and "Player 2 (X) wins on time" in text
    assert window.result_box.isVisible()
    assert "OUT OF TIME" in window.clock_labels[0].text()
    assert not window.canvas.interactive and window.canvas.preview == ()
    assert not window.play(next(iter(window.state.legal_placements())))
    assert window.ply == 2
    # New limits, fresh clocks: play goes on.
    window.turn_spin.setValue(30)
    window.restart_clocks()
    assert not window.is_over and window.clock.reading(0).turn_left == 30


def test_pause_and_clocks_off(open_window, fake_time: FakeTime) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=6, turn_time=1, bank=2))
    QTest.mouseClick(window.pause_button, Qt.MouseButton.LeftButton)
    assert window.clock.paused
    assert window.pause_button.text() == "Resume"
    assert not window.canvas.interactive
    fake_time.advance(100)
    window.tick_clocks()
    assert not window.is_over
    legal = next(iter(window.state.legal_placements()))
    assert not window.play(legal) and "paused" in window.message_label.text()
    QTest.mouseClick(window.pause_button, Qt.MouseButton.LeftButton)
    assert not window.clock.paused
    assert window.pause_button.text() == "Pause"
    window.set_clocks_enabled(False)
    fake_time.advance(100)
    window.tick_clocks()
    assert not window.is_over
    assert "clocks off" in window.clock_labels[0].text()
    window.set_clocks_enabled(True)
    fake_time.advance(3.5)
    window.tick_clocks()
    assert window.is_over and "ran out of time" in window.result_text()


def test_save_load_and_replay_a_record(open_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    board = small_board(seed=12)
    window = open_window(board)
    rng = random.Random(2)
    window.play(rng.choice(list(window.state.legal_placements())))
    window.swap()
    while not window.is_over:
        window.play(rng.choice(list(window.state.legal_placements())))
    path = tmp_path / "game.txt"
    assert window.save_record(str(path))
    text = path.read_text()
    assert "swap" in text.splitlines()
    final_text = window.result_text()
    moves = window.moves

    other = open_window(board)
    assert other.load_record(str(path))
    assert other.moves == moves
    assert other.ply == len(moves) and other.is_over
    assert other.result_text() == final_text
    assert not other.clock.enabled  # replaying a record does not run the clocks
    QTest.mouseClick(other.nav_buttons["first"], Qt.MouseButton.LeftButton)
    assert other.ply == 0 and other.canvas.pieces == {} and not other.swapped
    QTest.mouseClick(other.nav_buttons["next"], Qt.MouseButton.LeftButton)
    assert other.ply == 1 and other.canvas.pieces.keys() == set(moves[0].cells)
    QTest.mouseClick(other.nav_buttons["next"], Qt.MouseButton.LeftButton)
    assert other.ply == 2 and other.swapped and other.seat_of(Symbol.O) == 1
    QTest.mouseClick(other.nav_buttons["prev"], Qt.MouseButton.LeftButton)
    assert other.ply == 1 and not other.swapped
    QTest.mouseClick(other.nav_buttons["last"], Qt.MouseButton.LeftButton)
    assert other.ply == len(moves) and other.result_text() == final_text
    assert other.move_list.currentRow() == len(moves) - 1


def test_bad_records_are_reported_by_file_and_line(open_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = open_window(Board(size=6))
    bad = tmp_path / "bad.txt"
    bad.write_text("# a comment\nA1 B1 C1 D1\nA2 Q7 A3 A4\n")
    assert not window.load_record(str(bad))
    assert str(bad) in window.message_label.text() and "line 3" in window.message_label.text()
    illegal = tmp_path / "illegal.txt"
    illegal.write_text("A1 B1 C1 D1\nF3 F4 F5 F6\n")
    assert not window.load_record(str(illegal))
    assert "action 2" in window.message_label.text() and "shares no edge" in window.message_label.text()
    assert not window.load_record(str(tmp_path / "missing.txt"))
    assert "no such file" in window.message_label.text()
    assert window.moves == []


def gain_for(board: Board, symbol: Symbol, placement: Placement) -> int:
    """Opponent symbols covered minus own symbols covered: what the greedy agent maximises."""
    covered = [board[c] for c in placement.cells]
    return sum(1 for s in covered if s is symbol.other) - sum(1 for s in covered if s is symbol)


def wait_for_person(qtbot, window: PlaytestWindow) -> None:  # type: ignore[no-untyped-def]
    def ready() -> None:
        who = window.mover()
        assert window.is_over or (who is not None and who.agent is None and not window.agent_thinking())

    qtbot.waitUntil(ready, timeout=120_000)  # the first call may compile the agent kernels


def test_game_against_the_greedy_agent_with_its_pie_swap(open_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    board = small_board(seed=21, size=8, pairs=16)
    window = open_window(board)
    window.agent_seed = 7
    window.set_agent(1, "greedy")
    assert window.seat_combos[1].currentText() == "Greedy agent"
    # Open with a placement that gains O symbols: greedy judges the swap better and takes it.
    legal = list(window.state.legal_placements())
    opening = max(legal, key=lambda p: (gain_for(board, Symbol.O, p), p.cells))
    assert gain_for(board, Symbol.O, opening) > 0
    place_by_mouse(window, opening)
    wait_for_person(qtbot, window)
    assert window.moves[1] == "swap" and window.seat_of(Symbol.O) == 1
    mover = window.mover()
    assert mover is not None and mover.name == "Player 1" and mover.symbol is Symbol.X
    rng = random.Random(3)
    while not window.is_over:
        place_by_mouse(window, rng.choice(list(window.state.legal_placements())))
        wait_for_person(qtbot, window)
    # Replay and check every agent placement was a best-gain placement for the symbol it played.
    state = GameState(board)
    agent_moves = 0
    for move in window.moves:
        if isinstance(move, Placement) and window.seat_of(state.to_move) == 1:
            best = max(gain_for(board, state.to_move, p) for p in state.legal_placements())
            assert gain_for(board, state.to_move, move) == best
            agent_moves += 1
        state.push_action(move)
    assert agent_moves >= 1 and state.is_over()
    result = state.result()
    assert result is not None
    seat = window.seat_of(result.winner)
    assert f"Player {seat + 1} ({'agent greedy' if seat == 1 else 'person'})" in window.result_text()


def test_agents_play_a_whole_game_against_each_other(open_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=30))
    window.agent_seed = 11
    with qtbot.waitSignal(window.game_over, timeout=120_000) as blocker:
        window.set_agent(0, "random")
        window.set_agent(1, "greedy")
    state = expected_result_lines(window)
    result = state.result()
    assert result is not None
    assert blocker.args == [window.result_text()]
    assert f"O {result.score[Symbol.O]}, X {result.score[Symbol.X]}" in window.result_text()


def test_a_person_cannot_move_for_the_agent_and_bad_specs_are_refused(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=30))
    window.set_paused(True)  # a paused agent does not move
    window.set_agent(0, "greedy")
    assert not window.canvas.interactive
    type_move(window, " ".join(next(iter(window.state.legal_placements())).cell_names()))
    assert window.ply == 0 and "agent's turn" in window.message_label.text()
    with pytest.raises(ValueError, match="mcts:N"):
        window.set_agent(1, "alphazero")


def test_undo_against_an_agent_returns_to_the_persons_turn(open_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    board = small_board(seed=40, size=8, pairs=12, pie=False)
    window = open_window(board)
    window.agent_seed = 3
    window.set_agent(1, "greedy")
    rng = random.Random(4)
    for _ in range(2):
        window.play(rng.choice(list(window.state.legal_placements())))
        wait_for_person(qtbot, window)
    assert window.ply == 4
    window.undo()
    assert window.ply == 2 and window.mover() is not None and window.mover().agent is None
    qtbot.wait(50)
    assert window.ply == 2 and not window.agent_thinking()  # the agent waits: its reply is kept for redo
    window.redo()
    assert window.ply == 3
    window.undo()
    assert window.ply == 2
    # A different move cuts the old future and the agent answers it.
    old_third = window.moves[2]
    third = next(p for p in window.state.legal_placements() if p != old_third)
    window.play(third)
    wait_for_person(qtbot, window)
    assert window.moves[2] == third and window.ply == len(window.moves) == 4


class GatedAgent:
    """A stand-in for ``agent_decision`` that blocks until the test lets it answer (test fake only)."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.calls = 0

    def __call__(self, spec: str, board: Board, moves: list[object], seed: int) -> object:
        self.calls += 1
        self.gate.wait(10)
        state = GameState(board)
        for move in moves:
            state.push_action(move)  # type: ignore[arg-type]
        return next(iter(state.legal_placements()))


def test_pause_holds_the_agents_answer_and_undo_drops_a_stale_one(open_window, qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    fake = GatedAgent()
    monkeypatch.setattr(playtest, "agent_decision", fake)
    window = open_window(small_board(seed=41, pie=False))
    window.set_agent(1, "greedy")
    window.play(next(iter(window.state.legal_placements())))
    qtbot.waitUntil(lambda: fake.calls == 1)
    assert window.agent_thinking() and "thinking" in window.turn_label.text()
    window.set_paused(True)
    with qtbot.waitSignal(window._runner.finished, timeout=5000):
        fake.gate.set()
    assert window.ply == 1  # held while paused
    window.set_paused(False)
    assert window.ply == 2
    # Now a stale answer: the agent is thinking when the person takes their move back.
    fake.gate.clear()
    window.play(next(iter(window.state.legal_placements())))
    qtbot.waitUntil(lambda: fake.calls == 2)
    window.undo()
    assert window.ply == 2 and not window.agent_thinking()
    fake.gate.set()
    qtbot.wait(200)
    assert window.ply == 2 and len(window.moves) == 3


def test_menu_saves_and_opens_records_through_the_file_dialogs(open_window, tmp_path: Path,
                                                              monkeypatch) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=13))
    for _ in range(3):
        window.play(next(iter(window.state.legal_placements())))
    path = str(tmp_path / "from-menu.txt")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (path, "")))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (path, "")))
    actions = {a.text().replace("&", ""): a for a in window.menuBar().actions()[0].menu().actions()}
    actions["Save record…"].trigger()
    assert Path(path).read_text().count("\n") >= 3
    moves = window.moves
    actions["New game"].trigger()
    assert window.moves == [] and window.ply == 0
    actions["Open record…"].trigger()
    assert window.moves == moves


def test_opens_as_its_own_window_over_the_designer(qtbot) -> None:  # type: ignore[no-untyped-def]
    main = QMainWindow()
    qtbot.addWidget(main)
    board = small_board(seed=14)
    board.name = "Club final"
    window = PlaytestWindow(board, parent=main)
    window.show()
    qtbot.waitExposed(window)
    assert window.isWindow() and window.parent() is main
    assert "Club final" in window.windowTitle()
    board.paint(0, Symbol.O)  # the designer keeps editing its own board; the play-test has a copy
    assert window.board is not board
    window.close()


def test_a_person_cannot_swap_for_the_agent(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=2))
    window.play(next(iter(window.state.legal_placements())))
    window.set_paused(True)  # the agent would answer at once otherwise
    window.set_agent(1, "greedy")
    assert not window.swap_button.isEnabled()
    type_move(window, "swap")
    assert window.ply == 1 and "agent's turn" in window.message_label.text()


def test_an_invalid_board_is_flagged_but_still_playable(open_window) -> None:  # type: ignore[no-untyped-def]
    board = Board(size=6)
    board.set_raw(parse_cell("B2", 6), Symbol.O)  # partner E5 stays empty: broken anti-symmetry
    window = open_window(board)
    text = window.message_label.text()
    assert "not valid for a match" in text and "B2" in text and "E5" in text
    type_move(window, "A1 B1 C1 D1")
    assert window.ply == 1


def test_the_window_timer_drives_the_clock_display(qtbot, fake_time: FakeTime) -> None:  # type: ignore[no-untyped-def]
    window = PlaytestWindow(small_board(seed=6, turn_time=10, bank=60), time_source=fake_time, tick_ms=10)
    qtbot.addWidget(window)
    window.show()
    assert "turn 0:10" in window.clock_labels[0].text()
    fake_time.advance(4)
    qtbot.waitUntil(lambda: "turn 0:06" in window.clock_labels[0].text(), timeout=2000)
    fake_time.advance(66)
    qtbot.waitUntil(lambda: window.is_over, timeout=2000)
    assert "Player 1 (O) ran out of time" in window.result_label.text()


# ------------------------------------------------------------------ agents, result banner, clocks, pace


def test_an_agent_chosen_for_the_side_to_move_after_undo_starts(open_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=8))
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow())
    for _ in range(2):
        window.play(next(iter(window.state.legal_placements())))
    window.canvas.setFocus()
    QTest.keyClick(window.canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.ply == 1 and window.mover() is not None and window.mover().seat == 1
    combo = window.seat_combos[1]
    combo.setCurrentIndex(combo.findData("greedy"))  # what choosing "Greedy agent" in the list does
    qtbot.waitUntil(lambda: window.ply == 2, timeout=60_000)  # before commit c721ff1 it sat there while its clock ran
    assert len(window.moves) == 2 and not window.agent_thinking()
    # An agent that waits (the cursor moved back into its turn) has no clock running.
    window.set_paused(True)
    window.set_agent(0, "random")  # would start at once: Player 1 is to move
    window.go_first()
    window.set_paused(False)
    assert window.mover() is not None and window.mover().agent == "random"
    assert not window.agent_thinking() and window.clock.current is None
    assert "◀" not in window.clock_labels[0].text() and "waits" in window.turn_label.text()
    qtbot.wait(100)
    assert window.ply == 0
    QTest.mouseClick(window.step_button, Qt.MouseButton.LeftButton)  # play on from here
    qtbot.waitUntil(lambda: window.ply == 1, timeout=60_000)


def test_result_banner_scoring_marks_and_large_clocks_at_1000x700(open_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=11))
    window.resize(1000, 700)
    rng = random.Random(5)
    while not window.is_over:
        window.play(rng.choice(list(window.state.legal_placements())))
    qtbot.wait(50)
    result = expected_result_lines(window).result()
    assert result is not None
    winner_seat = window.seat_of(result.winner)
    banner = window.result_banner
    assert banner.text().startswith(f"Player {winner_seat + 1} wins with {result.winner.value} (person)")
    mine, theirs = result.score[result.winner], result.score[result.winner.other]
    assert f"{mine} to {theirs}" in banner.text()
    window.set_agent(1 - winner_seat, "mcts:20000")  # after the end: nothing moves, but the banner gets longer
    window.set_agent(winner_seat, "mcts:20000")
    qtbot.wait(50)
    assert "(agent mcts:20000)" in banner.text() and not window.agent_thinking()
    central = window.centralWidget()
    app_font = QApplication.font()
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
    # The symbols that scored are marked: the winner's and the loser's uncovered symbol cells.
    board, covered = window.board, window.state.covered
    def uncovered(symbol: Symbol) -> set[int]:
        return {c for c in range(board.size ** 2) if board[c] is symbol and not covered >> c & 1}
    winner_cells, loser_cells = window.canvas.scoring
    assert set(winner_cells) == uncovered(result.winner) and set(loser_cells) == uncovered(result.winner.other)
    assert winner_cells, "this seed's winner keeps some symbols"
    cell = winner_cells[0]
    rect = window.canvas.board_geometry().cell_rect(cell).toRect()
    marked = window.canvas.grab(rect).toImage()
    window.undo()
    assert window.canvas.scoring == ((), ()) and not window.result_banner.isVisible()
    assert not window.agent_thinking()  # browsing back: the agents wait
    assert window.canvas.grab(rect).toImage() != marked  # the frame was painted (the cell itself is unchanged)


def test_agent_games_have_a_pace_and_a_step_mode(open_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    import time

    window = open_window(small_board(seed=30))
    window.agent_seed = 4
    step = window.pace_combo.findData(playtest.STEP)
    window.pace_combo.setCurrentIndex(step)
    window.set_agent(0, "random")
    window.set_agent(1, "greedy")
    qtbot.wait(200)
    assert window.ply == 0 and not window.agent_thinking() and window.clock.current is None  # waits for a click
    for expected in (1, 2, 3):
        QTest.mouseClick(window.step_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda n=expected: window.ply == n and not window.agent_thinking(), timeout=60_000)
        qtbot.wait(100)
        assert window.ply == expected  # one move per click
    # A pace of at least 0.5 s per move between agents.
    stamps: list[float] = []
    window.position_changed.connect(lambda: stamps.append(time.monotonic()))
    window.pace_combo.setCurrentIndex(window.pace_combo.findData(500))
    qtbot.waitUntil(lambda: len(stamps) >= 3 or window.is_over, timeout=60_000)
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    assert gaps and min(gaps) >= 0.45


def test_long_agent_session_twice_to_the_end_with_undo_between(open_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(seed=31, size=8, pairs=12))
    window.agent_seed = 9
    window.pace_combo.setCurrentIndex(window.pace_combo.findData(0))
    finished: list[str] = []
    window.game_over.connect(finished.append)
    window.set_agent(0, "random")
    window.set_agent(1, "greedy")
    qtbot.waitUntil(lambda: len(finished) == 1, timeout=120_000)
    first_game = window.moves
    for _ in range(4):
        window.undo()
    assert window.ply == len(first_game) - 4 and not window.is_over
    qtbot.wait(100)
    assert window.ply == len(first_game) - 4  # browsing back: the agents wait
    assert window.step_button.isEnabled()
    QTest.mouseClick(window.step_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(finished) == 2, timeout=120_000)
    assert window.is_over and finished[1] == window.result_text()
    assert window.moves[:len(first_game) - 4] == first_game[:-4]
    # Nothing is left running, and the window still answers input.
    qtbot.wait(100)
    assert not window._runner.busy and not window.agent_thinking() and window.session.thinking is None
    QTest.mouseClick(window.nav_buttons["first"], Qt.MouseButton.LeftButton)
    assert window.ply == 0 and window.canvas.pieces == {}
    QTest.mouseClick(window.nav_buttons["last"], Qt.MouseButton.LeftButton)
    assert window.ply == len(window.moves) and window.result_banner.isVisible()
    window.set_agent(0, None)
    window.set_agent(1, None)
    window.new_game()
    type_move(window, " ".join(next(iter(window.state.legal_placements())).cell_names()))
    assert window.ply == 1 and not window._runner.busy


def test_a_board_without_a_supply_shows_that_no_placement_is_possible(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window(small_board(supply=(0, 0, 0, 0)))
    assert window.result_banner.isVisible() and window.result_banner.text() == "No placement is possible on this board"
    assert "nobody wins" in window.result_label.text() and "tie rule" not in window.result_label.text()
    assert window.turn_label.text() == "Game over"


def test_a_record_that_cannot_be_saved_names_the_chosen_file_and_what_to_do(open_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The error used to name the temporary file written beside the record, a name the host never chose."""
    window = open_window(small_board(seed=13))
    window.play(next(iter(window.state.legal_placements())))
    target = tmp_path / "no-such-folder" / "game.txt"
    assert not window.save_record(str(target))
    said = window.message_label.text()
    assert said.startswith(f"{target} was not written") and ".tmp" not in said
    assert f"the folder {target.parent} does not exist; choose another folder" in said
    assert not window.save_record(str(tmp_path))
    assert "that name is a folder; choose a file name" in window.message_label.text()


def test_a_legal_move_takes_the_last_refusal_out_of_the_status_bar(open_window) -> None:  # type: ignore[no-untyped-def]
    """The refusal stayed in the status bar for eight seconds under the move that had just been accepted."""
    window = open_window(small_board(seed=13))
    window.notation_edit.setText("A1 B1")
    assert not window.submit_notation()
    assert "2 cells given" in window.statusBar().currentMessage()
    window.notation_edit.setText(next(iter(window.state.legal_placements())).notation())
    assert window.submit_notation()
    assert window.statusBar().currentMessage() == ""
    window.notation_edit.setText("A1 B1")
    assert not window.submit_notation()
    window.statusBar().showMessage("shown since the refusal")
    window.go_first()  # takes out only its own message, not one shown after it
    assert window.ply == 0 and window.statusBar().currentMessage() == "shown since the refusal"


def test_a_record_saved_without_a_suffix_is_listed_by_open_record(open_window, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A name typed without a suffix was saved as it was, and Open record… (game records only) did not list it."""
    window = open_window(small_board(seed=13))
    window.play(next(iter(window.state.legal_placements())))
    typed = str(tmp_path / "final-test")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (typed, "")))
    actions = {a.text().replace("&", ""): a for a in window.menuBar().actions()[0].menu().actions()}
    actions["Save record…"].trigger()
    assert not Path(typed).exists() and Path(typed + ".lits-game").read_text().count("\n") >= 2
    assert "*.lits-game" in playtest.RECORD_FILTER
    Path(typed + ".lits-game").write_text("kept\n")
    asked: list[str] = []

    def keep(_parent: object, _title: str, text: str, *_args: object) -> QMessageBox.StandardButton:
        asked.append(text)
        return QMessageBox.StandardButton.No

    monkeypatch.setattr(QMessageBox, "question", staticmethod(keep))
    actions["Save record…"].trigger()
    assert asked == [f"{typed}.lits-game already exists. Replace it?"]
    assert Path(typed + ".lits-game").read_text() == "kept\n"


def test_the_refusal_that_restart_or_resume_answers_is_taken_back(open_window, fake_time: FakeTime) -> None:  # type: ignore[no-untyped-def]
    """A "lost on time" refusal stood under a game that went on after Apply & restart clocks (as that refusal
    advised), and "the game is paused" after Resume."""
    window = open_window(small_board(seed=6, turn_time=1, bank=1))
    fake_time.advance(3)
    window.tick_clocks()
    assert window.is_over
    move = next(iter(window.state.legal_placements()))
    assert not window.play(move)
    assert window.message_label.text().startswith("The game was lost on time; restart the clocks")
    window.restart_clocks()
    assert not window.is_over and window.message_label.text() == ""
    QTest.mouseClick(window.pause_button, Qt.MouseButton.LeftButton)
    assert not window.play(move) and "paused" in window.message_label.text()
    QTest.mouseClick(window.pause_button, Qt.MouseButton.LeftButton)
    assert not window.clock.paused and window.message_label.text() == ""
    assert window.play(move)
