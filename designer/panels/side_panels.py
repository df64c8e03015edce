"""Side panels: live validation with repairs, and the board's properties and game parameters.

Both panels only talk to the Document, so every change they make is an undo
step and every change made elsewhere (undo, a file load) shows up in them.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.board.geometry import DEFAULT_SIZE, MAX_SIZE, MIN_SIZE, cell_name
from core.board.model import MAX_CLOCK_SECONDS, MAX_SUPPLY, PIECE_TYPES, Symbol
from core.board.validation import Problem, Severity, count_errors, summary, validate
from designer.document.document import Document


class ProblemList(QListWidget):
    """As tall as its rows (within limits), so a board with few problems shows no big empty box."""

    MIN_ROWS = 2
    MAX_ROWS = 12

    def row_height(self, row: int) -> int:
        """The height of a wrapped row at the list's current width (Qt's own hint ignores the wrapping)."""
        item = self.item(row)
        width = max(40, self.viewport().width() - 2 * self.spacing() - 8)
        text = item.text() if item is not None else ""
        flags = int(Qt.TextFlag.TextWordWrap)
        return self.fontMetrics().boundingRect(0, 0, width, 10_000, flags, text).height() + 4

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        rows = sum(self.row_height(i) for i in range(min(self.count(), self.MAX_ROWS)))
        least = self.MIN_ROWS * (self.fontMetrics().height() + 4)
        return QSize(hint.width(), max(rows, least) + 2 * self.frameWidth() + 4)

    def minimumSizeHint(self) -> QSize:
        return QSize(super().minimumSizeHint().width(), self.sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # wrapped rows change height with the width


class ValidationPanel(QWidget):
    """Every problem of the board, refreshed on each edit; errors offer both ways to mend their pair."""

    cellSelected = Signal(object)  # tuple of cells to highlight
    statusChanged = Signal(str)
    """The one-line verdict ("✔ valid", "✖ 1 broken pair, 1 match setting"), for the status bar."""

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.problems: list[Problem] = []
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.list = ProblemList()
        self.list.setWordWrap(True)
        self.list.setAccessibleName("Problems")
        self.keep_this = QPushButton("Fix partner")
        self.keep_partner = QPushButton("Fix this cell")
        self.repair_all_button = QPushButton("Repair all")
        self.keep_this.setToolTip("Make the partner cell mirror the selected cell")
        self.keep_partner.setToolTip("Make the selected cell mirror its partner")
        self.repair_all_button.setToolTip("Mend every broken pair, keeping the side that holds a symbol")
        self.buttons = QWidget()
        buttons = QHBoxLayout(self.buttons)
        buttons.setContentsMargins(0, 0, 0, 0)
        for b in (self.keep_this, self.keep_partner):
            buttons.addWidget(b)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.summary)
        layout.addWidget(self.list)
        layout.addWidget(self.buttons)
        layout.addWidget(self.repair_all_button)
        self.list.currentRowChanged.connect(self._on_row)
        self.list.itemClicked.connect(lambda _item: self._on_row(self.list.currentRow()))
        self.keep_this.clicked.connect(lambda: self._repair(keep_first=True))
        self.keep_partner.clicked.connect(lambda: self._repair(keep_first=False))
        self.repair_all_button.clicked.connect(self.document.repair_all)
        document.cellsChanged.connect(lambda _c: self.refresh())
        document.paramsChanged.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        board = self.document.board
        current = self.list.currentRow()
        before = self.selected_problem()
        self.problems = validate(board)
        self.list.blockSignals(True)
        self.list.clear()
        errors = 0
        for p in self.problems:
            tag = "ERROR" if p.severity is Severity.ERROR else "warning"
            errors += p.severity is Severity.ERROR
            item = QListWidgetItem(f"{tag}: {p.message}")
            if p.cells:
                item.setToolTip(", ".join(cell_name(c, board.size) for c in p.cells))
            self.list.addItem(item)
        if 0 <= current < self.list.count():
            self.list.setCurrentRow(current)
        self.list.blockSignals(False)
        self.summary.setText(summary(board))
        pairs = self.repairable
        if errors:
            kinds = count_errors(self.problems)
            where = "repaired" if pairs == errors else "fixed (match settings are in the Properties tab)"
            self.status.setText(f"✖ {kinds}: not fit for a match until {where}")
            short = f"✖ {kinds}"
        elif self.problems:
            self.status.setText("✔ valid (with warnings)")
            warnings = len(self.problems)
            short = f"✔ valid, {warnings} warning{'' if warnings == 1 else 's'}"
        else:
            self.status.setText("✔ valid: no problems found")
            short = "✔ valid"
        self.list.setVisible(bool(self.problems))
        self.list.updateGeometry()
        # The repair buttons mend pairs only: a board whose only errors are match settings has nothing for them.
        self.buttons.setVisible(pairs > 0)
        self.repair_all_button.setVisible(pairs > 0)
        self.repair_all_button.setEnabled(pairs > 0)
        self.statusChanged.emit(short)
        self._update_buttons()
        after = self.selected_problem()
        if before is not None and after != before:
            # The selected problem was repaired (or changed): the canvas highlights what the
            # list and the repair buttons now show, not the cells of a problem that is gone.
            self.cellSelected.emit(tuple(after.cells) if after is not None else ())

    @property
    def repairable(self) -> int:
        """How many of the problems are broken pairs (what Repair all mends)."""
        return sum(p.code == "antisymmetry" for p in self.problems)

    def selected_problem(self) -> Problem | None:
        row = self.list.currentRow()
        return self.problems[row] if 0 <= row < len(self.problems) else None

    def _update_buttons(self) -> None:
        p = self.selected_problem()
        pair = p is not None and p.code == "antisymmetry" and len(p.cells) == 2
        self.keep_this.setEnabled(pair)
        self.keep_partner.setEnabled(pair)
        if p is not None and pair:
            n = self.document.board.size
            a, b = p.cells
            board = self.document.board
            self.keep_this.setText(_set_words(cell_name(b, n), board[a].other))
            self.keep_this.setToolTip(f"Make {cell_name(b, n)} mirror {cell_name(a, n)}")
            self.keep_partner.setText(_set_words(cell_name(a, n), board[b].other))
            self.keep_partner.setToolTip(f"Make {cell_name(a, n)} mirror {cell_name(b, n)}")
        else:
            self.keep_this.setText("Fix partner")
            self.keep_partner.setText("Fix this cell")

    def _on_row(self, row: int) -> None:
        self._update_buttons()
        p = self.selected_problem()
        if p is not None and p.cells:
            self.cellSelected.emit(tuple(p.cells))

    def select_problem(self, row: int) -> None:
        self.list.setCurrentRow(row)

    def _repair(self, keep_first: bool) -> None:
        p = self.selected_problem()
        if p is None or len(p.cells) != 2:
            return
        a, b = p.cells
        if keep_first:
            self.document.repair_pair(keep=a, fix=b)
        else:
            self.document.repair_pair(keep=b, fix=a)


class PropertiesPanel(QWidget):
    """Name, author, notes and game parameters (undoable), plus the size used by New."""

    newBoardRequested = Signal(int)

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self._updating = False
        layout = QVBoxLayout(self)

        about = QGroupBox("Board")
        form = QFormLayout(about)
        self.name = QLineEdit()
        self.author = QLineEdit()
        self.notes = QPlainTextEdit()
        self.notes.setMaximumHeight(70)
        form.addRow("Name", self.name)
        form.addRow("Author", self.author)
        form.addRow("Notes", self.notes)
        self.size_label = QLabel()
        form.addRow("Size", self.size_label)
        layout.addWidget(about)

        game = QGroupBox("Game")
        gform = QFormLayout(game)
        self.supply: dict[str, QSpinBox] = {}
        for t in PIECE_TYPES:
            spin = QSpinBox()
            spin.setRange(0, MAX_SUPPLY)
            spin.setAccessibleName(f"Supply of {t}")
            self.supply[t] = spin
            gform.addRow(f"Supply {t}", spin)
            spin.valueChanged.connect(lambda v, t=t: self._param(f"supply_{t}", int(v)))
        self.first = QComboBox()
        self.first.addItems(["O", "X"])
        self.first.setToolTip("The symbol of the player who places the first piece (X in the original game)")
        gform.addRow("First to move", self.first)
        self.pie = QCheckBox("Pie rule (second player may swap)")
        self.pie.setToolTip("After the first placement the second player may take it over and swap sides, so the "
                            "first player must open fairly. The balance analysis assumes it is on.")
        gform.addRow("", self.pie)
        self.turn_time = QSpinBox()
        self.turn_time.setRange(0, MAX_CLOCK_SECONDS)
        self.turn_time.setSuffix(" s")
        self.bank = QSpinBox()
        self.bank.setRange(0, MAX_CLOCK_SECONDS)
        self.bank.setSuffix(" s")
        self.turn_time.setToolTip("Seconds each player has for every turn; it refills at the start of each turn.")
        self.bank.setToolTip("Extra seconds for the whole game, used once a turn's time runs out; a player whose "
                             "bank empties loses.")
        gform.addRow("Turn time", self.turn_time)
        gform.addRow("Bank", self.bank)
        layout.addWidget(game)

        new = QGroupBox("New board")
        nrow = QHBoxLayout(new)
        self.new_size = QSpinBox()
        self.new_size.setRange(MIN_SIZE, MAX_SIZE)
        self.new_size.setSingleStep(2)
        self.new_size.setValue(DEFAULT_SIZE)
        self.new_button = QPushButton("New empty board")
        nrow.addWidget(QLabel("Size"))
        nrow.addWidget(self.new_size)
        nrow.addWidget(self.new_button)
        layout.addWidget(new)
        layout.addStretch(1)

        # Committed as typed (consecutive edits of a field merge into one undo step), so Ctrl+S
        # right after typing saves the text; editingFinished still covers programmatic setText.
        for key, edit in (("name", self.name), ("author", self.author)):
            edit.textEdited.connect(lambda text, k=key: self._meta(k, text))
            edit.editingFinished.connect(lambda k=key, e=edit: self._meta(k, e.text()))
        self.notes.textChanged.connect(lambda: self._meta("notes", self.notes.toPlainText()))
        self.first.currentTextChanged.connect(lambda text: self._param("first", Symbol(text)))
        self.pie.toggled.connect(lambda on: self._param("pie", bool(on)))
        self.turn_time.valueChanged.connect(lambda v: self._param("turn_time", int(v)))
        self.bank.valueChanged.connect(lambda v: self._param("bank", int(v)))
        self.new_size.editingFinished.connect(self._even_size)
        self.new_button.clicked.connect(lambda: self.newBoardRequested.emit(self._even_size()))
        document.paramsChanged.connect(self.refresh)
        document.boardReplaced.connect(self.refresh)
        self.refresh()

    def _even_size(self) -> int:
        value = self.new_size.value()
        if value % 2:
            value += 1 if value < MAX_SIZE else -1
            self.new_size.setValue(value)
        return value

    def _meta(self, key: str, value: str) -> None:
        if not self._updating:
            self.document.set_meta(key, value)

    def _param(self, key: str, value: object) -> None:
        if not self._updating:
            self.document.set_param(key, value)

    def refresh(self) -> None:
        """Show the document's values without feeding them back as edits."""
        self._updating = True
        try:
            b = self.document.board
            p = b.params
            if self.name.text() != b.name:
                self.name.setText(b.name)
            if self.author.text() != b.author:
                self.author.setText(b.author)
            if self.notes.toPlainText() != b.notes:
                self.notes.setPlainText(b.notes)
            self.size_label.setText(f"{b.size} x {b.size}")
            for t, spin in self.supply.items():
                spin.setValue(p.supply_of(t))
            self.first.setCurrentText(p.first.value)
            self.pie.setChecked(p.pie)
            self.turn_time.setValue(p.turn_time)
            self.bank.setValue(p.bank)
        finally:
            self._updating = False


class WheelGuard(QObject):
    """Lets the wheel scroll the panel past a drop-down or number box that has not been clicked into.

    Qt gives the wheel to whatever field is under the pointer, so scrolling a panel changed the settings that
    passed under it ("On board" switched maps, a time limit jumped to 540 s) without a word.  A field without
    the keyboard focus hands the wheel on to the scroll area; a field the host clicked into still takes it.
    """

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Wheel and isinstance(watched, QWidget) and not watched.hasFocus():
            area = watched.parentWidget()
            while area is not None and not isinstance(area, QAbstractScrollArea):
                area = area.parentWidget()
            if area is not None:  # handed straight to the scroll area: Qt does not pass on a wheel it made itself
                QApplication.sendEvent(area.viewport(), event)
            else:
                event.ignore()
            return True
        return super().eventFilter(watched, event)


def guard_wheel(root: QWidget) -> WheelGuard:
    """Install one :class:`WheelGuard` on every drop-down and number box inside ``root``; the wheel no longer
    gives them the focus either (a click or Tab does)."""
    guard = WheelGuard(root)
    for field in (*root.findChildren(QComboBox), *root.findChildren(QAbstractSpinBox)):
        field.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        field.installEventFilter(guard)
    return guard


def scrolling(widget: QWidget) -> QScrollArea:
    """Wrap a dock's panel so it scrolls when the window is too short, instead of its parts overlapping; the
    wheel scrolls it past its fields (:func:`guard_wheel`)."""
    guard_wheel(widget)
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    bar = area.verticalScrollBar().sizeHint().width()
    area.setMinimumWidth(widget.minimumSizeHint().width() + bar)
    return area


def align_top(widget: QWidget) -> QWidget:
    """Wrap a panel so it sits at the top of a dock instead of stretching."""
    box = QWidget()
    lay = QVBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.addWidget(widget, 0, Qt.AlignmentFlag.AlignTop)
    return box


def _set_words(cell: str, symbol: Symbol) -> str:
    """The repair button's words: "Set I1 to X", or "Empty I1" (the file's "." means nothing to a host)."""
    return f"Empty {cell}" if symbol is Symbol.EMPTY else f"Set {cell} to {symbol.value}"
