"""The Host window: paste a move, see it judged as it is typed, record it, watch the clocks, copy the post;
closing and reopening the window resumes the match from its journal."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog, QLabel

from core.board.boardfile import load_board
from core.board.geometry import parse_cell
from core.match.events import Move
from core.match.host import Match
from core.match.times import parse_iso
from designer.host.window import CHOOSE, TO_MOVE, HostWindow
from tests.match.script import write_board

pytestmark = pytest.mark.gui


def ms(text: str) -> int:
    return parse_iso(f"2026-05-02T{text}+00:00")[0]


class Wall:
    """The window's wall clock, moved by hand."""

    def __init__(self) -> None:
        self.now = ms("14:00:00")

    def __call__(self) -> int:
        return self.now


def cells(*names: str) -> tuple[int, ...]:
    return tuple(sorted(parse_cell(n, 6) for n in names))


def events(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "journal.jsonl").read_text(encoding="utf-8").splitlines()]


def show(qtbot, folder: Path, wall: Wall, pictures: bool = False) -> HostWindow:  # type: ignore[no-untyped-def]
    window = HostWindow(Match.open(folder), clock=wall, tick_ms=20, draw_pictures=pictures)
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    qtbot.waitExposed(window)
    return window


def type_move(qtbot, window: HostWindow, text: str) -> None:  # type: ignore[no-untyped-def]
    window.paste_edit.clear()
    qtbot.keyClicks(window.paste_edit, text)


def test_paste_judge_record_and_post(qtbot, folder: Path) -> None:  # type: ignore[no-untyped-def]
    wall = Wall()
    window = show(qtbot, folder, wall, pictures=True)
    type_move(qtbot, window, "a2,b2,c2")
    assert window.verdict_label.text() == ("Not counted (notation): 'a2,b2,c2' is not a placement: A2 B2 C2: 3 cells "
                                           "given; a placement covers exactly four")
    qtbot.keyClicks(window.paste_edit, ",c3")
    assert window.verdict_label.text() == "Counts: move 1: Al (O) places an L at A2 B2 C2 C3, covering X B2, X C2"
    assert window.canvas.highlight == cells("A2", "B2", "C2", "C3")
    assert len(events(folder)) == 1, "judging as it is typed writes nothing"
    window.time_edit.setText("14:00:20")
    QTest.keyClick(window.paste_edit, Qt.Key.Key_Return)
    recorded = events(folder)[-1]
    assert (recorded["counted"], recorded["action"], recorded["at"]) == (True, "A2 B2 C2 C3",
                                                                         "2026-05-02T14:00:20+00:00")
    assert window.paste_edit.text() == "" and window.time_edit.text() == ""
    assert window.post_text.splitlines()[:2] == ["Move 1 | Al (O) | A2 B2 C2 C3 | L piece | covers X B2, X C2",
                                                 "Bo (X) to move - turn 1:00, bank 5:00 | Al (O): bank 5:00"]
    assert window.post_edit.toPlainText() == window.post_text
    assert window.canvas.pieces == dict.fromkeys(cells("A2", "B2", "C2", "C3"), "L")

    # the picture comes from the helper process: the very file `lits match post` writes
    if window.post_image is None:
        with qtbot.waitSignal(window.picture_ready, timeout=180_000):
            pass
    assert window.post_image is not None and window.post_image.width() == 800
    assert (folder / "posts" / "post-001.png").exists()  # the post after move 1
    window.copy_post()
    mime = QGuiApplication.clipboard().mimeData()
    assert mime.text() == window.post_text
    assert mime.hasImage()

    # the wrong player posts: refused, journaled, and the reply says who is to move
    window.by_combo.setCurrentText("Al")
    type_move(qtbot, window, "E1 F1 D2 E2")
    assert window.verdict_label.text() == "Not counted (wrong-player): it is Bo (X)'s turn, not Al's"
    window.time_edit.setText("14:00:30")
    window.record_button.click()
    assert events(folder)[-1]["refused"]["rule"] == "wrong-player"
    assert window.paste_edit.text() == "E1 F1 D2 E2", "a refused post stays in the box to fix"
    window.by_combo.setCurrentText(TO_MOVE)


def test_swap_correct_pause_and_live_clocks(qtbot, folder: Path) -> None:  # type: ignore[no-untyped-def]
    wall = Wall()
    window = show(qtbot, folder, wall)
    window.time_edit.setText("14:00:20")
    type_move(qtbot, window, "A2 B2 C2 C3")
    window.record_button.click()
    wall.now = ms("14:00:35")
    qtbot.waitUntil(lambda: window.clock_labels[1].text() == "▶ Bo (X): turn 0:45, bank 5:00")
    window.time_edit.setText("14:00:50")
    assert window.swap_button.isEnabled()
    window.by_combo.setCurrentText("Bo")
    window.swap_button.click()
    assert window.players_label.text() == "Al (X) vs Bo (O)"
    assert not window.swap_button.isEnabled(), "the swap is the second player's first turn only"
    window.time_edit.setText("14:01:20")
    window.by_combo.setCurrentText("Al")
    type_move(qtbot, window, "C1-D1-E1-F1")
    window.record_button.click()
    window.time_edit.setText("14:02:00")
    window.by_combo.setCurrentText("Al")
    type_move(qtbot, window, "e1f1d2e2")
    window.correct_button.click()
    last = events(folder)[-1]
    assert (last["event"], last["counted"], last["replaces"]) == ("correct", True, "C1 D1 E1 F1")
    window.time_edit.setText("14:02:10")
    window.pause_button.click()
    assert window.pause_button.text() == "&Resume"
    wall.now = ms("14:10:00")
    qtbot.waitUntil(lambda: "Paused since 14:02:10" in window.status_label.text())
    assert window.clock_labels[1].text() == "Bo (O): turn 0:10, bank 5:00", "a paused clock does not run"
    window.time_edit.setText("14:10:00")
    window.pause_button.click()
    assert [e["event"] for e in events(folder)][-2:] == ["pause", "resume"]


def test_closing_and_reopening_resumes_from_the_journal(qtbot, folder: Path) -> None:  # type: ignore[no-untyped-def]
    wall = Wall()
    window = show(qtbot, folder, wall)
    window.time_edit.setText("14:00:20")
    type_move(qtbot, window, "A2 B2 C2 C3")
    window.record_button.click()
    post, log = window.post_text, [window.log_list.item(i).text() for i in range(window.log_list.count())]
    window.close()
    again = show(qtbot, folder, wall)
    assert again.post_text == post
    assert [again.log_list.item(i).text() for i in range(again.log_list.count())] == log
    assert again.canvas.pieces == dict.fromkeys(cells("A2", "B2", "C2", "C3"), "L")


def test_a_move_recorded_from_the_command_line_shows_up(qtbot, folder: Path) -> None:  # type: ignore[no-untyped-def]
    window = show(qtbot, folder, Wall())
    other = Match.open(folder)  # as `lits match move` in a terminal
    other.submit(Move(other.when("14:00:20"), "a2 b2 c2 c3", None))
    qtbot.waitUntil(lambda: window.canvas.pieces == dict.fromkeys(cells("A2", "B2", "C2", "C3"), "L"))
    assert window.post_text.startswith("Move 1 | Al (O) | A2 B2 C2 C3")


def test_file_menu_opens_a_folder_and_resumes_its_match(qtbot, folder: Path,  # type: ignore[no-untyped-def]
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.gui.windows import open_window

    win = open_window(qtbot)
    assert win.host_action.text() == "&Host a match…"
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(folder)))
    host = win.host_match()
    assert isinstance(host, HostWindow)
    qtbot.addWidget(host)
    assert host.players_label.text() == "Al (O) vs Bo (X)"
    host.close()


def test_a_post_too_late_to_count_is_said_before_it_is_recorded(qtbot, folder: Path) -> None:  # type: ignore[no-untyped-def]
    """The verdict as it is typed reads the clock: a move posted after the bank ran out would only record the loss
    on time, so it is never shown as counting."""
    wall = Wall()
    window = show(qtbot, folder, wall)
    type_move(qtbot, window, "A2 B2 C2 C3")
    assert window.verdict_label.text().startswith("Counts: move 1")
    window.time_edit.setText("14:07:00")  # the turn minute and the 5-minute bank ran out at 14:06:00
    type_move(qtbot, window, "A2 B2 C2 C3")
    assert window.verdict_label.text() == ("Too late to count: Al (O)'s bank ran out at 14:06:00, so recording it "
                                           "records the loss on time")
    window.time_edit.clear()
    wall.now = ms("14:06:30")  # no post time: the wall clock says the same
    type_move(qtbot, window, "A2 B2 C2 C3")
    assert window.verdict_label.text().startswith("Too late to count: Al (O)'s bank ran out at 14:06:00")


def test_after_each_post_the_host_chooses_who_posted_the_next(qtbot, folder: Path) -> None:  # type: ignore[no-untyped-def]
    """Once a move has counted, a post without its poster would be charged to whoever is to move (a player's
    second post in a row would become the opponent's move); after a refused post the box does not stay on the
    player who was refused."""
    window = show(qtbot, folder, Wall())
    assert window.by_combo.currentText() == TO_MOVE  # the first move may go without
    window.time_edit.setText("14:00:20")
    type_move(qtbot, window, "A2 B2 C2 C3")
    window.record_button.click()
    assert window.by_combo.currentText() == CHOOSE and window.time_edit.text() == ""
    window.time_edit.setText("14:00:40")
    type_move(qtbot, window, "E1 F1 D2 E2")
    window.record_button.click()  # nobody chosen: nothing recorded
    assert len(events(folder)) == 2
    assert window.verdict_label.text().startswith("Not recorded: Who posted it? Once the match has begun every post "
                                                  "names its poster (--by Al or --by Bo)")
    window.by_combo.setCurrentText("Al")  # Al posts out of turn: refused, and the typed time stays to re-enter
    window.record_button.click()
    assert events(folder)[-1]["counted"] is False
    assert window.time_edit.text() == "14:00:40" and window.by_combo.currentText() == CHOOSE


def test_a_journal_damaged_while_the_window_is_open_stops_recording(qtbot, folder: Path) -> None:  # type: ignore[no-untyped-def]
    window = show(qtbot, folder, Wall())
    window.time_edit.setText("14:00:20")
    type_move(qtbot, window, "A2 B2 C2 C3")
    window.record_button.click()
    journal = folder / "journal.jsonl"
    journal.write_text(journal.read_text(encoding="utf-8").replace("A2 B2 C2 C3", "A2 B2 C2 D2"), encoding="utf-8")
    qtbot.waitUntil(lambda: window.problem_label.isVisible())
    assert window.problem_label.text().startswith("The journal cannot be trusted: ")
    assert "start the match again in a new folder" in window.problem_label.text()
    assert not window.record_button.isEnabled() and not window.swap_button.isEnabled()
    qtbot.wait(100)  # the clock ticks do not hide it
    assert window.problem_label.isVisible()


def test_the_setup_keeps_what_was_typed_and_starts_the_clock_when_asked(  # type: ignore[no-untyped-def]
        qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QDialog, QMessageBox

    from designer.host.window import HostSetupDialog, open_host_window

    board = load_board(write_board(tmp_path))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(tmp_path / "new")))
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda _p, _t, text, *a: warnings.append(text)))
    # 20:00:00 may lie hours from the time the test runs: the host is asked, and says yes
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a: QMessageBox.StandardButton.Yes))
    answers = iter([("Al", "", "20:00:00"), ("Al", "Bo", "20:00:00")])
    seen: list[tuple[str, str, str]] = []

    def fill(dialog: HostSetupDialog) -> int:
        seen.append((dialog.o_edit.text(), dialog.x_edit.text(), dialog.start_edit.text()))
        o_name, x_name, start = next(answers)
        dialog.o_edit.setText(o_name)
        dialog.x_edit.setText(x_name)
        dialog.start_edit.setText(start)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(HostSetupDialog, "exec", fill)
    host = open_host_window(None, board)
    assert isinstance(host, HostWindow)
    qtbot.addWidget(host)
    assert warnings == ["the player of X needs a name"]
    assert seen[1] == ("Al", "", "20:00:00"), "the second try starts from what was typed"
    start = events(tmp_path / "new")[0]
    assert "T20:00:00" in str(start["at"]), start["at"]
    host.close()


def test_copying_before_the_picture_is_drawn_says_so(qtbot, folder: Path) -> None:  # type: ignore[no-untyped-def]
    window = show(qtbot, folder, Wall(), pictures=True)
    window.post_image = None  # the picture is still being drawn
    window.copy_post()
    assert window.verdict_label.text() == ("Copied the text only: the picture is still being drawn; copy again in a "
                                           "moment")
    assert QGuiApplication.clipboard().text() == window.post_text


def test_what_the_paste_would_be_as_a_correction_is_shown_while_the_window_is_open(  # type: ignore[no-untyped-def]
        qtbot, folder: Path) -> None:
    wall = Wall()
    window = show(qtbot, folder, wall)
    type_move(qtbot, window, "A2 B2 C2 C3")
    assert window.correction_label.isHidden(), "nothing to correct before the first move"
    window.time_edit.setText("14:00:20")
    window.record_button.click()
    window.time_edit.setText("14:00:40")
    type_move(qtbot, window, "A2 A3 A4 A5")  # Al's move again, as a correction of it
    assert not window.correction_label.isHidden()
    assert window.correction_label.text().startswith("As Correct last move: move 1: Al (O) places an I at A2 A3 A4 A5")
    window.by_combo.setCurrentText("Bo")  # only the player of the last move may correct it
    type_move(qtbot, window, "A2 A3 A4 A5")
    assert window.correction_label.text() == ("As Correct last move: not counted (wrong-player): only Al, who made "
                                              "move 1, may correct it")
    window.by_combo.setCurrentIndex(0)
    window.time_edit.setText("14:05:00")  # past the 120 s window: no correction line
    type_move(qtbot, window, "A2 A3 A4 A5")
    assert window.correction_label.isHidden()


def test_a_match_starts_from_a_sealed_file_checked_against_its_sums(  # type: ignore[no-untyped-def]
        qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The window's path proves the reveal as `lits match start X.lits-sealed --sums` does: the start event keeps the
    sealed text, its digest and what it was checked with; a digest that does not match starts nothing."""
    from PySide6.QtWidgets import QDialog, QMessageBox

    from core.cli import main
    from designer.host.window import HostSetupDialog, open_host_window

    board_file = write_board(tmp_path)
    assert main(["seal", str(board_file), "--season", "s", "--out", str(tmp_path / "season")]) == 0
    sealed, sums = tmp_path / "season" / "dm1.lits-sealed", tmp_path / "season" / "SHA256SUMS"
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(tmp_path / "m")))
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda _p, _t, text, *a: warnings.append(text)))
    against = iter(["0" * 64, str(sums)])  # a wrong digest first, then the published SHA256SUMS

    def fill(dialog: HostSetupDialog) -> int:
        assert dialog.sealed_edit.text() == str(sealed), "the sealed file the board came from is proposed"
        dialog.o_edit.setText("Al")
        dialog.x_edit.setText("Bo")
        dialog.sums_edit.setText(next(against))
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(HostSetupDialog, "exec", fill)
    edited = load_board(board_file)
    host = open_host_window(None, edited, sealed=str(sealed))
    assert isinstance(host, HostWindow)
    qtbot.addWidget(host)
    assert len(warnings) == 1 and warnings[0].startswith("not started:")
    start = events(tmp_path / "m")[0]
    source = start["source"]
    assert isinstance(source, dict)
    assert source["file"] == "dm1.lits-sealed" and source["checked_with"] == "SHA256SUMS"
    assert source["sealed"] == sealed.read_text(encoding="ascii")
    assert f"{source['sha256']}  dm1.lits-sealed" in sums.read_text(encoding="ascii")
    host.close()


def test_host_a_match_proposes_the_sealed_file_the_board_was_opened_from(  # type: ignore[no-untyped-def]
        qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import designer.host.window as host_window
    from core.board.model import Symbol
    from core.cli import main
    from tests.gui.windows import open_window

    assert main(["seal", str(write_board(tmp_path)), "--season", "s", "--out", str(tmp_path / "season")]) == 0
    sealed = str(tmp_path / "season" / "dm1.lits-sealed")
    proposed: list[str] = []
    monkeypatch.setattr(host_window, "open_host_window", lambda _p, _b, _o, s, _f="": proposed.append(s))
    win = open_window(qtbot)
    win.host_match()
    assert win._open_sealed(sealed, quiet=True)
    win.host_match()
    empty = win.document.board.cells.index(Symbol.EMPTY)
    win.document.paint(empty, Symbol.O)  # edited since: no longer the sealed board
    win.host_match()
    assert proposed == ["", os.path.abspath(sealed), ""]


def test_the_setup_s_hints_are_not_cut(qtbot) -> None:  # type: ignore[no-untyped-def]
    from designer.host.window import HostSetupDialog

    dialog = HostSetupDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    for edit in (dialog.o_edit, dialog.start_edit, dialog.sealed_edit, dialog.sums_edit):
        assert edit.width() >= edit.fontMetrics().horizontalAdvance(edit.placeholderText()), edit.placeholderText()


def test_enter_in_the_post_time_box_moves_on_to_the_move(qtbot, folder: Path) -> None:  # type: ignore[no-untyped-def]
    window = show(qtbot, folder, Wall())
    window.activateWindow()
    window.time_edit.setFocus()
    qtbot.keyClicks(window.time_edit, "14:00:20")
    QTest.keyClick(window.time_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.paste_edit.hasFocus())
    assert window.time_edit.text() == "14:00:20" and len(events(folder)) == 1, "nothing recorded by Enter alone"


def test_what_stops_a_match_is_said_before_the_setup_asks_for_names(  # type: ignore[no-untyped-def]
        qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder whose board.yaml the match would overwrite is refused before the dialog; a board that cannot be
    played says so in the dialog itself, where a sealed file can still be given instead."""
    from PySide6.QtWidgets import QDialog, QMessageBox

    from core.board.model import Symbol
    from designer.host.window import HostSetupDialog, open_host_window

    board = load_board(write_board(tmp_path))
    mine = tmp_path / "my-boards"
    mine.mkdir()
    (mine / "board.yaml").write_text("my secret board\n", encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(mine)))
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda _p, _t, text, *a: warnings.append(text)))
    asked: list[str] = []

    def cancel(dialog: HostSetupDialog) -> int:
        asked.append(dialog.o_edit.text())
        return QDialog.DialogCode.Rejected

    monkeypatch.setattr(HostSetupDialog, "exec", cancel)
    assert open_host_window(None, board) is None
    assert asked == [] and len(warnings) == 1
    assert "already holds board.yaml, which a match started here would overwrite" in warnings[0]
    assert (mine / "board.yaml").read_text(encoding="utf-8") == "my secret board\n"

    broken = board.copy()
    broken.set_raw(broken.cells.index(Symbol.EMPTY), Symbol.O)  # its partner cell is not an X
    dialog = HostSetupDialog(None, broken)
    qtbot.addWidget(dialog)
    assert dialog.board_problems
    said = [w.text() for w in dialog.findChildren(QLabel) if "cannot be played in a match" in w.text()]
    assert len(said) == 1 and dialog.board_problems[0] in said[0]
    assert "give the match's sealed file below" in said[0]
    fine = HostSetupDialog(None, board)
    qtbot.addWidget(fine)
    assert fine.board_problems == []
    assert not [w for w in fine.findChildren(QLabel) if "cannot be played" in w.text()]
