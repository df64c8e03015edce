"""The edited board as a Qt model: the Board, its undo stack, its file and whether it is saved.

Views never change the Board directly; they call the document, which records
an undo command and emits a signal, so the canvas, the validation panel and the
properties panel all stay in step whatever changed the board (a drag, undo, a
repair, a file load).
"""

from __future__ import annotations

import itertools
import os
import random
from collections.abc import Iterable
from dataclasses import replace

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from core.board.boardfile import BoardFileModel, load_board, save_board
from core.board.fileio import file_stamp
from core.board.geometry import cell_name, partner
from core.board.model import Board, CellChange, GameParams, Symbol, Transform
from designer.document.commands import CellsCommand, LocksCommand, MetaCommand, ParamsCommand, StrokeCommand

META_KEYS: tuple[str, ...] = ("name", "author", "notes")


def moved_cells(size: int, cells: frozenset[int], kind: Transform | str) -> frozenset[int]:
    """Where ``cells`` go when the board is turned or flipped by ``kind``, worked out by the board's own
    :meth:`~core.board.model.Board.transformed` (one marked board per bit of the cell index), so locks can
    never move differently from the symbols they hold."""
    if not cells:
        return frozenset()
    count = size * size
    moved = [0] * count
    for bit in range(max(1, (count - 1).bit_length())):
        marked = Board(size, cells=[Symbol.O if (cell >> bit) & 1 else Symbol.EMPTY for cell in range(count)])
        for new, symbol in enumerate(marked.transformed(kind).cells):
            if symbol is not Symbol.EMPTY:
                moved[new] |= 1 << bit
    where = {old: new for new, old in enumerate(moved)}
    return frozenset(where[cell] for cell in cells)


def _longest(key: str) -> int:
    """The most characters a board file accepts for ``key`` (its loader refuses a longer text)."""
    limits = [getattr(m, "max_length", None) for m in BoardFileModel.model_fields[key].metadata]
    return min((n for n in limits if isinstance(n, int)), default=1 << 30)


META_LIMITS: dict[str, int] = {key: _longest(key) for key in META_KEYS}
"""A longer name, author or notes would go into a file that its loader refuses: the board would not open again."""


class Document(QObject):
    """One board being designed.

    Signals: ``cellsChanged(list[int])`` with the cells that changed (every cell
    after a new board is loaded), ``paramsChanged()`` for game parameters and
    name/author/notes, ``fileChanged()`` when the path or the saved state changes,
    ``boardReplaced()`` when New/Open put a different board in place, ``locksChanged(list[int])`` with the
    cells whose lock changed.

    Locks (cells that "Improve this board" must keep, each with its 180-degree partner) are a design aid of
    this session: undoable like every edit, kept in the autosave, but not in the board file, so a lock
    change alone never makes the document unsaved.
    """

    cellsChanged = Signal(object)
    paramsChanged = Signal()
    fileChanged = Signal()
    boardReplaced = Signal()
    locksChanged = Signal(object)

    def __init__(self, board: Board | None = None, path: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.board = board if board is not None else Board()
        self.path = path
        self._disk = file_stamp(path)
        """The file as last read or written here (modification time and size), to notice another program's save."""
        self.locks: frozenset[int] = frozenset()
        """Locked cells, always with their partners."""
        self.undo_stack = QUndoStack(self)
        self._dirty_shown = False
        self.undo_stack.cleanChanged.connect(self._on_stack_moved)
        self.undo_stack.indexChanged.connect(self._on_stack_moved)
        self._strokes = itertools.count(1)
        self._stroke: int | None = None
        self._stroke_symbol = Symbol.EMPTY
        self._stroke_cells: set[int] = set()
        """Cells the current drag has painted, directly or as a partner: they keep their value for the drag."""
        self._lock_stroke: int | None = None
        self._lock_stroke_on = True

    def _on_stack_moved(self, *_args: object) -> None:
        """fileChanged when the unsaved state flips (a lock step moves the stack but changes nothing saved)."""
        if self.dirty != self._dirty_shown:
            self._file_changed()

    def _file_changed(self) -> None:
        self._dirty_shown = self.dirty
        self.fileChanged.emit()

    # -- state -------------------------------------------------------------------------
    @property
    def dirty(self) -> bool:
        """Whether the board differs from its file: some step between the saved state and now is not a lock."""
        stack = self.undo_stack
        if stack.isClean():
            return False
        clean = stack.cleanIndex()
        if clean < 0:
            return True
        low, high = sorted((clean, stack.index()))
        return not all(isinstance(stack.command(i), LocksCommand) for i in range(low, high))

    def changed_on_disk(self) -> bool:
        """Whether the file was written by something else since this document read or saved it: a save then
        puts the board shown over those changes.  A file that is gone is not changed (saving brings it back)."""
        now = file_stamp(self.path)
        return now is not None and now != self._disk

    @property
    def display_name(self) -> str:
        return os.path.basename(self.path) if self.path else "untitled.yaml"

    def snapshot(self) -> Board:
        """An independent copy, for work that must not see later edits (analysis, play-test, export)."""
        return self.board.copy()

    # -- low level: used by the commands only -------------------------------------------
    def apply_cell_changes(self, changes: list[CellChange], undo: bool) -> None:
        self.board.apply_changes(changes, undo=undo)
        self.cellsChanged.emit(sorted({ch.cell for ch in changes}))

    def apply_params(self, params: GameParams) -> None:
        self.board.params = params
        self.paramsChanged.emit()

    def apply_meta(self, key: str, value: str) -> None:
        setattr(self.board, key, value)
        self.paramsChanged.emit()

    def apply_locks(self, locks: frozenset[int]) -> None:
        changed = sorted(locks ^ self.locks)
        self.locks = locks
        if changed:
            self.locksChanged.emit(changed)

    # -- drags --------------------------------------------------------------------------
    def begin_stroke(self, symbol: Symbol) -> None:
        """Start a drag painting ``symbol`` (EMPTY erases); every cell until end_stroke is one undo step."""
        self._stroke = next(self._strokes)
        self._stroke_symbol = symbol
        self._stroke_cells = set()

    def stroke_cell(self, cell: int) -> bool:
        """Paint one cell of the current drag (and its partner); returns whether anything changed.

        A drag that crosses its own mirror cells (F6 -> G6 -> G7 -> F7 on 12x12) would otherwise flip
        the cells it painted first, because G7 is F6's partner: a cell the drag already painted,
        directly or as a partner, keeps its value until the drag ends.
        """
        if self._stroke is None:
            self.begin_stroke(self._stroke_symbol)
        assert self._stroke is not None
        if cell in self._stroke_cells:
            return False
        self._stroke_cells.update((cell, self.board.partner(cell)))
        changes = self.board.paint(cell, self._stroke_symbol)
        if not changes:
            return False
        verb = "Erase" if self._stroke_symbol is Symbol.EMPTY else f"Paint {self._stroke_symbol.value}"
        self.undo_stack.push(StrokeCommand(self, self._stroke, changes,
                                           f"{verb} from {cell_name(cell, self.board.size)}"))
        return True

    def end_stroke(self) -> None:
        self._stroke = None
        self._stroke_cells = set()

    def paint(self, cell: int, symbol: Symbol) -> bool:
        """A single-cell paint as its own undo step (keyboard and tests)."""
        self.begin_stroke(symbol)
        changed = self.stroke_cell(cell)
        self.end_stroke()
        return changed

    # -- locks --------------------------------------------------------------------------
    def lock_pair(self, cell: int) -> frozenset[int]:
        """A cell and its 180-degree partner: they lock and unlock together."""
        return frozenset((cell, partner(cell, self.board.size)))

    def begin_lock_stroke(self, lock: bool) -> None:
        """Start a lock-brush drag that locks (or unlocks) every cell it crosses, as one undo step."""
        self._lock_stroke = next(self._strokes)
        self._lock_stroke_on = lock

    def lock_stroke_cell(self, cell: int) -> bool:
        """Lock or unlock one cell of the current lock drag (and its partner); returns whether anything changed."""
        if self._lock_stroke is None:
            self.begin_lock_stroke(self._lock_stroke_on)
        assert self._lock_stroke is not None
        pair = self.lock_pair(cell)
        new = self.locks | pair if self._lock_stroke_on else self.locks - pair
        if new == self.locks:
            return False
        verb = "Lock" if self._lock_stroke_on else "Unlock"
        self.undo_stack.push(LocksCommand(self, self.locks, new, f"{verb} from {cell_name(cell, self.board.size)}",
                                          self._lock_stroke))
        return True

    def end_lock_stroke(self) -> None:
        self._lock_stroke = None

    def toggle_lock(self, cell: int) -> bool:
        """Lock an unlocked cell or unlock a locked one, with its partner, as one undo step."""
        self.begin_lock_stroke(cell not in self.locks)
        changed = self.lock_stroke_cell(cell)
        self.end_lock_stroke()
        return changed

    def set_locks(self, cells: Iterable[int], text: str = "Set locks") -> bool:
        """Lock exactly ``cells`` and their partners (one undo step; False when nothing changes)."""
        new = frozenset(c for cell in cells for c in self.lock_pair(cell))
        if new == self.locks:
            return False
        self.undo_stack.push(LocksCommand(self, self.locks, new, text))
        return True

    def clear_locks(self) -> bool:
        return self.set_locks((), "Clear locks")

    def restore_locks(self, cells: Iterable[int]) -> None:
        """Put locks in place without an undo step (a recovered autosave: its history is gone)."""
        n2 = self.board.cell_count
        self.apply_locks(frozenset(c for cell in cells if 0 <= cell < n2 for c in self.lock_pair(cell)))

    # -- whole-board operations ------------------------------------------------------------
    def _push_target(self, target: list[Symbol], text: str) -> bool:
        changes = [CellChange(i, old, new) for i, (old, new) in enumerate(zip(self.board.cells, target, strict=True))
                   if old is not new]
        if not changes:
            return False
        self.undo_stack.push(CellsCommand(self, changes, text))
        return True

    def clear(self) -> bool:
        return self._push_target([Symbol.EMPTY] * self.board.cell_count, "Clear board")

    def free_pairs(self) -> int:
        """How many symbol pairs Random fill can place: the pairs of cells no lock holds."""
        return sum(1 for cell in range(self.board.cell_count // 2) if cell not in self.locks)

    def random_fill(self, pairs: int, seed: int | None = None) -> bool:
        """Replace the unlocked part of the design by ``pairs`` random mirrored pairs; locked cells keep their
        symbols (ValueError when the unlocked cells hold fewer pairs)."""
        free = [cell for cell in range(self.board.cell_count // 2) if cell not in self.locks]
        if not 0 <= pairs <= len(free):
            held = f" ({len(self.locks) // 2} locked)" if self.locks else ""
            raise ValueError(f"a {self.board.size}x{self.board.size} board has room for 0..{len(free)} symbol "
                             f"pairs{held}, not {pairs}")
        rng = random.Random(seed)
        target = [symbol if cell in self.locks else Symbol.EMPTY for cell, symbol in enumerate(self.board.cells)]
        # Cells above the centre line are exactly the partners of those below it, so sampling the unlocked
        # ones among them picks distinct free pairs uniformly.
        for cell in rng.sample(free, pairs):
            symbol = Symbol.O if rng.random() < 0.5 else Symbol.X
            target[cell] = symbol
            target[partner(cell, self.board.size)] = symbol.other
        return self._push_target(target, f"Random fill ({pairs} pairs)")

    def transform(self, kind: Transform) -> bool:
        """Rotate, flip or swap symbols; each transform keeps anti-symmetric boards anti-symmetric, and the locks
        move with the symbols they hold (one undo step for both)."""
        labels = {"rot90": "Rotate 90° clockwise", "rot180": "Rotate 180°", "rot270": "Rotate 90° anticlockwise",
                  "flip_h": "Mirror left-right", "flip_v": "Mirror top-bottom", "transpose": "Mirror on diagonal",
                  "swap": "Swap O and X"}
        text = labels.get(kind, kind)
        locks = moved_cells(self.board.size, self.locks, kind)
        if locks == self.locks:
            return self._push_target(self.board.transformed(kind).cells, text)
        self.undo_stack.beginMacro(text)
        try:
            self._push_target(self.board.transformed(kind).cells, text)
            self.undo_stack.push(LocksCommand(self, self.locks, locks, text))
        finally:
            self.undo_stack.endMacro()
        return True

    def set_cells(self, edits: list[tuple[int, Symbol]], text: str) -> bool:
        """Set cells exactly (no partner mirroring); repairs use this."""
        target = list(self.board.cells)
        for cell, symbol in edits:
            target[cell] = symbol
        return self._push_target(target, text)

    def repair_pair(self, keep: int, fix: int) -> bool:
        """Make ``fix`` mirror ``keep`` (one of the two ways to mend a broken pair)."""
        n = self.board.size
        symbol = self.board[keep].other
        return self.set_cells([(fix, symbol)], f"Repair: {cell_name(fix, n)} mirrors {cell_name(keep, n)}")

    def repair_all(self) -> bool:
        """Mend every broken pair in one step, keeping the symbol side (or the earlier cell when both hold one)."""
        edits = []
        for a, b in self.board.broken_pairs():
            keep, fix = (b, a) if self.board[a] is Symbol.EMPTY else (a, b)
            edits.append((fix, self.board[keep].other))
        return self.set_cells(edits, f"Repair {len(edits)} broken pairs")

    # -- parameters ----------------------------------------------------------------------
    def set_params(self, params: GameParams, field: str = "parameters") -> bool:
        if params == self.board.params:
            return False
        self.undo_stack.push(ParamsCommand(self, self.board.params, params, field))
        return True

    def set_param(self, field: str, value: object) -> bool:
        """Change one GameParams field by name (``first``, ``pie``, ``turn_time``, ``bank``, or ``supply_L`` etc.)."""
        p = self.board.params
        if field.startswith("supply_"):
            assert isinstance(value, int)
            new = p.with_supply(field.removeprefix("supply_"), value)
        elif field == "first" and isinstance(value, Symbol):
            new = replace(p, first=value)
        elif field == "pie" and isinstance(value, bool):
            new = replace(p, pie=value)
        elif field == "turn_time" and isinstance(value, int):
            new = replace(p, turn_time=value)
        elif field == "bank" and isinstance(value, int):
            new = replace(p, bank=value)
        else:
            raise ValueError(f"unknown game parameter {field!r} or wrong value {value!r}")
        return self.set_params(new, field)

    def set_meta(self, key: str, value: str) -> bool:
        """Change the name, author or notes, cut to what a board file holds (:data:`META_LIMITS`), so what the
        Properties tab shows is what Save writes and what opens again."""
        if key not in META_KEYS:
            raise ValueError(f"unknown board text field {key!r}")
        asked, value = value, value[:META_LIMITS[key]]
        old = getattr(self.board, key)
        if old == value:
            if asked != value:
                self.paramsChanged.emit()  # the views show the text as kept, not the longer one typed
            return False
        self.undo_stack.push(MetaCommand(self, key, old, value))
        return True

    # -- files ---------------------------------------------------------------------------
    def replace_board(self, board: Board, path: str | None) -> None:
        """Put another board in place (New/Open): the undo history belongs to the old board, so it goes."""
        self.board = board
        self.path = path
        self._disk = file_stamp(path)
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self.apply_locks(frozenset())  # locks name cells of the old board
        self.boardReplaced.emit()
        self.cellsChanged.emit(list(range(board.cell_count)))
        self.paramsChanged.emit()
        self._file_changed()

    def mark_unsaved(self) -> None:
        """Work that is in no file yet (recovered, generated): unsaved, so it is autosaved, shown with a '*' in
        the title and asked about on close."""
        self.undo_stack.resetClean()
        self._file_changed()

    def new_board(self, size: int) -> None:
        self.replace_board(Board(size=size), None)

    def open(self, path: str) -> None:
        """Load a board file; raises BoardFileError (naming the file) and leaves the document untouched."""
        board = load_board(path)
        self.replace_board(board, os.path.abspath(path))

    def save(self, path: str | None = None) -> str:
        """Save (atomically) to ``path`` or the current file; returns the path written."""
        target = path or self.path
        if not target:
            raise ValueError("this board has no file yet: use Save As")
        save_board(self.board, target)
        self.path = os.path.abspath(target)
        self._disk = file_stamp(self.path)
        self.undo_stack.setClean()
        self._file_changed()
        return self.path

