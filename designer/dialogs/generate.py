"""Tools > Generate boards...: search new boards in the background and show them in a gallery.

The search (``core.generate``) runs through a typed ``designer.workers.Worker`` on a worker thread, which fans
out to the self-play process pool; the dialog shows progress with an ETA, Cancel stops the workers, and the
results appear as pictures with their verdict and score.  "Open as new board" hands a copy to whoever listens to
:attr:`GenerateDialog.openBoard` (the main window replaces its document after asking about unsaved changes).

The engine is a parameter (:class:`Engine`), so tests run the dialog with scoring functions of known optimum.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.agents.levels import LEVELS
from core.analysis.config import DEFAULT_AGENTS
from core.analysis.hostwords import eta_words
from core.board.geometry import DEFAULT_SIZE, MAX_SIZE, MIN_SIZE
from core.board.model import Board
from core.board.validation import Severity, playability
from core.generate.config import MAX_COUNT, LevelError, SearchConfig, resolve_level
from core.generate.config import MAX_TIME as MAX_GENERATE_TIME
from core.generate.figures import Figures
from core.generate.layout import PairRange
from designer.canvas.render import Overlay, RenderOptions, render_image
from designer.workers import Control, JobError, Refused, Worker

if TYPE_CHECKING:
    from core.generate.search import Candidate, GenerateProgress, SearchResult

LEVEL_CHOICES: tuple[str, ...] = ("greedy", "mcts:1000")
"""Agent specs offered in the level box after the named levels (any spec may be typed)."""
DEFAULT_LEVEL_CHOICE = DEFAULT_AGENTS[-1]
"""The analysis's deciding level (``club``): boards are judged as ``lits analyze`` judges them."""
THUMB_PX = 180


Evaluator = Callable[[Board], Figures]


@dataclass
class Engine:
    """What the dialogs run; every part is called on the worker thread (the real one loads numba)."""

    screen: Callable[[int], Evaluator]
    """seed -> the cheap screen."""
    judge: Callable[[str, int], Evaluator | None]
    """(level, seed) -> the full analysis at that level (None: the screen's figures are final)."""
    pool: Callable[[], Any]
    """-> a ``core.generate.pool.BoardPool`` (closed after each run)."""


def default_engine() -> Engine:
    """The real generator: the greedy screen, the analysis at the chosen level, all cores."""

    def screen(seed: int) -> Evaluator:
        from core.generate.evaluate import ScreenEvaluator

        return ScreenEvaluator(seed=seed)

    def judge(level: str, seed: int) -> Evaluator:
        from core.generate.evaluate import AnalysisEvaluator, resolve_level

        return AnalysisEvaluator(level=resolve_level(level), seed=seed)

    def pool() -> Any:
        from core.generate.pool import RunnerPool

        return RunnerPool(workers=0)

    return Engine(screen, judge, pool)


def level_choices() -> list[str]:
    names = list(LEVELS)
    return [*names, *(c for c in LEVEL_CHOICES if c not in names)]


def board_pixmap(board: Board, px: int = THUMB_PX, highlight: tuple[int, ...] = ()) -> QPixmap:
    """A picture of a board through the designer's own painter (changed cells outlined when given)."""
    image = render_image(board, RenderOptions(coordinates=False), px, Overlay(highlight=highlight))
    return QPixmap.fromImage(image)


def level_box(current: str = DEFAULT_LEVEL_CHOICE) -> QComboBox:
    box = QComboBox()
    box.setEditable(True)
    box.addItems(level_choices())
    box.setCurrentText(current)
    box.setToolTip("The strength at which the verdict must hold: an agent spec (greedy, mcts:N) or a named level. "
                   "Stronger levels take much longer per finalist.")
    return box


PHASES = {"measure": "Timing the level", "screen": "Screening", "finals": "Full analysis of the finalists",
          "done": "Done"}
"""The host's words for the generator's progress phases (``core.generate.search`` reports them)."""


class ProgressRow(QWidget):
    """Progress bar plus a line with the phase and the ETA."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bar = QProgressBar()
        self.label = QLabel()
        self.label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.bar)
        layout.addWidget(self.label)
        self.idle("")

    def idle(self, text: str) -> None:
        self.bar.setVisible(False)
        self.label.setText(text)

    def busy(self, text: str) -> None:
        self.bar.setVisible(True)
        self.bar.setRange(0, 0)
        self.label.setText(text)

    def show_progress(self, p: GenerateProgress) -> None:
        phase = PHASES.get(p.phase, p.phase)
        self.bar.setVisible(True)
        self.bar.setRange(0, max(1, p.total))
        self.bar.setValue(min(p.done, p.total))
        self.label.setText(" - ".join(x for x in (phase, p.message, eta_words(p.eta)) if x))


class SearchDialog(QDialog):
    """What the Generate and Improve dialogs share: one background run with progress, Cancel, and the
    settings locked while it runs. Subclasses build ``progress``, ``start_button``, ``cancel_button`` and say
    which inputs to lock and how a failure reads."""

    failure = "The search failed"
    progress: ProgressRow
    start_button: QPushButton
    cancel_button: QPushButton

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner: Worker[SearchResult, GenerateProgress] = Worker(self)
        self.runner.on_done(self._on_finished)
        self.runner.on_failed(self._on_error)
        self.runner.on_progress(self._on_progress)

    def _inputs(self) -> tuple[QWidget, ...]:
        return ()

    def _on_finished(self, result: SearchResult) -> None:
        raise NotImplementedError

    def _run(self, work: Callable[[Control[GenerateProgress]], SearchResult]) -> None:
        from core.generate.plan import BudgetTooSmall

        def refusal_in_words(job: Control[GenerateProgress]) -> SearchResult:
            try:
                return work(job)
            except BudgetTooSmall as exc:  # a time too short is advice for the host, not a failure
                raise Refused(exc.sentence()) from exc
            except LevelError as exc:  # a level the engine refuses is the Level box's problem, not a failure
                raise Refused(f"Level: {exc}") from exc

        self._set_running(True)
        self.progress.busy("Starting the worker processes…")
        self.runner.request(refusal_in_words)

    def cancel(self) -> None:
        if self.runner.busy:
            self.runner.cancel()
            self._set_running(False)
            self.progress.idle("Cancelled.")

    def _set_running(self, running: bool) -> None:
        self.start_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        for w in self._inputs():
            w.setEnabled(not running)

    def _on_progress(self, p: GenerateProgress) -> None:
        self.progress.show_progress(p)

    def _on_error(self, error: JobError) -> None:
        """A refusal is said as it is (what to give instead); anything else is a failure, named."""
        self._set_running(False)
        self.progress.idle(error.message if error.refused else f"{self.failure}: {error}")


class GenerateDialog(SearchDialog):
    """Settings, progress with ETA and Cancel, and a gallery of the generated boards."""

    openBoard = Signal(object)
    """A copy of the chosen board (its figures in the notes), to open as a new untitled board."""

    def __init__(self, parent: QWidget | None = None, engine: Engine | None = None,
                 params_from: Board | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Generate boards")
        self.engine = engine or default_engine()
        self.params_from = params_from
        self.result: Any = None  # a SearchResult; Any because QDialog.result() is a method of the same name
        self.shown: list[Candidate] = []
        self.level_used = ""
        self.used = SearchConfig()
        """The settings of the shown run: the boxes may change after it ends, its boards and words must not."""

        self.size_box = QSpinBox()
        self.size_box.setRange(MIN_SIZE, MAX_SIZE)
        self.size_box.setSingleStep(2)
        self.size_box.setValue(params_from.size if params_from is not None else DEFAULT_SIZE)
        self.min_pairs = QSpinBox()
        self.max_pairs = QSpinBox()
        self.count_box = QSpinBox()
        self.count_box.setRange(1, MAX_COUNT)
        self.count_box.setValue(3)
        self.seed_box = QSpinBox()
        self.seed_box.setRange(0, 2**31 - 1)
        self.time_box = QSpinBox()
        self.time_box.setRange(10, int(MAX_GENERATE_TIME))
        self.time_box.setValue(600)
        self.time_box.setSuffix(" s")
        self.time_box.setToolTip("How long the search may take. It first times the level on this machine and says at "
                                 "once when the time cannot judge even one board at that level (club needs a few "
                                 "minutes, expert most of an hour on two cores).")
        self.level = level_box()
        self._sync_pairs()
        self.size_box.valueChanged.connect(self._sync_pairs)

        form = QFormLayout()
        form.addRow("Board size", self.size_box)
        pairs_row = QHBoxLayout()
        pairs_row.addWidget(self.min_pairs)
        pairs_row.addWidget(QLabel("to"))
        pairs_row.addWidget(self.max_pairs)
        form.addRow("Symbol pairs", pairs_row)
        form.addRow("Boards", self.count_box)
        form.addRow("Seed", self.seed_box)
        form.addRow("Time", self.time_box)
        form.addRow("Level", self.level)

        self.start_button = QPushButton("Generate")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.progress = ProgressRow()
        self.gallery = QListWidget()
        self.gallery.setViewMode(QListWidget.ViewMode.IconMode)
        self.gallery.setIconSize(QSize(THUMB_PX, THUMB_PX))
        self.gallery.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.gallery.setMovement(QListWidget.Movement.Static)
        self.gallery.setWordWrap(True)
        self.gallery.setMinimumSize(3 * (THUMB_PX + 30), THUMB_PX + 70)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton("Open as new board")
        self.open_button.setEnabled(False)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)

        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.progress)
        layout.addWidget(self.gallery, 1)
        layout.addWidget(self.details)
        bottom = QHBoxLayout()
        bottom.addWidget(self.open_button)
        bottom.addStretch(1)
        bottom.addWidget(close)
        layout.addLayout(bottom)

        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.open_button.clicked.connect(self.open_selected)
        self.gallery.currentRowChanged.connect(self._on_select)
        self.gallery.itemDoubleClicked.connect(lambda _item: self.open_selected())

    # -- settings ---------------------------------------------------------------------
    def _sync_pairs(self) -> None:
        size = self.size_box.value()
        if size % 2:
            size += 1
            self.size_box.setValue(size)
            return
        half = size * size // 2
        default = PairRange.default_for(size)
        for box in (self.min_pairs, self.max_pairs):
            box.setRange(1, half)
        self.min_pairs.setValue(default.low)
        self.max_pairs.setValue(default.high)

    def config(self) -> SearchConfig:
        low, high = self.min_pairs.value(), self.max_pairs.value()
        if low > high:
            raise ValueError(f"the smallest pair count {low} is above the largest {high}")
        params = self.params_from.params if self.params_from is not None else SearchConfig().params
        return SearchConfig(size=self.size_box.value(), pairs=PairRange(low, high), count=self.count_box.value(),
                            seed=self.seed_box.value(), time_budget=float(self.time_box.value()), params=params)

    # -- running ----------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.runner.busy

    def start(self) -> bool:
        if self.params_from is not None:  # generated boards take the open board's rules and are judged under them
            unplayable = [p.message for p in playability(self.params_from) if p.severity is Severity.ERROR]
            if unplayable:
                self.progress.idle(f"No match can be played under the open board's rules ({'; '.join(unplayable)}), "
                                   "and generated boards take their supply, clock, first player and pie rule from "
                                   "it. Change them in the Properties tab before generating.")
                return False
        try:
            cfg = self.config()
        except ValueError as exc:
            self.progress.idle(str(exc))
            return False
        try:  # checked here, before any worker starts, and told as the Level box's problem
            level = resolve_level(self.level.currentText())
        except LevelError as exc:
            self.progress.idle(f"Level: {exc}")
            return False
        engine = self.engine
        self.level_used = level
        self.used = cfg

        def work(job: Control[GenerateProgress]) -> SearchResult:
            from core.generate.search import generate

            pool = engine.pool()
            try:
                return generate(cfg, engine.screen(cfg.seed), pool, judge=engine.judge(level, cfg.seed),
                                progress=job.progress, cancel=job.cancelled)
            finally:
                pool.close()

        self.gallery.clear()
        self.details.clear()
        self.result = None
        self._run(work)
        return True

    failure = "Generation failed"

    def _inputs(self) -> tuple[QWidget, ...]:
        return (self.size_box, self.min_pairs, self.max_pairs, self.count_box, self.seed_box, self.time_box,
                self.level)

    def _on_finished(self, result: SearchResult) -> None:
        self._set_running(False)
        self.result = result
        chosen = result.balanced()[: self.used.count]
        for rank, c in enumerate(chosen, start=1):
            item = QListWidgetItem(QIcon(board_pixmap(c.board)), f"{rank}. {c.figures.verdict or 'scored'}, "
                                                                  f"rated {round(100 * c.score)} of 100")
            item.setToolTip(c.figures.host_words())
            item.setData(Qt.ItemDataRole.UserRole, rank - 1)
            self.gallery.addItem(item)
        self.shown = chosen
        self.progress.idle(self.summary(result, len(chosen)))
        if chosen:
            self.gallery.setCurrentRow(0)

    def summary(self, result: SearchResult, balanced: int) -> str:
        """What the run found, what to change when it found too few, and how to get the same layouts again: a
        timed run depends on this computer's speed and load, so the seed alone does not repeat it."""
        cfg = self.used
        asked = cfg.count
        lines = [f"{balanced} of {asked} boards balanced at {self.level_used} ({result.screened} layouts screened "
                 f"in {result.rounds} rounds, {len(result.candidates)} judged, {result.elapsed:.0f} s)."]
        if result.cut:
            lines.append("The time ran out while boards were still being analysed; those judged before are shown.")
        if balanced < asked:
            lines.append("For more, give more time (each board's analysis then runs longer), a weaker level or a "
                         "wider range of symbol pairs.")
        repeat = "A timed search depends on this computer's speed and load, so the same seed may give other boards"
        params, default = cfg.params, SearchConfig().params
        if (params.supply, params.first, params.pie) == (default.supply, default.first, default.pie):
            pairs = result.pair_range.text()
            repeat += (f"; lits generate --size {cfg.size} --pairs {pairs} --count {asked} "
                       f"--seed {cfg.seed} --rounds {result.rounds} --level {self.level_used} "
                       "--out DIR screens the same layouts on any computer")
        lines.append(repeat + ".")
        return " ".join(lines)

    def _on_select(self, row: int) -> None:
        ok = self.result is not None and 0 <= row < len(self.shown)
        self.open_button.setEnabled(ok)
        if ok:
            c = self.shown[row]
            fair = "; ".join(" ".join(o) for o in c.figures.fair_openings) or "none"
            self.details.setText(f"{c.figures.host_words()}\nFair openings: {fair}")

    def board_at(self, row: int) -> Board:
        """A copy of a shown board with its figures in the notes (as ``lits generate`` writes them)."""
        from core.generate.output import notes_text, search_info

        c = self.shown[row]
        board: Board = c.board.copy()
        board.name = f"Generated s{self.used.seed}-{row + 1}"
        board.notes = notes_text(c, self.used.seed, row + 1, search_info(self.result, self.level_used))
        return board

    def open_selected(self) -> None:
        row = self.gallery.currentRow()
        if self.result is None or not 0 <= row < len(self.shown):
            return
        self.openBoard.emit(self.board_at(row))

    def done(self, code: int) -> None:
        """Closing the dialog stops a running search (its workers too)."""
        self.runner.cancel()
        self.runner.wait(10_000)
        super().done(code)

