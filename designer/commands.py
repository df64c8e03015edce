"""Undo steps: one QUndoCommand per document operation.

Commands hold only the exact cell changes or the old and new values, so undo
restores the board bit for bit however it was edited.  A paint drag pushes one
command per cell and merges them (``mergeWith``), so one drag is one undo step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QUndoCommand

from core.board import CellChange, GameParams

if TYPE_CHECKING:
    from designer.document import Document

STROKE_ID = 1001
PARAMS_ID = 1002
META_ID = 1003


class CellsCommand(QUndoCommand):
    """A set of cell changes computed before pushing (clear, fill, transform, repair)."""

    def __init__(self, document: Document, changes: list[CellChange], text: str) -> None:
        super().__init__(text)
        self.document = document
        self.changes = list(changes)

    def redo(self) -> None:
        self.document.apply_cell_changes(self.changes, undo=False)

    def undo(self) -> None:
        self.document.apply_cell_changes(self.changes, undo=True)


class StrokeCommand(QUndoCommand):
    """Part of a paint or erase drag; consecutive parts of the same drag merge into one step."""

    def __init__(self, document: Document, stroke: int, changes: list[CellChange], text: str) -> None:
        super().__init__(text)
        self.document = document
        self.stroke = stroke
        self.changes = list(changes)

    def id(self) -> int:
        return STROKE_ID

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, StrokeCommand) or other.stroke != self.stroke:
            return False
        self.changes.extend(other.changes)
        return True

    def redo(self) -> None:
        self.document.apply_cell_changes(self.changes, undo=False)

    def undo(self) -> None:
        self.document.apply_cell_changes(list(reversed(self.changes)), undo=True)


class ParamsCommand(QUndoCommand):
    """A change of the game parameters; repeated edits of one field (spin box clicks) merge."""

    def __init__(self, document: Document, old: GameParams, new: GameParams, field: str) -> None:
        super().__init__(f"Change {field}")
        self.document = document
        self.old = old
        self.new = new
        self.field = field

    def id(self) -> int:
        return PARAMS_ID

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, ParamsCommand) or other.field != self.field:
            return False
        self.new = other.new
        if self.new == self.old:
            self.setObsolete(True)
        return True

    def redo(self) -> None:
        self.document.apply_params(self.new)

    def undo(self) -> None:
        self.document.apply_params(self.old)


class MetaCommand(QUndoCommand):
    """A change of the board's name, author or notes."""

    def __init__(self, document: Document, key: str, old: str, new: str) -> None:
        super().__init__(f"Change {key}")
        self.document = document
        self.key = key
        self.old = old
        self.new = new

    def id(self) -> int:
        return META_ID

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, MetaCommand) or other.key != self.key:
            return False
        self.new = other.new
        if self.new == self.old:
            self.setObsolete(True)
        return True

    def redo(self) -> None:
        self.document.apply_meta(self.key, self.new)

    def undo(self) -> None:
        self.document.apply_meta(self.key, self.old)
