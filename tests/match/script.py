"""A short match on a 6x6 board that the tests play through the command line, the API and the Host window.

With one piece of each type the game lasts four placements; the moves below end it 3 to 3 in visible symbols,
so the tie rule decides (for X, the last placer).  Along the way: a wrong player, the pie swap, a malformed
post, a correction inside the window and one outside it, an illegal placement, and a pause.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from core.match.events import Source, read_event
from core.match.host import Match

TINY_ROWS = (".O..O.", ".XX...", "OX....", "....OX", "...OO.", ".X..X.")


def board_text(turn: int = 60, bank: int = 300, name: str = "Tiny") -> str:
    grid = "".join(f'  - "{row}"\n' for row in TINY_ROWS)
    return (f"version: 1\nname: {name}\nfirst: O\npie: true\nsupply: {{L: 1, I: 1, T: 1, S: 1}}\n"
            f"clock: {{turn: {turn}, bank: {bank}}}\ngrid:\n{grid}")


def write_board(folder: Path, turn: int = 60, bank: int = 300, name: str = "Tiny") -> Path:
    path = folder / f"{name.lower()}.yaml"
    path.write_text(board_text(turn, bank, name), encoding="utf-8")
    return path


START = "2026-05-02T14:00:00+00:00"

STEPS: tuple[tuple[tuple[str, ...], int, str], ...] = (
    # (arguments after `lits match ACTION MATCH`, exit code, words the reply must contain)
    (("move", "a2,b2,c2,c3", "--at", "14:00:20"), 0, "move 1: Al places an L at A2 B2 C2 C3, covering X B2"),
    (("move", "E1 F1 D2 E2", "--by", "Al", "--at", "14:00:30"), 1, "it is Bo (X)'s turn, not Al's"),
    (("swap", "--by", "bo", "--at", "14:00:50"), 0, "move 2: Bo swaps (pie rule)"),
    (("move", "e1f1d2", "--by", "Al", "--at", "14:01:10"), 1, "3 cells given"),
    (("move", "C1-D1-E1-F1", "--by", "Al", "--at", "14:01:20"), 0, "move 3: Al places an I at C1 D1 E1 F1"),
    (("correct", "e1 F1 d2 E2", "--by", "Al", "--at", "14:02:00"), 0, "move 3: Al places an S at E1 F1 D2 E2"),
    (("move", "D1 D2 D3 D4", "--by", "Bo", "--at", "14:02:20"), 1, "already covered by the S at E1 F1 D2 E2"),
    (("move", "E3 D4 E4 E5", "--by", "Bo", "--at", "14:02:30"), 0, "move 4: Bo places a T at E3 D4 E4 E5"),
    (("pause", "--at", "14:03:00"), 0, "Paused at 14:03:00"),
    (("resume", "--at", "14:03:30"), 0, "Resumed at 14:03:30"),
    (("correct", "D3 D4 E4 D5", "--by", "Bo", "--at", "14:05:00"), 1, "the correction window closed at 14:04:30"),
    (("move", "C6 D6 E6 F6", "--by", "Al", "--at", "14:05:10"), 0, "Al (X) wins by the tie rule: 3 to 3"),
    (("end", "--at", "14:05:20"), 0, "Match closed at 14:05:20"),
)
"""The scripted match: every step, what it must answer and how it exits."""

FINAL_RECORD_MOVES = ["A2 B2 C2 C3", "swap", "E1 F1 D2 E2", "E3 D4 E4 E5", "C6 D6 E6 F6"]


def event_for(step: tuple[str, ...]) -> dict[str, object]:
    """The journal object of the event a step's arguments stand for (``at`` still as typed)."""
    action, rest = step[0], list(step[1:])
    options: dict[str, str] = {}
    words = []
    while rest:
        word = rest.pop(0)
        if word.startswith("--"):
            options[word[2:]] = rest.pop(0)
        else:
            words.append(word)
    event: dict[str, object] = {"event": action, "at": options["at"]}
    if action in ("move", "swap", "correct"):
        event = {"event": "correct" if action == "correct" else "move", "at": options["at"],
                 "text": "swap" if action == "swap" else words[0], "by": options.get("by")}
    elif action == "resign":
        event["by"] = words[0]
    return event


def play(folder: Path, board_path: Path, steps: tuple[tuple[tuple[str, ...], int, str], ...] = STEPS,
         on_step: Callable[[int], None] | None = None) -> Match:
    """The scripted match through the API, exactly as ``lits match`` would journal it (same start, same times)."""
    import hashlib

    from core.board.boardfile import load_board

    board = load_board(board_path)
    source = Source(file=board_path.name, sha256=hashlib.sha256(board_path.read_bytes()).hexdigest())
    match = Match.create(folder, board, "Al", "Bo", START, 120, source)
    return resume(match, steps, on_step)


def resume(match: Match, steps: tuple[tuple[tuple[str, ...], int, str], ...] = STEPS,
           on_step: Callable[[int], None] | None = None) -> Match:
    """Go on with the steps the journal does not hold yet (each step of the script writes one line)."""
    done = len(match.journal.read()) - 1
    for number, (step, _code, _words) in enumerate(steps, start=1):
        if number <= done:
            continue
        event = event_for(step)
        event["at"] = match.when(str(event["at"]))
        match.submit(read_event(event))
        if on_step is not None:
            on_step(number)
    return match
