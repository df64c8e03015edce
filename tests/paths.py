"""Folders the tests read, defined once so test files can live at any depth."""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BOARDS = REPO / "boards"
DATA = REPO / "tests" / "data"
