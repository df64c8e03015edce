"""Per-opening win rates without the swap (``lits openings``): the swap map, and replays of openings
an analysis called fair, at any strength.

Each opening is played by one agent in both seats with no swap until the verdict's SPRT pair
(:func:`core.analysis.verdict.sprt_pair`) decides it, at most ``games`` times (or exactly
``games`` times with ``fixed``), and S1's results are reported with a Wilson interval and the
pair's class, so "fair" means the same here as in ``lits analyze``.  The stop matters: a fixed
60 games leave a truly even opening undecided 97% of the time, because the pair needs about 100
games to accept both edges of the band (``stats.pair_operating`` gives the exact figures).

Every game's seed comes from (seed, opening, game index) only, so the same seed gives the
same figures on any worker count, and a checkpoint can be resumed: openings already in it are
not played again.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.agents.spec import AgentSpec, parse_agent
from core.analysis.config import MAX_GAMES, MIN_GAMES, AnalysisCancelled, AnalysisConfig, AnalysisProgress, SeedPhase
from core.analysis.results import OpeningStatus, _r
from core.analysis.stats import wilson
from core.analysis.verdict import sprt_pair
from core.board.fileio import atomic_write_bytes
from core.board.model import Board
from core.selfplay.tasks import BoardSpec, GameTask, derive_seed

ProgressFn = Callable[[AnalysisProgress], None]
CHECKPOINT_KIND = "lits openings checkpoint"
"""The first line of a checkpoint file names what it is, so another JSON-lines file is refused."""


class OpeningsError(ValueError):
    """Input that names no playable opening, or a checkpoint that belongs to another run."""


@dataclass(frozen=True)
class OpeningsConfig:
    agent: str
    games: int
    """Most games per opening; with ``fixed``, exactly this many."""
    seed: int = 0
    workers: int = 0
    inline: bool = False
    fixed: bool = False
    """Play every game even after the SPRT pair has decided (a replay of a known length)."""

    def check(self) -> AgentSpec:
        spec = parse_agent(self.agent)
        spec.fixed_work()  # a replay sized in seconds would be this machine's, not the seed's
        if not MIN_GAMES <= self.games <= MAX_GAMES:
            raise OpeningsError(f"games must be at least {MIN_GAMES} and at most {MAX_GAMES} per opening, "
                                f"not {self.games}")
        if self.workers < 0:
            raise OpeningsError("workers must be 0 (all cores) or more")
        return spec


@dataclass(frozen=True)
class OpeningRecord:
    """One opening's figures: S1's wins over the games played after it, no swap."""

    placement: int
    cells: tuple[str, ...]
    games: int
    s1_wins: int
    status: OpeningStatus

    @property
    def v(self) -> float:
        return self.s1_wins / self.games

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson(self.s1_wins, self.games)

    def to_json(self, predicted: float | None = None) -> dict[str, Any]:
        """``predicted``: the opening predictor's S1 chance for club, shown beside the measured rate."""
        low, high = self.ci95
        return {"cells": list(self.cells), "games": self.games, "s1_wins": self.s1_wins, "v": _r(self.v),
                "ci95": [_r(low), _r(high)], "status": self.status,
                "predicted": None if predicted is None else _r(predicted)}


def predictions(board: Board) -> tuple[str | None, list[float] | None, str]:
    """(model digest, S1 chance per placement, why there is none): the opening predictor's view of the board."""
    from core.selfplay.tasks import BoardSpec
    from core.selfplay.worker import predict_openings

    out = predict_openings(BoardSpec.from_board(board))
    if isinstance(out, str):
        return None, None, out
    return out[0], out[1], ""


def board_fingerprint(board: Board) -> str:
    """What makes two boards play the same games: size, symbols, supply and who moves first."""
    spec = BoardSpec.from_board(board)
    text = f"{spec.size}|{spec.cells}|{','.join(map(str, spec.params.supply))}|{spec.params.first.value}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def opening_names(board: Board, placement: int) -> tuple[str, ...]:
    from core.board.geometry import cell_name
    from core.engine.pieces import placement_table

    return tuple(cell_name(int(c), board.size) for c in placement_table(board.size).cells[placement])


def legal_openings(board: Board) -> list[int]:
    """Every placement that is legal as the first move, in placement-table order."""
    from core.engine.rules import first_placements

    return first_placements(board)


def resolve_openings(board: Board, texts: Sequence[str]) -> list[int]:
    """Placement indices for openings written as cell names; a clear message for any that is not a legal
    first placement.  Repeats are played once."""
    from core.engine.rules import GameState, NotationError, Placement

    state = GameState(board)
    out: list[int] = []
    for text in texts:
        try:
            p = Placement.parse(text, board.size)
        except NotationError as exc:
            raise OpeningsError(f"opening {text!r}: {exc}") from None
        reason = state.why_illegal(p)
        if reason is not None:
            raise OpeningsError(f"opening {text!r} is not a legal first placement on this board: {reason.message}")
        if p.index not in out:
            out.append(p.index)
    return out


class Checkpoint:
    """Finished openings, one JSON line each after a header line that says which run they belong to.

    Each line is written with one ``write`` on a file opened for appending and then flushed to
    disk, so a run killed at any moment leaves whole lines plus at most one cut-off last line,
    which the next run drops.
    """

    def __init__(self, path: str | Path, header: dict[str, Any]) -> None:
        self.path = Path(path)
        self.header = {"kind": CHECKPOINT_KIND, **header}

    def load(self) -> dict[int, OpeningRecord]:
        """The openings already finished; creates the file (header only) when there is none."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            raw = b""
        except OSError as exc:
            raise OpeningsError(f"{self.path}: cannot read the checkpoint: {exc.strerror or exc}") from None
        if raw and not raw.endswith(b"\n"):  # the last line was cut off by a kill: drop it
            raw = raw[:raw.rfind(b"\n") + 1]
            self._rewrite(raw)
        if not raw:
            self._rewrite((json.dumps(self.header) + "\n").encode())
            return {}
        lines = raw.decode("utf-8", errors="replace").splitlines()
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            header = None
        if not isinstance(header, dict) or header.get("kind") != CHECKPOINT_KIND:
            raise OpeningsError(f"{self.path}: not a checkpoint of lits openings (line 1 is not its header); "
                                "give a new file name or delete it")
        diff = [k for k in self.header if header.get(k) != self.header[k]]
        if diff:
            def show(h: dict[str, Any]) -> str:
                return ", ".join(f"{k} {h.get(k)}" for k in diff)
            raise OpeningsError(f"{self.path}: this checkpoint was made for another run ({show(header)}), not for "
                                f"this one ({show(self.header)}); give another --checkpoint file, or delete it to "
                                "start over")
        done: dict[int, OpeningRecord] = {}
        for n, line in enumerate(lines[1:], start=2):
            try:
                d = json.loads(line)
                rec = OpeningRecord(int(d["placement"]), tuple(d["cells"]), int(d["games"]), int(d["s1_wins"]),
                                    d["status"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                raise OpeningsError(f"{self.path}, line {n}: not an opening record of lits openings") from None
            done[rec.placement] = rec
        return done

    def _rewrite(self, data: bytes) -> None:
        try:
            atomic_write_bytes(self.path, data)
        except OSError as exc:  # chained: a full disk is told apart from the rest
            raise OpeningsError(f"{self.path}: cannot write the checkpoint: {exc.strerror or exc}") from exc

    def append(self, rec: OpeningRecord) -> None:
        line = (json.dumps({"placement": rec.placement, **rec.to_json()}) + "\n").encode()
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:  # a line cut short by a full disk is dropped by the next load
            raise OpeningsError(f"{self.path}: cannot write the checkpoint: {exc.strerror or exc}") from exc


def checkpoint_header(board: Board, cfg: OpeningsConfig) -> dict[str, Any]:
    header = {"board": board_fingerprint(board), "agent": parse_agent(cfg.agent).text, "seed": cfg.seed,
              "games": cfg.games}
    return header if cfg.fixed else {**header, "stop": "sprt"}


def _session(board: Board, cfg: OpeningsConfig, progress: ProgressFn | None,
             cancel: threading.Event | None, executor: cf.Executor | None = None, executor_workers: int = 0) -> Any:
    from core.analysis.run import Session

    acfg = AnalysisConfig(agents=[cfg.agent], seed=cfg.seed, workers=cfg.workers, inline=cfg.inline)
    return Session(board, acfg, progress, cancel, executor, executor_workers)


def top_openings(board: Board, k: int, cfg: OpeningsConfig, progress: ProgressFn | None = None,
                 cancel: threading.Event | None = None) -> list[int]:
    """The ``k`` openings the analysis's screen puts closest to even (same screen and seed as ``lits analyze``)."""
    from core.analysis.run import screen_all
    from core.selfplay.runner import RunCancelled

    if k < 1:
        raise OpeningsError(f"--top {k}: give at least 1")
    s = _session(board, cfg, progress, cancel)
    try:
        s.runner.start(cancel)
        screen = screen_all(s)
    except RunCancelled as exc:
        raise AnalysisCancelled("cancelled") from exc
    finally:
        s.runner.terminate()
    legal = [i for i in range(len(screen)) if screen[i] >= 0]
    legal.sort(key=lambda i: (abs(float(screen[i]) - 0.5), i))
    return legal[:k]


def play_openings(board: Board, placements: Sequence[int], cfg: OpeningsConfig,
                  progress: ProgressFn | None = None, cancel: threading.Event | None = None,
                  checkpoint: str | Path | None = None, executor: cf.Executor | None = None,
                  executor_workers: int = 0) -> list[OpeningRecord]:
    """Play each opening until the SPRT pair decides, at most ``cfg.games`` times (exactly, with ``cfg.fixed``;
    both seats ``cfg.agent``, no swap), in the order given; on a cluster when ``executor`` is given (the same
    records: every game's seed fixes it, and the stop looks at the games in index order)."""
    from core.selfplay.runner import RunCancelled

    spec = cfg.check()
    store = Checkpoint(checkpoint, checkpoint_header(board, cfg)) if checkpoint is not None else None
    done = store.load() if store is not None else {}
    pending = [p for p in placements if p not in done]
    results = dict(done)
    if pending:
        s = _session(board, cfg, progress, cancel, executor, executor_workers)
        try:
            s.report("start", 0, 1, "starting the worker processes")
            s.runner.start(cancel)
            for n, p in enumerate(pending):
                rec = _play_one(s, spec, p, cfg, f"{spec.text}: opening {n + 1} of {len(pending)}, "
                                                 f"{' '.join(opening_names(board, p))}")
                results[p] = rec
                if store is not None:
                    store.append(rec)
        except RunCancelled as exc:
            raise AnalysisCancelled("cancelled") from exc
        finally:
            s.runner.terminate()
    return [results[p] for p in placements]


def _play_one(s: Any, spec: AgentSpec, p: int, cfg: OpeningsConfig, message: str) -> OpeningRecord:
    played = spec.fixed_work().text
    tasks = [GameTask(s.spec, derive_seed(cfg.seed, SeedPhase.OPENINGS, spec.key, p, i), played, played,
                      opening=p, pie=False) for i in range(cfg.games)]
    pair = sprt_pair(AnalysisConfig())

    def decided(_i: int, r: Any) -> bool:  # games arrive in index order, so the stop is the same on any workers
        return pair.update(r.s1_won) != "undecided" and not cfg.fixed

    res = s.play(tasks, spec.cheap, "openings", message, stop=decided)  # frozen once decided, as in the pie phase
    status: OpeningStatus = {"inside": "fair", "outside": "unfair"}.get(pair.status, "undecided")  # type: ignore[assignment]
    return OpeningRecord(p, opening_names(s.board, p), len(res), sum(r.s1_won for r in res), status)
