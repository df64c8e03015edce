"""The summary features written the obvious way, on Python ints, to check ``core.agents.summary`` against.

Independent of the kernel's packed tables: per placement the rules are checked one by one on the placement table's
cells, its edge neighbours found by row and column, and every 2x2 window looked at whole.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from core.engine.pieces import placement_table


@functools.cache
def _edge_neighbours(size: int) -> list[list[int]]:
    """Per cell, the cells sharing an edge with it."""
    n = size
    out = []
    for cell in range(n * n):
        r, c = divmod(cell, n)
        out.append([rr * n + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                    if 0 <= rr < n and 0 <= cc < n])
    return out


@functools.cache
def _windows(size: int) -> list[list[list[int]]]:
    """Per cell, the 2x2 windows (as their four cells) that contain it."""
    n = size
    out: list[list[list[int]]] = [[] for _ in range(n * n)]
    for r in range(n - 1):
        for c in range(n - 1):
            quad = [r * n + c, r * n + c + 1, (r + 1) * n + c, (r + 1) * n + c + 1]
            for q in quad:
                out[q].append(quad)
    return out


def is_open(size: int, ctype: Sequence[int], supply: Sequence[int], cells: Sequence[int], t: int) -> bool:
    """Placement of type ``t`` on ``cells``: uncovered, in supply, no own type alongside, fills no 2x2 window."""
    own = set(cells)
    if any(ctype[c] != 0 for c in cells):
        return False
    if supply[t] <= 0:
        return False
    nbrs = _edge_neighbours(size)
    for c in cells:
        for m in nbrs[c]:
            if m not in own and ctype[m] == t + 1:
                return False
    # after placing: a window with a cell of the placement whose every cell is covered
    for c in cells:
        for quad in _windows(size)[c]:
            if all(q in own or ctype[q] != 0 for q in quad):
                return False
    return True


def touches(size: int, ctype: Sequence[int], cells: Sequence[int]) -> bool:
    own = set(cells)
    return any(ctype[m] != 0 for c in cells for m in _edge_neighbours(size)[c] if m not in own)


def open_placements(size: int, ctype: Sequence[int], supply: Sequence[int]) -> list[int]:
    tb = placement_table(size)
    return [p for p in range(tb.count)
            if is_open(size, ctype, supply, [int(c) for c in tb.cells[p]], int(tb.ptype[p]))]


def legal_of(size: int, ctype: Sequence[int], opened: Sequence[int]) -> list[int]:
    """The legal ones among the open placements ``opened``: those touching a covered cell, or all on an empty board."""
    tb = placement_table(size)
    empty = all(t == 0 for t in ctype)
    return [p for p in opened if empty or touches(size, ctype, [int(c) for c in tb.cells[p]])]


def legal_placements(size: int, ctype: Sequence[int], supply: Sequence[int]) -> list[int]:
    return legal_of(size, ctype, open_placements(size, ctype, supply))


def cell_counts(size: int, opened: Sequence[int]) -> list[int]:
    """Per cell, how many of the placements ``opened`` cover it."""
    tb = placement_table(size)
    count = [0] * (size * size)
    for p in opened:
        for c in tb.cells[p]:
            count[int(c)] += 1
    return count


def summary(size: int, sym: Sequence[int], ctype: Sequence[int], supply: Sequence[int],
            s1_to_move: bool) -> list[int]:
    tb = placement_table(size)
    opened = open_placements(size, ctype, supply)
    legal = legal_of(size, ctype, opened)
    count = cell_counts(size, opened)

    def uncovered(s: int) -> list[int]:
        return [c for c in range(size * size) if sym[c] == s and ctype[c] == 0]

    u1, u2 = uncovered(1), uncovered(2)
    gains = [sum(1 for c in tb.cells[p] if sym[int(c)] == 1) - sum(1 for c in tb.cells[p] if sym[int(c)] == 2)
             for p in legal]
    left = sum(int(x) for x in supply)
    return [
        len(u1) - len(u2), len(u1), len(u2), len(opened),
        sum(1 for c in u1 if count[c] == 0), sum(1 for c in u2 if count[c] == 0),
        sum(1 for c in u1 if 1 <= count[c] <= 3), sum(1 for c in u2 if 1 <= count[c] <= 3),
        sum(min(count[c], 8) for c in u1), sum(min(count[c], 8) for c in u2),
        sum(1 for c in range(size * size) if ctype[c] == 0 and count[c] == 0),
        len(legal), max(gains, default=0), min(gains, default=0), sum(gains),
        left, sum(1 for x in supply if x > 0), int(bool(s1_to_move)), size, left % 2,
    ]
