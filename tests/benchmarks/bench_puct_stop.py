"""Benchmark: how many simulations ``puct``'s ``stop=`` saves, and whether ``stop=1`` ever changes a move.

Run ``python tests/benchmarks/bench_puct_stop.py BOARD GAMES SPEC [SPEC ...]``, e.g.
``python tests/benchmarks/bench_puct_stop.py boards/default.yaml 6 puct:2000 puct:2000:stop=1 puct:2000:stop=0.5``.
Normal test runs skip this folder.

Each spec plays ``GAMES`` self-play games (seeds 100, 101, ... for the two sides).  The figures are simulations a
move (a move the endgame solver settles counts 0) and CPU milliseconds a move of this process.  For a spec with
``stop=1``, every search from ply 4 on is also run without the stop from the same random stream, and the two
moves are compared (``same``).  Duels measure what the saving is worth (docs/agents.md).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.agents.puct import PuctSearch, parse_puct  # noqa: E402
from core.agents.search import gain_for  # noqa: E402
from core.agents.spec import AgentSpecError  # noqa: E402
from core.board.boardfile import BoardFileError, load_board  # noqa: E402
from core.engine.kernels import H_NPLACED, k_apply, k_new_state, k_seed, kernel_tables  # noqa: E402

USAGE = "usage: python tests/benchmarks/bench_puct_stop.py BOARD GAMES SPEC [SPEC ...]"


def measure(board_path: str, games: int, spec: str) -> dict[str, object]:
    kt = kernel_tables(load_board(board_path))
    gain = gain_for(kt)
    ps = parse_puct(spec)
    exact = ps.params.get("stop") == 1.0
    plain = parse_puct(":".join(p for p in spec.split(":") if not p.startswith("stop=")))
    sims = moves = same = compared = 0
    cpu = 0.0
    for g in range(games):
        sides = [PuctSearch(kt, gain, k_seed(100 + 2 * g + i), ps.budget, params=ps.params) for i in range(2)]
        s = k_new_state(kt)
        while True:
            side = sides[int(s[H_NPLACED]) % 2]
            ref = None
            if exact and int(s[H_NPLACED]) >= 4:
                ref = PuctSearch(kt, gain, side.rng.copy(), plain.budget, params=plain.params).choose(s.copy())
            c0 = time.process_time()
            m = side.choose(s)
            cpu += time.process_time() - c0
            if ref is not None:
                compared += 1
                same += int(m == ref)
            sims += side.last_sims
            moves += 1
            if m < 0:
                break
            k_apply(kt, s, m)
    out: dict[str, object] = {"spec": spec, "board": board_path, "games": games, "moves": moves,
                              "sims_per_move": round(sims / moves), "cpu_ms_per_move": round(1000 * cpu / moves, 2)}
    if exact:
        out["same"] = f"{same} of {compared}"
    return out


def main(argv: list[str]) -> int:
    if len(argv) < 3 or not argv[1].isdigit() or int(argv[1]) < 1:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        for spec in argv[2:]:
            print(json.dumps(measure(argv[0], int(argv[1]), spec)))
    except (AgentSpecError, BoardFileError, OSError) as exc:
        print(f"bench_puct_stop: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
