"""``lits match``: adjudicate a live death match from a folder that holds its journal.

``start`` opens the match (a board file, or a sealed file with its published digest: the reveal is the
journal's first event); ``move``, ``swap``, ``correct``, ``resign``, ``pause``, ``resume`` and ``end`` each append
one judged event; ``status`` and ``post`` only read.  Every command rebuilds the match from the journal first.
Exit codes: 0 done, 1 refused (an illegal move, the wrong player, a closed correction window: the post is
journaled as not counted), 2 bad arguments or a file that cannot be read or trusted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from core.cli import EXIT_OK, EXIT_PROBLEMS, EXIT_UNREADABLE, CliError, cannot_write, summary

if TYPE_CHECKING:
    from core.board.model import Board
    from core.match.events import Event, Source
    from core.match.host import ChatReading, Match
    from core.match.session import MatchSession



def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "match", help=summary("match"),
        description="Run a live death match: judge each posted move, keep both clocks from the post times, write "
                    "the post for the game room and the final record. MATCH is the match's folder "
                    "(journal.jsonl, record.txt, posts/). Exit 0 done, 1 refused (an illegal move, the wrong "
                    "player, a closed correction window; the post is journaled as not counted), 2 bad arguments "
                    "or a file that cannot be read or trusted.")
    sub = p.add_subparsers(dest="match_command", metavar="ACTION")
    sub.required = True

    def action(name: str, help_text: str, description: str) -> argparse.ArgumentParser:
        a = sub.add_parser(name, help=help_text, description=description)
        if name != "start":
            a.add_argument("match", metavar="MATCH", help="the match folder")
        return a

    def at(a: argparse.ArgumentParser, what: str, starting: bool = False) -> None:
        day = ("today, this machine's zone" if starting else
               "the day and zone of the last event; past midnight, up to an hour after it")
        a.add_argument("--at", metavar="TIME", help=f"{what}: 14:03:27 ({day}) or full ISO 8601; default: now")

    def by(a: argparse.ArgumentParser, correcting: bool) -> None:
        if correcting:  # only the last move's player may correct it, whoever is to move now
            a.add_argument("--by", metavar="NAME", help="who posted the correction (refused unless they made the "
                                                        "last move); needed once a move has counted")
            return
        a.add_argument("--by", metavar="NAME", help="who posted it (refused if it is not their turn); needed once a "
                                                    "move has counted (the first move may leave it out)")

    def json_flag(a: argparse.ArgumentParser) -> None:
        a.add_argument("--json", action="store_true", help="print one JSON object for machines")

    def yes(a: argparse.ArgumentParser) -> None:
        a.add_argument("--yes", action="store_true", help="record it even though its time lies past the running "
                       "player's whole clock or over an hour after the last event (asked otherwise: a mistyped "
                       "hour would decide the match)")

    s = action("start", "start a match in a new folder",
               "Start a match: check the board (a sealed file is verified against its published digest first, "
               "and the reveal becomes the journal's first event), name who plays O and X, and start the first "
               "player's clock.")
    s.add_argument("board", metavar="BOARD", help="board file (YAML) or sealed board file (.lits-sealed)")
    s.add_argument("--o", required=True, dest="o_name", metavar="NAME", help="the player who plays O")
    s.add_argument("--x", required=True, dest="x_name", metavar="NAME", help="the player who plays X")
    s.add_argument("--dir", required=True, dest="folder", metavar="MATCH", help="the match's folder (new)")
    s.add_argument("--correction-window", type=int, default=None, metavar="SECONDS",
                   help="how long after a post its player may correct it (default 120)")
    key = s.add_mutually_exclusive_group()
    key.add_argument("--sums", metavar="SHA256SUMS", help="for a sealed board: the published SHA256SUMS")
    key.add_argument("--digest", metavar="HEX", help="for a sealed board: the published digest")
    at(s, "when the match starts", starting=True)
    json_flag(s)

    def posted(name: str, help_text: str, description: str, when: str, cells: str | None) -> None:
        """An action for a player's post: its cells (unless ``cells`` is None), who posted it, and when."""
        a = action(name, help_text, description)
        if cells is not None:
            a.add_argument("cells", metavar="CELLS", nargs="+", help=cells)
        by(a, name == "correct")
        at(a, when)
        yes(a)
        json_flag(a)

    posted("move", "judge and record a posted move",
           "Judge a posted placement (four cells in any order and case, with spaces, commas, dashes or nothing "
           "between them) or 'swap', or the post's whole chat line: the four cell names found in it are the move "
           "(\"I play e6 f6 g6 f7 please\"), and \"I'll swap\" or \"pie\" the swap; the reply quotes what it read. A "
           "counted move names its piece; a refused one names the rule and the cells, or who is to move.",
           "the post's time", 'the four cells as posted, e.g. "e6 f6 g6 f7" (quoted or not), or the chat line')
    posted("swap", "the pie-rule swap, as the second player's first turn",
           "Record the pie-rule swap (only as the second player's first turn).", "the post's time", None)
    posted("correct", "replace the last move while its correction window is open",
           "Replace the last move by a corrected one, if its player posts the correction within the correction "
           "window (counted from the first post).", "the correction's time", "the corrected placement (or 'swap')")

    st = action("status", "where the match stands: moves, clocks, score, result", "Show the match: the moves that "
                "counted, whose turn it is, both clocks at the given time (default now), the score and the result.")
    at(st, "the time to show the clocks at")
    json_flag(st)

    po = action("post", "write the post for the game room: text and PNG", "Write the post for the last event: a "
                "text block (printed, and saved in MATCH/posts/) and a PNG of the board with the last piece "
                "marked.")
    po.add_argument("--at", metavar="TIME", help="show the clocks at this time (default: the last event's)")
    po.add_argument("--no-picture", action="store_true", help="write the text only (faster: no drawing library)")
    json_flag(po)

    r = action("resign", "a player resigns", "Record that a player resigns; the other wins.")
    r.add_argument("name", metavar="NAME", help="the player who resigns")
    at(r, "when")
    yes(r)
    json_flag(r)

    for name, text in (("pause", "stop both clocks for an agreed break"), ("resume", "restart the clock after "
                                                                                    "a pause")):
        a = action(name, text, text[0].upper() + text[1:] + " (recorded in the journal).")
        at(a, "when")
        yes(a)
        json_flag(a)

    e = action("end", "close a decided match and write the final record", "Close the match once it is decided "
               "(no legal placement left, a bank ran out, or a resignation): record the result and write "
               "record.txt for lits replay.")
    at(e, "when")
    json_flag(e)

    u = action("undo", "take back the last command's event (a slip), with an event of its own",
               "Take back the last event recorded (with the loss on time its command recorded before it), or the "
               "last N: the match returns to where it stood before them, clocks included, and the journal keeps "
               "both the events and the undo. Without --yes it shows what it would take back and writes nothing.")
    u.add_argument("--count", type=int, default=1, metavar="N", help="how many commands to take back (default 1)")
    u.add_argument("--yes", action="store_true", help="take them back (without it: only show what would change)")
    at(u, "when the host takes it back (recorded; charges no clock)")
    json_flag(u)
    p.set_defaults(func=run)


# ---------------------------------------------------------------------------------- running


def run(args: argparse.Namespace) -> int:
    from core.match.events import EventError
    from core.match.journal import JOURNAL_ADVICE, JournalError
    from core.match.session import Refused
    from core.match.times import TimeError

    try:
        if args.match_command == "start":
            return _start(args)
        match = _open(args.match)
        if args.match_command == "status":
            return _status(args, match)
        if args.match_command == "post":
            return _post(args, match)
        if args.match_command == "undo":
            return _undo(args, match)
        return _write(args, match)
    except JournalError as exc:
        raise CliError(f"{exc}\n{JOURNAL_ADVICE}", EXIT_UNREADABLE) from None
    except (EventError, TimeError) as exc:
        raise CliError(str(exc), EXIT_UNREADABLE) from None
    except Refused as exc:
        _say(args, {"ok": False, "refused": str(exc)}, f"Refused: {exc}")
        return EXIT_PROBLEMS
    except OSError as exc:
        folder = args.folder if args.match_command == "start" else args.match
        raise cannot_write(folder, exc) from None


def _open(folder: str) -> Match:
    from core.match.host import Match

    if os.path.exists(folder) and not os.path.isdir(folder):
        raise CliError(f"{folder}: is a file, not a match folder; give the folder that `lits match start ... --dir "
                       "FOLDER` made", EXIT_UNREADABLE)
    if not os.path.isdir(folder):
        raise CliError(f"{folder}: no such folder (start a match with `lits match start BOARD --dir {folder}`)",
                       EXIT_UNREADABLE)
    match = Match(folder)
    if not match.journal.exists() and not match.journal.check_path.exists():  # never a match: nothing to restore
        raise CliError(f"{folder}: holds no match (no {match.journal.path.name}); start one there with `lits match "
                       f"start BOARD --o NAME --x NAME --dir {folder}`, or give the match's own folder",
                       EXIT_UNREADABLE)
    match.reload()
    return match


def _say(args: argparse.Namespace, report: dict[str, object], text: str) -> None:
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print(text)


def _board_and_source(args: argparse.Namespace) -> tuple[Board, Source]:
    from core.cli import load_board_arg
    from core.match.events import Source
    from core.seal import sealcheck

    try:
        head = sealcheck.read_capped(args.board, 64)
    except IsADirectoryError:
        raise CliError(f"{args.board}: is a folder, not a board file", EXIT_UNREADABLE) from None
    except OSError as exc:
        raise CliError(f"{args.board}: cannot be read ({exc.strerror or exc})", EXIT_UNREADABLE) from None
    if not sealcheck.looks_sealed(head):
        if args.sums or args.digest:
            raise CliError(f"{args.board}: --sums and --digest check a sealed board; this is not one",
                           EXIT_UNREADABLE)
        board = load_board_arg(args.board)
        data = Path(args.board).read_bytes()
        return board, Source(file=args.board, sha256=hashlib.sha256(data).hexdigest())
    return _reveal(args)


def _reveal(args: argparse.Namespace) -> tuple[Board, Source]:
    """A sealed board checked against its published digest, as ``lits unseal`` checks it."""
    from core.match.host import RevealError, reveal_sealed

    if not (args.sums or args.digest):
        raise CliError(f"{args.board}: a sealed board needs its published digest, so the reveal is checked: add "
                       "--sums SHA256SUMS or --digest HEX", EXIT_UNREADABLE)
    try:
        return reveal_sealed(args.board, args.sums, args.digest)
    except RevealError as exc:
        raise CliError(f"--digest: {exc}" if exc.digest else str(exc),
                       EXIT_UNREADABLE if exc.unreadable else EXIT_PROBLEMS) from None


def _start(args: argparse.Namespace) -> int:
    from core.board.validation import Severity, validate
    from core.match.host import Match, MatchExistsError
    from core.match.session import DEFAULT_WINDOW, MAX_WINDOW

    window = DEFAULT_WINDOW if args.correction_window is None else args.correction_window
    if not 0 <= window <= MAX_WINDOW:
        raise CliError(f"--correction-window {window}: give 0 to {MAX_WINDOW} seconds", EXIT_UNREADABLE)
    board, source = _board_and_source(args)
    errors = [p for p in validate(board) if p.severity is Severity.ERROR]
    if errors:
        raise CliError(f"{args.board}: this board cannot be played in a match: "
                       + "; ".join(p.message for p in errors[:3]), EXIT_PROBLEMS)
    try:
        match = Match.create(args.folder, board, args.o_name, args.x_name, args.at, window, source)
    except MatchExistsError as exc:
        raise CliError(str(exc), EXIT_PROBLEMS) from None
    except OSError as exc:
        raise cannot_write(args.folder, exc) from None
    s = match.session
    p = board.params
    lines = [f"Match started in {args.folder}: {s.label(0)} vs {s.label(1)} on {board.name or 'the board'} "
             f"({board.size}x{board.size}); {s.label(0)} places first.",
             f"Clocks: {p.turn_time} s a turn, then a bank of {p.bank} s; corrections within {window} s of a post.",
             f"Started at {s.iso(s.started)}."]
    if source.sealed:
        lines.append(f"Sealed board {source.file} checked against {source.checked_with}: SHA-256 "
                     f"{source.sha256} (recorded as the journal's first event).")
    _say(args, {"ok": True, "events": _fields([s.start]), "status": status_dict(s, None)}, "\n".join(lines))
    return EXIT_OK


def _event(args: argparse.Namespace, match: Match, reading: ChatReading | None) -> Event:
    """The event a command enters (its inputs; the match judges it); ``reading`` is its chat line's."""
    from core.match.events import Correct, End, Move, Pause, Resign, Resume

    command = args.match_command
    at = match.when(args.at)
    if command in ("move", "swap", "correct"):
        problem = match.session.poster_problem("correct" if command == "correct" else "move", args.by)
        if problem is not None:
            raise CliError(problem, EXIT_UNREADABLE)
        post = Correct if command == "correct" else Move
        if reading is None:
            return post(at, "swap", args.by)
        return post(at, reading.text, args.by, reading.posted)
    if command == "resign":
        return Resign(at, args.name)
    if command == "pause":
        return Pause(at)
    return Resume(at) if command == "resume" else End(at)


def _write(args: argparse.Namespace, match: Match) -> int:
    from core.match.events import Correct, MatchRule, Move
    from core.match.session import Implausible, Refused, Repeated
    from core.match.words import reply

    command = args.match_command
    reading = match.chat_reading(" ".join(args.cells)) if command in ("move", "correct") else None
    event = _event(args, match, reading)
    before = len(match.journal.entries)
    try:
        written = match.submit(event, confirmed=bool(vars(args).get("yes")))
    except OSError as exc:
        raise _not_counted(match, exc) from None
    except Repeated as exc:
        _say(args, {"ok": exc.counted, "repeated": str(exc), "events": [], "status": status_dict(match.session, None)},
             f"{str(exc)[0].upper()}{str(exc)[1:]}.")
        return EXIT_OK if exc.counted else EXIT_PROBLEMS
    except Implausible as exc:
        _say(args, {"ok": False, "refused": str(exc), "events": [], "confirm": "--yes"},
             f"Not recorded: {exc}. If that time is right, run it again with --yes; if not, give the right one "
             "with --at.")
        return EXIT_PROBLEMS
    except Refused as exc:  # a timeout that fell before it is recorded all the same
        s = match.session
        earlier = [e.event for e in match.journal.entries[before:]]
        lines = [reply(e, s) for e in earlier] + [f"Refused: {exc}"] + match.notes
        _say(args, {"ok": False, "refused": str(exc), "events": _fields(earlier), "status": status_dict(s, None),
                    "notes": match.notes}, "\n".join(lines))
        return EXIT_PROBLEMS
    s = match.session
    lines = [] if reading is None or reading.quote is None else [reading.quote]
    for e in written:
        lines.append(reply(e, s))
    last = written[-1]
    refusal = last.refusal if isinstance(last, Move | Correct) else None
    unread = reading.unread if reading is not None else None
    if unread is not None and refusal is not None and refusal.rule is MatchRule.NOTATION:
        lines.append(unread)
    ok = refusal is None and last.kind == event.kind
    if isinstance(last, Move | Correct) or command in ("pause", "resume"):
        lines.append(f"Result: {s.result_text()}" if s.result_text() else _to_move(s))
    elif s.result_text():
        lines.append(f"Result: {s.result_text()}")
    if s.ended is not None:
        lines.append(f"The match is closed; {match.folder / 'record.txt'} holds the record (lits replay "
                     f"{match.folder / 'board.yaml'} {match.folder / 'record.txt'}).")
    lines.extend(match.notes)
    _say(args, {"ok": ok, "events": _fields(written), "status": status_dict(s, None), "notes": match.notes},
         "\n".join(lines))
    return EXIT_OK if ok else EXIT_PROBLEMS


def _fields(events: list[Event]) -> list[dict[str, object]]:
    """The events as the journal holds them, for ``--json``."""
    from core.match.events import event_fields

    return [event_fields(e) for e in events]


def _undo(args: argparse.Namespace, match: Match) -> int:
    """Show what an undo takes back and the state it returns to; record it only with --yes."""
    from core.match.events import Undo
    from core.match.words import reply

    if args.count < 1:
        raise CliError(f"--count {args.count}: give 1 or more", EXIT_UNREADABLE)
    s = match.session
    lines = s.undo_lines(args.count)
    taken = [f"  line {seq}: {reply(s.event_at(seq), s)}" for seq in sorted(lines)]
    event = Undo(match.when(args.at), args.count)
    if not args.yes:
        s.apply(event, len(match.journal.entries) + 1)  # in memory only, to show where it leads
        text = "\n".join(["Would take back:", *taken, f"and return to: {_standing(s)}",
                          "Nothing was written; run it again with --yes to take it back."])
        _say(args, {"ok": False, "would_undo": sorted(lines), "status": status_dict(s, None)}, text)
        return EXIT_PROBLEMS
    try:
        written = match.submit(event, confirmed=True)
    except OSError as exc:
        raise _not_counted(match, exc) from None
    s = match.session
    text = "\n".join(["Taken back:", *taken, f"The match stands again as {_standing(s)}", *match.notes])
    _say(args, {"ok": True, "events": _fields(written), "status": status_dict(s, None), "notes": match.notes}, text)
    return EXIT_OK


def _standing(s: MatchSession) -> str:
    """Where the match stands after an undo: the last event that stands, the clocks or result, the score."""
    from core.match.post import clocks_line, score_line
    from core.match.words import clock_of

    seq, last = s.standing()[-1]
    where = f"after line {seq} ({last.kind} at {clock_of(last, s)}; the clocks as then)" \
        if seq > 1 else f"at its start ({s.clock_at(s.started)})"
    now = f"Result: {s.result_text()}" if s.result_text() else clocks_line(s)
    return f"{where}:\n  {now}\n  {score_line(s)}"


def _not_counted(match: Match, exc: OSError) -> CliError:
    """A write that failed: say plainly that the event did not count, what did, and in what state the folder is."""
    from core.cli import EXIT_DISK_FULL
    from core.cli.exitcodes import is_disk_full
    from core.match.words import reply

    s = match.session
    lines = [reply(e, s) for e in match.counted_before_failure]
    lines.append(match.failure_text(exc))
    lines.extend(match.notes)
    return CliError("\n".join(lines), EXIT_DISK_FULL if is_disk_full(exc) else EXIT_UNREADABLE)


def _to_move(s: MatchSession) -> str:
    from core.match.post import clocks_line

    return clocks_line(s)


def status_dict(s: MatchSession, at: int | None) -> dict[str, object]:
    from core.board.model import Symbol
    from core.engine.rules import Placement

    clocks = s.clocks(at)
    score = s.state.score()
    result = s.result_record()
    over = s.over
    return {
        "players": {s.symbol_of(seat).value: s.names[seat] for seat in (0, 1)},
        "to_move": None if over else s.names[s.seat_to_move()],
        "moves": [{"ply": i, "player": s.names[a.seat], "action": a.move if isinstance(a.move, str)
                   else a.move.notation(), "piece": a.move.ptype if isinstance(a.move, Placement) else None,
                   "at": s.iso(a.at), "line": a.seq} for i, a in enumerate(s.actions, start=1)],
        "clocks": {s.names[seat]: {"turn": clocks[seat][0] / 1000, "bank": clocks[seat][1] / 1000,
                                   "running": clocks[seat][2]} for seat in (0, 1)},
        "score": {"O": score[Symbol.O], "X": score[Symbol.X]},
        "paused": s.paused_at is not None,
        "over": over,
        "ended": s.ended is not None,
        "result": None if result is None else result.fields(),
        "correction_window": s.window_ms // 1000,
    }


def _status(args: argparse.Namespace, match: Match) -> int:
    from core.match.events import Correct, Move
    from core.match.post import clocks_line, score_line
    from core.match.times import parse_when
    from core.match.words import status_refused

    s = match.session
    at, _zone = parse_when(args.at, (s.now, s.zone))
    report = status_dict(s, at)
    lines = [f"{s.label(0)} vs {s.label(1)} on {s.board.name or 'the board'}, started {s.clock_at(s.started)}; "
             f"corrections within {s.window_ms // 1000} s"]
    for i, a in enumerate(s.actions, start=1):
        what = "swap (pie rule)" if isinstance(a.move, str) else f"{a.move.notation()}  ({a.move.ptype})"
        lines.append(f"{i:>3}. {s.clock_at(a.at)}  {s.names[a.seat]:<12} {what}")
    last = s.events[-1][1]
    if isinstance(last, Move | Correct) and not last.counted:
        lines.append(status_refused(last))
    result = s.result_text()
    if result:
        lines.append(f"Result: {result}")
    else:
        lines.append(clocks_line(s, at))
        deadline = s.deadline()
        if deadline is not None and at >= deadline:
            seat = s.clock.current
            assert seat is not None
            lines.append(f"{s.label(seat)}'s bank ran out at {s.clock_at(deadline)}: the next command records "
                         "the loss on time (lits match end MATCH closes the match)")
            report["bank_ran_out_at"] = s.iso(deadline)
    lines.append(score_line(s))
    lines.extend(match.notes)
    _say(args, {"ok": True, "status": report, "notes": match.notes}, "\n".join(lines))
    return EXIT_OK


def _post(args: argparse.Namespace, match: Match) -> int:
    from core.match.times import parse_when

    s = match.session
    at = parse_when(args.at, (s.now, s.zone))[0] if args.at else None
    try:
        post, text_path, png_path = match.write_post(at, picture=not args.no_picture)
    except OSError as exc:
        raise cannot_write(str(match.folder), exc) from None
    if args.json:
        print(json.dumps({"ok": True, "text": post.text, "text_file": str(text_path),
                          "picture": None if png_path is None else str(png_path)}, ensure_ascii=False))
    else:
        print(post.text)
        print(f"(saved {text_path}" + (f" and {png_path}" if png_path else "") + ")", file=sys.stderr)
        for note in match.notes:
            print(note, file=sys.stderr)
    return EXIT_OK


__all__ = ["register", "run", "status_dict"]
