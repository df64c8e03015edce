"""The game at symbol level: placements, notation, legality with reasons, push/pop, result.

Legality is decided by the compiled incremental tables (``core.engine.kernels.k_apply``
over ``core.engine.pieces.placement_table``), the same code the random playouts run; this
module adds what people need around it: notation, undo, the pie-rule swap, and
``why_illegal``, which names the broken rule and the cells involved.

The pie-rule swap only exchanges which person owns which symbol, so at symbol
level the placements still alternate first symbol, other symbol, first symbol, ...
and ``swapped`` merely records that the people changed sides.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from core.board.geometry import CellNameError, cell_name, edge_neighbours, parse_cell
from core.board.model import PIECE_TYPES, Board, GameParams, Symbol
from core.engine.pieces import PlacementTable, classify, placement_table

if TYPE_CHECKING:
    from core.engine.kernels import KTables

SWAP = "swap"
"""The pie-rule swap as it appears in ``GameState.actions`` and in game records."""

class Rule(StrEnum):
    """The rule an illegal action breaks; the values are the ids in ``lits replay --json`` (``error.rule``)."""

    OFF_BOARD = "off-board"
    OCCUPIED = "occupied"
    NOT_TOUCHING = "not-touching"
    SAME_TYPE_ADJACENT = "same-type-adjacent"
    FULL_2X2 = "2x2"
    SUPPLY = "supply"
    GAME_OVER = "game-over"
    SWAP_NOT_ALLOWED = "swap-not-allowed"


RULES: tuple[str, ...] = tuple(rule.value for rule in Rule)

_SPLIT_RE = re.compile(r"[\s,;/\-\u2013\u2014]+")
_RUN_RE = re.compile(r"(?:[A-Za-z][0-9]{1,2}){2,}")
"""Cell names written together without separators, e.g. ``e6f6g6f7`` (each name starts with its letter)."""
_RUN_CELL_RE = re.compile(r"[A-Za-z][0-9]{1,2}")


# ---------------------------------------------------------------------------------- errors


class NotationError(ValueError):
    """Text that does not describe a placement (regardless of any position)."""


class UnknownCellError(NotationError):
    """A token that is not a cell of the board."""


class NotFourCellsError(NotationError):
    """Not exactly four distinct cells."""


class NotAPieceError(NotationError):
    """Four cells that are not an L, I, T or S tetromino (a 2x2 square, disconnected cells)."""


@dataclass(frozen=True)
class IllegalReason:
    """Why an action is illegal now: the rule (one of RULES), plain words, and the cells to highlight."""

    rule: Rule
    message: str
    cells: tuple[int, ...] = ()


class IllegalMoveError(ValueError):
    """An action that breaks a rule in the current position."""

    def __init__(self, reason: IllegalReason) -> None:
        super().__init__(reason.message)
        self.reason = reason


# ---------------------------------------------------------------------------------- placements


def names(cells: Iterable[int], size: int) -> str:
    """Cells in reading order as space-separated names."""
    return " ".join(cell_name(c, size) for c in sorted(cells))


@dataclass(frozen=True)
class Placement:
    """One tetromino placement: four cells (ascending), its type letter and its index in the size's table."""

    cells: tuple[int, int, int, int]
    ptype: str
    index: int
    size: int

    @classmethod
    def from_index(cls, index: int, size: int) -> Placement:
        table = all_placements(size)
        if not 0 <= index < len(table):
            raise IndexError(f"placement index {index} is outside 0..{len(table) - 1} for a {size}x{size} board")
        return table[index]

    @classmethod
    def from_cells(cls, cells: Iterable[int], size: int) -> Placement:
        """The placement covering these four cell indices (any order); NotationError subclasses otherwise."""
        items = list(cells)
        for c in items:
            if isinstance(c, bool) or not isinstance(c, int | np.integer) or not 0 <= int(c) < size * size:
                raise UnknownCellError(f"{c!r} is not a cell index of a {size}x{size} board")
        return _from_cell_indices([int(c) for c in items], size)

    @classmethod
    def parse(cls, text: str, size: int) -> Placement:
        """Four cell names in any order and case, as people post them: separated by spaces, commas, semicolons,
        slashes or dashes, or written together (``a1,B1 c1 D1``, ``E6-F6-G6-F7``, ``e6f6g6f7``)."""
        tokens: list[str] = []
        for token in _SPLIT_RE.split(text.strip()):
            tokens.extend(_RUN_CELL_RE.findall(token) if _RUN_RE.fullmatch(token) else [token] if token else [])
        if not tokens:
            raise NotFourCellsError("no cells given: a placement is four cell names such as 'A1 B1 C1 D1'")
        cells = []
        for i, token in enumerate(tokens):
            try:
                cells.append(parse_cell(token, size))
            except CellNameError as exc:
                after = tokens[i + 1] if i + 1 < len(tokens) else ""
                if token.isalpha() and len(token) == 1 and after.isdigit():  # "e 6 f6 g6 f7": a space typed inside
                    raise UnknownCellError(f"{token + ' ' + after!r} is not a cell name: write the column letter and "
                                           f"the row number together, e.g. {token.upper()}{after}") from None
                raise UnknownCellError(str(exc)) from None
        return _from_cell_indices(cells, size)

    def notation(self) -> str:
        """Canonical form: the four cell names in reading order, e.g. ``A1 B1 C1 D1``."""
        return names(self.cells, self.size)

    def cell_names(self) -> list[str]:
        return [cell_name(c, self.size) for c in self.cells]

    @property
    def mask(self) -> int:
        return sum(1 << c for c in self.cells)

    def __str__(self) -> str:
        return self.notation()


def _from_cell_indices(cells: list[int], size: int) -> Placement:
    if len(cells) != 4:
        listed = names(cells, size) if cells else "nothing"
        raise NotFourCellsError(f"{listed}: {len(cells)} cell{'s' if len(cells) != 1 else ''} given; "
                                "a placement covers exactly four")
    seen: set[int] = set()
    for c in cells:
        if c in seen:
            raise NotFourCellsError(f"{cell_name(c, size)} is named twice; a placement covers four different cells")
        seen.add(c)
    table = placement_table(size)
    index = table.index_of(cells)
    if index is None:
        listed = names(cells, size)
        rcs = [divmod(c, size) for c in cells]
        rows = {r for r, _ in rcs}
        cols = {c for _, c in rcs}
        if len(rows) == 2 and len(cols) == 2 and max(rows) - min(rows) == 1 and max(cols) - min(cols) == 1:
            raise NotAPieceError(f"{listed} form a 2x2 square, which is not a LITS piece")
        if classify(cells, size) is None:
            raise NotAPieceError(f"{listed} are not connected edge to edge as one L, I, T or S piece")
        raise NotAPieceError(f"{listed} is not a LITS piece")  # pragma: no cover - table holds every tetromino
    return all_placements(size)[index]


@functools.cache
def all_placements(size: int) -> tuple[Placement, ...]:
    """Placement objects for every table index (shared, immutable)."""
    table = placement_table(size)
    out = []
    for i in range(table.count):
        a, b, c, d = (int(x) for x in table.cells[i])
        out.append(Placement((a, b, c, d), table.ptype_letter(i), i, size))
    return tuple(out)


# ---------------------------------------------------------------------------------- result


class EndReason(StrEnum):
    """How the rules decided a finished game (the values are the ids records and journals write)."""

    SCORE = "score"
    """More of the winner's symbols are uncovered."""
    TIE_RULE = "tie-rule"
    """Equal scores: the side that made the last placement wins."""


@dataclass(frozen=True)
class GameOutcome:
    """A finished game and how the rules decided it."""

    winner: Symbol
    reason: EndReason
    score: dict[Symbol, int]
    last_mover: Symbol | None
    placements: int

    def explain(self) -> str:
        o, x = self.score[Symbol.O], self.score[Symbol.X]
        head = f"Game over after {self.placements} placement{'s' if self.placements != 1 else ''}: O {o}, X {x}."
        if self.reason is EndReason.SCORE:
            return f"{head} {self.winner.value} wins with more uncovered symbols."
        if self.last_mover is None:
            return f"{head} Tie and nobody could place a piece; {self.winner.value} wins because the other side " \
                   "could not move."
        return f"{head} Tie; {self.winner.value} wins by the tie rule as the side that made the last placement."


# ---------------------------------------------------------------------------------- legal view


class LegalPlacements:
    """Live view of the legal placements of a state: ``in``, ``len``, ``count()``, iteration, truth."""

    def __init__(self, state: GameState) -> None:
        self._state = state

    def words(self) -> npt.NDArray[np.uint64]:
        return self._state._legal_words()

    def indices(self) -> npt.NDArray[np.intp]:
        """Legal placement indices, ascending (type, then cells)."""
        bits = np.unpackbits(self.words().astype("<u8").view(np.uint8), bitorder="little")
        return np.flatnonzero(bits)

    def count(self) -> int:
        return int(np.bitwise_count(self.words()).sum())

    def __len__(self) -> int:
        return self.count()

    def __bool__(self) -> bool:
        return bool(self.words().any())

    def __contains__(self, item: object) -> bool:
        if not isinstance(item, Placement) or item.size != self._state.size:
            return False
        words = self.words()
        return bool((int(words[item.index >> 6]) >> (item.index & 63)) & 1)

    def __iter__(self) -> Iterator[Placement]:
        table = all_placements(self._state.size)
        for i in self.indices():
            yield table[int(i)]

    def __repr__(self) -> str:
        return f"<LegalPlacements {self.count()}>"


# ---------------------------------------------------------------------------------- game state


class GameState:
    """A game in progress on a board: push/pop placements and the swap, ask what is legal and why not.

    The board's symbols, supply and first player are read once here; a board edited later
    needs a new GameState.
    """

    def __init__(self, board: Board) -> None:
        self.board = board
        self.size = board.size
        self.params: GameParams = board.params
        self.table: PlacementTable = placement_table(board.size)
        self._start_kernel()
        self._stack: list[npt.NDArray[np.uint64]] = []
        self.actions: list[Placement | str] = []
        self.placements: list[Placement] = []
        self.swapped = False
        self.covered = 0
        self._owner: list[int] = [-1] * (board.size * board.size)
        self._o_mask = board.symbol_mask(Symbol.O)
        self._x_mask = board.symbol_mask(Symbol.X)

    def _start_kernel(self) -> None:
        """The compiled state the kernels judge legality on (imported here, so the rules' words load light)."""
        from core.engine.kernels import k_new_state, kernel_tables

        self._kt: KTables = kernel_tables(self.board)
        self._s: npt.NDArray[np.uint64] = k_new_state(self._kt)

    def _advance_kernel(self, p: Placement) -> None:
        from core.engine.kernels import k_apply

        k_apply(self._kt, self._s, p.index)

    # -- copying ----------------------------------------------------------------------
    def copy(self) -> GameState:
        new = GameState.__new__(GameState)
        new.board = self.board
        new.size = self.size
        new.params = self.params
        new.table = self.table
        new._kt = self._kt
        new._s = self._s.copy()
        new._stack = [s.copy() for s in self._stack]
        new.actions = list(self.actions)
        new.placements = list(self.placements)
        new.swapped = self.swapped
        new.covered = self.covered
        new._owner = list(self._owner)
        new._o_mask = self._o_mask
        new._x_mask = self._x_mask
        return new

    def kernel_state(self) -> npt.NDArray[np.uint64]:
        """A copy of the compact kernel state (see ``core.engine.kernels``) for compiled agents."""
        return self._s.copy()

    # -- whose turn -------------------------------------------------------------------
    def placement_owner(self, i: int) -> Symbol:
        """The symbol that makes (or made) placement number ``i`` (0-based)."""
        first = self.params.first
        return first if i % 2 == 0 else first.other

    @property
    def to_move(self) -> Symbol:
        return self.placement_owner(len(self.placements))

    @property
    def last_mover(self) -> Symbol | None:
        return self.placement_owner(len(self.placements) - 1) if self.placements else None

    def supply_left(self, ptype: str) -> int:
        t = PIECE_TYPES.index(ptype)
        return self.params.supply[t] - sum(1 for p in self.placements if p.ptype == ptype)

    def piece_at(self, cell: int) -> int | None:
        """Index into ``placements`` of the piece covering ``cell``, or None."""
        i = self._owner[cell]
        return None if i < 0 else i

    # -- legality ---------------------------------------------------------------------
    def _legal_words(self) -> npt.NDArray[np.uint64]:
        kt = self._kt
        return self._s[kt.off_legal:kt.off_legal + kt.npw].copy()

    def legal_placements(self) -> LegalPlacements:
        return LegalPlacements(self)

    def is_legal(self, p: Placement) -> bool:
        return p.size == self.size and p in LegalPlacements(self)

    def is_over(self) -> bool:
        return not self._legal_words().any()

    def can_swap(self) -> bool:
        """The pie rule: only as the second player's first turn, i.e. right after the first placement."""
        return self.params.pie and len(self.actions) == 1 and not self.is_over()

    def why_illegal(self, p: Placement) -> IllegalReason | None:
        """None when ``p`` is legal now, else the first broken rule with plain words and cells."""
        if p.size != self.size:
            return IllegalReason(Rule.OFF_BOARD, f"{p.notation()} was written for a {p.size}x{p.size} board; "
                                 f"this board is {self.size}x{self.size}", ())
        if self.is_legal(p):
            return None
        reason = self._specific_reason(p)
        if self.is_over():
            return IllegalReason(Rule.GAME_OVER, f"the game is over: no legal placement is left ({reason.message})",
                                 reason.cells)
        return reason

    def _describe_piece(self, i: int) -> str:
        q = self.placements[i]
        return f"the {q.ptype} at {q.notation()}"

    def _specific_reason(self, p: Placement) -> IllegalReason:
        reason = self.broken_rule(p)
        if reason is None:  # pragma: no cover - the tables and the rules below agree (tests/engine)
            raise AssertionError(f"{p.notation()} is illegal in the tables but breaks no rule here")
        return reason

    def broken_rule(self, p: Placement) -> IllegalReason | None:
        """The first rule ``p`` breaks now, in plain words with its cells, or None: the rules themselves, in Python,
        checked in the order a person would name them (the kernels' tables decide the same, faster)."""
        n = self.size
        covered = self.covered
        hit = [c for c in p.cells if covered >> c & 1]
        if hit:
            pieces = sorted({self._owner[c] for c in hit})
            which = " and ".join(self._describe_piece(i) for i in pieces)
            return IllegalReason(Rule.OCCUPIED, f"{p.notation()} covers {names(hit, n)}, already covered by {which}",
                                 tuple(hit) + tuple(c for i in pieces for c in self.placements[i].cells))
        nbrs = self.table.neighbours[p.index]
        if self.placements and not any(covered >> c & 1 for c in nbrs):
            return IllegalReason(Rule.NOT_TOUCHING, f"{p.notation()} shares no edge with any placed piece; every piece "
                                 "after the first must touch one", p.cells)
        for own in p.cells:
            for other in edge_neighbours(own, n):
                i = self._owner[other]
                if i >= 0 and self.placements[i].ptype == p.ptype:
                    q = self.placements[i]
                    return IllegalReason(
                        Rule.SAME_TYPE_ADJACENT,
                        f"{p.notation()} touches {self._describe_piece(i)} along "
                        f"{cell_name(min(own, other), n)}-{cell_name(max(own, other), n)}; two pieces of the same type "
                        f"({p.ptype}, mirror images included) may not share an edge",
                        tuple(sorted(set(p.cells) | set(q.cells))))
        after = covered | p.mask
        for r in range(n - 1):
            for c in range(n - 1):
                quad = (r * n + c, r * n + c + 1, (r + 1) * n + c, (r + 1) * n + c + 1)
                if any(q in p.cells for q in quad) and all(after >> q & 1 for q in quad):
                    others = sorted({self._owner[q] for q in quad if self._owner[q] >= 0})
                    with_ = " and ".join(self._describe_piece(i) for i in others)
                    return IllegalReason(Rule.FULL_2X2, f"{p.notation()} would fill the 2x2 area {names(quad, n)} "
                                         f"together with {with_}; no 2x2 area may be fully covered", quad)
        left = self.supply_left(p.ptype)
        if left <= 0:
            total = self.params.supply_of(p.ptype)
            if total == 0:
                return IllegalReason(Rule.SUPPLY, f"this board's supply has no {p.ptype} pieces at all", p.cells)
            return IllegalReason(Rule.SUPPLY, f"no {p.ptype} piece is left (all {total} have been placed)", p.cells)
        return None

    # -- actions ----------------------------------------------------------------------
    def push(self, p: Placement) -> None:
        """Make a placement for the side to move; IllegalMoveError (with the reason) if it breaks a rule."""
        if not self.is_legal(p):
            reason = self.why_illegal(p)
            assert reason is not None
            raise IllegalMoveError(reason)
        self._stack.append(self._s.copy())
        self._advance_kernel(p)
        i = len(self.placements)
        self.placements.append(p)
        self.actions.append(p)
        self.covered |= p.mask
        for c in p.cells:
            self._owner[c] = i

    def swap_refusal(self) -> IllegalReason | None:
        """None when the pie-rule swap is allowed now, else why not."""
        if not self.params.pie:
            return IllegalReason(Rule.SWAP_NOT_ALLOWED, "this board is played without the pie rule, so no swap")
        if self.swapped:
            return IllegalReason(Rule.SWAP_NOT_ALLOWED, "the sides have already been swapped once")
        if len(self.actions) != 1:
            when = "before the first placement" if not self.actions else "after the second player's first turn"
            return IllegalReason(Rule.SWAP_NOT_ALLOWED, f"a swap is only allowed as the second player's first turn, "
                                 f"right after the first placement, not {when}")
        if self.is_over():
            return IllegalReason(Rule.GAME_OVER, "the game is over: no legal placement is left")
        return None

    def push_swap(self) -> None:
        """The pie rule: the second player takes over the first placement (and its symbol)."""
        reason = self.swap_refusal()
        if reason is not None:
            raise IllegalMoveError(reason)
        self._stack.append(self._s.copy())
        self.actions.append(SWAP)
        self.swapped = True

    def push_action(self, action: Placement | str) -> None:
        if isinstance(action, str):
            if action != SWAP:
                raise ValueError(f"unknown action {action!r}")
            self.push_swap()
        else:
            self.push(action)

    def pop(self) -> Placement | str:
        """Undo the last action (a placement or ``"swap"``) and return it."""
        if not self.actions:
            raise IndexError("nothing to undo: no action has been made")
        action = self.actions.pop()
        self._s = self._stack.pop()
        if isinstance(action, str):
            self.swapped = False
            return action
        self.placements.pop()
        self.covered &= ~action.mask
        for c in action.cells:
            self._owner[c] = -1
        return action

    # -- scoring ----------------------------------------------------------------------
    def score(self) -> dict[Symbol, int]:
        """Uncovered symbols of each side."""
        free = ~self.covered
        return {Symbol.O: (self._o_mask & free).bit_count(), Symbol.X: (self._x_mask & free).bit_count()}

    def result(self) -> GameOutcome | None:
        if not self.is_over():
            return None
        score = self.score()
        o, x = score[Symbol.O], score[Symbol.X]
        last = self.last_mover
        if o != x:
            return GameOutcome(Symbol.O if o > x else Symbol.X, EndReason.SCORE, score, last, len(self.placements))
        # Tie: the last placer wins; with no placement at all the side to move (who cannot) loses.
        winner = last if last is not None else self.to_move.other
        return GameOutcome(winner, EndReason.TIE_RULE, score, last, len(self.placements))

    def check_consistency(self) -> None:
        """Assert the Python bookkeeping matches the kernel state (used by tests)."""
        from core.engine.kernels import H_LAST, H_NPLACED, NO_SYMBOL

        assert int(self._s[H_NPLACED]) == len(self.placements)
        last = int(self._s[H_LAST])
        assert (last == NO_SYMBOL) == (self.last_mover is None)

    def __repr__(self) -> str:
        return (f"<GameState {self.size}x{self.size} placements={len(self.placements)} "
                f"to_move={self.to_move.value} swapped={self.swapped}>")


def first_placements(board: Board) -> list[int]:
    """Every placement that is legal as the first move, in placement-table order: the openings an analysis
    weighs and a duel can start from."""
    return [int(i) for i in GameState(board).legal_placements().indices()]


__all__ = [
    "RULES", "SWAP", "GameOutcome", "GameState", "IllegalMoveError", "IllegalReason", "LegalPlacements",
    "NotAPieceError", "NotFourCellsError", "NotationError", "Placement", "UnknownCellError", "all_placements",
    "first_placements", "names",
]
