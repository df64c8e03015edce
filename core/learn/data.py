"""Training data for the opening predictor: the deciding agent's own games on boards nobody will analyse.

A data set is a folder of shards.  Shard ``k`` holds the games of boards ``k * BOARDS_PER_SHARD ..`` and depends on
the data seed and its index alone, so a run resumes after Ctrl-C by playing only the shards that are missing, and any
number of workers (or a dask cluster) writes the same bytes.  A shard stores each game as its board and its
placements; a position's features are derived from that by replaying (``core.learn.features``), so the features can
change without playing the games again.

Which boards: random anti-symmetric boards, 10x10 to 14x14, with a symbol density drawn from the range hosts use and
the generator proposes (8-62% of the cells hold a symbol; Board Game Arena's boards hold 60%).  Boards that the
held-out figures use (the bundled boards, the benchmark's boards and the held-out random set of
:func:`heldout_boards`) come from other seeds and are refused here by their cells, so no held-out board is trained on.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from random import Random

import numpy as np
import numpy.typing as npt

from core.board.fileio import atomic_write_bytes, atomic_write_text
from core.board.model import Board, GameParams, Symbol
from core.engine.pieces import placement_table
from core.selfplay.tasks import BoardSpec, GameResult, GameTask, derive_seed

FORMAT = 2
"""Shard format version; a folder written by another version is refused."""
SIZES = (10, 12, 14)
SIZE_WEIGHTS = (3, 4, 2)
"""12x12 is what hosts play; 10x10 is the original game; 14x14 is the largest board the studio edits often."""
DENSITY = (0.08, 0.62)
"""Share of the cells that hold a symbol (both players' together)."""
GAMES_PER_BOARD = 8
"""Each board's games start after different sampled openings, so the model sees openings of one board compared."""
BOARDS_PER_SHARD = 32
MAX_SIZE = 14
MAX_MOVES = 80
"""Placements a game can make: 4 types x at most 16 each (the supply's limit) would be 64."""
AGENT = "puct:2000"
"""``club``, the standard verdict's deciding agent: the predictor predicts what the verdict measures."""

_PHASE_BOARD = 71
_PHASE_GAME = 72
_PHASE_HELDOUT = 73


class DataError(ValueError):
    """A data folder that cannot be used: another seed or format, or a damaged shard (the message names it)."""


@dataclass(frozen=True)
class Plan:
    """What a data set is: the seed, the agent and the number of shards asked for."""

    seed: int
    shards: int
    agent: str = AGENT
    games_per_board: int = GAMES_PER_BOARD
    boards_per_shard: int = BOARDS_PER_SHARD

    def manifest(self) -> dict[str, object]:
        return {"format": FORMAT, "seed": self.seed, "agent": self.agent, "games_per_board": self.games_per_board,
                "boards_per_shard": self.boards_per_shard, "sizes": list(SIZES), "size_weights": list(SIZE_WEIGHTS),
                "density": list(DENSITY)}


def _board_from(rng: Random) -> Board:
    size = rng.choices(SIZES, weights=SIZE_WEIGHTS)[0]
    half = size * size // 2
    pairs = max(1, min(half, round(rng.uniform(*DENSITY) * size * size / 2)))
    board = Board(size=size, params=GameParams())
    board.random_fill(pairs, rng)
    return board


def reserved_cells() -> set[str]:
    """The cells of every board the held-out figures use (never trained on)."""
    from core.board.boardfile import load_board

    out = {"".join(s.value for s in b.cells) for b in heldout_boards()}
    folder = Path(__file__).resolve().parent.parent.parent / "boards"
    if not folder.is_dir():
        folder = Path(__file__).resolve().parent.parent / "boards"
    for path in sorted(folder.glob("*.yaml")):
        out.add("".join(s.value for s in load_board(path).cells))
    for seed, pairs in BENCHMARK_RANDOM:
        out.add("".join(s.value for s in Board.random(12, pairs=pairs, seed=seed).cells))
    return out


BENCHMARK_RANDOM = ((101, 12), (102, 16), (103, 20), (104, 24), (105, 28))
"""(seed, pairs) of the benchmark's random 12x12 boards (tests/benchmarks/bench_verdicts.py)."""
HELDOUT_BOARDS = 24


def heldout_boards(count: int = HELDOUT_BOARDS) -> list[Board]:
    """Fresh random boards for the held-out figures, from a stream of their own (sizes and densities as trained)."""
    out = []
    for i in range(count):
        board = _board_from(Random(derive_seed(0, _PHASE_HELDOUT, i)))
        board.name = f"heldout-{i}"
        out.append(board)
    return out


def board_for(seed: int, index: int, reserved: set[str]) -> Board:
    """Training board ``index`` of a data seed (the next draw of its stream when one is reserved)."""
    rng = Random(derive_seed(seed, _PHASE_BOARD, index))
    while True:
        board = _board_from(rng)
        if "".join(s.value for s in board.cells) not in reserved:
            return board


OpeningSource = Callable[[Board], Sequence[int]]
"""The first placements a board's training games may start after (each game draws one by its seed)."""


def shard_tasks(plan: Plan, shard: int, reserved: set[str],
                openings: OpeningSource | None = None) -> list[list[GameTask]]:
    """The games of one shard, a list per board (a board's games run as one worker call); each game starts after a
    first placement drawn by its seed from ``openings(board)``, or from every placement when that is None."""
    out = []
    for b in range(shard * plan.boards_per_shard, (shard + 1) * plan.boards_per_shard):
        board = board_for(plan.seed, b, reserved)
        spec = BoardSpec.from_board(board)
        pool = range(placement_table(board.size).count) if openings is None else openings(board)
        tasks = []
        for g in range(plan.games_per_board):
            seed = derive_seed(plan.seed, _PHASE_GAME, b, g)
            opening = int(pool[Random(seed).randrange(len(pool))])
            tasks.append(GameTask(spec, seed, plan.agent, plan.agent, opening=opening, pie=False, values=True))
        out.append(tasks)
    return out


@dataclass
class Games:
    """Games as arrays (one row a game): what a shard holds and what training reads."""

    size: npt.NDArray[np.int8]
    cells: npt.NDArray[np.uint8]
    """[games, MAX_SIZE * MAX_SIZE] 0 empty, 1 O, 2 X, row by row on the board's own size (the rest 0)."""
    first: npt.NDArray[np.int8]
    """Symbol that placed first: 0 O, 1 X."""
    supply: npt.NDArray[np.int8]
    """[games, 4] starting supply (L, I, T, S)."""
    moves: npt.NDArray[np.int16]
    """[games, MAX_MOVES] placement indices, -1 after the last."""
    values: npt.NDArray[np.float32]
    """[games, MAX_MOVES] the mover's search value before each placement as S1's chance (NaN: none)."""
    s1_score: npt.NDArray[np.int16]
    s2_score: npt.NDArray[np.int16]
    winner: npt.NDArray[np.int8]
    """1 when S1 won, 2 when S2 did."""
    board: npt.NDArray[np.int32]
    """The board's index in the data set (games of one board share it)."""

    def __len__(self) -> int:
        return len(self.size)

    def arrays(self) -> dict[str, npt.NDArray[np.generic]]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def board_of(self, i: int) -> Board:
        n = int(self.size[i])
        text = "".join(".OX"[v] for v in self.cells[i, :n * n])
        params = GameParams(supply=tuple(int(x) for x in self.supply[i]),  # type: ignore[arg-type]
                            first=Symbol.O if self.first[i] == 0 else Symbol.X)
        return Board.from_rows([text[r * n:(r + 1) * n] for r in range(n)], params=params)

    def game_moves(self, i: int) -> list[int]:
        row = self.moves[i]
        return [int(m) for m in row[row >= 0]]

    @classmethod
    def concat(cls, parts: Sequence[Games]) -> Games:
        return cls(**{k: np.concatenate([getattr(p, k) for p in parts]) for k in cls.__dataclass_fields__})


def to_games(tasks: Sequence[GameTask], results: Sequence[GameResult], boards: Sequence[int]) -> Games:
    n = len(tasks)
    cells = np.zeros((n, MAX_SIZE * MAX_SIZE), dtype=np.uint8)
    moves = np.full((n, MAX_MOVES), -1, dtype=np.int16)
    values = np.full((n, MAX_MOVES), np.nan, dtype=np.float32)
    code = {".": 0, "O": 1, "X": 2}
    for i, (t, r) in enumerate(zip(tasks, results, strict=True)):
        cells[i, :len(t.board.cells)] = [code[c] for c in t.board.cells]
        moves[i, :len(r.moves)] = r.moves
        values[i, :len(r.values)] = r.values
    return Games(
        size=np.array([t.board.size for t in tasks], dtype=np.int8), cells=cells,
        first=np.array([0 if t.board.params.first.value == "O" else 1 for t in tasks], dtype=np.int8),
        supply=np.array([t.board.params.supply for t in tasks], dtype=np.int8), moves=moves, values=values,
        s1_score=np.array([r.s1_score for r in results], dtype=np.int16),
        s2_score=np.array([r.s2_score for r in results], dtype=np.int16),
        winner=np.array([r.winner for r in results], dtype=np.int8), board=np.array(boards, dtype=np.int32))


def shard_path(folder: Path, shard: int) -> Path:
    return folder / f"shard-{shard:05d}.npz"


def write_shard(folder: Path, shard: int, games: Games) -> None:
    """Written to a temporary file and renamed, so a shard on disk is always whole."""
    buf = io.BytesIO()
    np.savez_compressed(buf, **games.arrays())  # type: ignore[arg-type]
    atomic_write_bytes(shard_path(folder, shard), buf.getvalue())


def read_shard(path: Path) -> Games:
    try:
        with np.load(path, allow_pickle=False) as z:
            return Games(**{k: z[k] for k in Games.__dataclass_fields__})
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise DataError(f"{path}: not a readable shard of game data ({exc}); delete it and run the command "
                        "again to play it anew") from None


def open_folder(folder: Path, plan: Plan) -> list[int]:
    """Create or check the folder's manifest; the shards still to play."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = folder / "data.json"
    want = plan.manifest()
    if manifest.exists():
        try:
            have = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DataError(f"{manifest}: not readable ({exc})") from None
        diff = sorted(k for k in want if have.get(k) != want[k])
        if diff:
            raise DataError(f"{manifest}: this folder holds data made with other settings ({', '.join(diff)}: "
                            f"{', '.join(f'{have.get(k)!r}' for k in diff)}); give another --out or the same "
                            "--seed")
    else:
        atomic_write_text(manifest, json.dumps(want, indent=2) + "\n")
    return [k for k in range(plan.shards) if not shard_path(folder, k).exists()]


def load_games(folder: Path, shards: Sequence[int] | None = None) -> Games:
    """Every whole shard of a folder (or the listed ones), in shard order."""
    paths = sorted(folder.glob("shard-*.npz")) if shards is None else [shard_path(folder, k) for k in shards]
    if not paths:
        raise DataError(f"{folder}: holds no shards of game data")
    return Games.concat([read_shard(p) for p in paths])


def iter_positions(games: Games, i: int) -> Iterator[tuple[int, list[int]]]:
    """(ply, placements so far) for every position of game ``i`` after its opening, the final one excluded."""
    moves = games.game_moves(i)
    for ply in range(1, len(moves)):
        yield ply, moves[:ply]
