"""File > Export > Board card: measured off the GUI thread with progress and Cancel, shown, saved."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

if not os.environ.get("QT_QPA_PLATFORM"):
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from core.analysis.config import AnalysisCancelled, AnalysisProgress
from core.board.boardfile import load_board
from core.board.model import Board, GameParams
from designer.dialogs.card import CardDialog
from tests.card.sample import sample_card
from tests.gui.conftest import dialogs, isolated_settings  # noqa: F401 - the GUI tests' autouse fixtures
from tests.paths import REPO

pytestmark = pytest.mark.gui


def fake(gate: threading.Event | None = None, seen: list[Any] | None = None) -> Any:
    def measure(board: Board, cfg: Any, path: str, progress: Any, cancel: threading.Event) -> dict[str, Any]:
        if seen is not None:
            seen.append((threading.current_thread() is threading.main_thread(), cfg.seed, path))
        progress(AnalysisProgress("skill", 3, 100, "club against casual: pair 3 of 100"))
        if gate is not None:
            gate.wait(10)
            if cancel.is_set():
                raise AnalysisCancelled("cancelled")
        card = sample_card(board, "default")
        card["measured_at"]["seed"] = cfg.seed
        return card

    return measure


def test_measure_show_and_save(qtbot: Any, tmp_path: Path) -> None:
    board = load_board(REPO / "boards" / "default.yaml")
    seen: list[Any] = []
    dialog = CardDialog(board, "boards/default.yaml", measure=fake(seen=seen))
    qtbot.addWidget(dialog)
    dialog.seed_box.setValue(7)
    assert not dialog.save_button.isEnabled()
    assert dialog.start()
    qtbot.waitUntil(lambda: dialog.card is not None, timeout=20_000)
    assert seen == [(False, 7, "boards/default.yaml")]  # measured off the GUI thread, with the seed asked for
    assert not dialog.picture.pixmap().isNull() and dialog.picture.pixmap().width() == 1320
    assert dialog.save_button.isEnabled() and dialog.start_button.isEnabled()
    assert "seed 7" in dialog.progress.label.text()
    assert dialog.save(str(tmp_path / "card.md"))
    assert (tmp_path / "card.png").exists() and "lits card boards/default.yaml --seed 7" in \
        (tmp_path / "card.md").read_text(encoding="utf-8")
    assert not dialog.save(str(tmp_path / "card.gif"))
    assert "could not save the card" in dialog.progress.label.text()


def test_progress_and_cancel(qtbot: Any) -> None:
    gate = threading.Event()
    dialog = CardDialog(load_board(REPO / "boards" / "default.yaml"), measure=fake(gate))
    qtbot.addWidget(dialog)
    dialog.start()
    qtbot.waitUntil(lambda: "pair 3 of 100" in dialog.progress.label.text(), timeout=10_000)
    assert dialog.cancel_button.isEnabled() and not dialog.start_button.isEnabled()
    dialog.cancel_button.click()
    gate.set()
    assert dialog.runner.wait(10_000)
    qtbot.wait(50)
    assert dialog.progress.label.text() == "Cancelled." and dialog.card is None
    assert dialog.start_button.isEnabled() and not dialog.save_button.isEnabled()


def test_a_board_no_match_can_use_is_refused(qtbot: Any) -> None:
    board = Board.random(size=8, pairs=10, seed=5, params=GameParams(supply=(0, 0, 0, 0)))
    dialog = CardDialog(board, measure=fake())
    qtbot.addWidget(dialog)
    assert not dialog.start()
    assert "No match can be played on this board" in dialog.progress.label.text()


def test_file_export_board_card_opens_the_dialog_for_the_shown_board(qtbot: Any) -> None:
    from PySide6.QtWidgets import QApplication

    from tests.gui.windows import open_window

    window = open_window(qtbot)
    export = next(a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "File")
    sub = next(a.menu() for a in export.actions() if a.menu() is not None and a.text().replace("&", "") == "Export")
    action = next(a for a in sub.actions() if a.text() == "Board card…")
    action.trigger()
    shown = [w for w in QApplication.topLevelWidgets() if isinstance(w, CardDialog) and w.isVisible()]
    assert len(shown) == 1
    dialog = shown[0]
    assert dialog.board.rows() == window.document.snapshot().rows() and not dialog.running
    dialog.close()
