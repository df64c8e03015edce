"""Benchmark: simulations per CPU second of ``net:N`` (learned leaf value) against ``puct:N`` (playouts).

Run ``python tests/benchmarks/bench_net.py [SIMS] [MODEL.npz]``.  Normal test runs skip this folder.

Positions are every fourth ply of two seeded self-play games (``puct:200``) on the 12x12 default board.  Each gets
a ``SIMS`` search (default 2000, club's budget) from a fresh tree by ``puct``, ``net`` (mix 1) and ``net`` with
``mix=0.5``, alternating, on the same position; the figure is simulations per CPU second of this one process.
Without a model file the searches use random integer weights of the shipped layer widths: the evaluation's cost
depends on the widths and the active features, not on the weights' values.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.agents.netsearch import NetSearch  # noqa: E402
from core.agents.puct import PuctSearch  # noqa: E402
from core.agents.search import gain_for  # noqa: E402
from core.agents.spec import PuctBudget  # noqa: E402
from core.agents.value import FEATURES, ValueModel, load_model, model_from_bytes  # noqa: E402
from core.board.boardfile import load_board  # noqa: E402
from core.engine.kernels import KTables, k_apply, k_new_state, k_seed, kernel_tables  # noqa: E402
from core.learn.train import HIDDEN, model_bytes  # noqa: E402


def random_model() -> ValueModel:
    rng = np.random.default_rng(45)
    h1, h2 = HIDDEN

    def w(s: int, *shape: int) -> np.ndarray:
        return rng.integers(-s, s, size=shape, dtype=np.int64)

    weights = {"w1": w(1 << 15, FEATURES, h1), "b1": w(1 << 23, h1), "w2": w(1 << 12, h1, h2), "b2": w(1 << 23, h2),
               "w3": w(1 << 12, h2, 2), "b3": w(1 << 23, 2)}
    return model_from_bytes(model_bytes(weights, {}), "random-weights")


def positions(kt: KTables) -> list[np.ndarray]:
    out = []
    gain = gain_for(kt)
    for g in range(2):
        search = PuctSearch(kt, gain, k_seed(300 + g), PuctBudget(sims=200))
        s = k_new_state(kt)
        ply = 0
        while True:
            if ply % 4 == 0:
                out.append(s.copy())
            p = search.choose(s)
            if p < 0:
                break
            k_apply(kt, s, p)
            ply += 1
    return out


def main() -> None:
    sims = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    model = load_model(sys.argv[2]) if len(sys.argv) > 2 else random_model()
    kt = kernel_tables(load_board(ROOT / "boards" / "default.yaml"))
    gain = gain_for(kt)
    makers = {
        "puct": lambda: PuctSearch(kt, gain, k_seed(1), PuctBudget(sims=sims)),
        "net": lambda: NetSearch(kt, gain, k_seed(1), PuctBudget(sims=sims), model=model),
        "net_mix_0.5": lambda: NetSearch(kt, gain, k_seed(1), PuctBudget(sims=sims), model=model, mix=0.5),
    }
    for make in makers.values():  # compile or load the kernels before timing
        make().search(k_new_state(kt))
    done = dict.fromkeys(makers, 0)
    spent = dict.fromkeys(makers, 0.0)
    for s in positions(kt):
        for name, make in makers.items():
            searcher = make()
            t0 = time.process_time()
            tree = searcher.search(s)
            spent[name] += time.process_time() - t0
            done[name] += tree.root_visits
    rates = {name: round(done[name] / max(spent[name], 1e-9)) for name in makers}
    print(json.dumps({"board": "default 12x12", "sims": sims, "model": model.digest[:12],
                      "sims_per_cpu_second": rates,
                      "net_vs_puct": round(rates["net"] / max(rates["puct"], 1), 3)}, indent=1))


if __name__ == "__main__":
    main()
