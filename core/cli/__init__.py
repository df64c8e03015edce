"""The ``lits`` command line: everything that does not need a window.

Each module in this package that defines ``register(subparsers)`` adds its own
sub-commands, so features land as separate files without touching one big
dispatcher.  Handlers return the exit code; :class:`CliError` carries a message
and code for the user, and nothing ever prints a traceback unless
``LITS_DEBUG=1`` asks for one.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
import traceback
from collections.abc import Sequence
from typing import TYPE_CHECKING

from core import __version__

if TYPE_CHECKING:
    from core.board.model import Board

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_UNREADABLE = 2


class CliError(Exception):
    """A failure to report to the user in one message, with the exit code to use."""

    def __init__(self, message: str, code: int = EXIT_UNREADABLE) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def load_board_arg(path: str) -> Board:
    """Load a board named on the command line: unreadable is exit 2, readable but invalid is exit 1."""
    from core.board.boardfile import BoardContentError, BoardReadError, load_board

    try:
        return load_board(path)
    except BoardReadError as exc:
        raise CliError(str(exc), EXIT_UNREADABLE) from None
    except BoardContentError as exc:
        raise CliError(str(exc), EXIT_PROBLEMS) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lits",
        description="LITS Board Studio: design, check, analyse and seal Battle of LITS boards.",
    )
    parser.add_argument("--version", action="version", version=f"lits {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
        return code
    except CliError as exc:
        print(f"lits {args.command}: {exc.message}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print(f"lits {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except Exception as exc:  # last line of defence: no traceback for users
        if os.environ.get("LITS_DEBUG"):
            traceback.print_exc()
        print(f"lits {args.command}: internal error: {type(exc).__name__}: {exc} "
              "(set LITS_DEBUG=1 for details and please report it)", file=sys.stderr)
        return 3


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
