"""``lits boards``: list the boards shipped with the tool and copy them where a host can edit them.

An installed package keeps its boards inside site-packages (``core/boards``, see
``core.board.boardfile.bundled_boards_dir``), where nobody should edit them and few hosts would look.  Light: it
reads the board files and imports no engine.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from core.cli import EXIT_OK, EXIT_PROBLEMS, EXIT_UNREADABLE, EXIT_USAGE, CliError, cannot_write, read_board, summary


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "boards",
        help=summary("boards"),
        description="List the boards that come with LITS Board Studio, or copy them into a folder to edit, "
                    "analyse and seal: `lits boards` lists them, `lits boards --copy-to FOLDER` copies all of "
                    "them, `lits boards dense --copy-to FOLDER` only the one named. A file that is already in "
                    "the folder is never overwritten without --force (and then nothing is copied).",
    )
    p.add_argument("names", nargs="*", metavar="NAME", help="boards to copy, by file name with or without .yaml "
                                                             "(default: all)")
    p.add_argument("--copy-to", metavar="FOLDER", help="copy the boards into FOLDER (made if missing)")
    p.add_argument("--force", action="store_true", help="overwrite files of the same name in FOLDER")
    p.add_argument("--json", action="store_true", help="print one JSON object for machines")
    p.set_defaults(func=run)


def bundled() -> tuple[Path, list[Path]]:
    """The folder of the shipped boards and its board files, by name."""
    from core.board.boardfile import bundled_boards_dir

    folder = bundled_boards_dir()
    if folder is None:
        raise CliError("no bundled boards were found (the installation is incomplete: reinstall the package)",
                       EXIT_UNREADABLE)
    return folder, sorted(folder.glob("*.yaml"))


def chosen(files: list[Path], names: list[str]) -> list[Path]:
    """The files the names ask for (all when none is given); an unknown name is refused with the known ones."""
    if not names:
        return files
    by_name = {f.stem: f for f in files}
    unknown = [n for n in names if n.removesuffix(".yaml") not in by_name]
    if unknown:
        raise CliError(f"no bundled board named {', '.join(unknown)}; the bundled boards are "
                       f"{', '.join(by_name)}", EXIT_USAGE)
    return [by_name[n.removesuffix(".yaml")] for n in dict.fromkeys(names)]


def describe(path: Path) -> dict[str, object]:
    """One board's line: its file, size and name (a board that cannot be read says why)."""
    board, _code, details = read_board(str(path))
    if board is None:
        return {"file": path.name, "path": str(path), "problem": "; ".join(details)}
    return {"file": path.name, "path": str(path), "size": board.size, "name": board.name}


def copy(files: list[Path], folder: str, force: bool) -> list[str]:
    """Copy ``files`` into ``folder``: all of them, or none when one would overwrite a file without ``force``."""
    from core.board.fileio import atomic_write_bytes

    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise CliError(f"{folder}: is a file; --copy-to takes a folder", EXIT_USAGE)
    there = [str(target / f.name) for f in files if (target / f.name).exists()]
    if there and not force:
        raise CliError(f"{', '.join(there)}: already exist{'s' if len(there) == 1 else ''}; nothing was copied "
                       "(use --force to overwrite)", EXIT_PROBLEMS)
    written: list[str] = []
    for f in files:
        out = target / f.name
        try:
            target.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(out, f.read_bytes())
        except OSError as exc:
            raise cannot_write(str(out), exc) from None
        written.append(str(out))
    return written


def run(args: argparse.Namespace) -> int:
    folder, files = bundled()
    picked = chosen(files, args.names)
    if args.copy_to is None:
        if args.names:
            raise CliError("naming boards copies them: add --copy-to FOLDER", EXIT_USAGE)
        rows = [describe(f) for f in picked]
        if args.json:
            print(json.dumps({"folder": str(folder), "boards": rows}, indent=2))
            return EXIT_OK
        print(f"The boards that come with LITS Board Studio ({folder}):")
        for row in rows:
            what = (f"{row['size']}x{row['size']}  {row['name']}" if "problem" not in row
                    else f"cannot be read: {row['problem']}")
            print(f"  {Path(str(row['file'])).stem:<16} {what}")
        print("Copy them into a folder to edit: lits boards --copy-to FOLDER (or name some: "
              "lits boards dense --copy-to FOLDER)")
        return EXIT_OK
    written = copy(picked, args.copy_to, args.force)
    if args.json:
        print(json.dumps({"folder": str(folder), "copied": written}, indent=2))
    else:
        for path in written:
            print(f"copied {path}")
        print(f"open one with: lits-designer {os.path.join(args.copy_to, picked[0].name)}")
    return EXIT_OK
