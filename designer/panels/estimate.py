"""The live balance estimate: while the host paints, the opening predictor's view of the board, at once.

A verdict takes a minute of games; the learned predictor (:mod:`core.agents.value`) gives its estimate of every
first placement in tens of milliseconds.  Shown while painting, it tells the host early whether the board is
heading somewhere fair.  It is a prediction of how club-level players would fare, never a verdict, and every
text here says so.

:class:`EstimateSource` computes it off the GUI thread through a :class:`~designer.workers.Worker` (the kernels
release the GIL, and the first call compiles them for seconds).  Edits are coalesced: the first edit of a burst
starts a short timer, at most one computation runs at a time, and computations start at least
:data:`INTERVAL_MS` apart (each new estimate may repaint the board); an edit made meanwhile is computed as soon as
that allows.  A drag's hundreds of edits make a few dozen computations, and the last edit is shown within the
interval plus one computation.  :class:`EstimateLine` is the sentence in the Analysis tab, under the verdict, and
:class:`PredictedBalance` owns the View menu's heatmap layer and shares the canvas's one heatmap with the
analysis maps: the latest choice wins.

A missing or refused model file is said quietly where the estimate would be; the window keeps working.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from core.board.model import Board
from designer import warmup
from designer.document.document import Document
from designer.workers import Control, JobError, Refused, Worker

if TYPE_CHECKING:  # the predictor and the engine import numba: the window opens without them
    from core.agents.value import Estimate, ValueModel

DELAY_MS = 20
"""How long the first edit of a burst waits for more before the estimate is computed: short enough that the
last edit shows within 100 ms, long enough that one stroke's cells go in one computation."""
START_DELAY_MS = 1000
WARMUP_POLL_MS = 250
"""The first estimate waits this long after the window is made: it loads the predictor and the engine's compiled
kernels into the window's process (on the worker thread, but importing holds Python's lock), which must not
slow the window's opening."""
INTERVAL_MS = 50
"""At least this long from one computation's start to the next: each new estimate whose map differs from the one
shown repaints the board when its heatmap is shown (a few milliseconds on the GUI thread, docs/designer.md), so
during a drag at most 20 a second; the last edit still shows within this interval plus one computation (about
70 ms)."""

NOT_INSTALLED = "The opening predictor is not installed, so there is no live balance estimate."
LAYER_LABEL = "Predicted balance (club)"
"""The heatmap's name, under the board and in the View menu."""
LAYER_TIP = ("Colour each cell by the predicted first mover's win chance under club play after the opening "
             "covering it that is nearest to even (a prediction, not a verdict; blank: no opening covers it)")
LINE_TIP = ("The opening predictor's estimate, worked out from the board alone in a moment after each edit: how "
            "club-level players would likely fare. Only Analyse plays games and gives a verdict.")


class _Models:
    """Loaded model files by path and modification time, so a model installed or replaced while the window is
    open is read at the next edit, and an unchanged one is read once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[str, int] | None = None
        self._model: ValueModel | None = None

    def load(self, path: Path) -> ValueModel:
        from core.agents.value import ModelError, load_model

        try:
            key = (str(path), path.stat().st_mtime_ns)
        except OSError:
            raise Refused(NOT_INSTALLED) from None
        with self._lock:
            if self._key != key or self._model is None:
                try:
                    self._model = load_model(path)
                except ModelError as exc:
                    raise Refused(f"The opening predictor cannot be used: {exc}") from None
                self._key = key
            return self._model


@dataclass(frozen=True)
class Answer:
    """An estimate with the board size it was made for and its sentence (worked out on the worker thread, where
    the engine's cell names are at hand)."""

    size: int
    estimate: Estimate
    text: str


def _compute(board: Board, path: Path | None, models: _Models) -> Answer:
    """Runs on the worker thread: the board is the job's own copy; None is the installed model."""
    from core.agents.value import ModelError, default_model_path, estimate

    model = models.load(path if path is not None else default_model_path())
    try:
        model.check_size(board.size)
    except ModelError as exc:
        raise Refused(f"No live estimate: {exc}.") from None
    result = estimate(board, model)
    return Answer(board.size, result, describe(result, board.size))


class EstimateSource(QObject):
    """The latest estimate of the document's board, recomputed after edits off the GUI thread.

    Signals: ``estimated(Estimate)`` for the board as it is (or was a moment ago, during a drag);
    ``unavailable(str)`` with the host's words when there is no estimate (no model, a refused file, a board
    size the model was not trained for).  ``model_path`` None means the installed model
    (:func:`core.agents.value.default_model_path`, looked up at each computation).
    """

    estimated = Signal(object)
    unavailable = Signal(str)

    def __init__(self, document: Document, model_path: Path | None = None, delay_ms: int = DELAY_MS,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.model_path = model_path
        self.latest: Estimate | None = None
        """The last estimate delivered (None before the first, or while there is none)."""
        self.size = 0
        """The board size :attr:`latest` was computed for."""
        self.text = ""
        """:attr:`latest` in words."""
        self.note = ""
        """Why there is no estimate ("" while there is one or it is being worked out)."""
        self.computations = 0
        """How many computations were started (the coalescing keeps this far below the number of edits)."""
        self._dirty = False
        self._models = _Models()
        self._worker: Worker[Answer, None] = Worker(self)
        self._worker.on_done(self._on_done)
        self._worker.on_failed(self._on_failed)
        self.delay_ms = delay_ms
        self._started = -1.0e9
        """When the last computation started (``time.monotonic``)."""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._start)
        document.cellsChanged.connect(self.changed)
        document.paramsChanged.connect(self.changed)
        document.boardReplaced.connect(self._on_board_replaced)
        self._dirty = True
        self._timer.start(START_DELAY_MS)

    @property
    def busy(self) -> bool:
        """A computation is running or an edit waits for one."""
        return self._worker.busy or self._dirty

    def changed(self, *_args: object) -> None:
        """The board changed: compute again after the delay (the first edit of a burst starts the timer)."""
        self._dirty = True
        self._schedule(self.delay_ms)

    def _schedule(self, at_least: int) -> None:
        """Start the next computation in ``at_least`` ms, and no sooner than :data:`INTERVAL_MS` after the last."""
        if self._timer.isActive():
            return
        since = round((time.monotonic() - self._started) * 1000)
        self._timer.start(max(at_least, INTERVAL_MS - since))

    def _on_board_replaced(self) -> None:
        self.latest = None  # an estimate of the old board must not be drawn on the new one
        self.changed()

    def _start(self) -> None:
        if self._worker.busy or not self._dirty:
            return  # the running computation's end starts the next one
        if warmup.started() and not warmup.done.is_set():
            # the warm-up compiles the predictor's kernels in a helper process on a first start; compiled here,
            # on this process's thread, they would hold the window's GIL for seconds
            self._timer.start(WARMUP_POLL_MS)
            return
        self._dirty = False
        self._started = time.monotonic()
        board = self.document.snapshot()
        path = self.model_path
        models = self._models
        self.computations += 1

        def work(_control: Control[None]) -> Answer:
            return _compute(board, path, models)

        self._worker.request(work)

    def _current_size(self) -> int:
        return self.document.board.size

    def _on_done(self, answer: Answer) -> None:
        if answer.size == self._current_size():  # a board of another size came meanwhile: its estimate follows
            self.latest, self.size, self.text, self.note = answer.estimate, answer.size, answer.text, ""
            self.estimated.emit(answer.estimate)
        if self._dirty:
            self._schedule(0)

    def _on_failed(self, failure: JobError) -> None:
        self.latest = None
        self.note = failure.message if failure.refused else f"The opening predictor failed: {failure}"
        self.unavailable.emit(self.note)
        if self._dirty:
            self._schedule(0)

    def shutdown(self) -> None:
        """Stop computing (the window closes): the running computation's answer is dropped."""
        self._timer.stop()
        self._dirty = False
        self._worker.cancel()
        self._worker.wait(5000)


def describe(estimate: Estimate, size: int) -> str:
    """The estimate in one sentence, with the board's cell names."""
    from core.agents.value import FAIR_BAND
    from core.engine.rules import Placement

    best = Placement.from_index(estimate.best, size).notation()
    percent = round(100 * estimate.best_chance)
    low, high = (round(100 * b) for b in FAIR_BAND)
    n = estimate.near_even
    within = (f"no opening is predicted within {low}-{high}%" if n == 0 else
              f"1 opening is predicted within {low}-{high}%" if n == 1 else
              f"{n} openings are predicted within {low}-{high}%")
    return (f"Prediction for club play, not a verdict: the opening nearest to even, {best}, gives the first mover "
            f"about {percent}%; {within}.")


class EstimateLine(QLabel):
    """The estimate as a sentence, updated as it comes; a quiet note when there is none."""

    def __init__(self, source: EstimateSource, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.source = source
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setToolTip(LINE_TIP)
        self.setAccessibleName("Live balance estimate")
        self.setText("Working out the predicted balance for club play…")
        source.estimated.connect(self._on_estimated)
        source.unavailable.connect(self._on_unavailable)

    def _on_estimated(self, _estimate: Estimate) -> None:
        self.setEnabled(True)
        self.setText(self.source.text)

    def _on_unavailable(self, note: str) -> None:
        self.setEnabled(False)  # drawn muted: a note, not a result
        self.setText(note)


def place_under(widget: QWidget, anchor: QWidget) -> None:
    """Put ``widget`` right under ``anchor`` in the anchor's vertical layout (at the end if it has none)."""
    parent = anchor.parentWidget()
    layout = parent.layout() if parent is not None else None
    if isinstance(layout, QVBoxLayout):
        index = layout.indexOf(anchor)
        layout.insertWidget(index + 1 if index >= 0 else layout.count(), widget)


class PredictedBalance(QObject):
    """The live estimate of one window: its source, its sentence and the View menu's heatmap layer.

    The canvas has one heatmap; the analysis maps reach it through :meth:`show_analysis_heat` (connect the
    panel's ``heatChanged`` here, not to the canvas).  Turning the layer on shows the prediction; choosing
    another analysis map (or a new report's) turns it off; turning it off shows the analysis map again.
    """

    def __init__(self, document: Document, set_heat: Callable[[object, str], None], parent: QObject | None = None,
                 model_path: Path | None = None) -> None:
        super().__init__(parent)
        self.source = EstimateSource(document, model_path, parent=self)
        self.line = EstimateLine(self.source)
        self.set_heat = set_heat
        self.toggle = QAction(LAYER_LABEL, self)
        self.toggle.setCheckable(True)
        self.toggle.setToolTip(LAYER_TIP)
        self.toggle.setStatusTip(LAYER_TIP)
        self._analysis: tuple[object, str] = (None, "")
        self._shown: tuple[object, str] = (None, "")
        """What the canvas was last given: an estimate whose map equals the one shown does not repaint the board."""
        document.boardReplaced.connect(self._forget_shown)
        self.toggle.toggled.connect(lambda _on: self._show())
        self.source.estimated.connect(lambda _e: self._show())
        self.source.unavailable.connect(lambda _n: self._show())

    def show_analysis_heat(self, heat: object, label: str) -> None:
        """An analysis map for the canvas (None: none, or hidden while the board differs from the analysed)."""
        before_heat, before_label = self._analysis
        self._analysis = (heat, label)
        if heat is not None and (label != before_label or heat is not before_heat) and self.toggle.isChecked():
            self.toggle.setChecked(False)  # the host chose a map (or a new report came): it shows
        self._show()

    def heat(self) -> np.ndarray | None:
        """The prediction's map for the board as it is, or None while there is none."""
        source = self.source
        estimate = source.latest
        if not self.toggle.isChecked() or estimate is None:
            return None
        return estimate.cells

    def _show(self) -> None:
        cells = self.heat()
        wanted: tuple[object, str] = (cells, LAYER_LABEL) if cells is not None else self._analysis
        shown, label = self._shown
        if wanted[1] == label and (wanted[0] is shown or (
                cells is not None and isinstance(shown, np.ndarray) and np.array_equal(cells, shown, equal_nan=True))):
            return  # the same map (an edit that left the prediction as it was): the board is not redrawn for it
        self._shown = wanted
        self.set_heat(*wanted)

    def _forget_shown(self) -> None:
        """The canvas drops its heatmap with the board: the next map is given to it even if it equals the last."""
        self._shown = (None, "")

    def shutdown(self) -> None:
        self.source.shutdown()
