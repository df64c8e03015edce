"""The learned value's evaluation written the obvious way, on Python integers, for bit-for-bit comparison.

Independent of ``core.agents.value``'s loops: the inputs come from ``tests.agents.summary_reference`` (the summary
features written out from the rules), the layers are plain sums over Python ints (which never overflow), and ReLU
and the shifts are written out.
"""

from __future__ import annotations

from collections.abc import Sequence


def evaluate(w1: list[list[int]], b1: list[int], w2: list[list[int]], b2: list[int], w3: list[list[int]],
             b3: list[int], q: int, x: Sequence[int]) -> tuple[int, int]:
    h1 = [b1[j] + sum(x[i] * w1[i][j] for i in range(len(x))) for j in range(len(b1))]
    h1 = [v >> q if v > 0 else 0 for v in h1]
    h2 = []
    for k in range(len(b2)):
        s = b2[k] + sum(h1[j] * w2[j][k] for j in range(len(h1)))
        h2.append(s >> q if s > 0 else 0)
    out = [b3[o] + sum(h2[k] * w3[k][o] for k in range(len(h2))) for o in range(2)]
    return out[0], out[1]
