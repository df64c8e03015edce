"""Document model and its undo commands: every edit of a board is a QUndoCommand."""
