"""``lits moves``, ``lits replay`` and ``lits bench``: the rules engine from the command line.

Exit codes: 0 fine, 1 the input has problems (the record breaks a rule or has a line
that is not a placement, or the board file is readable but not a valid board), 2 a file
cannot be read (or is not YAML, or is a board file where the record belongs) or an
argument is wrong.  The
compiled kernels are imported only by ``bench`` so other commands start fast.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import time
from typing import Any

from core.board.boardfile import default_board_path
from core.board.model import Board
from core.cli import EXIT_OK, EXIT_PROBLEMS, EXIT_UNREADABLE, CliError, load_board_arg, summary

MAX_BENCH_GAMES = 10_000_000
"""Each timed run keeps five int64 results per game (400 MB at this limit)."""


def _default_board() -> str:
    path = default_board_path()
    if path is None:
        raise CliError("the bundled default board is missing; name one with --board FILE", EXIT_UNREADABLE)
    return str(path)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "moves", help=summary("moves"),
        description="List every legal placement after a game record (or on the empty board), one per line in "
                    "canonical notation (four cells in reading order); when none is left (the game is over) the "
                    "list is empty and standard error says why. Exit 1 if the record breaks a rule, 2 if a file "
                    "cannot be read.")
    p.add_argument("board", metavar="BOARD", help="board file (YAML)")
    p.add_argument("--record", metavar="FILE", help="game record to play first (one placement or 'swap' per line)")
    p.add_argument("--json", action="store_true", help='print {"moves": [["A1","B1","C1","D1"], ...], ...}')
    p.set_defaults(func=run_moves)

    r = subparsers.add_parser(
        "replay", help=summary("replay"),
        description="Replay a game record on a board: stops at the first action that breaks a rule and says "
                    "which (by its line in the file and its 1-based position, placements and swap counted) and why. "
                    "Exit 0 if the record is legal, 1 if it breaks a rule, 2 if a file cannot be read or is not the "
                    "kind expected.")
    r.add_argument("board", metavar="BOARD", help="board file (YAML)")
    r.add_argument("record", metavar="RECORD", help="game record")
    r.add_argument("--json", action="store_true", help="print one JSON object for machines")
    r.set_defaults(func=run_replay)

    b = subparsers.add_parser(
        "bench", help=summary("bench"),
        description="Random playouts per second on one core (CPU time of this single-threaded process) after a "
                    "warm-up, the time the first compile or cache load took, and how fast the Python game state "
                    "lists legal moves.")
    b.add_argument("--json", action="store_true", help="print one JSON object for machines")
    b.add_argument("--games", type=int, default=20000, metavar="N", help="games per timed run (default 20000)")
    b.add_argument("--board", metavar="FILE", default=None, help="board file (default: the bundled default board)")
    b.set_defaults(func=run_bench)




def _sealed_record(path: str) -> CliError | None:
    """A sealed board file given as a game record: another kind of file (exit 2), not a record with a bad line."""
    from core.engine.record import RECORD_FORM
    from core.seal import sealcheck

    if not os.path.isfile(path):  # read once already; a pipe read again could wait forever
        return None
    try:
        head = sealcheck.read_capped(path, 64)
    except OSError:
        return None
    if not sealcheck.looks_sealed(head):
        return None
    return CliError(f"{path}: this is a sealed board file (made by `lits seal`), not a game record ({RECORD_FORM})",
                    EXIT_UNREADABLE)


def _actions(path: str, size: int) -> list[Any]:
    from core.engine.record import RecordError, load_record

    try:
        return load_record(path, size)
    except RecordError as exc:
        # A readable record with a line that is not a placement has problems (1); an unreadable file is 2.
        if exc.line is None:
            raise CliError(str(exc), EXIT_UNREADABLE) from None
        raise _sealed_record(path) or CliError(str(exc), EXIT_PROBLEMS) from None


def _swapped_arguments(args: argparse.Namespace, exc: CliError) -> CliError:
    """The board argument's error, plus the right order when that file reads as a game record."""
    from core.board.boardfile import load_board
    from core.board.fileio import ReadError, read_limited_text
    from core.board.geometry import MAX_SIZE
    from core.engine.record import MAX_RECORD_BYTES, RecordError, parse_record

    if not os.path.isfile(args.board):  # read once already; a pipe read again could wait forever
        return exc
    try:
        if not parse_record(read_limited_text(args.board, MAX_RECORD_BYTES), MAX_SIZE):
            return exc
    except (ReadError, RecordError):
        return exc
    hint = "it reads as a game record, and the order is `lits replay BOARD RECORD`"
    try:
        if os.path.isfile(args.record):
            load_board(args.record)
            hint += f" (here: `lits replay {shlex.quote(args.record)} {shlex.quote(args.board)}`)"
    except (ValueError, OSError):
        pass
    return CliError(f"{exc.message}; {hint}", exc.code)


def _where(line: int | None) -> str:
    """``line N: `` for a message about an action on that line of a record, or nothing when unknown."""
    return "" if line is None else f"line {line}: "


def _legal_summary(actions: list[Any]) -> str:
    """The count a host checks first: how many actions were read, and that all of them are legal."""
    placements = sum(1 for action in actions if not isinstance(action, str))
    counted = f"{placements} placement{'' if placements == 1 else 's'}"
    if placements == len(actions):
        return f"legal, {counted}"
    return f"legal, {len(actions)} actions ({counted} and a swap)"


def run_moves(args: argparse.Namespace) -> int:
    from core.engine.record import replay

    board = load_board_arg(args.board)
    actions = _actions(args.record, board.size) if args.record else []
    state, error = replay(board, actions)
    if error is not None:
        from core.engine.record import file_action_line

        where = _where(file_action_line(args.record, error.ply))
        raise CliError(f"{args.record}: {where}{error.message(board.size)}", EXIT_PROBLEMS)
    legal = list(state.legal_placements())
    if args.json:
        print(json.dumps({"moves": [p.cell_names() for p in legal], "count": len(legal),
                          "to_move": state.to_move.value, "over": state.is_over(), "can_swap": state.can_swap()}))
    else:
        for p in legal:
            print(p.notation())
        result = state.result()
        if not legal and result is not None:  # an empty answer alone reads as a failure: say why (not on stdout)
            print(f"{args.record or args.board}: no legal placement is left. {result.explain()}", file=sys.stderr)
    return EXIT_OK


def run_replay(args: argparse.Namespace) -> int:
    from core.board.model import Symbol
    from core.engine.record import RecordError, load_record, replay

    try:
        board = load_board_arg(args.board)
    except CliError as exc:
        raise _swapped_arguments(args, exc) from None
    error_json: dict[str, Any] | None = None
    error_text = ""
    try:
        actions = load_record(args.record, board.size)
    except RecordError as exc:
        if exc.line is None:  # the file itself cannot be read, or is a board file
            raise CliError(str(exc), EXIT_UNREADABLE) from None
        sealed = _sealed_record(args.record)
        if sealed is not None:
            raise sealed from None
        # A line that is not a placement is the first bad action: report the position before it.
        actions = exc.before
        error_json = {"ply": exc.ply, "reason": exc.detail, "rule": "notation", "action": None, "line": exc.line}
        error_text = f"{args.record}: action {exc.ply} ({exc.detail})"
    state, error = replay(board, actions)
    if error is not None:
        error_json = {"ply": error.ply, "reason": error.reason.message, "rule": error.reason.rule,
                      "action": error.action if isinstance(error.action, str) else error.action.notation()}
        from core.engine.record import file_action_line

        line = file_action_line(args.record, error.ply)
        error_json["line"] = line
        error_text = f"{args.record}: {_where(line)}{error.message(board.size)}"
    result = state.result()
    score = state.score()
    report: dict[str, Any] = {
        "ok": error_json is None,
        "error": error_json,
        "score": {"O": score[Symbol.O], "X": score[Symbol.X]},
        "over": result is not None,
        "winner": None if result is None else result.winner.value,
        "result_reason": None if result is None else result.reason,
        "to_move": state.to_move.value,
        "placements": len(state.placements),
        "swapped": state.swapped,
        "legal_moves": len(state.legal_placements()),
    }
    code = EXIT_OK if error_json is None else EXIT_PROBLEMS
    if args.json:
        print(json.dumps(report))
        return code
    if error_json is not None:
        print(error_text)
        placed = len(state.placements)
        after = ", after the swap" if state.swapped else ""
        print(f"position before that action ({placed} placement{'' if placed == 1 else 's'}{after}):")
    elif actions:
        print(f"{args.record}: {_legal_summary(actions)}")
    else:
        print(f"{args.record}: no moves in this record (the starting position)")
    print(f"score: O {score[Symbol.O]}, X {score[Symbol.X]}")
    if result is not None:
        print(result.explain())
    else:
        print(f"{state.to_move.value} to move, {report['legal_moves']} legal placements"
              + (", swap allowed" if state.can_swap() else ""))
    return code


def _legal_latency(board: Board) -> dict[str, float]:
    """Microseconds for the Python state's legal-move answers in a midgame position."""
    import random

    from core.engine.rules import GameState

    state = GameState(board)
    rng = random.Random(7)
    for _ in range(8):
        legal = list(state.legal_placements())
        if not legal:
            break
        state.push(rng.choice(legal))
    reps = 500
    t0 = time.perf_counter()
    for _ in range(reps):
        moves = list(state.legal_placements())
    t1 = time.perf_counter()
    for _ in range(reps):
        len(state.legal_placements())
    t2 = time.perf_counter()
    some = moves[0] if moves else None
    for _ in range(reps):
        if some is not None:
            state.push(some)
            state.pop()
    t3 = time.perf_counter()
    return {"legal_list_us": (t1 - t0) / reps * 1e6, "legal_count_us": (t2 - t1) / reps * 1e6,
            "push_pop_us": (t3 - t2) / reps * 1e6, "legal_in_position": len(moves)}


def run_bench(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise CliError(f"--games must be at least 1, not {args.games}", EXIT_UNREADABLE)
    if args.games > MAX_BENCH_GAMES:
        raise CliError(f"--games {args.games}: at most {MAX_BENCH_GAMES:,} games per timed run", EXIT_UNREADABLE)
    board_path = args.board or _default_board()
    board = load_board_arg(board_path)
    t0 = time.perf_counter()
    from core.engine.kernels import random_playouts

    random_playouts(board, 10, seed=1)
    warmup = time.perf_counter() - t0
    rates = []
    lengths = 0.0
    for run in range(3):
        c0 = time.process_time()
        stats = random_playouts(board, args.games, seed=100 + run)
        cpu = max(time.process_time() - c0, 1e-9)
        rates.append(args.games / cpu)
        lengths = float(stats.length.mean())
    latency = _legal_latency(board)
    report = {
        "board": board_path,
        "games_per_run": args.games,
        "playouts_per_s": round(max(rates)),
        "playouts_per_s_runs": [round(r) for r in rates],
        "playouts_per_s_median": round(statistics.median(rates)),
        "mean_game_length": round(lengths, 3),
        "warmup_s": round(warmup, 3),
        **{k: round(v, 2) for k, v in latency.items()},
    }
    if args.json:
        print(json.dumps(report))
        return EXIT_OK
    print(f"board: {report['board']}")
    print(f"random playouts: {report['playouts_per_s']:,} /s on one core (best of 3 runs of {args.games}; "
          f"runs {', '.join(f'{r:,}' for r in report['playouts_per_s_runs'])}), mean game length "
          f"{report['mean_game_length']}")
    print(f"first compile / cache load: {report['warmup_s']} s")
    print(f"Python game state, midgame ({latency['legal_in_position']:.0f} legal): list legal moves "
          f"{latency['legal_list_us']:.1f} us, count {latency['legal_count_us']:.1f} us, push+pop "
          f"{latency['push_pop_us']:.1f} us")
    return EXIT_OK
