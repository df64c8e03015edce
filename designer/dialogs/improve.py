"""Tools > Improve this board: up to three small changes to the host's board, each with its figures.

The host locks cells (here by clicking the board, or with the main window's lock brush); a locked cell and its
180-degree partner never change.  The locks live in the document (one source of truth): a click here is an
undoable lock step of the document, shown on the main board at once, and the lock brush there shows here.
The search (``core.generate.improve``) runs on a snapshot through a typed ``designer.workers.Worker``; each
proposal shows its picture with the changed cells outlined, its figures beside the original's, and Apply, which
is one undo step (a ``CellsCommand`` through ``Document.set_cells``).  A proposal made for an older state of the
board, or one that changes a cell locked since, is refused instead of applied.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QKeySequence, QMouseEvent, QPainter, QPaintEvent, QPixmap
from PySide6.QtWidgets import (
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.board.geometry import cell_name
from core.board.model import Board, Symbol
from core.board.validation import Severity, playability
from core.generate.config import MAX_TIME as MAX_GENERATE_TIME
from core.generate.config import LevelError, SearchConfig, resolve_level
from designer.canvas.render import BoardGeometry, Overlay, RenderOptions, paint_board, render_image
from designer.canvas.sizes import MAX_PICTURE_PX, MIN_PICTURE_PX
from designer.dialogs.generate import Engine, ProgressRow, SearchDialog, default_engine, level_box
from designer.document.document import Document
from designer.workers import Control

if TYPE_CHECKING:
    from core.generate.search import Candidate, GenerateProgress, SearchResult

PROPOSALS = 3
PICTURE_PX = 260
"""A proposal's picture, coordinates included: every row and column of a 12x12 board at a readable size."""
SMALLEST_PICTURE_PX = 180
"""Below this the symbols of a 12x12 board blur into each other."""


class LockBoard(QWidget):
    """The board with the document's locked cells hatched and outlined; a click locks or unlocks a cell and its
    partner in the document (one undo step), so the main board and this one always show the same locks."""

    locksChanged = Signal()

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.board = document.snapshot()
        """The board drawn: the document's, except while a search runs on an earlier snapshot."""
        document.locksChanged.connect(self._on_locks_changed)
        self.geometry_: BoardGeometry | None = None
        self.setMinimumSize(260, 260)
        self.setToolTip("Click cells to lock or unlock them: a locked cell and its partner stay as they are")

    def sizeHint(self) -> QSize:
        return QSize(360, 360)

    def set_board(self, board: Board) -> None:
        self.board = board
        self.update()

    @property
    def locked(self) -> frozenset[int]:
        return self.document.locks

    def _on_locks_changed(self, _cells: object) -> None:
        self.update()
        self.locksChanged.emit()

    def toggle(self, cell: int) -> None:
        self.document.toggle_lock(cell)

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        try:
            self.geometry_ = paint_board(painter, QRectF(self.rect()), self.board, RenderOptions(),
                                         Overlay(locks=self.locked))
        finally:
            painter.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if self.geometry_ is None or event.button() != Qt.MouseButton.LeftButton:
            return
        cell = self.geometry_.cell_at(event.position())
        if cell is not None:
            self.toggle(cell)


class WholeScrollArea(QScrollArea):
    """Asks for room to show all of its widget (QScrollArea asks for at most 24 lines of text), and scrolls
    only when the screen cannot give it."""

    def __init__(self, widget: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidget(widget)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def sizeHint(self) -> QSize:
        inner = self.widget()
        if inner is None:
            return super().sizeHint()
        hint = inner.sizeHint()
        layout = inner.layout()
        if layout is not None and layout.hasHeightForWidth():  # wrapped texts: their height at this width
            hint.setHeight(max(hint.height(), layout.totalHeightForWidth(hint.width())))
        return hint + QSize(self.verticalScrollBar().sizeHint().width(), 0)


def picture_px(widget: QWidget) -> int:
    """:data:`PICTURE_PX`, smaller on a screen too short for the lock board and three pictures above each other."""
    screen = widget.screen()
    height = screen.availableGeometry().height() if screen is not None else 3 * PICTURE_PX
    return max(SMALLEST_PICTURE_PX, min(PICTURE_PX, height // 3))


def proposal_pixmap(board: Board, changed: tuple[int, ...], px: int, ratio: float = 1.0) -> QPixmap:
    """A proposal's picture: the whole board with its coordinates, the changed cells outlined, sharp on a
    high-density screen (``ratio`` device pixels a pixel)."""
    device_px = max(MIN_PICTURE_PX, min(MAX_PICTURE_PX, round(px * ratio)))
    image = render_image(board, RenderOptions(coordinates=True), device_px, Overlay(highlight=changed))
    pixmap = QPixmap.fromImage(image)
    pixmap.setDevicePixelRatio(device_px / px)
    return pixmap


def changed_cells(board: Board, changed: Iterable[int]) -> str:
    """``J1 empty, J2 X``: each changed cell by the name the picture's coordinates give it, and what it holds."""
    n = board.size
    return ", ".join(f"{cell_name(x, n)} {'empty' if board[x] is Symbol.EMPTY else board[x].value}" for x in changed)


class ImproveDialog(SearchDialog):
    """Lock cells, search small changes, compare figures, apply one as a single undo step."""

    applied = Signal(int)
    """The number (1-based) of the proposal just applied."""

    def __init__(self, document: Document, locked: Iterable[int] | None = None, parent: QWidget | None = None,
                 engine: Engine | None = None) -> None:
        """``locked``: cells to lock in the document first (one undo step); None keeps the document's locks."""
        super().__init__(parent)
        self.setWindowTitle("Improve this board")
        self.document = document
        if locked is not None:
            document.set_locks(locked, "Lock cells for Improve")
        self.engine = engine or default_engine()
        self.result: Any = None  # a SearchResult; Any because QDialog.result() is a method of the same name
        self.base: Board | None = None
        """The snapshot the proposals were made from."""

        self.lock_board = LockBoard(document)
        self.lock_label = QLabel()
        self.lock_board.locksChanged.connect(self._update_lock_label)
        self.level = level_box()
        self.time_box = QSpinBox()
        self.time_box.setRange(10, int(MAX_GENERATE_TIME))
        self.time_box.setValue(180)
        self.time_box.setSuffix(" s")
        self.changes_box = QSpinBox()
        self.changes_box.setRange(1, 12)
        self.changes_box.setValue(SearchConfig().max_changes)
        self.changes_box.setToolTip("Symbol pairs a proposal may add, remove, move or turn round")
        self.seed_box = QSpinBox()
        self.seed_box.setRange(0, 2**31 - 1)
        form = QFormLayout()
        form.addRow("Level", self.level)
        form.addRow("Time", self.time_box)
        form.addRow("Pairs changed at most", self.changes_box)
        form.addRow("Seed", self.seed_box)

        self.start_button = QPushButton("Find improvements")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.progress = ProgressRow()
        self.original_label = QLabel()
        self.original_label.setWordWrap(True)
        self.proposal_area = QGridLayout()
        self.proposal_widgets: list[tuple[QLabel, QLabel, QPushButton]] = []
        self.picture_px = picture_px(self)
        for i in range(PROPOSALS):
            picture = QLabel()
            picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
            # The whole board always: a layout short of room cut the picture (rows 1 and 12 went missing), and
            # the dialog opens with room for the pictures before the first run.
            picture.setFixedSize(self.picture_px, self.picture_px)
            keep = picture.sizePolicy()
            keep.setRetainSizeWhenHidden(True)
            picture.setSizePolicy(keep)
            text = QLabel()
            text.setWordWrap(True)
            text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            apply_button = QPushButton(f"Apply proposal {i + 1}")
            apply_button.clicked.connect(lambda _checked=False, i=i: self.apply(i))
            self.proposal_area.addWidget(picture, 0, i)
            self.proposal_area.addWidget(apply_button, 1, i)  # under its picture: in sight when the texts scroll
            self.proposal_area.addWidget(text, 2, i)
            self.proposal_widgets.append((picture, text, apply_button))
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)

        top = QHBoxLayout()
        left = QVBoxLayout()
        left.addWidget(self.lock_board, 1)
        left.addWidget(self.lock_label)
        top.addLayout(left, 1)
        right = QVBoxLayout()
        right.addLayout(form)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.cancel_button)
        right.addLayout(buttons)
        right.addWidget(self.progress)
        right.addWidget(self.original_label)
        right.addStretch(1)
        top.addLayout(right, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        proposals = QWidget()
        proposals.setLayout(self.proposal_area)
        self.proposal_scroll = WholeScrollArea(proposals)
        # Never shorter than the pictures and their buttons: on a short screen the texts under them scroll.
        button_height = self.proposal_widgets[0][2].sizeHint().height()
        self.proposal_scroll.setMinimumHeight(self.picture_px + button_height + 2 * self.proposal_area.spacing()
                                              + 2 * self.proposal_area.contentsMargins().top() + 4)
        layout.addWidget(self.proposal_scroll, 1)  # the lock board gives up room first
        layout.addWidget(close)

        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.document.cellsChanged.connect(self._on_document_changed)
        self._add_undo_keys()
        self._show_proposals([])
        self._update_lock_label()

    def _add_undo_keys(self) -> None:
        """Ctrl+Z and Ctrl+Shift+Z (Ctrl+Y) here too: the dialog tells the host to undo an applied proposal with
        Ctrl+Z, and the main window's keys do not reach a separate dialog window."""
        undo = self.document.undo_stack.createUndoAction(self, "Undo")
        undo.setShortcuts(QKeySequence.keyBindings(QKeySequence.StandardKey.Undo))
        redo = self.document.undo_stack.createRedoAction(self, "Redo")
        redo_keys = QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)
        for extra in ("Ctrl+Shift+Z", "Ctrl+Y"):
            if QKeySequence(extra) not in redo_keys:
                redo_keys.append(QKeySequence(extra))
        redo.setShortcuts(redo_keys)
        for action in (undo, redo):
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            self.addAction(action)

    # -- locks --------------------------------------------------------------------------
    @property
    def locked(self) -> set[int]:
        return set(self.lock_board.locked)

    def _update_lock_label(self) -> None:
        cells = sorted(self.lock_board.locked)
        n = self.document.board.size
        names = ", ".join(cell_name(c, n) for c in cells[:12]) + (" …" if len(cells) > 12 else "")
        self.lock_label.setText(f"Locked: {names}" if cells else "No cells locked: click the board here, or use "
                                "the lock brush (L) on the main board, to lock cells.")

    def _on_document_changed(self, _cells: object) -> None:
        if not self.running:
            self.lock_board.set_board(self.document.snapshot())
        self._update_apply_buttons()

    def proposals_fit(self) -> bool:
        """Whether the board is still the one the proposals were made for (an undo back to it counts)."""
        return self.base is not None and self.document.board.cells == self.base.cells

    def _update_apply_buttons(self) -> None:
        """Apply only while the proposals fit the board: a button that refuses only once clicked looks as if it
        would apply."""
        fits = self.proposals_fit()
        tip = "" if fits else "The board changed since these proposals were made: undo back to it, or run Improve again"
        for i, (_picture, _text, button) in enumerate(self.proposal_widgets):
            button.setEnabled(fits and i < len(self.proposals))
            button.setToolTip(tip)

    # -- running ------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.runner.busy

    def start(self) -> bool:
        board = self.document.snapshot()
        if not board.is_antisymmetric():
            self.progress.idle("The board has broken pairs: repair them (Validation panel) before improving it.")
            return False
        unplayable = [p.message for p in playability(board) if p.severity is Severity.ERROR]
        if unplayable:  # every game would be decided before a piece is placed: its figures would mean nothing
            self.progress.idle(f"No match can be played on this board ({'; '.join(unplayable)}). Change it in the "
                               "Properties tab before improving the board.")
            return False
        if len(self.locked) >= board.cell_count:
            self.progress.idle("Every cell is locked, so Improve has nothing to change: unlock some cells (click "
                               "them on the board here) and start again.")
            return False
        from core.generate.layout import Locks

        locks = Locks.from_cells(self.locked, board.size)
        cfg = SearchConfig(size=board.size, count=PROPOSALS, seed=self.seed_box.value(),
                           time_budget=float(self.time_box.value()), max_changes=self.changes_box.value())
        level = self.level.currentText().strip()
        try:  # checked before any worker starts, and told as the Level box's problem
            resolve_level(level)
        except LevelError as exc:
            self.progress.idle(f"Level: {exc}")
            return False
        engine = self.engine
        self.base = board

        def work(job: Control[GenerateProgress]) -> SearchResult:
            from core.generate.search import improve

            pool = engine.pool()
            try:
                return improve(board, cfg, engine.screen(cfg.seed), pool, judge=engine.judge(level, cfg.seed),
                               locks=locks, progress=job.progress, cancel=job.cancelled)
            finally:
                pool.close()

        self.result = None
        self._show_proposals([])
        self.original_label.clear()
        self._run(work)
        return True

    failure = "Improve failed"

    def _inputs(self) -> tuple[QWidget, ...]:
        return (self.level, self.time_box, self.changes_box, self.seed_box, self.lock_board)

    def _on_finished(self, result: SearchResult) -> None:
        self._set_running(False)
        self.result = result
        start = result.start
        self.original_label.setText(f"Your board: {start.figures.host_words()}" if start is not None else "")
        self.lock_board.set_board(self.document.snapshot())  # it kept the searched board while the search ran
        self._show_proposals(result.candidates)
        found = f"{len(result.candidates)} proposals from {result.screened} layouts screened ({result.elapsed:.0f} s)."
        if result.candidates and not self.proposals_fit():
            found += (" The board was edited during the search, so they are for the board as it was: undo back to "
                      "it to apply one, or run Improve again.")
        self.progress.idle(found)

    def _show_proposals(self, proposals: list[Candidate]) -> None:
        self.proposals = proposals[:PROPOSALS]
        base_score = None
        if self.result is not None and self.result.start is not None:
            base_score = self.result.start.score
        for i, (picture, text, button) in enumerate(self.proposal_widgets):
            if i < len(self.proposals):
                c = self.proposals[i]
                picture.setPixmap(proposal_pixmap(c.board, tuple(c.changed), self.picture_px,
                                                  picture.devicePixelRatioF()))
                delta = "" if base_score is None else f" ({round(100 * (c.score - base_score)):+d} against yours)"
                text.setText(f"<b>Proposal {i + 1}</b>: rated {round(100 * c.score)} of 100{delta}<br>"
                             f"{c.figures.host_words()}"
                             f"<br>Changed (outlined): {changed_cells(c.board, c.changed)}")
                for w in (picture, text, button):
                    w.setVisible(True)
            else:
                picture.clear()
                text.clear()
                for w in (picture, text, button):
                    w.setVisible(False)
        self._update_apply_buttons()
        if self.proposals:
            self._fit_to_screen()

    def _fit_to_screen(self) -> None:
        """Grow to show the proposals' texts whole, within the screen."""
        inner = self.proposal_scroll.widget()
        if inner is not None:
            inner.adjustSize()  # the new texts' wrapped heights, before the hint is read
        self.proposal_scroll.updateGeometry()
        layout = self.layout()
        if layout is not None:
            layout.activate()
        want = self.size().expandedTo(self.sizeHint())
        screen = self.screen()
        if screen is not None:
            want = want.boundedTo(screen.availableGeometry().size())
        self.resize(want)

    # -- applying -----------------------------------------------------------------------
    def apply(self, index: int) -> bool:
        """Put proposal ``index`` (0-based) on the document as one undo step."""
        if not 0 <= index < len(self.proposals) or self.base is None:
            return False
        if self.document.board.cells != self.base.cells:
            QMessageBox.warning(self, "Improve this board",
                                "The board changed since these proposals were made; run Improve again.")
            return False
        c = self.proposals[index]
        now_locked = sorted(set(c.changed) & self.document.locks)
        if now_locked:
            n = self.document.board.size
            QMessageBox.warning(self, "Improve this board",
                                f"Proposal {index + 1} changes {cell_name(now_locked[0], n)}, which you locked "
                                "after these proposals were made; run Improve again.")
            return False
        edits = [(cell, c.board[cell]) for cell in c.changed]
        n = self.document.board.size
        ok = self.document.set_cells(edits, f"Improve: proposal {index + 1} ({len(c.changed) // 2} pairs, "
                                            f"{', '.join(cell_name(x, n) for x in c.changed[:4])}"
                                            f"{' …' if len(c.changed) > 4 else ''})")
        if ok:
            self.base = self.document.snapshot()
            self.proposals = []
            self._show_proposals([])
            self.lock_board.set_board(self.document.snapshot())
            self.progress.idle(f"Applied proposal {index + 1} (undo with Ctrl+Z). Run again to improve further.")
            self.applied.emit(index + 1)
        return ok

    def done(self, code: int) -> None:
        """Closing the dialog stops a running search (its workers too)."""
        self.runner.cancel()
        self.runner.wait(10_000)
        super().done(code)
