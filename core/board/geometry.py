"""Cells, their match names and their 180-degree partners.

A cell is an int index ``row * size + col`` with row 0 at the top, the same
reading order the match notation uses, so sorting indices sorts names in
reading order.  Every part of the program names cells through this one
parse/format pair.
"""

from __future__ import annotations

import re
import string

MIN_SIZE = 4
MAX_SIZE = 26
DEFAULT_SIZE = 12

COLUMN_LETTERS = string.ascii_uppercase

_CELL_RE = re.compile(r"^([A-Za-z])([0-9]{1,2})$")


class CellNameError(ValueError):
    """A text that does not name a cell of the board."""


class SizeError(ValueError):
    """A board size outside the supported even sizes."""


def check_size(size: int) -> int:
    """Return ``size`` when it is a supported board size, else raise SizeError."""
    if isinstance(size, bool) or not isinstance(size, int):
        raise SizeError(f"board size must be a whole number, not {size!r}")
    if size < MIN_SIZE or size > MAX_SIZE:
        raise SizeError(f"board size {size} is outside {MIN_SIZE}..{MAX_SIZE}")
    if size % 2:
        raise SizeError(f"board size {size} is odd; boards need an even size so every cell has a distinct partner")
    return size


def partner(cell: int, size: int) -> int:
    """The cell rotated 180 degrees about the board's centre."""
    return size * size - 1 - cell


def edge_neighbours(cell: int, size: int) -> list[int]:
    """The cells sharing an edge with ``cell``, in reading order (above, left, right, below)."""
    r, c = divmod(cell, size)
    out = []
    if r > 0:
        out.append(cell - size)
    if c > 0:
        out.append(cell - 1)
    if c < size - 1:
        out.append(cell + 1)
    if r < size - 1:
        out.append(cell + size)
    return out


def column_name(col: int) -> str:
    return COLUMN_LETTERS[col]


def cell_name(cell: int, size: int) -> str:
    """Match name of a cell: column letter then 1-based row, e.g. ``A1`` top-left."""
    if not 0 <= cell < size * size:
        raise CellNameError(f"cell index {cell} is not on a {size}x{size} board")
    row, col = divmod(cell, size)
    return f"{COLUMN_LETTERS[col]}{row + 1}"


def parse_cell(text: str, size: int) -> int:
    """Parse a cell name case-insensitively; the message says exactly what is wrong."""
    raw = text.strip()
    match = _CELL_RE.match(raw)
    if match is None:
        raise CellNameError(
            f"{text!r} is not a cell name: write a column letter then a row number, e.g. A1"
        )
    letter, digits = match.groups()
    col = COLUMN_LETTERS.index(letter.upper())
    row = int(digits) - 1
    last = f"{COLUMN_LETTERS[size - 1]}{size}"
    if col >= size:
        raise CellNameError(
            f"{text!r}: column {letter.upper()} is off the {size}x{size} board (columns A-{COLUMN_LETTERS[size - 1]})"
        )
    if row < 0 or row >= size or digits.startswith("0"):
        raise CellNameError(f"{text!r}: row {digits} is off the {size}x{size} board (rows 1-{size}, last cell {last})")
    return row * size + col


def all_cell_names(size: int) -> list[str]:
    return [cell_name(cell, size) for cell in range(size * size)]
