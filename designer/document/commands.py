"""Undo steps: one QUndoCommand per document operation.

Commands hold only the exact cell changes or the old and new values, so undo
restores the board bit for bit however it was edited.  A paint drag pushes one
command per cell and merges them (``mergeWith``), so one drag is one undo step.
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtGui import QUndoCommand

from core.board.model import CellChange, GameParams


class Document(Protocol):
    """What a command changes; ``designer.document.document.Document`` is the one implementation. A protocol
    keeps the commands from importing the document module that creates them (no import circle)."""

    def apply_cell_changes(self, changes: list[CellChange], undo: bool) -> None: ...

    def apply_params(self, params: GameParams) -> None: ...

    def apply_meta(self, key: str, value: str) -> None: ...

    def apply_locks(self, locks: frozenset[int]) -> None: ...

STROKE_ID = 1001
PARAMS_ID = 1002
META_ID = 1003
LOCKS_ID = 1004


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


class LocksCommand(QUndoCommand):
    """A change of the locked cells (the lock brush, Clear locks, the Improve dialog's board).

    Locks are a design aid kept with the document, not in the board file, so these steps do not make
    the document unsaved (``Document.dirty`` skips them).  Parts of one lock drag (same ``stroke``,
    not 0) merge into one step.
    """

    def __init__(self, document: Document, old: frozenset[int], new: frozenset[int], text: str,
                 stroke: int = 0) -> None:
        super().__init__(text)
        self.document = document
        self.old = old
        self.new = new
        self.stroke = stroke

    def id(self) -> int:
        return LOCKS_ID

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, LocksCommand) or not self.stroke or other.stroke != self.stroke:
            return False
        self.new = other.new
        return True

    def redo(self) -> None:
        self.document.apply_locks(self.new)

    def undo(self) -> None:
        self.document.apply_locks(self.old)


class _FieldCommand(QUndoCommand):
    """Set one named field from ``old`` to ``new``; repeated edits of the same field merge into one step.

    Spin-box clicks and typing produce a command per change; merging keeps the undo
    history at one entry per field edit, and an edit that returns to the start drops out.
    """

    command_id = -1

    def __init__(self, document: Document, key: str, old: Any, new: Any) -> None:
        super().__init__(f"Change {key}")
        self.document = document
        self.key = key
        self.old = old
        self.new = new

    def id(self) -> int:
        return self.command_id

    def mergeWith(self, other: QUndoCommand) -> bool:
        if type(other) is not type(self) or not isinstance(other, _FieldCommand) or other.key != self.key:
            return False
        self.new = other.new
        if self.new == self.old:
            self.setObsolete(True)
        return True

    def redo(self) -> None:
        self.apply(self.new)

    def undo(self) -> None:
        self.apply(self.old)

    def apply(self, value: Any) -> None:
        raise NotImplementedError


class ParamsCommand(_FieldCommand):
    """A change of the game parameters (the whole GameParams, labelled by the field edited)."""

    command_id = PARAMS_ID

    def __init__(self, document: Document, old: GameParams, new: GameParams, field: str) -> None:
        super().__init__(document, field, old, new)

    def apply(self, value: Any) -> None:
        self.document.apply_params(value)


class MetaCommand(_FieldCommand):
    """A change of the board's name, author or notes."""

    command_id = META_ID

    def apply(self, value: Any) -> None:
        self.document.apply_meta(self.key, value)
