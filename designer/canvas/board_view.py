"""The board canvas: paints through designer.canvas.render and turns mouse drags into document strokes.

The canvas owns no board state: it reads the document's board, asks the
document to paint, and repaints when the document says cells changed.  That
is what lets undo, repairs and file loads show up here with no extra code.
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QFocusEvent,
    QHelpEvent,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPixmap,
    QWheelEvent,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from core.board.geometry import cell_name
from core.board.model import Symbol
from core.board.validation import Severity, validate
from designer.canvas.openings import OpeningsLayer
from designer.canvas.render import BoardGeometry, Overlay, RenderOptions, paint_board, paint_marks
from designer.document.document import Document

MIN_ZOOM = 1.0
MAX_ZOOM = 4.0
ARROWS: dict[int, tuple[int, int]] = {
    Qt.Key.Key_Left.value: (0, -1), Qt.Key.Key_Right.value: (0, 1),
    Qt.Key.Key_Up.value: (-1, 0), Qt.Key.Key_Down.value: (1, 0),
}
LOCK_BRUSH = "lock"
"""The lock brush's name where a brush is a Symbol or this (``brushRequested``, the window's ``set_brush``)."""
BRUSH_KEYS: dict[int, Symbol | str] = {
    Qt.Key.Key_1.value: Symbol.O, Qt.Key.Key_O.value: Symbol.O,
    Qt.Key.Key_2.value: Symbol.X, Qt.Key.Key_X.value: Symbol.X,
    Qt.Key.Key_0.value: Symbol.EMPTY, Qt.Key.Key_E.value: Symbol.EMPTY,
    Qt.Key.Key_L.value: LOCK_BRUSH,
}
"""These keys only choose the brush, on the board as everywhere else: a key that also painted the cell under
the cursor left stray pairs nobody meant (the board stays valid, so nothing flags them)."""
APPLY_KEYS = frozenset({Qt.Key.Key_Space.value, Qt.Key.Key_Return.value, Qt.Key.Key_Enter.value})
"""On the focused board these apply the brush to the cursor cell (paint it, or lock or unlock it)."""
ERASE_KEYS = frozenset({Qt.Key.Key_Delete.value, Qt.Key.Key_Backspace.value})
"""On the focused board these erase the cursor cell (and its partner)."""


def line_cells(a: tuple[int, int], b: tuple[int, int]) -> Iterator[tuple[int, int]]:
    """Bresenham's line from ``a`` to ``b`` (row, col), both ends included: a fast drag skips no cell."""
    (r0, c0), (r1, c1) = a, b
    dr, dc = abs(r1 - r0), abs(c1 - c0)
    sr, sc = (1 if r1 > r0 else -1), (1 if c1 > c0 else -1)
    err = dc - dr
    r, c = r0, c0
    while True:
        yield r, c
        if (r, c) == (r1, c1):
            return
        e2 = 2 * err
        if e2 > -dr:
            err -= dr
            c += sc
        if e2 < dc:
            err += dc
            r += sr


class BoardView(QWidget):
    """Interactive canvas for one Document.

    Signals: ``hovered(cell or None)`` as the mouse moves, ``cellClicked(cell)``, ``openingSelected(index or
    None)`` when a click on the fair-openings layer selects an opening (or the selection goes).

    Two layers come from outside: the heatmap (:meth:`set_heat`) and the fair openings (:meth:`set_openings`,
    shown while :meth:`set_openings_shown` says so).  Both are drawn into the cached picture; the document's
    locks too.  With the openings shown, a left click on an opening with a symbol brush selects it instead
    of painting (the lock brush and right-drag still work there).
    """

    hovered = Signal(object)
    cellClicked = Signal(int)
    zoomChanged = Signal(float)
    brushRequested = Signal(object)
    """A paint key was pressed on the board: the window selects that brush too."""
    cursorMoved = Signal(object)
    openingSelected = Signal(object)

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.options = RenderOptions()
        self.brush = Symbol.O
        self.locking = False
        """The lock brush is active (``brush`` is kept for when a symbol brush is chosen again)."""
        self.openings: OpeningsLayer | None = None
        self.openings_shown = False
        self.opening_selected: int | None = None
        self.opening_hovered: int | None = None
        """The opening under the mouse (drawn as a mark when the board does not draw it)."""
        self.hover: int | None = None
        self.selected: tuple[int, ...] = ()
        self.heat: object = None
        self.heat_label = ""
        self.zoom = 1.0
        self.geometry_: BoardGeometry | None = None
        self._base: QPixmap | None = None
        """The board without hover and cursor marks, kept between repaints until the board, its heatmap,
        the options or the size change; hovering only draws the marks over it."""
        self.full_paints = 0
        self._problem_cells: tuple[int, ...] = ()
        self._drag_last: tuple[int, int] | None = None
        self._drag_button = Qt.MouseButton.NoButton
        self._drag_locks = False
        self._held: BoardGeometry | None = None
        """Where the cells were when a mouse button went down: kept until it is released, so a heatmap caption
        or legend that goes away with the first painted cell does not resize the board under the pointer."""
        self.cursor_cell: int | None = None
        """The keyboard cursor (arrow keys move it, Space or Enter applies the brush, Delete erases); drawn while
        focused."""
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(240, 240)
        self.setAccessibleName("Board canvas")
        document.cellsChanged.connect(self._on_cells_changed)
        document.boardReplaced.connect(self._on_board_replaced)
        document.locksChanged.connect(lambda _cells: self.invalidate())
        self._refresh_problems()

    # -- state from outside ------------------------------------------------------------
    def sizeHint(self) -> QSize:
        return QSize(640, 640)

    def set_options(self, options: RenderOptions) -> None:
        self.options = options
        self.invalidate()

    def invalidate(self) -> None:
        """Forget the cached picture (the board, the heatmap, the options or the selection changed)."""
        self._base = None
        self.update()

    def set_brush(self, symbol: Symbol) -> None:
        self.brush = symbol
        self.locking = False

    def set_lock_brush(self) -> None:
        """Clicks and drags lock cells (with their partners) instead of painting."""
        self.locking = True

    def set_selected(self, cells: tuple[int, ...]) -> None:
        self.selected = cells
        self.update()  # a mark, drawn over the cached picture

    def set_heat(self, heat: object, label: str = "") -> None:
        """Show a (size x size) array of 0..1 values under the symbols, or None to hide it."""
        self.heat = heat
        self.heat_label = label
        self.invalidate()

    def set_openings(self, layer: OpeningsLayer | None) -> None:
        """The fair-openings layer of the latest analysis (None: none); drawn while shown."""
        self.openings = layer
        self._select_opening(None)
        self.invalidate()

    def set_openings_shown(self, shown: bool) -> None:
        """Show or hide the layer (the View menu, or hidden while the board differs from the analysed one)."""
        if shown == self.openings_shown:
            return
        self.openings_shown = shown
        if not shown:
            self._select_opening(None)
            QToolTip.hideText()
        self.invalidate()

    def visible_openings(self) -> OpeningsLayer | None:
        """The layer as drawn now: None when hidden, absent or made for another board size."""
        layer = self.openings
        if layer is None or not self.openings_shown or layer.size != self.document.board.size:
            return None
        return layer

    def opening_at(self, point: QPointF) -> tuple[int | None, int]:
        """The opening under a widget point (nearest the point where several overlap) and how many are there."""
        layer = self.visible_openings()
        geo = self._geometry()
        if layer is None or geo.cell <= 0:
            return None, 0
        return layer.pick((point.y() - geo.top) / geo.cell, (point.x() - geo.left) / geo.cell)

    def opening_tooltip(self, point: QPointF) -> str:
        """The tooltip at a widget point: the figures of the opening there, or "" when there is none."""
        index, count = self.opening_at(point)
        layer = self.openings
        return layer.describe(index, count) if index is not None and layer is not None else ""

    def _select_opening(self, index: int | None) -> None:
        if index == self.opening_selected:
            return
        self.opening_selected = index
        self.openingSelected.emit(index)
        self.update()  # a mark, drawn over the cached picture

    def set_zoom(self, zoom: float) -> None:
        """Zoom by growing the canvas inside its scroll area; 1.0 fits the board to the window."""
        self.zoom = max(MIN_ZOOM, min(MAX_ZOOM, zoom))
        self._fit_zoom()
        self.zoomChanged.emit(self.zoom)
        self.update()

    def _fit_zoom(self) -> None:
        """Size the canvas for the zoom relative to the space the window gives it now."""
        parent = self.parentWidget()
        base = parent.size() if parent is not None else self.size()
        side = int(min(base.width(), base.height()) * self.zoom)
        self.setMinimumSize(QSize(240, 240) if self.zoom == 1.0 else QSize(max(240, side), max(240, side)))

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            text = self.opening_tooltip(QPointF(event.pos()))
            if text:
                QToolTip.showText(event.globalPos(), text, self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) \
                and self.event_is_board_key(event):
            event.accept()  # the key reaches keyPressEvent instead of the window's brush shortcut
            return True
        if event.type() == QEvent.Type.ParentChange:
            parent = self.parentWidget()
            if parent is not None:
                parent.installEventFilter(self)  # the scroll area's viewport: re-fit the zoom when it resizes
        return super().event(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize and self.zoom != 1.0:
            self._fit_zoom()
        return super().eventFilter(watched, event)

    def _on_cells_changed(self, _cells: object) -> None:
        self._refresh_problems()
        self.invalidate()

    def _on_board_replaced(self) -> None:
        self.hover = None
        if self.cursor_cell is not None and self.cursor_cell >= self.document.board.cell_count:
            self.cursor_cell = 0
        self.selected = ()
        self.heat = None
        self.heat_label = ""
        self.openings = None
        self._select_opening(None)
        self._refresh_problems()
        self.invalidate()

    def _refresh_problems(self) -> None:
        cells: list[int] = []
        for problem in validate(self.document.board):
            if problem.severity is Severity.ERROR:
                cells.extend(problem.cells)
        self._problem_cells = tuple(cells)

    # -- painting ----------------------------------------------------------------------
    def overlay(self) -> Overlay:
        board = self.document.board
        hover_partner = board.partner(self.hover) if self.hover is not None else None
        highlight = tuple(self.selected) + ((self.hover,) if self.hover is not None else ())
        heat = self.heat if self.heat is not None and getattr(self.heat, "shape", None) == (board.size, board.size) \
            else None
        cursor = self.cursor_cell if self.hasFocus() else None
        openings = self.visible_openings()
        return Overlay(highlight=highlight, partner=hover_partner, problems=self._problem_cells,
                       heat=heat, heat_label=self.heat_label if heat is not None else "", cursor=cursor,
                       locks=self.document.locks, openings=openings,
                       opening_selected=self.opening_selected if openings is not None else None,
                       opening_hovered=self.opening_hovered if openings is not None else None)

    def paintEvent(self, event: QPaintEvent) -> None:
        overlay = self.overlay()
        dpr = self.devicePixelRatioF()
        base = self._base
        if base is None or base.size() != self.size() * dpr or base.devicePixelRatio() != dpr:
            base = QPixmap(self.size() * dpr)
            base.setDevicePixelRatio(dpr)
            painter = QPainter(base)
            try:
                static = Overlay(problems=overlay.problems, heat=overlay.heat, heat_label=overlay.heat_label,
                                 locks=overlay.locks, openings=overlay.openings)
                self.geometry_ = paint_board(painter, QRectF(self.rect()), self.document.board, self.options,
                                             static, self._held)
            finally:
                painter.end()
            self._base = base
            self.full_paints += 1
        painter = QPainter(self)
        try:
            painter.drawPixmap(0, 0, base)
            if self.geometry_ is not None:
                paint_marks(painter, self.geometry_, self.options, overlay)
        finally:
            painter.end()

    def _geometry(self) -> BoardGeometry:
        if self.geometry_ is None:
            from designer.canvas.render import layout
            self.geometry_ = layout(QRectF(self.rect()), self.document.board.size, self.options)
        return self.geometry_

    def cell_at(self, point: QPointF) -> int | None:
        return self._geometry().cell_at(point)

    def cell_center(self, cell: int) -> QPointF:
        """Widget point at the middle of ``cell`` (tests drive real mouse events with it)."""
        return self._geometry().cell_rect(cell).center()

    def cell_rect(self, cell: int) -> QRectF:
        return self._geometry().cell_rect(cell)

    # -- mouse -------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:
        cell = self.cell_at(event.position())
        button = event.button()
        if cell is None or button not in (Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton):
            super().mousePressEvent(event)
            return
        if button == Qt.MouseButton.LeftButton and not self.locking:
            index, _count = self.opening_at(event.position())
            if index is not None:  # the layer is shown: a click on an opening selects it, it does not paint
                self.cursor_cell = cell
                self._select_opening(index)
                event.accept()
                return
        self._select_opening(None)
        self._held = self._geometry()
        self._drag_button = button
        self.cursor_cell = cell
        self._drag_locks = self.locking
        if self.locking:
            # The first cell decides: starting on a locked cell (or with the right button) unlocks.
            self.document.begin_lock_stroke(button == Qt.MouseButton.LeftButton
                                            and cell not in self.document.locks)
        # The first cell decides: left on a cell already holding the brush erases for the whole drag.
        elif button == Qt.MouseButton.RightButton or self.brush is Symbol.EMPTY \
                or self.document.board[cell] is self.brush:
            self.document.begin_stroke(Symbol.EMPTY)
        else:
            self.document.begin_stroke(self.brush)
        self._stroke(cell)
        self._drag_last = divmod(cell, self.document.board.size)
        self.cellClicked.emit(cell)
        event.accept()

    def _stroke(self, cell: int) -> None:
        if self._drag_locks:
            self.document.lock_stroke_cell(cell)
        else:
            self.document.stroke_cell(cell)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        cell = self.cell_at(event.position())
        if cell != self.hover:
            self.hover = cell
            self.hovered.emit(cell)
            self.update()
        opening = self.opening_at(event.position())[0] if self._drag_last is None else None
        if opening != self.opening_hovered:
            self.opening_hovered = opening
            self.update()  # a mark, drawn over the cached picture
        if self._drag_last is None or cell is None:
            return
        n = self.document.board.size
        here = divmod(cell, n)
        if here == self._drag_last:
            return
        for r, c in line_cells(self._drag_last, here):
            self._stroke(r * n + c)
        self._drag_last = here
        event.accept()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._drag_last is not None and event.button() == self._drag_button:
            if self._drag_locks:
                self.document.end_lock_stroke()
            else:
                self.document.end_stroke()
            self._drag_last = None
            self._drag_button = Qt.MouseButton.NoButton
            if self._held is not None:
                self._held = None
                self.invalidate()  # the board takes the room a caption or legend left, now the pointer is up
            event.accept()
            return
        super().mouseReleaseEvent(event)

    # -- keyboard ----------------------------------------------------------------------
    def event_is_board_key(self, event: QKeyEvent) -> bool:
        """Arrow, brush, apply and erase keys without modifiers belong to the board while it has the focus."""
        mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        key = event.key()
        return mods == Qt.KeyboardModifier.NoModifier and (key in ARROWS or key in BRUSH_KEYS or key in APPLY_KEYS
                                                           or key in ERASE_KEYS)

    def _ensure_cursor(self) -> int:
        if self.cursor_cell is None or self.cursor_cell >= self.document.board.cell_count:
            self.cursor_cell = self.hover if self.hover is not None else 0
        return self.cursor_cell

    def move_cursor(self, drow: int, dcol: int) -> int:
        """Move the keyboard cursor, stopping at the edges; returns the new cell."""
        n = self.document.board.size
        row, col = divmod(self._ensure_cursor(), n)
        row = min(n - 1, max(0, row + drow))
        col = min(n - 1, max(0, col + dcol))
        self.cursor_cell = row * n + col
        self.cursorMoved.emit(self.cursor_cell)
        self.update()
        return self.cursor_cell

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self.event_is_board_key(event):
            super().keyPressEvent(event)
            return
        key = event.key()
        if key in ARROWS:
            self.move_cursor(*ARROWS[key])
        elif key in BRUSH_KEYS:
            self.brushRequested.emit(BRUSH_KEYS[key])  # the brush only: the board is left as it is
        else:
            cell = self._ensure_cursor()
            if key in ERASE_KEYS:
                self.document.paint(cell, Symbol.EMPTY)  # one undo step per key
            elif self.locking:
                self.document.toggle_lock(cell)
            else:  # as a click does: on a cell already holding the brush it erases
                self.document.paint(cell, Symbol.EMPTY if self.document.board[cell] is self.brush else self.brush)
            self.cursorMoved.emit(cell)
            self.update()
        event.accept()

    def focusInEvent(self, event: QFocusEvent) -> None:
        self._ensure_cursor()
        self.update()
        super().focusInEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self.update()
        super().focusOutEvent(event)

    def leaveEvent(self, event: object) -> None:
        self.opening_hovered = None
        if self.hover is not None:
            self.hover = None
            self.hovered.emit(None)
            self.update()

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            steps = event.angleDelta().y() / 120
            if steps:
                self.set_zoom(self.zoom * (1.15 ** steps))
            event.accept()
            return
        super().wheelEvent(event)

    def describe(self, cell: int | None) -> str:
        """Status-bar text for a cell: its name, its symbol and its partner."""
        if cell is None:
            return ""
        board = self.document.board
        n = board.size
        other = board.partner(cell)

        def show(s: Symbol) -> str:
            return "empty" if s is Symbol.EMPTY else s.value

        locked = "   (locked with its partner)" if cell in self.document.locks else ""
        return (f"{cell_name(cell, n)}: {show(board[cell])}   partner {cell_name(other, n)}: {show(board[other])}"
                f"{locked}")
