"""File > Export > Board card: measure the board's card off the GUI thread (progress, Cancel) and save it as a
picture (PNG, SVG) or a Markdown page.

The card is ``core.card`` 's: the same figures ``lits card BOARD --seed S`` gives, drawn by the same code, so a
card saved here and one made on the command line say the same thing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.analysis.hostwords import eta_words, progress_words
from core.board.model import Board
from core.board.validation import Severity, playability
from designer.dialogs.generate import ProgressRow, SearchDialog
from designer.workers import JobControl

if TYPE_CHECKING:
    from core.generate.search import GenerateProgress, SearchResult
    from designer.workers import Control

Measure = Callable[[Board, Any, str, Any, Any], dict[str, Any]]
"""``measure(board, config, path, progress, cancel)``: the card's JSON (``core.card.figures.measure_card``)."""
FILTERS = "Picture (*.png);;Picture (*.svg);;Markdown page with its picture (*.md)"


def _measure(board: Board, cfg: Any, path: str, progress: Any, cancel: Any) -> dict[str, Any]:
    from core.card.figures import measure_card

    return measure_card(board, cfg, path, progress=progress, cancel=cancel)


class CardDialog(SearchDialog):
    """The card of the board as it was when the dialog opened: Measure, watch the progress, Save."""

    failure = "The card could not be measured"

    def __init__(self, board: Board, path: str | None = None, parent: QWidget | None = None,
                 measure: Measure | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Board card")
        self.board = board
        self.path = path or ""
        self.measure = measure or _measure
        self.card: dict[str, Any] | None = None
        self.seed_box = QSpinBox()
        self.seed_box.setRange(0, 2**31 - 1)
        self.seed_box.setToolTip("The same seed gives the same card on any computer (lits card --seed)")
        self.effort = QComboBox()
        self.effort.addItems(["standard", "thorough"])
        self.effort.setToolTip("thorough adds the expert level; it takes many times longer")
        self.start_button = QPushButton("Measure")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.save_button = QPushButton("Save card…")
        self.save_button.setEnabled(False)
        self.progress = ProgressRow()
        self.picture = QLabel("Measure the card to see it here: about as long as a standard analysis.")
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setWordWrap(True)
        scroll = QScrollArea()
        scroll.setWidget(self.picture)
        scroll.setWidgetResizable(True)
        scroll.setMinimumSize(720, 420)

        form = QFormLayout()
        form.addRow("Seed", self.seed_box)
        form.addRow("Effort", self.effort)
        buttons = QHBoxLayout()
        for b in (self.start_button, self.cancel_button, self.save_button):
            buttons.addWidget(b)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.progress)
        layout.addWidget(scroll, 1)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.save_button.clicked.connect(lambda: self.save(None))

    @property
    def running(self) -> bool:
        return self.runner.busy

    def _inputs(self) -> tuple[QWidget, ...]:
        return (self.seed_box, self.effort, self.save_button)

    def start(self) -> bool:
        board = self.board
        unplayable = [p.message for p in playability(board) if p.severity is Severity.ERROR]
        if unplayable:
            self.progress.idle(f"No match can be played on this board ({'; '.join(unplayable)}). Change it in the "
                               "Properties tab before measuring its card.")
            return False
        from core.card.config import CardConfig

        cfg = CardConfig.make(self.effort.currentText(), seed=self.seed_box.value())
        measure, path = self.measure, self.path

        def work(job: JobControl) -> object:
            from core.card.render import card_figure, figure_bytes

            card = measure(board, cfg, path, job.progress, job.cancelled)
            return card, figure_bytes(card_figure(card, board), "png")  # drawn here, not on the GUI thread

        self.card = None
        # SearchDialog's worker is typed for the generator; it hands the card's (card, picture) pair on untouched
        # to this dialog's _on_finished, which reads it as such
        self._run(cast("Callable[[Control[GenerateProgress]], SearchResult]", work))
        return True

    def _set_running(self, running: bool) -> None:
        super()._set_running(running)
        self.save_button.setEnabled(not running and self.card is not None)

    def _on_progress(self, p: Any) -> None:
        self.progress.bar.setVisible(True)
        self.progress.bar.setRange(0, max(1, p.total))
        self.progress.bar.setValue(min(p.done, p.total))
        words = f"Skill: {p.message}" if p.phase == "skill" else progress_words(p)
        self.progress.label.setText(" - ".join(x for x in (words, eta_words(p.eta)) if x))

    def _on_finished(self, result: Any) -> None:
        card, png = result
        self.card = card
        self._set_running(False)
        pixmap = QPixmap()
        pixmap.loadFromData(png, "PNG")
        self.picture.setPixmap(pixmap)
        self.progress.idle(f"Card measured in {card['elapsed_s']:.0f} s (seed {card['measured_at']['seed']}); "
                           "save it as a picture or a page.")

    def save(self, path: str | None) -> bool:
        """Write the card as ``path`` says (.png, .svg, .md); None asks where."""
        if self.card is None:
            return False
        if path is None:
            start = os.path.splitext(self.path)[0] + "-card.png" if self.path else "card.png"
            path, _filter = QFileDialog.getSaveFileName(self, "Save board card", start, FILTERS)
            if not path:
                return False
        from core.card.render import write_card

        try:
            files = write_card(self.card, self.board, path, self.path or "BOARD.yaml")
        except (OSError, ValueError) as exc:
            self.progress.idle(f"{path}: could not save the card ({getattr(exc, 'strerror', None) or exc})")
            return False
        self.progress.idle("Saved " + " and ".join(files))
        return True

    def done(self, code: int) -> None:
        """Closing the dialog stops a running measurement (its workers too)."""
        self.runner.cancel()
        self.runner.wait(10_000)
        super().done(code)
