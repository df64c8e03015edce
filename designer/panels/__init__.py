"""Dock panels beside the board: validation, properties and analysis."""
