"""The post a host puts in the game room after each move: a short text block and a PNG of the board.

The text fits one chat message (Discord allows 2,000 characters): one line for the move, one for whose turn it
is and both clocks, one for the score, the board in a code block (reads the same on every client), and at the
end the result and why.  The picture is drawn with matplotlib's object API (no Qt, no global state), so
``lits match post`` works wherever the command line does and the Host window copies the very same PNG.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.board.geometry import COLUMN_LETTERS
from core.board.model import Symbol
from core.engine.rules import SWAP, Placement
from core.match.session import MatchSession
from core.match.words import covers_text, say
from core.play.clock import format_seconds

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

CHAT_LIMIT = 2000
PIECE_COLOURS = {"L": "#e8a33d", "I": "#5aa9e6", "T": "#9b6fd1", "S": "#5cbf7a"}
"""The designer's light theme, so the picture looks like the studio's boards."""
INK = {"background": "#f4f1ea", "cell": "#fffdf8", "cell_alt": "#f7f3ea", "grid": "#b9b2a3", "frame": "#4a4540",
       "O": "#1f5fa8", "X": "#b23a1e", "covered": "#ffffff", "border": "#222222", "last": "#111111"}
PICTURE_PX = 800


@dataclass(frozen=True)
class Post:
    """What one post says: the text block and the facts the picture draws."""

    text: str
    headline: str
    footer: str
    last_cells: tuple[int, ...]


def clocks_line(session: MatchSession, at: int | None = None) -> str:
    """``Al (O) to move - turn 1:00, bank 4:12 | Bo (X): bank 5:00`` (or who is paused)."""
    clocks = session.clocks(at)
    mover = session.seat_to_move()
    other = 1 - mover
    turn, bank, _running = clocks[mover]
    head = f"{session.label(mover)} to move - turn {format_seconds(turn / 1000)}, bank {format_seconds(bank / 1000)}"
    line = f"{head} | {session.label(other)}: bank {format_seconds(clocks[other][1] / 1000)}"
    if session.paused_at is not None:
        line = f"Paused since {session.clock_at(session.paused_at)} | " + line
    return line


def score_line(session: MatchSession) -> str:
    score = session.state.score()
    holders = {session.symbol_of(s): session.names[s] for s in (0, 1)}
    return (f"Score (visible symbols): O {score[Symbol.O]} ({holders[Symbol.O]}), "
            f"X {score[Symbol.X]} ({holders[Symbol.X]})")


def move_line(session: MatchSession) -> tuple[str, tuple[int, ...]]:
    """The headline for the last move that counts, and the cells of the last placement."""
    last = session.last_action
    if last is None:
        b = session.board
        return say("post.start", first=session.label(0), second=session.label(1), board=b.name or "the board",
                   size=b.size), ()
    ply = len(session.actions)
    cells = next((a.move.cells for a in reversed(session.actions) if isinstance(a.move, Placement)), ())
    if last.move == SWAP:
        return say("post.swap", ply=ply, player=session.names[last.seat], symbol=session.symbol_of(last.seat).value,
                   other=session.label(1 - last.seat)), cells
    assert isinstance(last.move, Placement)
    return say("post.placement", ply=ply, player=session.label(last.seat), action=last.move.notation(),
               piece=last.move.ptype, covers=covers_text(session.covers(last.move))), cells


def board_text(session: MatchSession) -> str:
    """The board in monospace: symbols, pieces as lower-case type letters, the last piece in capitals."""
    board = session.board
    n = board.size
    state = session.state
    last = set(state.placements[-1].cells) if state.placements else set()
    width = len(str(n))
    lines = [" " * (width + 1) + " ".join(COLUMN_LETTERS[:n])]
    for row in range(n):
        out = []
        for col in range(n):
            cell = row * n + col
            piece = state.piece_at(cell)
            if piece is not None:
                letter = state.placements[piece].ptype
                out.append(letter if cell in last else letter.lower())
            else:
                out.append(board.cells[cell].value)
        lines.append(f"{row + 1:>{width}} " + " ".join(out))
    return "\n".join(lines)


def make_post(session: MatchSession, at: int | None = None) -> Post:
    """The post for the match as it stands (clocks projected to ``at``, default the last event)."""
    headline, cells = move_line(session)
    result = session.result_text()
    status = f"Result: {result}" if result else clocks_line(session, at)
    legend = "pieces: l i t s (the last one in capitals); O and X: visible symbols"
    text = "\n".join([headline, status, score_line(session), "```", board_text(session), "```", legend])
    if len(text) > CHAT_LIMIT:  # the largest boards: leave out the legend first, the board text last
        text = "\n".join([headline, status, score_line(session), "```", board_text(session), "```"])
    if len(text) > CHAT_LIMIT:
        text = "\n".join([headline, status, score_line(session), "(the board is in the picture)"])
    footer = result or clocks_line(session, at)
    return Post(text=text, headline=headline, footer=footer, last_cells=cells)


# ---------------------------------------------------------------------------------- the picture


def figure(session: MatchSession, post: Post, px: int) -> Figure:
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, Rectangle

    n = session.board.size
    state = session.state
    fig = Figure(figsize=(px / 100, px / 100), dpi=100)
    fig.patch.set_facecolor(INK["background"])
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(-1.2, n + 0.4)
    ax.set_ylim(n + 1.6, -2.0)  # rows grow downwards, A1 top-left; room for two text lines above and below
    ax.set_aspect("equal")
    ax.axis("off")
    for cell in range(n * n):
        row, col = divmod(cell, n)
        piece = state.piece_at(cell)
        colour = PIECE_COLOURS[state.placements[piece].ptype] if piece is not None else \
            INK["cell"] if (row + col) % 2 == 0 else INK["cell_alt"]
        ax.add_patch(Rectangle((col, row), 1, 1, facecolor=colour, edgecolor=INK["grid"], linewidth=0.6))
        symbol = session.board.cells[cell]
        if symbol is Symbol.EMPTY:
            continue
        ink, width, r = (INK["covered"], 1.2, 0.2) if piece is not None else (INK[symbol.value], 2.6, 0.28)
        if symbol is Symbol.O:
            ax.add_patch(Circle((col + 0.5, row + 0.5), r, fill=False, edgecolor=ink, linewidth=width))
        else:
            ax.plot([col + 0.5 - r, col + 0.5 + r], [row + 0.5 - r, row + 0.5 + r], color=ink, linewidth=width,
                    solid_capstyle="round")
            ax.plot([col + 0.5 - r, col + 0.5 + r], [row + 0.5 + r, row + 0.5 - r], color=ink, linewidth=width,
                    solid_capstyle="round")
    for placement in state.placements:  # piece borders and the type letter (not colour alone)
        _outline(ax, set(placement.cells), n, INK["border"], 2.0)
        first = min(placement.cells)
        row, col = divmod(first, n)
        ax.text(col + 0.08, row + 0.1, placement.ptype, ha="left", va="top", fontsize=max(6.0, 130 / n),
                fontweight="bold", color=INK["border"])
    if post.last_cells:
        _outline(ax, set(post.last_cells), n, INK["last"], 5.0)
    ax.add_patch(Rectangle((0, 0), n, n, fill=False, edgecolor=INK["frame"], linewidth=2.0))
    size = max(6.0, 160 / n)
    for i in range(n):
        ax.text(i + 0.5, -0.15, COLUMN_LETTERS[i], ha="center", va="bottom", fontsize=size, color=INK["frame"])
        ax.text(-0.15, i + 0.5, str(i + 1), ha="right", va="center", fontsize=size, color=INK["frame"])
    ax.text(n / 2, -1.0, _fit(post.headline, 80), ha="center", va="bottom", fontsize=11, color=INK["frame"],
            fontweight="bold")
    ax.text(n / 2, n + 0.35, _fit(post.footer, 90), ha="center", va="top", fontsize=10, color=INK["frame"])
    ax.text(n / 2, n + 0.95, _fit(score_line(session), 90), ha="center", va="top", fontsize=10, color=INK["frame"])
    return fig


def _fit(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _outline(ax: Axes, cells: set[int], n: int, colour: str, width: float) -> None:
    """Lines along the edges of ``cells`` that no other cell of the set shares."""
    for cell in cells:
        row, col = divmod(cell, n)
        edges = ((cell - n, (col, row), (col + 1, row)), (cell + n, (col, row + 1), (col + 1, row + 1)),
                 (cell - 1 if col > 0 else -1, (col, row), (col, row + 1)),
                 (cell + 1 if col < n - 1 else -1, (col + 1, row), (col + 1, row + 1)))
        for other, a, b in edges:
            if other not in cells:
                ax.plot([a[0], b[0]], [a[1], b[1]], color=colour, linewidth=width, solid_capstyle="projecting")


def picture_png(session: MatchSession, post: Post, px: int = PICTURE_PX) -> bytes:
    """The post's picture as PNG bytes: the board, the last piece outlined, coordinates, the two post lines."""
    fig = figure(session, post, px)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, facecolor=fig.get_facecolor(), metadata={"Software": None})
    return buf.getvalue()


__all__ = ["CHAT_LIMIT", "Post", "board_text", "clocks_line", "figure", "make_post", "picture_png",
           "score_line"]
