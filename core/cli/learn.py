"""``lits learn``: the opening predictor's training data, training and held-out figures.

Imported by ``lits --help``, so it loads nothing heavy at import.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.board.fileio import atomic_write_bytes, atomic_write_text
from core.cli import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, CliError, cannot_write, summary
from core.selfplay.cluster import CLUSTER_HELP

if TYPE_CHECKING:
    from core.board.model import Board
    from core.learn.data import Games
    from core.learn.heldout import Measured

MAX_SHARDS = 100_000


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "learn", help=summary("learn"),
        description="Make and check the learned opening predictor. `lits learn data` plays the deciding agent's "
                    "(club's) games on random boards that no analysis uses; `lits learn train` fits the model to "
                    "them; `lits learn eval` measures it on boards it never saw; `lits learn prior` fits the puct "
                    "search's learned prior to the same games.")
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    d = sub.add_parser("data", help="play training games into a folder (resumable: run it again to go on)",
                       description="Play club's (or --agent's) games on random anti-symmetric boards (10x10, 12x12 "
                                   "and 14x14, 8-62%% of the cells holding a symbol), each after a sampled first "
                                   "placement, into --out. "
                                   "Shard K holds boards 32K..32K+31, 8 games each, and depends only on --seed and "
                                   "K: the same seed gives the same bytes on any machine and any number of "
                                   "workers. Ctrl-C keeps every finished shard; run the same command again to go "
                                   "on. Boards used by held-out figures (bundled, benchmark, held-out random) are "
                                   "never played.")
    d.add_argument("--out", required=True, metavar="DIR", help="folder for the shards (created if missing)")
    d.add_argument("--seed", type=int, default=1, metavar="S", help="data seed (default 1)")
    d.add_argument("--shards", type=int, default=400, metavar="N",
                   help="shards to have when done, 256 games each (default 400)")
    d.add_argument("--workers", type=int, default=0, metavar="K", help="worker processes (default 0 = all cores)")
    d.add_argument("--agent", metavar="SPEC",
                   help="the agent whose games are played, both sides (default club, the standard verdict's "
                        "deciding agent; a net agent here makes the data of the search's next generation); "
                        "fixed work only")
    d.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)
    t = sub.add_parser("train", help="fit the opening predictor to a data folder and write the model file",
                       description="Fit the opening predictor (scikit-learn; pip install -e '.[train]') to the games "
                                   "in --data and write the integer model file --out with its manifest "
                                   "(--out with .json: command, seeds, commit, figures, digest). Boards whose index "
                                   "is a multiple of 10 are kept out of the fit and give the validation figures.")
    t.add_argument("--data", required=True, action="append", metavar="DIR",
                   help="a folder written by `lits learn data`; give it more than once to fit to several (e.g. "
                        "club's games and a net agent's)")
    t.add_argument("--out", required=True, metavar="FILE.npz", help="model file to write")
    t.add_argument("--seed", type=int, default=1, metavar="S", help="training seed (default 1)")
    t.add_argument("--extra", type=int, default=3, metavar="N",
                   help="positions per game besides the one after the opening (default 3)")
    t.add_argument("--max-iter", type=int, default=60, metavar="N", help="training epochs at most (default 60)")
    t.add_argument("--outcome-weight", type=float, default=1.0, metavar="W",
                   help="weight of the game's result in the win label; the rest is the search's own value of the "
                        "position (default 1: results only)")
    e = sub.add_parser("eval", help="held-out figures: predicted against measured club S1 rates",
                       description="Play club's games after openings of boards the model never saw (the "
                                   "benchmark's ten boards and --heldout random ones) and compare the measured S1 "
                                   "rate with the model's prediction: correlation, a calibration table, and how many "
                                   "openings measured within 45-55%% the model ranks in a board's top 20. Per board "
                                   "5 openings drawn at random and the 5 the model ranks nearest to even are "
                                   "measured; the figures use every opening of those boards measured so far "
                                   "(--cache), with this model's predictions.")
    e.add_argument("--model", metavar="FILE.npz", help="model file (default: the one shipped)")
    e.add_argument("--games", type=int, default=60, metavar="N", help="club games per opening (default 60)")
    e.add_argument("--heldout", type=int, default=6, metavar="N",
                   help="held-out random boards besides the benchmark's ten (default 6, at most 24)")
    e.add_argument("--seed", type=int, default=1, metavar="S", help="seed (default 1)")
    e.add_argument("--workers", type=int, default=0, metavar="K", help="worker processes (default 0 = all cores)")
    e.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)
    e.add_argument("--cache", metavar="FILE.json",
                   help="keep every measured opening here and reuse it (a game's seed depends only on the board, "
                        "the opening, --seed and --games, so another model that picks the same opening needs no new "
                        "games)")
    e.add_argument("--save", action="store_true",
                   help="write the figures into the model's manifest (FILE.json beside it) as held_out")
    e.add_argument("--cached-only", action="store_true",
                   help="play no new games: the figures use only the openings already in --cache, so several models "
                        "are compared on the same openings (the model's own nearest-to-even picks not yet measured "
                        "are left out)")
    e.add_argument("--baselines", action="store_true",
                   help="also give the correlations of the analysis's own predictors (the screen's short search, the "
                        "refinement's deeper one) with the measured rates, over all openings, within boards, and "
                        "within boards for the openings measured within 25-75%%, beside the model's")
    e.add_argument("--json", action="store_true", help="print one JSON object for machines")
    _register_prior(sub)
    p.set_defaults(func=run)
    d.set_defaults(func=run_data)
    t.set_defaults(func=run_train)
    e.set_defaults(func=run_eval)


def run(args: argparse.Namespace) -> int:  # pragma: no cover - argparse requires an action
    raise CliError("give an action: lits learn data|train|eval|prior", EXIT_USAGE)


def run_data(args: argparse.Namespace, cancel: threading.Event | None = None) -> int:
    if not 1 <= args.shards <= MAX_SHARDS:
        raise CliError(f"--shards {args.shards}: give 1 to {MAX_SHARDS:,}", EXIT_USAGE)
    if args.workers < 0:
        raise CliError(f"--workers {args.workers}: give 0 (all cores) or more", EXIT_USAGE)
    from core.agents.levels import level_of
    from core.agents.spec import AgentSpecError, reproducible
    from core.learn.data import AGENT, DataError, Plan, open_folder
    from core.learn.play import play_data
    from core.selfplay.cluster import ClusterError, cluster_executor
    from core.selfplay.runner import RunCancelled

    try:
        agent = AGENT if args.agent is None else reproducible(args.agent)
    except AgentSpecError as exc:
        raise CliError(f"--agent {args.agent}: {exc}", EXIT_USAGE) from None
    level = level_of(agent)
    if level is not None:  # a level is written as the spec it stands for, so `--agent club` is the default's data
        agent = reproducible(level.spec)
    folder = Path(args.out)
    plan = Plan(seed=args.seed, shards=args.shards, agent=agent)
    per_shard = plan.boards_per_shard * plan.games_per_board
    try:
        todo = open_folder(folder, plan)
    except DataError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except OSError as exc:
        raise cannot_write(str(folder), exc) from None
    done = plan.shards - len(todo)
    bar: Any = None
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=plan.shards * per_shard, initial=done * per_shard, unit="game", file=sys.stderr,
                   dynamic_ncols=True)

    def shard_done(_shard: int, games: int) -> None:
        nonlocal done
        done += 1
        if bar is not None:
            bar.update(games)

    interrupted = False
    try:
        with cluster_executor(args.cluster) as (executor, executor_workers):
            play_data(folder, plan, workers=executor_workers or args.workers, progress=shard_done, cancel=cancel,
                      executor=executor)
    except ClusterError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except DataError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except OSError as exc:
        raise cannot_write(str(folder), exc) from None
    except (KeyboardInterrupt, RunCancelled):
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    print(f"{folder}: {done} of {plan.shards} shards ({done * per_shard:,} games)"
          + (" - interrupted; run the same command again to go on" if interrupted else ""))
    return EXIT_INTERRUPTED if interrupted else EXIT_OK


def _commit() -> str | None:
    import subprocess

    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _read_data(folder: Path) -> tuple[dict[str, Any], Games]:
    """A data folder's manifest and games, or a CliError naming the folder."""
    import json

    from core.learn.data import DataError, load_games

    try:
        manifest = json.loads((folder / "data.json").read_text(encoding="utf-8"))
        return manifest, load_games(folder)
    except (OSError, ValueError) as exc:
        raise CliError(f"{folder}: not a data folder of `lits learn data` ({exc})", EXIT_USAGE) from None
    except DataError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None


def _data_command(name: str, manifest: dict[str, Any], folder: Path) -> str:
    """The `lits learn data` command that remakes a folder's games (for a manifest)."""
    from core.learn.data import AGENT

    agent = manifest.get("agent", AGENT)
    return (f"lits learn data --out {name} --seed {manifest.get('seed')} --shards "
            f"{len(list(folder.glob('shard-*.npz')))}" + ("" if agent == AGENT else f" --agent {agent}"))


def _write_with_manifest(out: Path, data: bytes, manifest_path: Path, manifest: dict[str, Any]) -> None:
    """The file and its manifest, each written whole (temporary file, then rename)."""
    import json

    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(out, data)
        atomic_write_text(manifest_path, json.dumps(manifest, indent=2) + "\n")
    except OSError as exc:
        raise cannot_write(str(out), exc) from None


def run_train(args: argparse.Namespace) -> int:

    if not 0 <= args.extra <= 40:
        raise CliError(f"--extra {args.extra}: give 0 to 40", EXIT_USAGE)
    if not 0.0 <= args.outcome_weight <= 1.0:
        raise CliError(f"--outcome-weight {args.outcome_weight}: give 0 to 1", EXIT_USAGE)
    if not 1 <= args.max_iter <= 1000:
        raise CliError(f"--max-iter {args.max_iter}: give 1 to 1000", EXIT_USAGE)
    out = Path(args.out)
    if out.suffix != ".npz":
        raise CliError(f"--out {out}: a model file ends in .npz", EXIT_USAGE)
    from core.learn.data import Games
    from core.learn.train import TrainError, digest, fit, model_bytes

    folders = [Path(f) for f in args.data]
    read = [_read_data(folder) for folder in folders]
    manifests = [m for m, _ in read]
    games = Games.concat([g for _, g in read])
    try:
        fitted = fit(games, args.seed, extra=args.extra, max_iter=args.max_iter, outcome_weight=args.outcome_weight,
                     progress=lambda m: print(m, file=sys.stderr, flush=True))
    except TrainError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    names = ["DATA"] if len(folders) == 1 else [f"DATA{k + 1}" for k in range(len(folders))]
    plays = [_data_command(name, m, f) for name, m, f in zip(names, manifests, folders, strict=True)]
    command = (" && ".join(plays) + " && lits learn train " + " ".join(f"--data {n}" for n in names)
               + f" --out {out.name} --seed {args.seed} --extra {args.extra} --max-iter {args.max_iter} "
               f"--outcome-weight {args.outcome_weight}")
    one = len(manifests) == 1
    seeds = manifests[0].get("seed") if one else [m.get("seed") for m in manifests]
    data = model_bytes(fitted.weights, {"train_seed": args.seed, "data_seed": seeds})
    manifest = {"model": out.name, "digest": digest(data), "command": command,
                "data": manifests[0] if one else manifests,
                "games": len(games), "train_seed": args.seed, "outcome_weight": args.outcome_weight,
                "commit": _commit(), "validation": fitted.figures,
                "held_out": None}
    _write_with_manifest(out, data, out.with_suffix(".json"), manifest)
    print(f"{out}: {len(games):,} games, validation Brier {fitted.figures['brier']} "
          f"(base rate {fitted.figures['brier_of_base_rate']}), digest {manifest['digest'][:16]}")
    return EXIT_OK


def run_eval(args: argparse.Namespace, cancel: threading.Event | None = None) -> int:
    import json

    from core.agents.value import ModelError, default_model_path, load_model
    from core.learn.data import HELDOUT_BOARDS, heldout_boards
    from core.learn.heldout import benchmark_boards, figures, measure
    from core.selfplay.cluster import ClusterError, cluster_executor
    from core.selfplay.runner import RunCancelled

    if not 1 <= args.games <= 10_000:
        raise CliError(f"--games {args.games}: give 1 to 10,000", EXIT_USAGE)
    if not 0 <= args.heldout <= HELDOUT_BOARDS:
        raise CliError(f"--heldout {args.heldout}: give 0 to {HELDOUT_BOARDS}", EXIT_USAGE)
    if args.cached_only and not args.cache:
        raise CliError("--cached-only needs --cache FILE.json: the openings measured before", EXIT_USAGE)
    if args.cached_only and args.save:
        raise CliError("--cached-only with --save: a model's held-out figures include its own nearest-to-even "
                       "openings, so save them from a run that measures those", EXIT_USAGE)
    path = Path(args.model) if args.model else default_model_path()
    try:
        model = load_model(path)
    except ModelError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    root = Path(__file__).resolve().parent.parent.parent
    boards = benchmark_boards(root) + heldout_boards(args.heldout)
    known: dict[str, int] = {}
    cache = Path(args.cache) if args.cache else None
    if cache is not None and cache.exists():
        try:
            known = {str(k): int(v) for k, v in json.loads(cache.read_text(encoding="utf-8")).items()}
        except (OSError, ValueError, AttributeError) as exc:
            raise CliError(f"{cache}: not a cache of measured openings ({exc})", EXIT_USAGE) from None

    def keep() -> None:
        if cache is not None:
            try:
                atomic_write_text(cache, json.dumps(known, sort_keys=True) + "\n")
            except OSError as exc:
                raise cannot_write(str(cache), exc) from None

    bar: Any = None
    if sys.stderr.isatty() and not args.json:
        from tqdm import tqdm

        bar = tqdm(total=10 * len(boards), unit="opening", file=sys.stderr, dynamic_ncols=True)

    def tick(done: int, _total: int) -> None:
        if bar is not None:
            bar.n = done
            bar.refresh()
        if done % 10 == 0:
            keep()  # a long measurement interrupted by anything keeps most of its games

    try:
        with cluster_executor(args.cluster) as (executor, executor_workers):
            rows = measure(model, boards, args.games, args.seed, workers=executor_workers or args.workers,
                           executor=executor, cancel=cancel, progress=tick, known=known,
                           play_new=not args.cached_only)
    except ClusterError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except (KeyboardInterrupt, RunCancelled):
        keep()
        raise CliError("interrupted: no figures (they need every opening)"
                       + (f"; the openings measured so far are kept in {cache}" if cache else ""),
                       EXIT_INTERRUPTED) from None
    finally:
        if bar is not None:
            bar.close()
    keep()
    result = {"model": str(path), "digest": model.digest, "seed": args.seed, "agent": "club",
              "command": f"lits learn eval --games {args.games} --heldout {args.heldout} --seed {args.seed}"
                         + (" --cached-only" if args.cached_only else ""),
              "commit": _commit(), **figures(rows),
              "rows": [{"board": r.board, "opening": r.opening, "predicted": round(r.predicted, 4),
                        "measured": round(r.rate, 4), "games": r.games} for r in rows]}
    if args.baselines:
        result["baselines"] = _baselines(boards, rows, args.seed)
    if args.save:
        manifest_path = path.with_suffix(".json")
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CliError(f"{manifest_path}: cannot read the manifest ({exc})", EXIT_USAGE) from None
        if manifest.get("digest") != model.digest:
            raise CliError(f"{manifest_path}: describes another model file (digest differs)", EXIT_USAGE)
        manifest["held_out"] = {k: v for k, v in result.items() if k != "rows"}
        try:
            atomic_write_text(manifest_path, json.dumps(manifest, indent=2) + "\n")
        except OSError as exc:
            raise cannot_write(str(manifest_path), exc) from None
    if args.json:
        print(json.dumps(result, indent=2))
        return EXIT_OK
    print(f"{path.name} ({model.digest[:16]}): {result['openings']} openings on {result['boards']} boards, "
          f"{args.games} club games each, seed {args.seed}")
    print(f"  correlation of predicted and measured S1 rate: {result['correlation']} "
          f"(by size: {result['correlation_by_size']})")
    print(f"  mean absolute error {result['mean_abs_error']} (sampling error of a measured rate alone: about "
          f"{result['mean_sampling_se']})")
    print(f"  measured within 45-55%: {result['measured_even']}, of which in the model's top 20 of their board: "
          f"{result['measured_even_in_top20']}")
    print("  calibration:  predicted   openings  mean predicted  measured")
    for row in result["calibration"]:
        print(f"                {row['predicted']}  {row['openings']:8d}  {row['mean_predicted']:14.3f}  "
              f"{row['measured']:8.3f}")
    if args.baselines:
        print("  correlation with the measured rate:  all  within boards  within boards, measured 25-75%")
        for name, c in result["baselines"].items():
            print(f"    {name:14s} {c['all']!s:>16s}  {c['within_board']!s:>13s}  {c['near_even_within_board']!s:>30s}")
    return EXIT_OK


def _baselines(boards: list[Board], rows: list[Measured], seed: int) -> dict[str, dict[str, float | None]]:
    """The model beside the analysis's screen and refinement at the standard effort's budgets."""
    from core.analysis.config import REFINE_SIMS, STANDARD, screen_sims_for
    from core.learn.heldout import baseline_values, compare_predictors

    screened, refined = baseline_values(boards, rows, seed, lambda count: screen_sims_for(STANDARD.screen_sims, count),
                                        REFINE_SIMS)
    model = [r.predicted for r in rows]
    return compare_predictors(rows, {"model": model, "screen": screened, "refine": refined,
                                     "model + refine": [a + b for a, b in zip(model, refined, strict=True)]})


# ------------------------------------------------------------------------------------------ the learned puct prior


def _register_prior(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    q = sub.add_parser("prior", help="fit the puct search's learned prior (prior=learned) to a data folder",
                       description="Fit the weights of puct's learned prior (a score of static placement features, "
                                   "softmax over the legal placements, the played one the label) to --per-game "
                                   "positions of each game in --data, and write them to --out (JSON) with a "
                                   "manifest beside it (FILE.manifest.json: command, seed, commit, digest and the "
                                   "held-out figures of the gain prior and the learned one). Boards whose index is "
                                   "a multiple of 10 are kept out of the fit and give the figures.")
    q.add_argument("--data", required=True, metavar="DIR", help="a folder written by `lits learn data`")
    q.add_argument("--out", required=True, metavar="FILE.json", help="weights file to write")
    q.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the sampled plies (default 1)")
    q.add_argument("--per-game", type=int, default=3, metavar="N", help="positions per game (default 3)")
    q.add_argument("--teacher", metavar="SPEC", default=None,
                   help="fit the root visit shares of this search (a puct spec or level with a simulation budget, "
                        "e.g. puct:16000) at each position instead of the played placement; the held-out figures "
                        "add the cross-entropy of its shares")
    q.add_argument("--position", action="store_true",
                   help="fit the position prior (prior=position): the static features and what each placement "
                        "rules out and opens in the position; the held-out figures add the shipped static weights' "
                        "on the same positions")
    q.set_defaults(func=run_prior)


def run_prior(args: argparse.Namespace) -> int:
    if not 1 <= args.per_game <= 80:
        raise CliError(f"--per-game {args.per_game}: give 1 to 80", EXIT_USAGE)
    out = Path(args.out)
    if out.suffix != ".json":
        raise CliError(f"--out {out}: a weights file ends in .json", EXIT_USAGE)
    from core.agents.puct import default_prior_weights
    from core.agents.spec import AgentSpecError
    from core.learn.prior import (
        PriorError,
        compare,
        digest,
        sample_positions,
        search_teacher,
        split,
        weights_document,
    )

    folder = Path(args.data)
    if args.position and args.teacher is not None:
        raise CliError("--position fits the played placements; leave out --teacher", EXIT_USAGE)
    try:
        teacher = search_teacher(args.teacher, args.seed) if args.teacher is not None else None
    except (PriorError, AgentSpecError) as exc:
        raise CliError(f"--teacher: {exc}", EXIT_USAGE) from None
    data_manifest, games = _read_data(folder)
    fit_on, held_on = split(games)
    bar: Any = None
    if teacher is not None:
        from tqdm import tqdm

        bar = tqdm(total=len(set(games.board.tolist())), unit="board", file=sys.stderr, dynamic_ncols=True,
                   desc=f"searching with {args.teacher}")

    def tick(done: int, total: int) -> None:
        if bar is not None:
            bar.update(1)

    try:
        train = sample_positions(games, fit_on, args.per_game, args.seed, progress=tick, teacher=teacher,
                                 position=args.position)
        held = sample_positions(games, held_on, args.per_game, args.seed + 1, progress=tick, teacher=teacher,
                                position=args.position)
        result = compare(train, held, default_prior_weights() if args.position else None)
    except PriorError as exc:
        raise CliError(f"{folder}: {exc}", EXIT_USAGE) from None
    finally:
        if bar is not None:
            bar.close()
    which = "position" if args.position else "learned"
    text = weights_document(result["weights"], {"doc": f"weights of the {which} prior of puct (prior={which}); "
                                                       "see docs/agents.md and core/learn/prior.py"},
                            position=args.position)
    command = (_data_command("DATA", data_manifest, folder) + f" && lits learn prior --data DATA --out {out.name} "
               f"--seed {args.seed} --per-game {args.per_game}"
               + (f" --teacher {args.teacher}" if args.teacher is not None else "")
               + (" --position" if args.position else ""))
    rows = ("gain_tau_0.5", "gain_tau_fitted", *(("learned_static",) if args.position else ()), "learned")
    figures = {k: result[k].row() for k in rows}
    manifest = {"weights": out.name, "digest": digest(text), "command": command, "data": data_manifest,
                "games": len(games), "seed": args.seed, "per_game": args.per_game, "teacher": args.teacher,
                "commit": _commit(),
                "training_positions": result["training_positions"],
                "held_out_positions": result["held_out_positions"],
                "fitted_tau": round(result["tau"], 4), "held_out": figures}
    _write_with_manifest(out, text.encode("utf-8"), out.with_suffix(".manifest.json"), manifest)
    print(f"{out}: {len(games):,} games, {result['training_positions']:,} positions fitted, "
          f"{result['held_out_positions']:,} held out; digest {manifest['digest'][:16]}")
    print("  held out:           log-likelihood  top-1   top-5" + ("   teacher's cross-entropy" if teacher else ""))
    labels = {"gain_tau_0.5": "gain, tau 0.5", "gain_tau_fitted": f"gain, tau {result['tau']:.3f}",
              "learned_static": "learned (shipped)", "learned": which}
    for name in rows:
        label = labels[name]
        row = figures[name]
        ce = f"  {row['cross_entropy']:.4f}" if "cross_entropy" in row else ""
        print(f"    {label:18s} {row['log_likelihood']:14.4f}  {row['top1']:.4f}  {row['top5']:.4f}{ce}")
    return EXIT_OK
