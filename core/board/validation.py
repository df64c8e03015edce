"""Board validation: every problem at once, each naming its cells.

Errors make a board unusable for a match: broken anti-symmetry, an empty supply
(no piece can ever be placed) or a clock with no time at all (the first player
loses before moving); sealing, analysing or publishing such a board is
pointless, so they are errors, not warnings.  Warnings are what a host wants to
know before publishing (no symbols, lopsided counts, extreme density, a supply
so small or a clock so short that a match between people barely happens).
The designer shows the same list the command line prints.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from core.board.geometry import cell_name
from core.board.model import PIECE_TYPES, Board, Symbol

LOW_DENSITY = 0.05
"""Below this share of symbol cells most placements score nothing and ties dominate."""
HIGH_DENSITY = 0.65
"""Above this share almost every placement covers symbols; the board plays like a counting race."""
MIN_PIECES = 4
"""Fewer pieces in the whole supply make a game of a few placements, decided before it starts."""
MIN_SECONDS_PER_MOVE = 5
"""About the time a person needs to find and enter one placement; a clock that gives less cannot be played."""


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    severity: Severity
    code: str
    message: str
    cells: tuple[int, ...] = ()

    def as_dict(self, size: int) -> dict[str, object]:
        return {
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
            "cells": [cell_name(c, size) for c in self.cells],
        }


def describe_pair(board: Board, cell: int, other: int) -> str:
    """Plain words for one broken pair, e.g. ``C3 holds O but its partner J10 is empty``."""
    n = board.size
    a, b = board[cell], board[other]

    def holds(s: Symbol) -> str:
        return "is empty" if s is Symbol.EMPTY else f"holds {s.value}"

    if a is Symbol.EMPTY:
        cell, other, a, b = other, cell, b, a
    return f"{cell_name(cell, n)} {holds(a)} but its partner {cell_name(other, n)} {holds(b)}" + (
        f" (it should hold {a.other.value})" if a is not Symbol.EMPTY else ""
    )


def validate(board: Board) -> list[Problem]:
    """All problems of a board, errors first, in reading order of their first cell."""
    problems: list[Problem] = []
    for cell, other in board.broken_pairs():
        problems.append(Problem(Severity.ERROR, "antisymmetry", describe_pair(board, cell, other), (cell, other)))

    problems += playability(board)
    o_count, x_count = board.count(Symbol.O), board.count(Symbol.X)
    total = board.cell_count
    if o_count == 0 and x_count == 0:
        problems.append(Problem(Severity.WARNING, "no-symbols",
                                "the board has no symbols: every game ends in a tie decided by who places last"))
    else:
        if o_count != x_count:
            problems.append(Problem(Severity.WARNING, "symbol-count",
                                    f"O has {o_count} symbols and X has {x_count}; a fair board gives both the same"))
        density = (o_count + x_count) / total
        if density < LOW_DENSITY:
            problems.append(Problem(Severity.WARNING, "low-density",
                                    f"only {density:.0%} of cells hold a symbol (below {LOW_DENSITY:.0%}); "
                                    "most placements score nothing and the tie rule decides many games"))
        elif density > HIGH_DENSITY:
            problems.append(Problem(Severity.WARNING, "high-density",
                                    f"{density:.0%} of cells hold a symbol (above {HIGH_DENSITY:.0%}); "
                                    "nearly every placement covers symbols"))
    return problems


def playability(board: Board) -> list[Problem]:
    """Whether a match can be played with the board's supply and clock at all."""
    p = board.params
    out: list[Problem] = []
    pieces = sum(p.supply)
    if pieces == 0:
        out.append(Problem(Severity.ERROR, "no-supply",
                           "the supply is empty (" + ", ".join(f"{t} 0" for t in PIECE_TYPES) + "): no piece can "
                           "ever be placed, so no match can be played; give at least one type a count"))
    elif pieces < MIN_PIECES:
        out.append(Problem(Severity.WARNING, "tiny-supply",
                           f"only {pieces} piece{'s' if pieces > 1 else ''} in the whole supply: a game of at most "
                           f"{pieces} placement{'s' if pieces > 1 else ''}, decided almost before it starts"))
    if p.turn_time == 0 and p.bank == 0:
        out.append(Problem(Severity.ERROR, "no-time",
                           "the clock gives 0 s per turn and a 0 s bank: the first player loses on time before "
                           "placing anything; give a turn time or a bank"))
    elif pieces:
        moves = (pieces + 1) // 2  # the most placements one player can make
        budget = p.turn_time * moves + p.bank
        if p.turn_time + p.bank < MIN_SECONDS_PER_MOVE or budget < MIN_SECONDS_PER_MOVE * moves:
            out.append(Problem(Severity.WARNING, "short-clock",
                               f"the clock ({p.turn_time} s per turn, {p.bank} s bank) gives a player {budget} s for "
                               f"up to {moves} placements, less than the {MIN_SECONDS_PER_MOVE} s each that a person "
                               "needs to find and enter one; most games will be lost on time"))
    return out


def summary(board: Board) -> str:
    o_count, x_count = board.count(Symbol.O), board.count(Symbol.X)
    return (f"{board.size}x{board.size}, O {o_count}, X {x_count}, "
            f"density {(o_count + x_count) / board.cell_count:.0%}, first to move {board.params.first.value}")


ERROR_KINDS: dict[str, tuple[str, str]] = {
    "antisymmetry": ("broken pair", "broken pairs"),
    "no-supply": ("match setting", "match settings"),
    "no-time": ("match setting", "match settings"),
}
"""What a host calls each error, singular and plural: a pair is repaired on the board, a setting in the
board's properties."""


def count_errors(problems: list[Problem]) -> str:
    """The errors counted by kind, in the order of the list: ``1 broken pair, 1 match setting`` ('' when none)."""
    counts: dict[tuple[str, str], int] = {}
    for p in problems:
        if p.severity is Severity.ERROR:
            kind = ERROR_KINDS.get(p.code, ("problem", "problems"))
            counts[kind] = counts.get(kind, 0) + 1
    return ", ".join(f"{n} {one if n == 1 else many}" for (one, many), n in counts.items())


def is_valid(problems: list[Problem]) -> bool:
    return not any(p.severity is Severity.ERROR for p in problems)
