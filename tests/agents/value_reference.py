"""The learned value's evaluation written the obvious way, on Python integers, for bit-for-bit comparison.

Independent of ``core.agents.value``'s loops: features are gathered per board cell and sorted, the layers are plain
sums over Python ints (which never overflow), and ReLU and the shift are written out.
"""

from __future__ import annotations

from collections.abc import Sequence

CANVAS = 14


def features(size: int, sym: Sequence[int], ctype: Sequence[int], supply: Sequence[int], s1_to_move: bool) -> list[int]:
    ncell = CANVAS * CANVAS
    off = (CANVAS - size) // 2
    active = []
    for r in range(CANVAS):
        for c in range(CANVAS):
            canvas = r * CANVAS + c
            br, bc = r - off, c - off
            if not (0 <= br < size and 0 <= bc < size):
                active.append(6 * ncell + canvas)
                continue
            cell = br * size + bc
            if ctype[cell]:
                active.append((1 + ctype[cell]) * ncell + canvas)
            elif sym[cell] == 1:
                active.append(canvas)
            elif sym[cell] == 2:
                active.append(ncell + canvas)
    base = 7 * ncell
    for t in range(4):
        active.append(base + 6 * t + max(0, min(5, int(supply[t]))))
    if s1_to_move:
        active.append(base + 24)
    return sorted(active)


def evaluate(w1: list[list[int]], b1: list[int], w2: list[list[int]], b2: list[int], w3: list[list[int]],
             b3: list[int], q: int, active: Sequence[int]) -> tuple[int, int]:
    h1 = [b1[j] + sum(w1[f][j] for f in active) for j in range(len(b1))]
    h1 = [v if v > 0 else 0 for v in h1]
    h2 = []
    for k in range(len(b2)):
        s = b2[k] + sum(h1[j] * w2[j][k] for j in range(len(h1)))
        h2.append(s >> q if s > 0 else 0)
    out = [b3[o] + sum(h2[k] * w3[k][o] for k in range(len(h2))) for o in range(2)]
    return out[0], out[1]
