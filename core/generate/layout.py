"""Anti-symmetric layouts as the search sees them: one value per partner pair, locks, density and local moves.

A board of size n has n*n/2 partner pairs; the *slot* of a pair is its cell in the top half (the smaller index).
A layout stores per slot 0 (both cells empty), 1 (O on the slot cell, X on its partner) or 2 (X on the slot cell,
O on its partner), so every layout the search can write is anti-symmetric by construction and a move can never
break a pair.  Locked cells pin their slot: neither the cell nor its partner ever changes.

This module is plain Python (no numpy, no compiled engine) so ``lits --help`` can import the argument parsing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from random import Random

from core.board.geometry import cell_name, check_size, edge_neighbours, partner
from core.board.model import Board, GameParams, Symbol

EMPTY, O_FIRST, X_FIRST = 0, 1, 2
"""Slot values: empty pair, O on the slot cell, X on the slot cell."""

DEFAULT_DENSITY = (0.20, 0.34)
"""Default share of cells holding a symbol when no ``--pairs`` is given: 14..24 pairs on 12x12.  The bundled
Crossroads and Islands boards sit at 22-24%; below about 15% the tie rule decides many games, and above a third
nearly every placement covers symbols."""

Layout = tuple[int, ...]
"""One slot value per partner pair, slot ``i`` being cell ``i`` of the top half."""


class LayoutError(ValueError):
    """A pair range, lock set or start board the search cannot use, said in one line for the user."""


@dataclass(frozen=True)
class PairRange:
    """The density range as symbol pairs (each pair is one O and its mirrored X)."""

    low: int
    high: int

    def contains(self, pairs: int) -> bool:
        return self.low <= pairs <= self.high

    def outside(self, pairs: int) -> int:
        """How many pairs ``pairs`` lies outside the range (0 inside)."""
        return max(0, self.low - pairs, pairs - self.high)

    def text(self) -> str:
        return f"{self.low}..{self.high}"

    @classmethod
    def default_for(cls, size: int) -> PairRange:
        half = size * size // 2
        low = max(1, round(DEFAULT_DENSITY[0] * half))
        return cls(low, max(low, round(DEFAULT_DENSITY[1] * half)))


_RANGE_RE = re.compile(r"\s*(\d+)\s*(?:(?:\.\.|-)\s*(\d+)\s*)?")


def parse_pair_range(text: str, size: int) -> PairRange:
    """``MIN..MAX`` (or ``MIN-MAX``, or one number for exactly that many pairs), checked against the board size."""
    check_size(size)
    half = size * size // 2
    match = _RANGE_RE.fullmatch(text)
    if match is None:
        raise LayoutError(f"--pairs {text!r}: write MIN..MAX, e.g. 14..24 (symbol pairs; a {size}x{size} board "
                          f"holds 0..{half})")
    low = int(match.group(1))
    high = int(match.group(2)) if match.group(2) is not None else low
    if low > high:
        raise LayoutError(f"--pairs {text!r}: MIN {low} is above MAX {high}")
    if high > half:
        raise LayoutError(f"--pairs {text!r}: a {size}x{size} board holds at most {half} symbol pairs")
    if high == 0:
        raise LayoutError(f"--pairs {text!r}: give at least one pair; a board without symbols is decided "
                          "by the tie rule alone")
    return PairRange(low, high)


def slot_of(cell: int, size: int) -> int:
    return min(cell, partner(cell, size))


def half_of(size: int) -> int:
    return size * size // 2


def pairs_of(layout: Layout) -> int:
    return sum(1 for v in layout if v != EMPTY)


def layout_of(board: Board) -> Layout:
    """The layout of an anti-symmetric board; a broken pair is refused with its cells named."""
    broken = board.broken_pairs()
    if broken:
        from core.board.validation import describe_pair

        a, b = broken[0]
        raise LayoutError(f"the board is not anti-symmetric ({describe_pair(board, a, b)}"
                          f"{f' and {len(broken) - 1} more broken pairs' if len(broken) > 1 else ''}); "
                          "repair it first")
    values = {Symbol.EMPTY: EMPTY, Symbol.O: O_FIRST, Symbol.X: X_FIRST}
    return tuple(values[board.cells[c]] for c in range(half_of(board.size)))


def board_of(layout: Layout, size: int, params: GameParams | None = None, name: str = "") -> Board:
    board = Board(size=size, params=params or GameParams(), name=name)
    for slot, value in enumerate(layout):
        if value == EMPTY:
            continue
        symbol = Symbol.O if value == O_FIRST else Symbol.X
        board.cells[slot] = symbol
        board.cells[partner(slot, size)] = symbol.other
    return board


def grid_key(layout: Layout) -> str:
    """A short stable text for a layout (seeds, de-duplication, tie-breaks)."""
    return "".join(".OX"[v] for v in layout)


def changed_cells(before: Board, after: Board) -> list[int]:
    """Every cell whose content differs (both cells of a changed pair)."""
    return [c for c in range(before.cell_count) if before.cells[c] is not after.cells[c]]


def distance(a: Layout, b: Layout) -> int:
    """Pairs that differ between two layouts."""
    return sum(1 for x, y in zip(a, b, strict=True) if x != y)


@dataclass(frozen=True)
class Locks:
    """Slots the search must not touch, from the cells a host locked (a cell locks its partner too)."""

    size: int
    slots: frozenset[int] = frozenset()

    @classmethod
    def from_cells(cls, cells: Iterable[int], size: int) -> Locks:
        check_size(size)
        n2 = size * size
        slots: set[int] = set()
        for c in cells:
            if not 0 <= c < n2:
                raise LayoutError(f"locked cell index {c} is not on a {size}x{size} board")
            slots.add(slot_of(c, size))
        return cls(size, frozenset(slots))

    def cells(self) -> list[int]:
        """The locked cells and their partners, in reading order."""
        return sorted({c for s in self.slots for c in (s, partner(s, self.size))})

    def names(self) -> list[str]:
        return [cell_name(c, self.size) for c in self.cells()]


class Mutator:
    """Random layouts and local moves that keep locks and stay in (or move towards) the pair range.

    Moves: *move* a pair anywhere (its slot symbol to any cell whose pair is free, or to its own partner),
    *step* one of a pair's cells to an edge neighbour, *turn* a pair round (O and X change places), *add* a pair,
    *remove* a pair.  Every random choice draws from the ``Random`` the caller passes, so a seeded search makes
    the same moves on any machine.
    """

    def __init__(self, size: int, pairs: PairRange, locks: Locks | None = None) -> None:
        check_size(size)
        self.size = size
        self.pairs = pairs
        self.locks = locks or Locks(size)
        half = half_of(size)
        self.free = [s for s in range(half) if s not in self.locks.slots]
        if not self.free:
            raise LayoutError("every cell is locked: there is nothing left to change")
        if pairs.high > half:
            raise LayoutError(f"a {size}x{size} board holds at most {half} symbol pairs, not {pairs.high}")

    def check_locked(self, base: Layout) -> None:
        """The locked pairs alone must leave room for the range."""
        locked_pairs = sum(1 for s in self.locks.slots if base[s] != EMPTY)
        if locked_pairs > self.pairs.high:
            raise LayoutError(f"the locked cells hold {locked_pairs} symbol pairs, more than the "
                              f"{self.pairs.high} the pair range {self.pairs.text()} allows")
        if locked_pairs + len(self.free) < self.pairs.low:
            raise LayoutError(f"only {locked_pairs + len(self.free)} pairs can hold symbols with these locks, "
                              f"fewer than the {self.pairs.low} the pair range {self.pairs.text()} asks for")

    def random_layout(self, base: Layout, rng: Random) -> Layout:
        """Locked slots from ``base``, the rest a random fill with a pair count drawn uniformly from the range."""
        out = [v if s in self.locks.slots else EMPTY for s, v in enumerate(base)]
        locked_pairs = pairs_of(tuple(out))
        low = max(self.pairs.low, locked_pairs)
        high = min(self.pairs.high, locked_pairs + len(self.free))
        target = rng.randint(low, high)
        for slot in rng.sample(self.free, target - locked_pairs):
            out[slot] = rng.choice((O_FIRST, X_FIRST))
        return tuple(out)

    def mutate(self, layout: Layout, rng: Random, moves: int = 1) -> Layout:
        out = list(layout)
        for _ in range(moves):
            self._one_move(out, rng)
        return tuple(out)

    def _one_move(self, out: list[int], rng: Random) -> None:
        occupied = [s for s in self.free if out[s] != EMPTY]
        empty = [s for s in self.free if out[s] == EMPTY]
        count = pairs_of(tuple(out))
        kinds: list[str] = []
        if count < self.pairs.low and empty:
            kinds = ["add"]
        elif count > self.pairs.high and occupied:
            kinds = ["remove"]
        else:
            if occupied:
                kinds += ["move", "move", "step", "step", "turn"]
            if empty and count < self.pairs.high:
                kinds.append("add")
            if occupied and count > self.pairs.low:
                kinds.append("remove")
        if not kinds:
            return
        kind = rng.choice(kinds)
        if kind == "add":
            out[rng.choice(empty)] = rng.choice((O_FIRST, X_FIRST))
        elif kind == "remove":
            out[rng.choice(occupied)] = EMPTY
        elif kind == "turn":
            slot = rng.choice(occupied)
            out[slot] = X_FIRST if out[slot] == O_FIRST else O_FIRST
        elif kind == "move":
            slot = rng.choice(occupied)
            # any free cell, or the pair's own partner cell (which turns the pair round)
            targets = [*self._free_cells(out, None), partner(slot, self.size)]
            self._move_to(out, slot, targets, rng)
        else:
            slot = rng.choice(occupied)
            cell = rng.choice((slot, partner(slot, self.size)))
            self._move_to(out, slot, self._free_cells(out, edge_neighbours(cell, self.size)), rng, cell)

    def _free_cells(self, out: Sequence[int], among: Sequence[int] | None) -> list[int]:
        """Cells whose pair is free and empty (all cells, or those listed)."""
        cells = range(self.size * self.size) if among is None else among
        locked = self.locks.slots
        return [c for c in cells if out[slot_of(c, self.size)] == EMPTY and slot_of(c, self.size) not in locked]

    def _move_to(self, out: list[int], slot: int, targets: list[int], rng: Random, cell: int | None = None) -> None:
        """Move the pair at ``slot`` so that the symbol on ``cell`` (default: the slot cell) lands on a target.

        Moving to a cell or its partner are both allowed, so a move can also turn the pair round."""
        n = self.size
        if cell is None:
            cell = slot
        # the symbol on `cell`: the slot value names the symbol on the slot cell
        on_slot = Symbol.O if out[slot] == O_FIRST else Symbol.X
        symbol = on_slot if cell == slot else on_slot.other
        if not targets:
            # nowhere to go: turn the pair round instead (still a change of one pair)
            out[slot] = X_FIRST if out[slot] == O_FIRST else O_FIRST
            return
        target = rng.choice(targets)
        out[slot] = EMPTY
        new_slot = slot_of(target, n)
        on_new_slot = symbol if target == new_slot else symbol.other
        out[new_slot] = O_FIRST if on_new_slot is Symbol.O else X_FIRST
