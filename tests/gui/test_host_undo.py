"""The Host window's way back from a slip: a time that would decide the match asks first, and Undo takes back the
last event after showing it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from tests.gui.test_host import Wall, show, type_move

pytestmark = pytest.mark.gui


def events(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "journal.jsonl").read_text(encoding="utf-8").splitlines()]


def test_a_wrong_hour_asks_and_undo_takes_the_loss_back(qtbot, folder: Path) -> None:  # type: ignore[no-untyped-def]
    window = show(qtbot, folder, Wall())
    asked: list[str] = []
    answers = [False, True, True]

    def confirm(title: str, text: str) -> bool:
        asked.append(text)
        return answers.pop(0)

    window._confirm = confirm  # the host's answers to the dialogs
    window.time_edit.setText("14:00:20")
    type_move(qtbot, window, "A2 B2 C2 C3")
    window.record_button.click()
    window.time_edit.setText("15:00:50")
    window.by_combo.setCurrentText("Bo")
    window.swap_button.click()  # refused by the host: nothing written
    assert "it would decide the match, Al (O) winning on time" in asked[0]
    assert len(events(folder)) == 2 and "Not recorded" in window.verdict_label.text()
    window.time_edit.setText("15:00:50")
    window.by_combo.setCurrentText("Bo")
    window.swap_button.click()  # confirmed: the loss on time is recorded
    assert [e["event"] for e in events(folder)][-2:] == ["timeout", "move"]
    assert window.session.over
    window.undo_button.click()
    assert "line 3:" in asked[2] and "line 4:" in asked[2]
    assert events(folder)[-1]["event"] == "undo" and not window.session.over
    assert "the match stands as after line 2" in window.verdict_label.text()
    assert window.log_list.item(2).text().endswith("(taken back)")
    assert window.swap_button.isEnabled()


def test_the_preview_shows_the_whole_picture(qtbot, folder: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The preview was cut to rows 2-11 (the move line, clocks, score and result hidden); it fits whole."""
    from PySide6.QtGui import QColor, QImage

    window = show(qtbot, folder, Wall())
    picture = QImage(800, 800, QImage.Format.Format_RGB32)
    picture.fill(QColor("white"))
    path = tmp_path / "post.png"
    assert picture.save(str(path))
    for height in (500, 900):
        window.resize(1200, height)
        qtbot.wait(20)
        window._on_picture(window.post_text, str(path))
        shown = window.picture_label.pixmap()
        label = window.picture_label
        assert 0 < shown.height() <= label.height() and shown.width() <= label.width()
        assert shown.width() == shown.height(), "the whole square picture, scaled, not a cut of it"


def test_a_chat_line_pasted_whole_is_read_as_its_move(qtbot, folder: Path) -> None:  # type: ignore[no-untyped-def]
    window = show(qtbot, folder, Wall())
    window.time_edit.setText("14:00:20")
    type_move(qtbot, window, "oops, meant a2 b2 c2 c3 gl")
    assert window.verdict_label.text().startswith("Read 'oops, meant a2 b2 c2 c3 gl' as A2 B2 C2 C3. Counts: move 1")
    window.record_button.click()
    last = events(folder)[-1]
    assert (last["text"], last["posted"], last["counted"]) == ("A2 B2 C2 C3", "oops, meant a2 b2 c2 c3 gl", True)
    assert window.verdict_label.text() == "Read 'oops, meant a2 b2 c2 c3 gl' as A2 B2 C2 C3. Counted."
