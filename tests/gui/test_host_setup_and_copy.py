"""The Host window's smaller answers: Browse buttons for the sealed file and its sums, a clock start far from now
asked about, a verdict that goes once its post is gone, no copy of a post whose bank has run out since."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtWidgets import QFileDialog

from core.board.boardfile import load_board
from core.match.times import clock_text, local_zone, now_ms
from designer.host.window import HostSetupDialog
from tests.gui.test_host import Wall, ms, show, type_move
from tests.match.script import write_board

pytestmark = pytest.mark.gui


def test_browse_buttons_fill_in_the_sealed_file_and_its_sums(qtbot, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    dialog = HostSetupDialog(None, load_board(write_board(tmp_path)))
    qtbot.addWidget(dialog)
    asked: list[str] = []

    def pick(parent: object, title: str, start: str, kinds: str) -> tuple[str, str]:
        asked.append(start)
        return (str(tmp_path / "season" / ("dm1.lits-sealed" if "sealed" in title else "SHA256SUMS")), kinds)

    monkeypatch.setattr(QFileDialog, "getOpenFileName", pick)
    dialog.sealed_browse.click()
    dialog.sums_browse.click()
    assert dialog.sealed_edit.text().endswith("season/dm1.lits-sealed")
    assert dialog.sums_edit.text().endswith("season/SHA256SUMS")
    assert asked[1] == str(tmp_path / "season"), "the sums are looked for beside the sealed file"


def test_a_clock_start_far_from_now_is_asked_about(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    dialog = HostSetupDialog(None, load_board(write_board(tmp_path)))
    qtbot.addWidget(dialog)
    assert dialog.start_problem() is None
    soon = clock_text(now_ms() + 10 * 60_000, local_zone())
    dialog.start_edit.setText(soon)
    assert dialog.start_problem() is None or soon.startswith("00:")  # ten minutes on (unless past midnight)
    far = clock_text(now_ms() + 5 * 3600_000, local_zone())
    dialog.start_edit.setText(far)
    problem = dialog.start_problem()
    assert problem is not None and f"The clocks would start at {far}" in problem and "Start the match" in problem


def test_a_verdict_goes_a_minute_after_its_post_left_the_box(qtbot, folder: Path) -> None:  # type: ignore[no-untyped-def]
    wall = Wall()
    window = show(qtbot, folder, wall)
    type_move(qtbot, window, "A2 B2 C2")
    assert window.verdict_label.text().startswith("Not counted (notation)")
    window.copy_post()  # says something red with the box still full: it stays
    wall.now += 120_000
    window.tick()
    assert window.verdict_label.text() != ""
    window.paste_edit.clear()
    window._say("Refused: the match is not paused", ok=False)
    wall.now += 30_000
    window.tick()
    assert window.verdict_label.text() == "Refused: the match is not paused"
    wall.now += 31_000
    window.tick()
    assert window.verdict_label.text() == ""


def test_a_post_whose_bank_ran_out_since_is_not_copied(qtbot, folder: Path) -> None:  # type: ignore[no-untyped-def]
    wall = Wall()
    window = show(qtbot, folder, wall)
    wall.now = ms("14:06:30")  # Al's 60 s turn and 300 s bank ran out at 14:06:00
    window.copy_post()
    assert window.verdict_label.text().startswith("Not copied: Al (O)'s bank ran out at 14:06:00")

