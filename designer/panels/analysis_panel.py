"""Balance analysis from the designer: run ``core.analysis.run.analyze`` off the GUI thread and show the result.

The analysis runs on a snapshot copy of the board in a QThread (the engine
itself fans out to a process pool), so the host can keep editing; Cancel sets
the threading.Event that the engine polls.  The progress bar only appears when
a run takes longer than half a second, so quick runs do not flash.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import QObject, QSize, QThread, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.board.fileio import atomic_write_text
from core.board.model import Board
from designer.document.document import Document

PROGRESS_DELAY_MS = 500
AGENTS: tuple[str, ...] = ("random", "greedy", "mcts:200", "mcts:1000", "mcts:3000")
FAIR_BAND = (0.4, 0.6)
CHART_WIDTH_HINT = 280

AnalyzeFn = Callable[..., Any]


def default_analyze() -> tuple[AnalyzeFn, type[Any], type[BaseException]]:
    """The real engine: ``(analyze, AnalysisConfig, AnalysisCancelled)``, imported on first use (it loads numba)."""
    from core.analysis.run import AnalysisCancelled, AnalysisConfig, analyze

    return analyze, AnalysisConfig, AnalysisCancelled


def make_config(config_type: type[Any], agent: str, games: int, quick: bool = False) -> Any:
    """The engine's config from the panel's choices (``core.analysis.run.AnalysisConfig`` or a test double)."""
    return config_type(agents=[agent], games=games, quick=quick)


class AnalysisWorker(QObject):
    """Runs one analysis in a QThread and reports back through queued signals."""

    progress = Signal(object)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, board: Board, config: Any, analyze: AnalyzeFn, cancelled_type: type[BaseException],
                 cancel: threading.Event) -> None:
        super().__init__()
        self.board = board
        self.config = config
        self.analyze = analyze
        self.cancelled_type = cancelled_type
        self.cancel = cancel

    @Slot()
    def run(self) -> None:
        try:
            report = self.analyze(self.board, self.config, progress=self.progress.emit, cancel=self.cancel)
        except self.cancelled_type:
            self.cancelled.emit()
            return
        except Exception as exc:  # shown to the host as a message, never a traceback
            if self.cancel.is_set():
                self.cancelled.emit()
            else:
                self.failed.emit(f"{type(exc).__name__}: {exc}")
            return
        if self.cancel.is_set():
            self.cancelled.emit()
        else:
            self.finished.emit(report)


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def heatmaps(report: Any, size: int) -> dict[str, np.ndarray]:
    """The report's per-cell maps scaled to 0..1, keyed by the label the selector shows."""
    out: dict[str, np.ndarray] = {}
    for key, label in (("coverage_s1", "Coverage by S1 (first seat)"), ("coverage_s2", "Coverage by S2"),
                       ("survival", "Symbol survival")):
        value = _get(report, key)
        if value is None:
            continue
        arr = np.asarray(value, dtype=float)
        if arr.shape != (size, size):
            continue
        finite = arr[np.isfinite(arr)]
        top = float(finite.max()) if finite.size else 0.0
        if top > 1.0:
            arr = arr / top
        out[label] = np.clip(arr, 0.0, 1.0)  # NaN (no data) stays NaN and is drawn plain
    openings = opening_map(report, size)
    if openings is not None:
        out["Opening values v(m) (mean over openings covering a cell)"] = openings
    return out


def opening_map(report: Any, size: int) -> np.ndarray | None:
    """Per-cell mean of v(m) over the tested openings that cover the cell (the swap map)."""
    pie = _get(report, "pie")
    openings = _get(pie, "openings") or _get(pie, "per_opening") if pie is not None else None
    if not openings:
        return None
    total = np.zeros((size, size))
    count = np.zeros((size, size))
    for op in openings:
        cells = _get(op, "cells")
        v = _get(op, "v")
        if cells is None or v is None:
            continue
        for c in cells:
            if isinstance(c, int) and 0 <= c < size * size:
                r, col = divmod(c, size)
                total[r, col] += float(v)
                count[r, col] += 1
    if not count.any():
        return None
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


class ChartCanvas(FigureCanvasQTAgg):
    """The charts' canvas; it asks for a modest width so the docked panel leaves the board room.

    matplotlib's canvas asks for the figure's full size (420 px), which made the
    Analysis dock take so much of a 1000 px window that the board was clipped.
    """

    def __init__(self, figure: Figure) -> None:
        super().__init__(figure)  # type: ignore[no-untyped-call]

    def sizeHint(self) -> QSize:
        return QSize(CHART_WIDTH_HINT, 320)


class AnalysisPanel(QWidget):
    """Agent strength and game budget in, verdict, charts and board heatmaps out.

    Signals: ``heatChanged(array or None, label)`` for the board canvas, ``runningChanged(bool)``.
    """

    heatChanged = Signal(object, str)
    runningChanged = Signal(bool)
    reportReady = Signal(object)

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.engine: Callable[[], tuple[AnalyzeFn, type[Any], type[BaseException]]] = default_analyze
        self.report: Any = None
        self.report_size = 0
        self.maps: dict[str, np.ndarray] = {}
        self.worker_thread: QThread | None = None
        self.worker: AnalysisWorker | None = None
        self.cancel_event: threading.Event | None = None
        self.started_at = 0.0
        self.finished_at = 0.0
        self.dark = False
        self.last_progress: Any = None
        self.analysed: tuple[object, ...] | None = None
        """Size, cells and parameters of the board the shown report is about (None: no report)."""
        self._running_board: Board | None = None

        self.agent = QComboBox()
        self.agent.setEditable(True)
        self.agent.addItems(list(AGENTS))
        self.agent.setCurrentText("greedy")
        self.agent.setToolTip("Agent strength: random, greedy, or mcts:N (N simulations per move)")
        self.games = QSpinBox()
        self.games.setRange(10, 100000)
        self.games.setValue(200)
        self.games.setSingleStep(50)
        self.games.setToolTip("Game budget: the most games the analysis may play")
        self.quick = QCheckBox("Quick first look (smaller budgets)")
        self.quick.setChecked(True)
        self.run_button = QPushButton("Analyse")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.progress_bar = QProgressBar()
        self.progress_bar.setVisible(False)
        self.progress_label = QLabel()
        self.progress_label.setVisible(False)
        self.progress_label.setWordWrap(True)
        self.verdict = QLabel("No analysis yet.")
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(self.verdict.textFormat().RichText)
        self.heat_select = QComboBox()
        self.heat_select.addItem("No heatmap")
        self.heat_select.setEnabled(False)
        self.stale_label = QLabel("The board has changed since this analysis: the heatmaps are hidden and the "
                                  "results describe the earlier board. Analyse again for the current board.")
        self.stale_label.setWordWrap(True)
        self.stale_label.setVisible(False)
        self.save_button = QPushButton("Save report JSON…")
        self.save_button.setEnabled(False)
        self.figure = Figure(figsize=(4.2, 4.4), layout="constrained")
        self.canvas = ChartCanvas(self.figure)
        self.canvas.setMinimumHeight(280)

        form = QFormLayout()
        form.addRow("Agent", self.agent)
        form.addRow("Games", self.games)
        form.addRow("", self.quick)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.progress_bar)
        layout.addWidget(self.progress_label)
        layout.addWidget(self.verdict)
        heat_row = QHBoxLayout()
        heat_row.addWidget(QLabel("On board"))
        heat_row.addWidget(self.heat_select, 1)
        layout.addLayout(heat_row)
        layout.addWidget(self.stale_label)
        layout.addWidget(self.canvas, 1)
        layout.addWidget(self.save_button)

        self.show_timer = QTimer(self)
        self.show_timer.setSingleShot(True)
        self.show_timer.timeout.connect(self._show_progress)
        self.run_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.heat_select.currentTextChanged.connect(self._on_heat)
        self.save_button.clicked.connect(self._save_json)
        document.boardReplaced.connect(self._on_board_replaced)
        document.cellsChanged.connect(lambda _cells: self._check_stale())
        document.paramsChanged.connect(self._check_stale)
        self._draw_empty()

    # -- running -----------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.worker_thread is not None

    def start(self) -> bool:
        """Analyse a snapshot of the board; returns False (after telling the host) when it cannot start."""
        if self.running:
            return False
        analyze, config_type, cancelled_type = self.engine()
        agent = self.agent.currentText().strip() or "greedy"
        try:
            config = make_config(config_type, agent, self.games.value(), quick=self.quick.isChecked())
            config.check()
        except (TypeError, ValueError) as exc:
            QMessageBox.warning(self, "Analysis settings", f"Agent {agent!r} with {self.games.value()} games: {exc}")
            return False
        board = self.document.snapshot()
        self._running_board = board.copy()
        self.cancel_event = threading.Event()
        self.worker = AnalysisWorker(board, config, analyze, cancelled_type, self.cancel_event)
        self.worker_thread = QThread(self)
        self.worker.moveToThread(self.worker_thread)
        self.worker_thread.started.connect(self.worker.run)
        self.worker.progress.connect(self._on_progress)
        self.worker.finished.connect(self._on_finished)
        self.worker.failed.connect(self._on_failed)
        self.worker.cancelled.connect(self._on_cancelled)
        self.report_size = board.size
        self.started_at = time.monotonic()
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress_bar.setRange(0, 0)
        self.progress_label.setText("Starting…")
        self.show_timer.start(PROGRESS_DELAY_MS)
        self.worker_thread.start()
        self.runningChanged.emit(True)
        return True

    def cancel(self) -> None:
        if self.cancel_event is not None:
            self.cancel_event.set()
            self.progress_label.setText("Cancelling…")
            self.cancel_button.setEnabled(False)

    def _show_progress(self) -> None:
        if self.running:
            self.progress_bar.setVisible(True)
            self.progress_label.setVisible(True)

    def _on_progress(self, p: Any) -> None:
        self.last_progress = p
        done, total = int(_get(p, "done", 0) or 0), int(_get(p, "total", 0) or 0)
        if total > 0:
            self.progress_bar.setRange(0, total)
            self.progress_bar.setValue(min(done, total))
        phase, message = _get(p, "phase", ""), _get(p, "message", "")
        self.progress_label.setText(" - ".join(str(x) for x in (phase, message) if x))

    def _finish(self) -> None:
        self.show_timer.stop()
        thread = self.worker_thread
        if thread is not None:
            thread.quit()
            thread.wait()
            thread.deleteLater()
        if self.worker is not None:
            self.worker.deleteLater()
        self.worker_thread = None
        self.worker = None
        self.cancel_event = None
        self.progress_bar.setVisible(False)
        self.progress_label.setVisible(False)
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.runningChanged.emit(False)

    def _on_finished(self, report: Any) -> None:
        self.finished_at = time.monotonic()
        elapsed = self.finished_at - self.started_at
        board = self._running_board
        self._finish()
        self.show_report(report, self.report_size, elapsed, board)
        self.reportReady.emit(report)

    def _on_failed(self, message: str) -> None:
        self._finish()
        self.verdict.setText(f"<b>Analysis failed</b><br>{_html(message)}")

    def _on_cancelled(self) -> None:
        self._finish()
        self.verdict.setText("Analysis cancelled.")

    def shutdown(self) -> None:
        """Cancel and wait for a running analysis (window closing)."""
        if self.running:
            self.cancel()
            assert self.worker_thread is not None
            self.worker_thread.quit()
            self.worker_thread.wait(30000)

    # -- results -----------------------------------------------------------------------
    def show_report(self, report: Any, size: int, elapsed: float | None = None, board: Board | None = None) -> None:
        """Show ``report``, the analysis of ``board`` (default: the board as it is now)."""
        self.report = report
        self.report_size = size
        self.analysed = _board_key(board if board is not None else self.document.board)
        verdict = str(_get(report, "verdict", "?"))
        reasons = list(_get(report, "reasons", []) or [])
        warnings = list(_get(report, "warnings", []) or [])
        mark = {"balanced": "✔", "lopsided": "✖"}.get(verdict, "?")
        html = f"<p style='font-size:14pt'><b>{mark} {_html(verdict)}</b></p>"
        if reasons:
            html += "<ul>" + "".join(f"<li>{_html(str(r))}</li>" for r in reasons) + "</ul>"
        if warnings:
            html += "<p><b>⚠ Warnings</b></p><ul>" + "".join(f"<li>{_html(str(w))}</li>" for w in warnings) + "</ul>"
        if elapsed is not None:
            html += f"<p><small>analysis took {elapsed:.1f} s</small></p>"
        self.verdict.setText(html)
        self.draw_charts(report)
        self.maps = heatmaps(report, size)
        self.heat_select.blockSignals(True)
        self.heat_select.clear()
        self.heat_select.addItem("No heatmap")
        self.heat_select.addItems(list(self.maps))
        self.heat_select.blockSignals(False)
        self.heat_select.setEnabled(bool(self.maps))
        self.save_button.setEnabled(hasattr(report, "to_json"))
        if self.maps:
            self.heat_select.setCurrentIndex(1)
        self._check_stale()

    def set_theme(self, theme: str) -> None:
        """Redraw the charts in the window's colours."""
        self.dark = theme == "dark"
        if self.report is not None:
            self.draw_charts(self.report)
        else:
            self._draw_empty()

    def _style(self) -> None:
        face, ink = ("#2b2d31", "#e6e6e6") if self.dark else ("#ffffff", "#222222")
        self.figure.set_facecolor(face)
        for ax in self.figure.axes:
            ax.set_facecolor(face)
            ax.tick_params(colors=ink, which="both")
            for spine in ax.spines.values():
                spine.set_color(ink)
            ax.title.set_color(ink)
            ax.xaxis.label.set_color(ink)
            ax.yaxis.label.set_color(ink)
            legend = ax.get_legend()
            if legend is not None:
                for text in legend.get_texts():
                    text.set_color(ink)
            for text in ax.texts:
                text.set_color(ink)

    @property
    def stale(self) -> bool:
        """Whether the board (cells or game parameters) differs from the one the shown report analysed."""
        return self.analysed is not None and self.analysed != _board_key(self.document.board)

    def _check_stale(self) -> None:
        """Hide the heatmap while the board differs from the analysed one; show it again after undo."""
        self.stale_label.setVisible(self.stale)
        self._on_heat(self.heat_select.currentText())

    def _on_heat(self, label: str) -> None:
        arr = self.maps.get(label)
        if arr is not None and self.report_size == self.document.board.size and not self.stale:
            self.heatChanged.emit(arr, label)
        else:
            self.heatChanged.emit(None, "")

    def _on_board_replaced(self) -> None:
        self.heat_select.setCurrentIndex(0)

    def _draw_empty(self) -> None:
        self.figure.clear()
        ax = self.figure.add_subplot(111)
        ax.axis("off")
        ax.text(0.5, 0.5, "Run an analysis to see\nS1's win rate and the score margins",
                ha="center", va="center", fontsize=9)
        self._style()
        self.canvas.draw_idle()  # type: ignore[no-untyped-call]

    def draw_charts(self, report: Any) -> None:
        """S1 win rate with its 95% interval against the fair band, and the margin histogram."""
        raw = _get(report, "raw", {}) or {}
        rate = _get(raw, "s1_win_rate")
        ci = _get(raw, "ci95")
        games = _get(raw, "games", 0)
        margins = list(_get(raw, "margins", []) or [])
        # On the dark face the light theme's dark blue marker and dark grey zero line all but vanish.
        rate_colour, zero_colour = ("#8cc4ff", "0.8") if self.dark else ("#1f5fa8", "0.3")
        self.figure.clear()
        ax1, ax2 = self.figure.subplots(2, 1, height_ratios=[1, 2])
        ax1.axvspan(*FAIR_BAND, color="#5cbf7a", alpha=0.3, label="fair band 40-60%")
        ax1.axvline(0.5, color="0.5", lw=0.8, ls=":")
        if rate is not None and not (isinstance(rate, float) and math.isnan(rate)):
            lo, hi = (float(ci[0]), float(ci[1])) if ci is not None and len(ci) == 2 else (rate, rate)
            ax1.errorbar([rate], [0], xerr=[[rate - lo], [hi - rate]], fmt="o", color=rate_colour, capsize=6,
                         label="S1 win rate, 95% CI")
            ax1.set_title(f"S1 wins {rate:.0%} [{lo:.0%}-{hi:.0%}]\nof {games} games (no swap)", fontsize=9)
        ax1.set_xlim(0, 1)
        ax1.set_yticks([])
        ax1.xaxis.set_major_formatter(lambda x, _pos: f"{x:.0%}")
        ax1.tick_params(labelsize=8)
        ax1.legend(fontsize=7, loc="upper left", frameon=False)
        if margins:
            lo_m, hi_m = min(margins), max(margins)
            bins = np.arange(lo_m - 0.5, hi_m + 1.5, 1.0) if hi_m - lo_m <= 40 else 30
            ax2.hist(margins, bins=bins, color="#9b6fd1", edgecolor="black", linewidth=0.4)
            ax2.axvline(0, color=zero_colour, lw=0.8)
            ax2.set_title("Score margin S1 - S2\n(0 = tie, decided by last mover)", fontsize=9)
        else:
            ax2.text(0.5, 0.5, "no margins reported", ha="center", va="center", fontsize=8)
        ax2.set_xlabel("margin (symbols)", fontsize=8)
        ax2.set_ylabel("games", fontsize=8)
        ax2.tick_params(labelsize=8)
        self._style()
        self.canvas.draw_idle()  # type: ignore[no-untyped-call]

    def _save_json(self) -> None:
        self.save_json(None)

    def save_json(self, path: str | None) -> bool:
        """Write the report as JSON (the same data as ``lits analyze --json``); None asks for the file."""
        if self.report is None or not hasattr(self.report, "to_json"):
            return False
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Save analysis report", "analysis.json", "JSON (*.json)")
            if not path:
                return False
        try:
            data = self.report.to_json()
            # to_json gives a dict; str() of it was written before, which is Python, not JSON.
            text = data if isinstance(data, str) else json.dumps(data, indent=2, default=_json_default) + "\n"
            atomic_write_text(path, text)
        except (OSError, TypeError, ValueError) as exc:
            QMessageBox.warning(self, "Save report", f"{path}: {getattr(exc, 'strerror', None) or exc}")
            return False
        return True


def _json_default(value: Any) -> Any:
    """numpy numbers and arrays as plain JSON values."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _board_key(board: Board) -> tuple[object, ...]:
    """What an analysis depends on: the size, the cells and the game parameters (not the name or notes)."""
    return (board.size, tuple(board.cells), board.params)


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
