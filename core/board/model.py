"""The board a host designs: a square grid of empty, O and X cells plus game parameters.

Editing goes through :meth:`Board.paint`, which keeps the board rotationally
anti-symmetric by construction.  :meth:`Board.set_raw` exists only for boards
read from hand-edited files and for repairs, which is why validation reports
broken pairs instead of assuming they cannot happen.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from random import Random

from core.board.geometry import DEFAULT_SIZE, check_size, partner

PIECE_TYPES: tuple[str, ...] = ("L", "I", "T", "S")
"""The four tetromino types in the order every table and supply uses."""

DEFAULT_SUPPLY: tuple[int, int, int, int] = (5, 5, 5, 5)
MAX_SUPPLY = 99
MAX_CLOCK_SECONDS = 24 * 3600


class Symbol(enum.StrEnum):
    """What a cell of the design holds; the value is the character used in files."""

    EMPTY = "."
    O = "O"  # noqa: E741 - the game's own name for the symbol
    X = "X"

    @property
    def other(self) -> Symbol:
        """The symbol a partner cell must hold (EMPTY stays EMPTY)."""
        if self is Symbol.O:
            return Symbol.X
        if self is Symbol.X:
            return Symbol.O
        return Symbol.EMPTY

    @classmethod
    def player(cls, text: str) -> Symbol:
        """Parse a player symbol (``O`` or ``X``, any case)."""
        value = text.strip().upper()
        if value not in ("O", "X"):
            raise ValueError(f"{text!r} is not a player symbol: use O or X")
        return cls(value)


class Transform(enum.StrEnum):
    """Ways to turn or flip a board (and swapping O and X); each keeps partner pairs partners."""

    ROT90 = "rot90"
    """clockwise"""
    ROT180 = "rot180"
    ROT270 = "rot270"
    FLIP_H = "flip_h"
    """left-right"""
    FLIP_V = "flip_v"
    """top-bottom"""
    TRANSPOSE = "transpose"
    SWAP = "swap"
    """exchange O and X"""


@dataclass(frozen=True)
class GameParams:
    """Everything about a match that travels with its board (and is sealed with it)."""

    supply: tuple[int, int, int, int] = DEFAULT_SUPPLY
    first: Symbol = Symbol.O
    pie: bool = True
    turn_time: int = 60
    bank: int = 300

    def __post_init__(self) -> None:
        if len(self.supply) != len(PIECE_TYPES):
            raise ValueError(f"supply needs {len(PIECE_TYPES)} counts (L, I, T, S), got {len(self.supply)}")
        for name, count in zip(PIECE_TYPES, self.supply, strict=True):
            if not 0 <= count <= MAX_SUPPLY:
                raise ValueError(f"supply of {name} must be within 0..{MAX_SUPPLY}, not {count}")
        if self.first not in (Symbol.O, Symbol.X):
            raise ValueError("the first player must be O or X")
        for name, seconds in (("turn time", self.turn_time), ("bank", self.bank)):
            if not 0 <= seconds <= MAX_CLOCK_SECONDS:
                raise ValueError(f"{name} must be within 0..{MAX_CLOCK_SECONDS} seconds, not {seconds}")

    def supply_of(self, piece_type: str) -> int:
        return self.supply[PIECE_TYPES.index(piece_type)]

    def with_supply(self, piece_type: str, count: int) -> GameParams:
        values = list(self.supply)
        values[PIECE_TYPES.index(piece_type)] = count
        return replace(self, supply=(values[0], values[1], values[2], values[3]))

    @classmethod
    def original_game(cls) -> GameParams:
        """The published board game's conventions: X moves first."""
        return cls(first=Symbol.X)


@dataclass(frozen=True)
class CellChange:
    """One cell's content before and after an edit, so an edit can be undone exactly."""

    cell: int
    old: Symbol
    new: Symbol


@dataclass
class Board:
    """A square design grid; cells are indexed ``row * size + col`` from the top-left."""

    size: int = DEFAULT_SIZE
    params: GameParams = field(default_factory=GameParams)
    name: str = ""
    author: str = ""
    notes: str = ""
    cells: list[Symbol] = field(default_factory=list)

    def __post_init__(self) -> None:
        check_size(self.size)
        if not self.cells:
            self.cells = [Symbol.EMPTY] * (self.size * self.size)
        elif len(self.cells) != self.size * self.size:
            need = self.size * self.size
            raise ValueError(f"a {self.size}x{self.size} board needs {need} cells, got {len(self.cells)}")

    # -- construction -----------------------------------------------------------------
    @classmethod
    def from_rows(cls, rows: Sequence[str], params: GameParams | None = None, **meta: str) -> Board:
        """Build from row strings over ``.OX``; anti-symmetry is not enforced here (validation reports it)."""
        size = len(rows)
        for number, row in enumerate(rows, start=1):
            if len(row) != size:
                raise ValueError(f"row {number} has {len(row)} cells; a {size}-row board needs {size}")
        cells = [Symbol(ch) for row in rows for ch in row]
        return cls(size=size, params=params or GameParams(), cells=cells, **meta)

    @classmethod
    def random(cls, size: int = DEFAULT_SIZE, pairs: int = 20, seed: int | None = None,
               params: GameParams | None = None) -> Board:
        """A board with ``pairs`` mirrored symbol pairs on random cells."""
        board = cls(size=size, params=params or GameParams())
        board.random_fill(pairs, Random(seed))
        return board

    def copy(self) -> Board:
        return Board(size=self.size, params=self.params, name=self.name, author=self.author,
                     notes=self.notes, cells=list(self.cells))

    # -- reading ----------------------------------------------------------------------
    def __getitem__(self, cell: int) -> Symbol:
        return self.cells[cell]

    def __iter__(self) -> Iterator[Symbol]:
        return iter(self.cells)

    @property
    def cell_count(self) -> int:
        return self.size * self.size

    def rows(self) -> list[str]:
        n = self.size
        return ["".join(s.value for s in self.cells[r * n:(r + 1) * n]) for r in range(n)]

    def count(self, symbol: Symbol) -> int:
        return sum(1 for s in self.cells if s is symbol)

    def symbol_mask(self, symbol: Symbol) -> int:
        """Bitboard (bit ``cell`` set) of the cells that hold ``symbol``."""
        mask = 0
        for cell, s in enumerate(self.cells):
            if s is symbol:
                mask |= 1 << cell
        return mask

    def partner(self, cell: int) -> int:
        return partner(cell, self.size)

    def broken_pairs(self) -> list[tuple[int, int]]:
        """Pairs ``(cell, partner)`` (cell < partner) whose contents are not each other's mirror."""
        out = []
        for cell in range(self.cell_count // 2):
            other = partner(cell, self.size)
            if self.cells[other] is not self.cells[cell].other:
                out.append((cell, other))
        return out

    def is_antisymmetric(self) -> bool:
        return not self.broken_pairs()

    # -- editing ----------------------------------------------------------------------
    def paint(self, cell: int, symbol: Symbol) -> list[CellChange]:
        """Put ``symbol`` on ``cell`` and its mirror on the partner; EMPTY erases both.

        Returns the cells that actually changed, so callers can record undo steps.
        """
        other = partner(cell, self.size)
        return self._apply([(cell, symbol), (other, symbol.other)])

    def set_raw(self, cell: int, symbol: Symbol) -> list[CellChange]:
        """Set one cell without touching its partner (repairs and tests only)."""
        return self._apply([(cell, symbol)])

    def apply_changes(self, changes: Iterable[CellChange], undo: bool = False) -> None:
        for ch in changes:
            self.cells[ch.cell] = ch.old if undo else ch.new

    def _apply(self, edits: Iterable[tuple[int, Symbol]]) -> list[CellChange]:
        changes = []
        for cell, symbol in edits:
            old = self.cells[cell]
            if old is not symbol:
                changes.append(CellChange(cell, old, symbol))
                self.cells[cell] = symbol
        return changes

    def clear(self) -> list[CellChange]:
        return self._apply([(cell, Symbol.EMPTY) for cell in range(self.cell_count)])

    def random_fill(self, pairs: int, rng: Random) -> list[CellChange]:
        """Clear the board, then place ``pairs`` O symbols each with its mirrored X."""
        half = self.cell_count // 2
        if not 0 <= pairs <= half:
            raise ValueError(f"a {self.size}x{self.size} board holds 0..{half} symbol pairs, not {pairs}")
        target = [Symbol.EMPTY] * self.cell_count
        # Cells below the centre line are exactly the partners of those above it,
        # so sampling the first half picks distinct pairs uniformly.
        for cell in rng.sample(range(half), pairs):
            symbol = Symbol.O if rng.random() < 0.5 else Symbol.X
            target[cell] = symbol
            target[partner(cell, self.size)] = symbol.other
        return self._apply(enumerate(target))

    def transformed(self, kind: Transform | str) -> Board:
        """A copy turned or flipped; every such transform maps partner pairs onto partner pairs."""
        try:
            how = Transform(kind)
        except ValueError:
            raise ValueError(f"unknown transform {kind!r}; one of {', '.join(t.value for t in Transform)}") from None
        n = self.size
        out = self.copy()
        for cell, symbol in enumerate(self.cells):
            r, c = divmod(cell, n)
            match how:
                case Transform.ROT90:
                    r2, c2 = c, n - 1 - r
                case Transform.ROT180:
                    r2, c2 = n - 1 - r, n - 1 - c
                case Transform.ROT270:
                    r2, c2 = n - 1 - c, r
                case Transform.FLIP_H:
                    r2, c2 = r, n - 1 - c
                case Transform.FLIP_V:
                    r2, c2 = n - 1 - r, c
                case Transform.TRANSPOSE:
                    r2, c2 = c, r
                case Transform.SWAP:
                    r2, c2 = r, c
                    symbol = symbol.other
            out.cells[r2 * n + c2] = symbol
        return out


TRANSFORMS: tuple[str, ...] = tuple(t.value for t in Transform)
