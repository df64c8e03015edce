"""Which analysis's fair openings the board shows, and when: the bookkeeping around the layer that
:mod:`designer.canvas.openings` draws.

A new report puts its openings on the board and turns the layer on; any edit that makes the board differ from
the analysed one hides them (as the heatmap hides), undo brings them back, a new board drops them; the View
menu's toggle shows or hides them; a chosen opening's figures go to the status bar.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QStatusBar

from core.analysis.results import AnalysisReport
from designer.canvas.board_view import BoardView
from designer.canvas.openings import OpeningsLayer, layer_from_report
from designer.document.document import Document
from designer.panels.analysis_panel import AnalysisPanel


class OpeningsOverlay(QObject):
    """The fair-openings layer of one window: ``toggle`` is its View menu action (checkable)."""

    def __init__(self, document: Document, view: BoardView, analysis: AnalysisPanel, toggle: QAction,
                 status: QStatusBar, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.view = view
        self.analysis = analysis
        self.toggle = toggle
        self.status = status
        self.layer: OpeningsLayer | None = None
        """The fair openings of the latest report (None: no report, or one about a board no longer open)."""
        self._key: object = None
        self.stale = False
        """The board differs from the analysed one, so the layer is hidden."""
        toggle.setCheckable(True)
        toggle.setEnabled(False)
        analysis.reportReady.connect(self.show)
        document.cellsChanged.connect(lambda _cells: self.refresh())
        document.paramsChanged.connect(self.refresh)
        document.boardReplaced.connect(lambda: self.show(None))
        view.openingSelected.connect(self._on_selected)

    def show(self, report: AnalysisReport | None) -> None:
        """Put the openings of a new report on the board and turn the layer on (None: drop the layer)."""
        if report is None:
            self.layer = None
            self._key = None
        else:
            board = self.document.board  # the analysed board's size is the panel's (the board may be new since)
            size = self.analysis.report_size or board.size
            self.layer = layer_from_report(report, size, board.params.first.value)
            self._key = self.analysis.analysed  # the board the panel says this report is about
            self.toggle.setChecked(True)
        self.toggle.setEnabled(self.layer is not None)
        self.view.set_openings(self.layer)
        self.refresh()

    def refresh(self) -> None:
        """Hide the layer while the board differs from the analysed one (as the heatmap does); undo brings
        it back.  Called on every edit, the View menu toggle and a new report."""
        layer = self.layer
        stale = layer is not None and (self.analysis.analysed != self._key or self.analysis.stale)
        if stale and not self.stale and self.toggle.isChecked():
            self.status.showMessage("Fair openings hidden: the board changed since the analysis "
                                    "(undo the change or analyse again).", 6000)
        self.stale = stale
        self.view.set_openings_shown(layer is not None and self.toggle.isChecked() and not stale)

    def _on_selected(self, index: object) -> None:
        layer = self.layer
        if isinstance(index, int) and layer is not None and 0 <= index < len(layer.marks):
            self.status.showMessage(layer.status_line(index))
        elif self.status.currentMessage().startswith("Opening "):
            self.status.clearMessage()
