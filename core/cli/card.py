"""``lits card``: does this board reward the better player, and what kind of game does it give?

Imported by ``lits --help``, so it loads nothing heavy at import: the engine, numba and matplotlib come in
``run``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from core.cli import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    CliError,
    cannot_write,
    load_board_arg,
    output_folder_problem,
    summary,
)

if TYPE_CHECKING:
    from core.card.config import CardConfig

FORMATS = (".png", ".svg", ".md")
_inline = False
"""Play in this process (tests)."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "card",
        help=summary("card"),
        description="Measure a board's card: the analysis's verdict (the same as `lits analyze BOARD --seed S`), "
                    "how often the stronger of two levels beats the weaker (club against casual, seats swapped, "
                    "the pie rule as each plays it), S1's win rate after the fair openings at each strength, and "
                    "the game the board gives (length, choice, the tie rule, margins, pieces running out, the "
                    "first mover without the pie rule), each against the bundled and benchmark boards. A card is "
                    "fixed work: the same --seed gives the same card on any machine and number of --workers.",
    )
    p.add_argument("board", metavar="BOARD", help="board file (YAML)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the card: FILE.png or FILE.svg (a picture), or FILE.md (a page, its PNG beside it)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="master seed (default 0)")
    p.add_argument("--workers", type=int, default=0, metavar="K", help="worker processes (default 0 = all cores)")
    p.add_argument("--effort", choices=("standard", "thorough"), default="standard",
                   help="the analysis the card contains; thorough adds expert to the strengths (default standard)")
    p.add_argument("--json", action="store_true", help="print the card as one JSON object for machines")
    p.set_defaults(func=run)


def _check(args: argparse.Namespace) -> None:
    from core.analysis.config import WORKERS

    problem = WORKERS.problem(args.workers, option=True)  # the analysis's one limit and wording
    if problem is not None:
        raise CliError(problem, EXIT_USAGE)
    if args.output:
        folder = output_folder_problem(args.output, "card.png")
        if folder:
            raise CliError(folder, EXIT_USAGE)
        ext = os.path.splitext(args.output)[1].lower()
        if ext not in FORMATS:
            raise CliError(f"-o {args.output}: give a file ending in {', '.join(FORMATS)}", EXIT_USAGE)


def config_for(effort: str, seed: int, workers: int) -> CardConfig:
    """A card's settings (``lits card`` and ``lits reveal-bundle --card``; tests put a smaller card here)."""
    from core.card.config import CardConfig

    return CardConfig.make(effort, seed=seed, workers=workers, inline=_inline)


def run(args: argparse.Namespace) -> int:
    _check(args)
    board = load_board_arg(args.board)
    from core.analysis.config import AnalysisCancelled
    from core.card.figures import CardError, measure_card
    from core.cli.analyze import _Bars

    cfg = config_for(args.effort, args.seed, args.workers)
    bars = _Bars(sys.stderr.isatty() and not args.json)
    try:
        card = measure_card(board, cfg, args.board, progress=bars)
    except CardError as exc:
        raise CliError(f"{args.board}: {exc}; `lits validate {args.board}` says why", EXIT_PROBLEMS) from None
    except (AnalysisCancelled, KeyboardInterrupt):
        raise CliError("interrupted before the card was finished", EXIT_INTERRUPTED) from None
    finally:
        bars.close()
    files: list[str] = []
    if args.output:
        from core.card.render import write_card

        try:
            files = write_card(card, board, args.output, args.board)
        except OSError as exc:
            raise cannot_write(args.output, exc) from None
    if args.json:
        data: dict[str, Any] = dict(card)
        if files:
            data["files"] = files
        print(json.dumps(data, indent=2))
        return EXIT_OK
    print(format_text(card, args.board))
    for f in files:
        print(f"wrote {f}")
    return EXIT_OK


def format_text(card: dict[str, Any], path: str) -> str:
    from core.card.render import card_lines

    out = [f"{path}: board card"]
    heading = ""
    for line in card_lines(card):
        if line.heading != heading:
            heading = line.heading
            out.append(f"{heading}:")
        out.append(f"  {line.text}")
    return "\n".join(out)
