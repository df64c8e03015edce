"""Benchmark: how often ``puct``'s tree holds one position under two move orders (a transposition).

Run ``python tests/benchmarks/bench_transpositions.py BOARD GAMES SPEC [SPEC ...]``, e.g.
``python tests/benchmarks/bench_transpositions.py boards/default.yaml 4 puct:2000 puct:16000``.
Normal test runs skip this folder.

Each spec plays ``GAMES`` self-play games (seeds 200, 201, ... for the two sides) and at plies 4, 6, 8 and 10
searches once more from the position and walks the whole tree.  Two nodes hold the same position when their paths
from the root place the same set of pieces: the cells covered, the supply and the side to move follow from that
set, and the rules never ask who placed a piece.  The figures are the share of the tree's nodes (and of their
visits, and of the expanded nodes) whose position an earlier node in the walk already holds: what a
transposition table could merge at most.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.agents.puct import F_MOVE, F_NVIS, PuctSearch, PuctTree, children, parse_puct  # noqa: E402
from core.agents.search import gain_for  # noqa: E402
from core.agents.spec import AgentSpecError  # noqa: E402
from core.board.boardfile import BoardFileError, load_board  # noqa: E402
from core.engine.kernels import H_NPLACED, KTables, k_apply, k_new_state, k_seed, kernel_tables  # noqa: E402

USAGE = "usage: python tests/benchmarks/bench_transpositions.py BOARD GAMES SPEC [SPEC ...]"
PLIES = (4, 6, 8, 10)


def count(tree: PuctTree) -> dict[str, int]:
    """Nodes, visits and expanded nodes of the tree, and how many of each repeat an earlier node's position."""
    ti = tree.ti
    seen: set[frozenset[int]] = set()
    out = {"nodes": 0, "repeated": 0, "visits": 0, "repeated_visits": 0, "expanded": 0, "repeated_expanded": 0}
    stack: list[tuple[int, frozenset[int]]] = [(c, frozenset([int(ti[c, F_MOVE])])) for c in children(ti, 0)]
    while stack:
        node, placed = stack.pop()
        visits = int(ti[node, F_NVIS])
        kids = list(children(ti, node))
        repeated = placed in seen
        seen.add(placed)
        out["nodes"] += 1
        out["visits"] += visits
        out["expanded"] += bool(kids)
        if repeated:
            out["repeated"] += 1
            out["repeated_visits"] += visits
            out["repeated_expanded"] += bool(kids)
        stack.extend((c, placed | {int(ti[c, F_MOVE])}) for c in kids)
    return out


def measure(kt: KTables, spec: str, games: int) -> dict[str, float | int | str]:
    ps = parse_puct(spec)
    total: dict[str, int] = {}
    for g in range(games):
        players = [PuctSearch(kt, gain_for(kt), k_seed(200 + 2 * g + i), ps.budget, params=ps.params)
                   for i in range(2)]
        s = k_new_state(kt)
        while True:
            ply = int(s[H_NPLACED])
            if ply in PLIES:
                for key, value in count(players[ply % 2].search(s.copy())).items():
                    total[key] = total.get(key, 0) + value
            move = players[ply % 2].choose(s)
            if move < 0:
                break
            k_apply(kt, s, move)
    return {"spec": spec, **total,
            "repeated_share": round(total["repeated"] / max(1, total["nodes"]), 4),
            "repeated_visit_share": round(total["repeated_visits"] / max(1, total["visits"]), 4),
            "repeated_expanded_share": round(total["repeated_expanded"] / max(1, total["expanded"]), 4)}


def main(argv: list[str]) -> int:
    if len(argv) < 3 or not argv[1].isdigit() or int(argv[1]) < 1:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        kt = kernel_tables(load_board(argv[0]))
        for spec in argv[2:]:
            parse_puct(spec)
    except (BoardFileError, AgentSpecError) as exc:
        print(exc, file=sys.stderr)
        return 2
    for spec in argv[2:]:
        print(json.dumps({"board": argv[0], "games": int(argv[1]), **measure(kt, spec, int(argv[1]))}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
