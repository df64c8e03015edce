"""Opening a revealed sealed file as a board: read it, verify it, and say in words what is wrong when it cannot be.

The window only shows the outcome; the board opens as an untitled copy, so saving can never overwrite the sealed
bytes.  Why its own reader: read as YAML, a sealed file is only "not a board file", which tells the host nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.board.model import Board


@dataclass(frozen=True)
class SealedOpen:
    """What opening a sealed file gave: its board and digest, or why not."""

    board: Board | None
    digest: str = ""
    problem: str = ""
    """Why the file gives no board, in words naming the file ('' when it opened)."""
    unreadable: bool = False
    """The path cannot be read at all (missing, a folder): not worth offering again among the recent files."""


def read_sealed_board(path: str) -> SealedOpen:
    """The board sealed in ``path``, verified; never raises for a bad or missing file."""
    from core.seal.sealcheck import describe, verify_file
    from core.seal.sealing import board_from_fields, read_sealed

    try:
        read = read_sealed(path)
    except OSError as exc:
        reason = "is a folder, not a sealed board file" if isinstance(exc, IsADirectoryError) \
            else f"cannot be read ({exc.strerror or exc})"
        return SealedOpen(None, problem=f"{path}: {reason}", unreadable=True)
    result = verify_file(read)  # an oversize file: its true size and whole digest, never those of its first bytes
    if result.fields is None or result.digest is None:
        return SealedOpen(None, problem=describe(result, path))
    return SealedOpen(board_from_fields(result.fields), digest=result.digest)
