"""What a play-test window shows of a :class:`core.play.session.PlaySession`, in plain Python.

The window draws and forwards input; every line of text it shows and every set of cells it marks is worked out
here from the session, so it is tested without Qt (``tests/play``).  :func:`table_view` is the whole picture of
the game at the cursor; the ``*_text`` functions are the messages the window puts under the move entry.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from core.board.fileio import write_failure
from core.board.model import PIECE_TYPES, Board, Symbol
from core.board.validation import Severity, validate
from core.play.clock import format_seconds
from core.play.session import SEATS, PlayResult, PlaySession, Refusal


@dataclass(frozen=True)
class TableView:
    """The game at the cursor as the window shows it."""

    pieces: dict[int, str]
    """Cell -> piece type of every placed piece."""
    piece_ids: dict[int, int]
    """Cell -> index of the placement covering it (to draw each piece's outline)."""
    legal: tuple[tuple[int, ...], ...]
    """The cells of every legal placement (empty when the game is over)."""
    interactive: bool
    """A person is to move and the game is not paused: the board takes clicks."""
    can_swap: bool
    """The person to move may take the pie-rule swap."""
    turn_line: str
    supply_line: str
    score_line: str
    clock_lines: tuple[str, str]
    hint_counts: dict[int, int] | None
    """Cell -> how many legal placements cover it, when hints are on and the game goes on."""
    hint_line: str
    move_texts: tuple[str, ...]
    ply: int
    can_go_back: bool
    can_go_forward: bool
    step_enabled: bool
    """"Agent move" does something: an agent is to move, not thinking, and the game is not paused."""
    pace_enabled: bool
    """The pace matters: at least one seat is an agent."""
    clocks_on: bool
    paused: bool
    result: PlayResult | None
    scoring: tuple[tuple[int, ...], tuple[int, ...]]
    """The winner's and the loser's uncovered symbol cells (both empty while the game goes on or nobody won)."""


def table_view(session: PlaySession, hints: bool = False) -> TableView:
    """Everything the window shows of ``session`` now (``hints``: the "Show hints" box is ticked)."""
    state = session.state
    ids = {c: i for i, p in enumerate(state.placements) for c in p.cells}
    who = session.mover()
    legal = [] if who is None else list(state.legal_placements())
    person = who is not None and who.agent is None
    counts: dict[int, int] | None = None
    hint_line = ""
    if hints and who is not None:
        counts = {}
        for p in legal:
            for cell in p.cells:
                counts[cell] = counts.get(cell, 0) + 1
        hint_line = (f"{len(legal)} legal placements; {len(counts)} cells coverable "
                     "(the number in a cell counts the placements covering it).")
    score = state.score()
    result = session.result()
    scoring: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    if result is not None and result.winner is not None and result.loser is not None:
        scoring = (result.scoring_cells[result.winner.symbol], result.scoring_cells[result.loser.symbol])
    ply, total = session.ply, len(session.moves)
    return TableView(
        pieces={c: state.placements[i].ptype for c, i in ids.items()},
        piece_ids=ids,
        legal=tuple(p.cells for p in legal),
        interactive=person and not session.clock.paused,
        can_swap=person and state.can_swap(),
        turn_line=turn_line(session),
        supply_line="Supply left: " + "  ".join(f"{t} {state.supply_left(t)}" for t in PIECE_TYPES),
        score_line=f"Uncovered symbols: O {score[Symbol.O]}  X {score[Symbol.X]}",
        clock_lines=(clock_line(session, 0), clock_line(session, 1)),
        hint_counts=counts,
        hint_line=hint_line,
        move_texts=tuple(session.move_texts()),
        ply=ply,
        can_go_back=ply > 0,
        can_go_forward=ply < total,
        step_enabled=(who is not None and who.agent is not None and session.thinking is None
                      and not session.clock.paused),
        pace_enabled=any(session.agent(s) is not None for s in SEATS),
        clocks_on=session.clock.enabled,
        paused=session.clock.paused,
        result=result,
        scoring=scoring,
    )


def turn_line(session: PlaySession) -> str:
    """Whose turn it is and what their agent does, e.g. ``X to move: Player 2 (agent greedy) — thinking…``."""
    who = session.mover()
    if who is None:
        return "Game over"
    doing = ""
    if session.thinking is not None:
        doing = " — thinking…"
    elif session.agent_waiting:
        doing = " — waits (paused)" if session.clock.paused else " — waits: press Agent move (F6)"
    return f"{who.symbol.value} to move: {who.name} ({who.kind}){doing}"


def clock_line(session: PlaySession, seat: int) -> str:
    """One player's clock: name and symbol, a mark when it runs, then the turn time and the bank left."""
    clock = session.clock
    info = session.seat_info(seat)
    if not clock.enabled:
        return f"{info.name} ({info.symbol.value}): clocks off"
    r = clock.reading(seat)
    mark = " ◀" if r.running else (" (paused)" if clock.paused and clock.current == seat else "")
    flag = " — OUT OF TIME" if clock.flagged == seat else ""
    return (f"{info.name} ({info.symbol.value}){mark}{flag}\n"
            f"turn {format_seconds(r.turn_left)}  bank {format_seconds(r.bank_left)}")


def refused_move_text(refusal: Refusal) -> str:
    """A refused move as the window says it: a broken game rule is named before the words."""
    if refusal.reason is not None:
        return f"Illegal ({refusal.reason.rule}): {refusal.message}"
    return refusal.message


def board_note(board: Board) -> str | None:
    """Why ``board`` is not valid for a match (it can still be play-tested), or None when it is."""
    errors = [p for p in validate(board) if p.severity is Severity.ERROR]
    if not errors:
        return None
    more = f" and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''}" if len(errors) > 1 else ""
    return f"Note: this board is not valid for a match ({errors[0].message}{more}); play-testing it anyway."


def save_record(session: PlaySession, path: str) -> Refusal | None:
    """Write the game to ``path``; a refusal names the file the host chose, not the temporary one beside it."""
    try:
        session.save(path)
    except OSError as exc:
        return Refusal(write_failure(path, exc, "The game is still here."))
    except ValueError as exc:
        return Refusal(f"Could not save the record to {path}: {exc}")
    return None


def saved_text(session: PlaySession, path: str | os.PathLike[str]) -> str:
    return f"Saved {len(session.moves)} moves to {os.fspath(path)}."


def loaded_text(session: PlaySession, path: str | os.PathLike[str]) -> str:
    return f"Loaded {len(session.moves)} moves from {os.fspath(path)}; use the arrows to replay them."


def agent_failed_text(error: str) -> str:
    return f"The agent failed: {error}"


__all__ = ["TableView", "agent_failed_text", "board_note", "clock_line", "loaded_text", "refused_move_text",
           "save_record", "saved_text", "table_view", "turn_line"]
