"""The play-test board: shows the game and turns mouse gestures into placements.

The canvas knows nothing of the rules: the window hands it the legal
placements (as cell tuples) and receives the one the player clicked.  That
keeps every rule decision in ``core.engine.rules`` and lets the preview only ever
show a placement that is legal, so a click can never be an illegal attempt.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QEnterEvent,
    QFont,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QLineEdit,
    QPlainTextEdit,
    QSizePolicy,
    QSplitter,
    QTextEdit,
    QWidget,
)

from core.board.model import Board
from designer.canvas.render import BoardGeometry, Overlay, RenderOptions, layout, paint_board

Cells = tuple[int, ...]


class PlayCanvas(QWidget):
    """Board view with a legal-placement preview that follows the mouse."""

    placement_clicked = Signal(object)
    """A tuple of four cells: the previewed legal placement the player clicked."""
    hovered = Signal(object)
    """The cell under the mouse, or None."""

    def __init__(self, board: Board, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.board = board
        self.options = RenderOptions()
        self.pieces: dict[int, str] = {}
        self.piece_ids: dict[int, int] = {}
        self.highlight: Cells = ()
        self.problems: Cells = ()
        self.hint_counts: dict[int, int] | None = None
        self.scoring: tuple[Cells, Cells] = ((), ())
        """At the end of a game: the winner's uncovered symbols and the loser's (what each side scored)."""
        self._painted: BoardGeometry | None = None
        self._legal: list[Cells] = []
        self._by_cell: dict[int, list[Cells]] = {}
        self._interactive = False
        self._hover: int | None = None
        self._choices: list[Cells] = []
        self._index = 0
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(240, 240)

    def sizeHint(self) -> QSize:
        return QSize(640, 640)

    # -- what to show -------------------------------------------------------------
    def set_pieces(self, pieces: dict[int, str], piece_ids: dict[int, int]) -> None:
        self.pieces = dict(pieces)
        self.piece_ids = dict(piece_ids)
        self.update()

    def set_legal(self, placements: Iterable[Sequence[int]], interactive: bool) -> None:
        """The placements the mouse may preview; ``interactive`` is False while an agent or replay has the board."""
        self._legal = sorted(tuple(sorted(p)) for p in placements)
        self._by_cell = {}
        for cells in self._legal:
            for cell in cells:
                self._by_cell.setdefault(cell, []).append(cells)
        self._interactive = interactive
        self._choices = []
        self._index = 0
        self._refresh_choices(keep=False)
        self.update()

    def set_marks(self, highlight: Iterable[int] = (), problems: Iterable[int] = ()) -> None:
        self.highlight = tuple(highlight)
        self.problems = tuple(problems)
        self.update()

    def set_hints(self, counts: dict[int, int] | None) -> None:
        """Per coverable cell, how many legal placements cover it (None hides the hints)."""
        self.hint_counts = dict(counts) if counts is not None else None
        self.update()

    def set_scoring(self, winner: Iterable[int], loser: Iterable[int]) -> None:
        """Mark the symbols that scored: a thick frame for the winner's, a thin dashed one for the loser's."""
        self.scoring = (tuple(winner), tuple(loser))
        self.update()

    @property
    def preview(self) -> Cells:
        """The placement a click would make now (empty when there is none)."""
        if not self._interactive or not self._choices:
            return ()
        return self._choices[self._index % len(self._choices)]

    @property
    def interactive(self) -> bool:
        """Whether a person may place now (False while an agent moves, the game is paused or over)."""
        return self._interactive

    @property
    def choice_count(self) -> int:
        return len(self._choices) if self._interactive else 0

    # -- geometry -----------------------------------------------------------------
    def board_geometry(self) -> BoardGeometry:
        """The cell layout for the current widget size (the same one the last paint used)."""
        if self._painted is None or self._painted.size != self.board.size:
            return layout(QRectF(self.rect()), self.board.size, self.options)
        return self._painted

    def cell_centre(self, cell: int) -> QPointF:
        return self.board_geometry().cell_rect(cell).center()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        try:
            overlay = Overlay(pieces=self.pieces, piece_ids=self.piece_ids, preview=self.preview, preview_ok=True,
                              highlight=self.highlight, problems=self.problems)
            self._painted = paint_board(painter, QRectF(self.rect()), self.board, self.options, overlay)
            if self.hint_counts:
                self._paint_hints(painter, self._painted)
            if any(self.scoring):
                self._paint_scoring(painter, self._painted)
        finally:
            painter.end()

    def _paint_hints(self, painter: QPainter, geo: BoardGeometry) -> None:
        """A light tint plus the number of legal placements in each coverable cell's corner (not colour alone)."""
        counts = self.hint_counts or {}
        palette = self.options.palette()
        tint = QColor(palette.preview_ok)
        tint.setAlpha(45)
        ink = QColor(palette.label)
        font = QFont()
        font.setPixelSize(max(7, round(geo.cell * 0.24)))
        painter.save()
        painter.setFont(font)
        painter.setPen(ink)
        for cell, count in counts.items():
            if count <= 0:
                continue
            r = geo.cell_rect(cell)
            painter.fillRect(r, tint)
            corner = r.adjusted(geo.cell * 0.5, geo.cell * 0.6, -geo.cell * 0.06, -geo.cell * 0.04)
            painter.drawText(corner, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom), str(count))
        painter.restore()

    def _paint_scoring(self, painter: QPainter, geo: BoardGeometry) -> None:
        """Frames, not colour alone: solid and thick around the winner's scoring cells, thin and dashed otherwise."""
        palette = self.options.palette()
        painter.save()
        painter.setBrush(Qt.BrushStyle.NoBrush)
        winner, loser = self.scoring
        for cells, width, style in ((loser, 0.05, Qt.PenStyle.DashLine), (winner, 0.11, Qt.PenStyle.SolidLine)):
            pen = QPen(QColor(palette.preview_ok), max(1.5, geo.cell * width))
            pen.setStyle(style)
            painter.setPen(pen)
            inset = pen.widthF() / 2 + geo.cell * 0.04
            for cell in cells:
                painter.drawRoundedRect(geo.cell_rect(cell).adjusted(inset, inset, -inset, -inset),
                                        geo.cell * 0.12, geo.cell * 0.12)
        painter.restore()

    # -- choosing -----------------------------------------------------------------
    def _refresh_choices(self, keep: bool) -> None:
        """Candidates for the hovered cell: those covering it, else those covering a neighbour."""
        old = self.preview if keep else ()
        cell = self._hover
        choices: list[Cells] = []
        if cell is not None and self._interactive:
            choices = list(self._by_cell.get(cell, ()))
            if not choices:
                n = self.board.size
                row, col = divmod(cell, n)
                seen: set[Cells] = set()
                for dr in (-1, 0, 1):
                    for dc in (-1, 0, 1):
                        r, c = row + dr, col + dc
                        if 0 <= r < n and 0 <= c < n:
                            for p in self._by_cell.get(r * n + c, ()):
                                if p not in seen:
                                    seen.add(p)
                                    choices.append(p)
                choices.sort()
        self._choices = choices
        self._index = choices.index(old) if old in choices else 0

    def hover_cell(self, cell: int | None) -> None:
        if cell != self._hover:
            self._hover = cell
            self._refresh_choices(keep=True)
            self.hovered.emit(cell)
            self.update()

    def cycle(self, step: int) -> None:
        """Next (or previous) shape and orientation among the candidates at the cursor."""
        if self._choices:
            self._index = (self._index + step) % len(self._choices)
            self.update()

    def _take_keys(self) -> None:
        """Take the keyboard focus while the mouse is over the board, so R/Space cycle the preview.

        Without this the keys only worked after clicking the board: with the focus on a
        side-panel button or check box, Space pressed that instead. A text field keeps
        the focus, so typing a move is never interrupted by moving the mouse.
        """
        if self.hasFocus() or not self._interactive:
            return
        focused = QApplication.focusWidget()
        if isinstance(focused, (QLineEdit, QAbstractSpinBox, QTextEdit, QPlainTextEdit)):
            return
        self.setFocus(Qt.FocusReason.MouseFocusReason)

    def enterEvent(self, event: QEnterEvent) -> None:
        self._take_keys()
        super().enterEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        self._take_keys()
        self.hover_cell(self.board_geometry().cell_at(event.position()))

    def leaveEvent(self, event: object) -> None:
        self.hover_cell(None)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.hover_cell(self.board_geometry().cell_at(event.position()))
        if event.button() == Qt.MouseButton.RightButton:
            self.cycle(-1)
        elif event.button() == Qt.MouseButton.LeftButton and self.preview:
            self.placement_clicked.emit(self.preview)

    def wheelEvent(self, event: QWheelEvent) -> None:
        delta = event.angleDelta().y() or event.angleDelta().x()
        if delta and self._choices:
            self.cycle(-1 if delta > 0 else 1)
            event.accept()
        else:
            event.ignore()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        if key in (Qt.Key.Key_R, Qt.Key.Key_Space):
            self.cycle(-1 if shift else 1)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.preview:
            self.placement_clicked.emit(self.preview)
        else:
            super().keyPressEvent(event)


def board_beside(canvas: PlayCanvas, side: QWidget, side_stretch: int) -> QSplitter:
    """The board on the left and ``side`` (controls, clocks, the moves) on the right, in a splitter the host can
    drag; the board takes 3 parts of the width to the side's ``side_stretch``."""
    splitter = QSplitter()
    splitter.addWidget(canvas)
    splitter.addWidget(side)
    splitter.setStretchFactor(0, 3)
    splitter.setStretchFactor(1, side_stretch)
    return splitter
