"""Benchmark: does the opening predictor gain from training games that start near even?

Run ``python tests/benchmarks/near_even_data.py OUT_DIR --random=DIR [--shards=19] [--seed=2] [--cache=FILE]``,
where ``--random`` is a folder of ``lits learn data`` (the shipped model's: ``--seed 1 --shards 132``) and
``--cache`` the held-out measurements of ``lits learn eval --cache`` (default ``.learn-data/eval-cache.json``).
Normal test runs skip this folder.

Why: the training games start after a first placement drawn uniformly, and S1 wins only about a fifth of them, so
the model sees few of the openings an analysis weighs (those near 50%).  This plays ``--shards`` shards of club's
games whose openings are drawn from those the shipped model puts at 25-75% for S1 (the 16 nearest to 50% where
fewer lie there), on the data stream of ``--seed`` (other boards than the random folder's seed 1), then fits two
models with ``lits learn train`` (the near-even games alone; both folders together) and prints the held-out
figures of each beside the shipped model's on the cached openings (``lits learn eval --cached-only``).  The games
are reproducible by seed and resumable like ``lits learn data``'s (a shard depends on the seed and its index).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.board.model import Board  # noqa: E402  (after the checkout is on the path)
from core.learn.data import Plan  # noqa: E402
from core.learn.play import play_data  # noqa: E402
from core.selfplay.tasks import BoardSpec  # noqa: E402

BAND = (0.25, 0.75)
NEAREST = 16


def near_even_pool(board: Board) -> list[int]:
    """The first placements the shipped model puts in ``BAND`` for S1 (the duel's rule for an even pool, with a
    wider band)."""
    from core.engine.rules import first_placements
    from core.selfplay.duel import near_even
    from core.selfplay.worker import predict_openings

    predicted = predict_openings(BoardSpec.from_board(board))
    if isinstance(predicted, str):
        raise SystemExit(f"no near-even openings without the opening predictor: {predicted}")
    return near_even(first_placements(board), predicted[1], BAND, NEAREST)


def lits(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "core.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          check=True)
    return done.stdout


def main(argv: list[str]) -> None:
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    paths = [a for a in argv if not a.startswith("--")]
    if len(paths) != 1 or "random" not in opts:
        raise SystemExit("usage: near_even_data.py OUT_DIR --random=DIR [--shards=19] [--seed=2] [--cache=FILE]")
    out = Path(paths[0])
    try:
        shards, seed = int(opts.get("shards", "19")), int(opts.get("seed", "2"))
    except ValueError:
        raise SystemExit("--shards and --seed take whole numbers") from None
    cache = opts.get("cache", str(ROOT / ".learn-data" / "eval-cache.json"))
    data = out / f"near-even-s{seed}"
    play_data(data, Plan(seed=seed, shards=shards), workers=0, openings=near_even_pool,
              progress=lambda s, g: print(f"shard {s} ({g} games)", flush=True))
    fits = {"near-even alone": [data], "random and near-even": [Path(opts["random"]), data]}
    models = {name: out / (name.replace(" ", "-") + ".npz") for name in fits}
    for name, folders in fits.items():
        args = ["learn", "train", "--out", str(models[name]), "--seed", "1"]
        for f in folders:
            args += ["--data", str(f)]
        print(name, lits(*args).strip().splitlines()[-1], sep=": ")
    for model in [None, *models.values()]:
        args = ["learn", "eval", "--cache", cache, "--cached-only", "--seed", "1", "--games", "60", "--heldout", "6"]
        if model is not None:
            args += ["--model", str(model)]
        print("\n".join(lits(*args).splitlines()[:4]))


if __name__ == "__main__":
    main(sys.argv[1:])
