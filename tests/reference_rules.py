"""A slow, obviously-correct reference for the LITS placement rules, on Python sets.

Written independently of ``core.engine.pieces``/``core.engine.rules``/``core.engine.kernels``: pieces are
found by growing connected 4-cell sets, typed by their sorted pairwise squared
distances, and every rule is re-checked from scratch for every candidate in
every position.  Cells are ``(row, col)`` pairs here; tests convert.

Run ``python -m tests.reference_rules`` to regenerate ``tests/data/perft/*.json``
(the counts there come from this reference, never from the engine).
"""

from __future__ import annotations

import functools
import itertools
import json
import random
import sys
from collections.abc import Iterable
from pathlib import Path

Cell = tuple[int, int]
Piece = frozenset[Cell]

# Sorted squared distances between the 4 cells identify each free tetromino
# (mirror images share a signature, which is exactly the LITS notion of "type").
_SIGNATURES: dict[tuple[int, ...], str] = {
    (1, 1, 1, 4, 4, 9): "I",
    (1, 1, 1, 2, 4, 5): "L",
    (1, 1, 1, 2, 2, 4): "T",
    (1, 1, 1, 2, 2, 5): "S",
    (1, 1, 1, 1, 2, 2): "O",
}

PERFT_DIR = Path(__file__).parent / "data" / "perft"


def ref_type(cells: Iterable[Cell]) -> str | None:
    """L, I, T or S; None for the square or anything that is not a tetromino."""
    pts = list(cells)
    if len(set(pts)) != 4 or not _connected(set(pts)):
        return None
    sig = tuple(sorted((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 for a, b in itertools.combinations(pts, 2)))
    kind = _SIGNATURES.get(sig)
    return None if kind in (None, "O") else kind


def _connected(cells: set[Cell]) -> bool:
    start = next(iter(cells))
    seen = {start}
    todo = [start]
    while todo:
        r, c = todo.pop()
        for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if nb in cells and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    return seen == cells


def neighbours(cell: Cell, size: int) -> list[Cell]:
    r, c = cell
    return [(a, b) for a, b in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)) if 0 <= a < size and 0 <= b < size]


@functools.cache
def all_pieces(size: int) -> dict[Piece, str]:
    """Every on-board tetromino that is a LITS piece, found by growing connected sets cell by cell."""
    found: set[Piece] = set()
    frontier: set[Piece] = {frozenset([(r, c)]) for r in range(size) for c in range(size)}
    for _ in range(3):
        grown: set[Piece] = set()
        for shape in frontier:
            for cell in shape:
                for nb in neighbours(cell, size):
                    if nb not in shape:
                        grown.add(shape | {nb})
        frontier = grown
    for shape in frontier:
        if ref_type(shape) is not None:
            found.add(shape)
    return {p: t for p in found if (t := ref_type(p)) is not None}


@functools.cache
def _rims(size: int) -> dict[Piece, frozenset[Cell]]:
    """Cells outside each piece that share an edge with it."""
    return {p: frozenset({nb for cell in p for nb in neighbours(cell, size)} - p) for p in all_pieces(size)}


class RefGame:
    """Placed pieces and supply; legality recomputed from nothing each time."""

    def __init__(self, size: int, supply: tuple[int, int, int, int] = (5, 5, 5, 5)) -> None:
        self.size = size
        self.supply = dict(zip("LITS", supply, strict=True))
        self.pieces: list[tuple[Piece, str]] = []
        self.candidates = all_pieces(size)
        self.rim = _rims(size)
        self._covered_cache: set[Cell] = set()
        self._used: dict[str, int] = {}

    def covered(self) -> set[Cell]:
        return {c for p, _ in self.pieces for c in p}

    def broken_rules(self, piece: Piece) -> list[str]:
        """Every rule the piece breaks now (empty = legal)."""
        kind = ref_type(piece)
        if kind is None or any(not (0 <= r < self.size and 0 <= c < self.size) for r, c in piece):
            return ["off-board"]
        covered = self.covered()
        broken = []
        if piece & covered:
            broken.append("occupied")
        touching = {nb for cell in piece for nb in neighbours(cell, self.size)} - piece
        if self.pieces and not touching & covered:
            broken.append("not-touching")
        for other, other_kind in self.pieces:
            if other_kind == kind and touching & other:
                broken.append("same-type-adjacent")
                break
        after = covered | piece
        for r in range(self.size - 1):
            for c in range(self.size - 1):
                window = {(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)}
                if window <= after and window & piece:
                    broken.append("2x2")
                    break
            else:
                continue
            break
        used = sum(1 for _, k in self.pieces if k == kind)
        if used >= self.supply[kind]:
            broken.append("supply")
        return broken

    def is_legal(self, piece: Piece) -> bool:
        """Fast-path version of ``not broken_rules(piece)`` with the same checks."""
        covered = self._covered_cache
        if piece & covered:
            return False
        kind = self.candidates[piece]
        if self._used[kind] >= self.supply[kind]:
            return False
        touching = self.rim[piece]
        if self.pieces and not touching & covered:
            return False
        for other, other_kind in self.pieces:
            if other_kind == kind and touching & other:
                return False
        after = covered | piece
        for r, c in piece:
            for dr in (-1, 0):
                for dc in (-1, 0):
                    top, left = r + dr, c + dc
                    if 0 <= top < self.size - 1 and 0 <= left < self.size - 1:
                        window = {(top, left), (top, left + 1), (top + 1, left), (top + 1, left + 1)}
                        if window <= after:
                            return False
        return True

    def legal(self) -> set[Piece]:
        self._covered_cache = self.covered()
        self._used = {k: sum(1 for _, kind in self.pieces if kind == k) for k in "LITS"}
        return {p for p in self.candidates if self.is_legal(p)}

    def play(self, piece: Piece) -> None:
        kind = ref_type(piece)
        assert kind is not None and not self.broken_rules(piece), f"illegal reference move {sorted(piece)}"
        self.pieces.append((piece, kind))


def to_name(cell: Cell) -> str:
    return f"{chr(ord('A') + cell[1])}{cell[0] + 1}"


def notation(piece: Piece) -> str:
    return " ".join(to_name(c) for c in sorted(piece))


def from_notation(text: str) -> Piece:
    return frozenset((int(tok[1:]) - 1, ord(tok[0].upper()) - ord("A")) for tok in text.split())


# ---------------------------------------------------------------------------------- perft data

PERFT_CASES: list[dict[str, object]] = [
    {"name": "default-12x12-a", "size": 12, "supply": [5, 5, 5, 5], "seed": 11},
    {"name": "default-12x12-b", "size": 12, "supply": [5, 5, 5, 5], "seed": 12},
    {"name": "supply2-12x12", "size": 12, "supply": [2, 2, 2, 2], "seed": 13},
    {"name": "original-10x10", "size": 10, "supply": [5, 5, 5, 5], "seed": 14},
    {"name": "supply1-10x10", "size": 10, "supply": [1, 1, 1, 1], "seed": 15},
    {"name": "small-6x6", "size": 6, "supply": [5, 5, 5, 5], "seed": 16},
    {"name": "max-26x26", "size": 26, "supply": [3, 0, 3, 3], "seed": 17},
]
PERFT2_PLIES = (1, 3, 6)


def perft2(game: RefGame) -> int:
    """Sum over legal moves of the legal-move count after each."""
    total = 0
    for piece in sorted(game.legal(), key=sorted):
        game.pieces.append((piece, game.candidates[piece]))
        total += len(game.legal())
        game.pieces.pop()
    return total


def build_perft_case(case: dict[str, object]) -> dict[str, object]:
    size = int(case["size"])  # type: ignore[call-overload]
    supply = tuple(case["supply"])  # type: ignore[arg-type]
    rng = random.Random(int(case["seed"]))  # type: ignore[call-overload]
    game = RefGame(size, supply)  # type: ignore[arg-type]
    moves: list[str] = []
    counts: list[int] = []
    per_type: list[dict[str, int]] = []
    p2: dict[str, int] = {}
    while True:
        legal = game.legal()
        counts.append(len(legal))
        per_type.append({k: sum(1 for p in legal if game.candidates[p] == k) for k in "LITS"})
        ply = len(game.pieces)
        if ply in PERFT2_PLIES and size <= 12:
            p2[str(ply)] = perft2(game)
        if not legal:
            break
        piece = rng.choice(sorted(legal, key=sorted))
        game.play(piece)
        moves.append(notation(piece))
    return {"name": case["name"], "size": size, "supply": list(supply), "moves": moves,
            "counts": counts, "counts_by_type": per_type, "perft2": p2,
            "note": "counts[i] = legal placements after the first i moves; computed by tests/reference_rules.py"}


def write_perft_files() -> None:
    PERFT_DIR.mkdir(parents=True, exist_ok=True)
    for case in PERFT_CASES:
        data = build_perft_case(case)
        (PERFT_DIR / f"{case['name']}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"{case['name']}: {len(data['moves'])} moves", file=sys.stderr)  # type: ignore[arg-type]


if __name__ == "__main__":
    write_perft_files()
