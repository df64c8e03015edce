"""Export: pictures (PNG/SVG), a plain-text grid for chat, and sealed files with their digests.

The text grid is plain monospace so it survives any chat or forum; the sealed
export delegates to ``core.seal.sealing`` so the designer and ``lits seal`` produce the
same bytes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.board.boardfile import BoardFileError, load_board
from core.board.geometry import COLUMN_LETTERS
from core.board.model import PIECE_TYPES, Board
from designer.canvas.render import THEMES, RenderOptions, render_png, render_svg
from designer.canvas.sizes import MAX_PICTURE_PX, MIN_PICTURE_PX
from designer.clipboard import code_block
from designer.dialogs.forms import ok_cancel_form
from designer.dialogs.wording import for_gui

COPIED_MS = 2000
"""How long a Copy button says "Copied"."""


def copy_button(label: str, text: Callable[[], str]) -> QPushButton:
    """A button that copies ``text()`` and says "Copied" for two seconds, so the click visibly did something."""
    button = QPushButton(label)
    reset = QTimer(button)  # a child: it dies with the button, so a closed dialog gets no late call
    reset.setSingleShot(True)
    reset.setInterval(COPIED_MS)
    reset.timeout.connect(lambda: button.setText(label))

    def copy() -> None:
        QGuiApplication.clipboard().setText(text())
        button.setText("Copied ✓")
        reset.start()

    button.clicked.connect(copy)
    return button


def text_grid(board: Board, header: bool = True) -> str:
    """The board as monospace text: column letters on top, row numbers on the left, ``.`` for empty."""
    n = board.size
    width = len(str(n))
    lines: list[str] = []
    if header:
        title = board.name or "LITS board"
        p = board.params
        supply = " ".join(f"{t}{c}" for t, c in zip(PIECE_TYPES, p.supply, strict=True))
        lines.append(f"{title} ({n}x{n}, {p.first.value} moves first, pie {'on' if p.pie else 'off'}, "
                     f"supply {supply})")
    lines.append(" " * (width + 1) + " ".join(COLUMN_LETTERS[:n]))
    for r, row in enumerate(board.rows()):
        lines.append(f"{r + 1:>{width}} " + " ".join(row))
    return "\n".join(lines) + "\n"


def export_picture(board: Board, path: str, options: RenderOptions, px: int) -> None:
    """Write PNG or SVG by the file's extension."""
    ext = Path(path).suffix.lower()
    if ext == ".png":
        render_png(board, path, options, px)
    elif ext == ".svg":
        render_svg(board, path, options, px)
    else:
        raise ValueError(f"{path}: unknown picture type {ext or '(none)'!r}; use .png or .svg")


class PictureDialog(QDialog):
    """Size, grid, coordinates and theme for a PNG or SVG export."""

    def __init__(self, options: RenderOptions, px: int = 800, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export picture")
        self.px = QSpinBox()
        self.px.setRange(MIN_PICTURE_PX, MAX_PICTURE_PX)
        self.px.setValue(px)
        self.px.setSuffix(" px")
        self.grid = QCheckBox("Grid lines")
        self.grid.setChecked(options.grid)
        self.coords = QCheckBox("Column letters and row numbers")
        self.coords.setChecked(options.coordinates)
        self.theme = QComboBox()
        self.theme.addItems(list(THEMES))
        self.theme.setCurrentText(options.theme)
        self.title = QCheckBox("Board name as a title")
        ok_cancel_form(self, [("Size", self.px), ("", self.grid), ("", self.coords), ("", self.title),
                              ("Theme", self.theme)])

    def options(self, board: Board) -> RenderOptions:
        return RenderOptions(grid=self.grid.isChecked(), coordinates=self.coords.isChecked(),
                             theme=self.theme.currentText(),
                             title=(board.name or "LITS board") if self.title.isChecked() else "")


class TextGridDialog(QDialog):
    """Shows the text grid, with copy to clipboard and save."""

    def __init__(self, board: Board, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Text grid for chat")
        self.text = text_grid(board)
        self.edit = edit = QPlainTextEdit(self.text)
        edit.setReadOnly(True)
        edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)  # a wrapped row would garble the grid
        font = edit.font()
        font.setFamily("DejaVu Sans Mono")
        font.setStyleHint(font.StyleHint.Monospace)
        edit.setFont(font)
        longest = max(self.text.splitlines(), key=len)
        needed = edit.fontMetrics().horizontalAdvance(longest) + 2 * edit.frameWidth() + 24
        edit.setMinimumSize(max(420, min(needed, 960)), 360)  # the header line was cut off at 420 px
        copy = copy_button("Copy to clipboard", lambda: code_block(self.text))  # a chat keeps a code block's columns
        close = QPushButton("Close")
        close.clicked.connect(self.accept)
        row = QHBoxLayout()
        row.addWidget(copy)
        row.addStretch(1)
        row.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addWidget(edit)
        lay.addLayout(row)


class SealDialog(QDialog):
    """Seal the current board (and optionally more board files) into a season folder with SHA256SUMS."""

    def __init__(self, board: Board, path: str | None, parent: QWidget | None = None, saved: bool = True,
                 name: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("Seal boards for a season")
        shown = name or board.name or (Path(path).name if path else "the current board")
        if path and saved:
            first_label = f"{shown} (as shown, saved in {Path(path).name})"
            state = f"The board as shown in the designer, saved in {path}."
        elif path:
            first_label = f"{shown} (as shown, NOT saved)"
            state = (f"The board as shown in the designer, with changes not saved to {path}: "
                     "the sealed board and that file differ.")
        else:
            first_label = f"{shown} (as shown, not saved to a file)"
            state = "The board as shown in the designer; it is not saved to any file yet."
        self.state = QLabel(f"<b>Sealing:</b> {state}")
        self.state.setWordWrap(True)
        self.entries: list[tuple[Board, str]] = [(board, first_label)]
        self.sources: list[str] = [path or "(unsaved board)"]
        """The file behind each entry, for the host's private slot map."""
        self._auto_slots: set[int] = set()
        """Rows whose slot id was proposed here (neutral dm1, dm2, ...), renumbered when the folder changes."""
        self.digest_text = ""
        self.written: list[Path] = []
        self.sums_path: Path | None = None
        self.season = QLineEdit("season-1")
        self.folder = QLineEdit(str(Path(path).parent / "sealed") if path else os.path.join(os.getcwd(), "sealed"))
        browse = QPushButton("…")
        browse.clicked.connect(self._browse)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(browse)
        self.force = QCheckBox("Replace existing sealed files (only before publishing!)")
        self.append = QCheckBox("Add to the season already in this folder (changes its published fingerprint)")
        self.append.setToolTip("Without it, a folder that already holds a SHA256SUMS is refused: its fingerprint "
                               "may be published, and adding boards changes it.")
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["Board", "Slot id"])
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # the board's label was cut off
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(1, 160)
        self.table.setWordWrap(True)
        self._add_row(first_label, "")
        self._renumber()
        self.table.itemChanged.connect(self._slot_edited)
        self.folder.editingFinished.connect(self._renumber)
        add = QPushButton("Add board files…")
        add.clicked.connect(self._add_files)
        self.output = QPlainTextEdit()
        self.output.setReadOnly(True)
        self.output.setPlaceholderText("Digests appear here after sealing.")
        self.copy = copy_button("Copy digests", lambda: self.digest_text)
        self.copy.setEnabled(False)
        self.seal_button = QPushButton("Seal")
        self.seal_button.clicked.connect(self.seal)
        close = QPushButton("Close")
        close.clicked.connect(self.accept)
        form = QFormLayout()
        form.addRow("Season id", self.season)
        form.addRow("Folder", folder_row)
        form.addRow("", self.force)
        form.addRow("", self.append)
        buttons = QHBoxLayout()
        buttons.addWidget(add)
        buttons.addStretch(1)
        buttons.addWidget(self.seal_button)
        buttons.addWidget(self.copy)
        buttons.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.state)
        lay.addLayout(form)
        lay.addWidget(self.table)
        lay.addLayout(buttons)
        note = QLabel("Publish the digests (or the SHA256SUMS file) before the season; keep the sealed files "
                      "secret until each match and back them up: a lost sealed file can never be proven. Slot ids "
                      "are neutral (dm1, dm2, ...) so SHA256SUMS does not give board names away.")
        note.setWordWrap(True)
        lay.addWidget(note)
        lay.addWidget(self.output)
        self.resize(640, 480)

    def _add_row(self, label: str, slot: str) -> None:
        row = self.table.rowCount()
        self.table.blockSignals(True)
        self.table.insertRow(row)
        item = QTableWidgetItem(label)
        item.setFlags(item.flags() & ~item.flags().ItemIsEditable)
        self.table.setItem(row, 0, item)
        self.table.setItem(row, 1, QTableWidgetItem(slot))
        self.table.blockSignals(False)
        if not slot:
            self._auto_slots.add(row)

    def _slot_edited(self, item: QTableWidgetItem) -> None:
        if item.column() == 1:
            self._auto_slots.discard(item.row())

    def _renumber(self) -> None:
        """Neutral slot ids after those already in the folder (the core's rule, as ``lits seal`` uses)."""
        from core.seal.sealing import default_slots

        rows = sorted(self._auto_slots)
        folder = os.path.expanduser(self.folder.text().strip()) or "."
        self.table.blockSignals(True)
        for row, slot in zip(rows, default_slots(folder, len(rows)), strict=True):
            item = self.table.item(row, 1)
            if item is not None:
                item.setText(slot)
        self.table.blockSignals(False)

    def target_folder(self) -> str:
        """The folder typed, as the absolute path it means ('' when none): '~' is the home folder, as the host
        means it, and a relative name would land wherever the designer was started from, out of the host's
        sight.  The field shows the path that is written to."""
        typed = self.folder.text().strip()
        if not typed:
            return ""
        folder = os.path.abspath(os.path.expanduser(typed))
        if folder != typed:
            self.folder.setText(folder)
            self._renumber()
        return folder

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder for the sealed files", self.folder.text())
        if folder:
            self.folder.setText(folder)

    def _add_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Boards to seal", "", "Board files (*.yaml *.yml)")
        self.add_board_files(paths)

    def add_board_files(self, paths: list[str]) -> list[str]:
        """Add boards to seal; returns the problems of files that could not be read."""
        problems = []
        for p in paths:
            try:
                board = load_board(p)
            except BoardFileError as exc:
                problems.append(str(exc))
                continue
            self.entries.append((board, p))
            self.sources.append(p)
            self._add_row(f"{board.name} ({Path(p).name})" if board.name else p, "")
        self._renumber()
        if problems:
            QMessageBox.warning(self, "Boards not added", for_gui("\n".join(problems)))
        return problems

    def seal(self) -> bool:
        import hashlib

        from core.seal.sealcheck import SUMS_NAME
        from core.seal.sealing import SealError, repeated_boards, seal_board, write_private_map, write_sealed

        season = self.season.text().strip()
        folder = self.target_folder()
        if not folder:
            QMessageBox.warning(self, "Not sealed", "Choose the folder for the sealed files (Folder, or … to "
                                                    "browse); nothing was written.")
            return False
        old_sums = Path(folder, SUMS_NAME)
        try:
            old_fingerprint = hashlib.sha256(old_sums.read_bytes()).hexdigest() if old_sums.is_file() else None
        except OSError as exc:
            QMessageBox.warning(self, "Not sealed", f"{old_sums} cannot be read ({exc.strerror or exc}), so this "
                                                    "folder's season cannot be checked; nothing was written. Choose "
                                                    "another folder.")
            return False
        sealed: list[Any] = []
        try:
            for row, (board, _label) in enumerate(self.entries):
                slot_item = self.table.item(row, 1)
                slot = slot_item.text().strip() if slot_item is not None else ""
                sealed.append(seal_board(board, season, slot))
            paths, sums_path, fingerprint = write_sealed(folder, sealed, force=self.force.isChecked(),
                                                         append=self.append.isChecked())
        except SealError as exc:
            QMessageBox.warning(self, "Not sealed", for_gui(str(exc)))
            return False
        except OSError as exc:
            QMessageBox.warning(self, "Not sealed", f"{folder}: cannot write ({exc.strerror or exc}); nothing was "
                                                    "changed")
            return False
        lines = [f"{s.slot}: {s.digest}  (check code {s.check_code})" for s in sealed]
        self.digest_text = "\n".join(lines) + f"\nseason {season} fingerprint: {fingerprint}\n"
        notes: list[str] = [f"Warning: slot {sealed[i].slot} holds the same board as slot {sealed[j].slot} (the same "
                            "grid and settings)." for i, j in repeated_boards([board for board, _ in self.entries])]
        if old_fingerprint is not None and old_fingerprint != fingerprint:
            notes.append(f"{SUMS_NAME} CHANGED: the fingerprint published before ({old_fingerprint}) no longer "
                         f"matches. Publish the new {SUMS_NAME} and fingerprint and tell the players why.")
        try:
            private = write_private_map(folder, [(s.slot, src, board.name) for s, src, (board, _label) in
                                                 zip(sealed, self.sources, self.entries, strict=True)])
            notes.append(f"Which board is behind each slot: {private} (private: never publish it).")
        except OSError as exc:
            notes.append(f"The private slot map could not be written ({exc.strerror or exc}): note which board "
                         "is behind each slot yourself.")
        notes.append("Back up the sealed files now: a lost sealed file can never be proven.")
        self.output.setPlainText(self.digest_text + "\n" + "\n".join(notes) + "\n\nWritten:\n" +
                                 "\n".join(str(p) for p in [*paths, sums_path]))
        self.written = list(paths)
        self.sums_path = sums_path
        self.copy.setEnabled(True)
        return True
