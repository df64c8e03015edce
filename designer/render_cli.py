"""``lits render``: a PNG or SVG picture of a board, drawn by the designer's own painter.

The designer package adds this command to ``lits`` through the ``lits.commands``
entry-point group, because ``core`` never imports the designer.  Qt is imported
only when the command runs, so ``lits --help`` stays light and a machine
without PySide6 is told how to install it.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from core.cli import EXIT_OK, EXIT_UNREADABLE, EXIT_USAGE, CliError, cannot_write, load_board_arg, output_folder_problem

FORMATS = (".png", ".svg")
INSTALL_HINT = "python3 -m pip install PySide6-Essentials"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "render",
        help="draw a board as a PNG or SVG picture (needs PySide6)",
        description="Draw a board file as a picture, exactly as the designer shows it. "
                    "The format follows the output file's extension (.png or .svg). Needs PySide6; "
                    "runs without a display.",
    )
    p.add_argument("board", metavar="BOARD", help="board file (YAML)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="picture to write: FILE.png or FILE.svg")
    p.add_argument("--no-grid", action="store_true", help="leave out the grid lines")
    p.add_argument("--no-coords", action="store_true", help="leave out the column letters and row numbers")
    p.add_argument("--size", type=int, default=800, metavar="PX", help="width and height in pixels (default 800)")
    p.add_argument("--theme", choices=("light", "dark"), default="light", help="colours (default light)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    folder_problem = output_folder_problem(args.output, "board.png")
    if folder_problem is not None:
        raise CliError(folder_problem, EXIT_UNREADABLE)
    out = Path(args.output)
    ext = out.suffix.lower()
    if ext not in FORMATS:
        raise CliError(f"{args.output}: unknown picture type {ext or '(no extension)'!r}; use .png or .svg",
                       EXIT_USAGE)
    from designer.canvas.sizes import MAX_PICTURE_PX, MIN_PICTURE_PX

    if not MIN_PICTURE_PX <= args.size <= MAX_PICTURE_PX:
        raise CliError(f"--size {args.size}: a picture is {MIN_PICTURE_PX} to {MAX_PICTURE_PX} pixels wide",
                       EXIT_USAGE)
    folder = out.parent if str(out.parent) else Path(".")
    if not folder.is_dir():
        raise CliError(f"{args.output}: the folder {folder} does not exist", EXIT_UNREADABLE)
    board = load_board_arg(args.board)
    try:
        from designer.canvas.render import RenderOptions, render_png, render_svg
    except ImportError as exc:
        raise CliError(f"drawing pictures needs PySide6 ({exc}); install it with: {INSTALL_HINT}",
                       EXIT_UNREADABLE) from None
    options = RenderOptions(grid=not args.no_grid, coordinates=not args.no_coords, theme=args.theme)
    try:
        if ext == ".png":
            render_png(board, out, options, args.size)
        else:
            render_svg(board, out, options, args.size)
    except OSError as exc:
        raise cannot_write(args.output, exc) from None
    print(f"{os.fspath(out)}: {board.size}x{board.size} board, {args.size}x{args.size} px {ext[1:].upper()}")
    return EXIT_OK
