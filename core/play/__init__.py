"""A game being played: turns, the pie swap, undo/redo, records and the match clock, without Qt."""
