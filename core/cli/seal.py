"""``lits seal``, ``verify``, ``reveal-bundle`` and ``unseal``: commit to boards before the season, prove them after.

``verify`` is what players run at a match, so this module imports only the standard-library verifier at
start-up; the board files and the sealing code are imported by the commands that need them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from core.cli import (
    EXIT_DISK_FULL,
    EXIT_INTERRUPTED,
    EXIT_NOT_COMPARED,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    CliError,
    cannot_write,
    load_board_arg,
    output_folder_problem,
    summary,
)
from core.cli.exitcodes import disk_full_message, is_disk_full
from core.seal import PRIVATE_MAP_NAME, sealcheck
from core.seal.sealcheck import SEALED_SUFFIX, SUMS_NAME, FileBytes

if TYPE_CHECKING:
    from core.board.model import Board
    from core.seal.sealing import SealedBoard


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "seal",
        help=summary("seal"),
        description="Seal each board under a fresh random nonce into DIR/<slot>.lits-sealed and list its digest "
                    "in DIR/SHA256SUMS. Slots are dm1, dm2, ... in the order given (neutral names, so SHA256SUMS "
                    f"says nothing about the boards); DIR/{PRIVATE_MAP_NAME} notes which board is behind each "
                    "slot for you alone. Publish SHA256SUMS and the season fingerprint before the season; keep the "
                    "sealed files secret until each match and back them up: a lost sealed file can never be "
                    "proven. A folder that already holds SHA256SUMS is refused unless --append, because adding "
                    "to it changes the published fingerprint. Exit 0 on success, 1 when a board cannot be sealed "
                    "or the folder refuses it, 2 when a file cannot be read or written.",
    )
    p.add_argument("boards", nargs="+", metavar="BOARD", help="board files (YAML)")
    p.add_argument("--season", required=True, metavar="NAME", help="season id, e.g. 2026-spring")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the sealed files and SHA256SUMS")
    p.add_argument("--slot", action="append", default=None, metavar="ID",
                   help="slot id for each board in order (default: dm1, dm2, ... after the folder's last one)")
    p.add_argument("--append", action="store_true",
                   help="add to a season whose SHA256SUMS exists; its published fingerprint no longer matches")
    p.add_argument("--force", action="store_true", help="replace existing sealed files and published slots")
    p.set_defaults(func=run_seal)

    v = subparsers.add_parser(
        "verify",
        help=summary("verify"),
        description="Strictly check sealed board files and compare their SHA-256 with the published one. "
                    "Exit 0 when every file matches, 1 on a mismatch or a malformed file, 2 when a file or "
                    "argument cannot be used (a board file or a binary file instead of a sealed one too), 4 when "
                    "the files are well-formed but neither --sums nor --digest was given, so nothing was compared.",
    )
    v.add_argument("files", nargs="+", metavar="SEALED", help=f"sealed board files (*{SEALED_SUFFIX})")
    group = v.add_mutually_exclusive_group()
    group.add_argument("--sums", metavar=SUMS_NAME, help="the published SHA256SUMS file")
    group.add_argument("--digest", metavar="HEX", help="the published digest (64 hex digits; upper case is fine)")
    v.add_argument("--json", action="store_true", help="print one JSON object for machines")
    v.set_defaults(func=run_verify)

    b = subparsers.add_parser(
        "reveal-bundle",
        help=summary("reveal-bundle"),
        description="Verify the sealed files against SHA256SUMS, then copy both byte for byte into DIR together "
                    "with VERIFY.txt (commands for Linux, macOS, Windows and Python) and verify_sealed.py "
                    f"(a standard-library-only verifier). DIR is posted whole, so a folder holding {PRIVATE_MAP_NAME} "
                    "or sealed files not being revealed (the season folder) is refused.",
    )
    b.add_argument("files", nargs="+", metavar="SEALED", help="the sealed files to reveal")
    b.add_argument("--sums", required=True, metavar=SUMS_NAME, help="the SHA256SUMS published before the season")
    b.add_argument("--out", required=True, metavar="DIR", help="folder for the bundle")
    b.add_argument("--force", action="store_true", help="replace files in DIR that have other content")
    b.add_argument("--card", action="store_true",
                   help="add each revealed board's card (lits card: NAME-card.png, .md and .json) and say in "
                        "VERIFY.txt how anyone recomputes it from the revealed board and the seed")
    b.add_argument("--card-seed", type=int, default=0, metavar="S", help="the cards' seed (default 0)")
    b.add_argument("--workers", type=int, default=0, metavar="K",
                   help="worker processes for the cards (default 0 = all cores)")
    b.set_defaults(func=run_bundle)

    u = subparsers.add_parser(
        "unseal",
        help=summary("unseal"),
        description="Verify a sealed file strictly (and against a published digest if given) and save it as a "
                    "board file (YAML). Never overwrites without --force, and never writes over the sealed file "
                    f"or to a name ending in {SEALED_SUFFIX}.",
    )
    u.add_argument("file", metavar="SEALED", help="the sealed board file")
    u.add_argument("-o", "--output", required=True, metavar="BOARD", help="board file to write (YAML)")
    ugroup = u.add_mutually_exclusive_group()
    ugroup.add_argument("--sums", metavar=SUMS_NAME, help="also check against this SHA256SUMS")
    ugroup.add_argument("--digest", metavar="HEX", help="also check against this digest")
    u.add_argument("--force", action="store_true", help="overwrite an existing board file")
    u.set_defaults(func=run_unseal)




def _slot_ids(boards: list[str], slots: list[str] | None, out: str) -> list[str]:
    if slots is None:
        from core.seal.sealing import default_slots

        return default_slots(out, len(boards))
    if len(slots) != len(boards):
        raise CliError(f"{len(boards)} board(s) but {len(slots)} --slot id(s); give one --slot per board, "
                       "in order, or none", EXIT_USAGE)
    for slot in slots:
        if not sealcheck.ID_RE.match(slot):
            raise CliError(f"--slot: slot id {slot!r} is not allowed: use 1-64 of A-Z a-z 0-9 . _ - starting with "
                           "a letter or digit", EXIT_USAGE)
    return slots


def _old_fingerprint(out: str) -> str | None:
    try:
        return hashlib.sha256(Path(out, SUMS_NAME).read_bytes()).hexdigest()
    except OSError:
        return None


def _same_boards(paths: list[str], boards: list[Board], slots: list[str]) -> list[str]:
    from core.seal.sealing import repeated_boards

    return [f"{paths[i]}: warning: slot {slots[i]} holds the same board as slot {slots[j]} ({paths[j]}): the same "
            "grid and settings" for i, j in repeated_boards(boards)]


def run_seal(args: argparse.Namespace) -> int:
    from core.board.validation import Severity, validate
    from core.seal.sealing import SealError, SealInputError, seal_board, write_private_map, write_sealed

    if not sealcheck.ID_RE.match(args.season):
        raise CliError(f"season id {args.season!r} is not allowed: use 1-64 of A-Z a-z 0-9 . _ - starting with "
                       "a letter or digit", EXIT_USAGE)
    slots = _slot_ids(args.boards, args.slot, args.out)
    sealed: list[SealedBoard] = []
    boards: list[Board] = []
    warnings: list[str] = []
    for path, slot in zip(args.boards, slots, strict=True):
        board = load_board_arg(path)
        try:
            sealed.append(seal_board(board, args.season, slot))
        except SealError as exc:
            raise CliError(f"{path}: {exc}", EXIT_PROBLEMS) from None
        boards.append(board)
        warnings += [f"{path}: warning: {p.message}" for p in validate(board) if p.severity is Severity.WARNING]
    warnings += _same_boards(args.boards, boards, slots)
    old_fingerprint = _old_fingerprint(args.out)
    try:
        paths, sums_path, fingerprint = write_sealed(args.out, sealed, force=args.force, append=args.append)
    except SealError as exc:
        raise CliError(str(exc), EXIT_UNREADABLE if isinstance(exc, SealInputError) else EXIT_PROBLEMS) from None
    except OSError as exc:
        if is_disk_full(exc):
            raise CliError(f"{disk_full_message(args.out)}; nothing was changed", EXIT_DISK_FULL) from None
        raise CliError(f"{args.out}: cannot write ({exc.strerror or exc}); nothing was changed",
                       EXIT_UNREADABLE) from None
    for line in warnings:
        print(line)
    print(f"sealed {len(sealed)} board(s) for season {args.season} into {args.out}")
    for item, path, source in zip(sealed, paths, args.boards, strict=True):
        print(f"  slot {item.slot}: {path}  (from {source})")
        print(f"    SHA-256     {item.digest}")
        print(f"    check code  {item.check_code}")
    print(f"{SUMS_NAME}: {sums_path}")
    print(f"season fingerprint (SHA-256 of {SUMS_NAME}): {fingerprint}")
    if old_fingerprint is not None and old_fingerprint != fingerprint:
        print(f"{SUMS_NAME} CHANGED: the season fingerprint published before ({old_fingerprint}) no longer "
              f"matches. Publish the new {SUMS_NAME} and fingerprint and tell the players why they changed.")
    try:
        private = write_private_map(args.out, [(s.slot, src, b.name) for s, src, b in
                                               zip(sealed, args.boards, boards, strict=True)])
        print(f"which board is behind each slot: {private} (private: never publish it)")
    except OSError as exc:
        print(f"warning: {Path(args.out, PRIVATE_MAP_NAME)} could not be written ({exc.strerror or exc}); note "
              "which board is behind each slot yourself (listed above)", file=sys.stderr)
    print(f"Publish {SUMS_NAME} and the season fingerprint now. Keep the {SEALED_SUFFIX} files secret until each "
          "match (they contain the nonce) and BACK THEM UP: a lost sealed file can never be proven. Reveal every "
          "slot, spares too, at the end of the season.")
    return EXIT_OK


def read_sealed(path: str) -> FileBytes:
    """A sealed file's bytes, true size and digest; tests replace it to change the bytes between two reads."""
    from core.seal.sealing import read_sealed as read

    return read(path)


def run_verify(args: argparse.Namespace) -> int:
    reports, code = sealcheck.check_files(args.files, sums_path=args.sums, digest=args.digest)
    if args.json:
        files = [{k: v for k, v in r.items() if k != "text"} for r in reports]
        print(json.dumps({"ok": code == EXIT_OK, "compared": code != EXIT_NOT_COMPARED, "files": files}, indent=2))
    else:
        for report in reports:
            if report.get("readable") is False:
                print(f"lits verify: {report['text']}", file=sys.stderr)
            else:
                print(report["text"])
    if code == EXIT_NOT_COMPARED:
        print(f"lits verify: {sealcheck.NOT_COMPARED}", file=sys.stderr)
    return code


def run_bundle(args: argparse.Namespace) -> int:
    from core.seal.sealing import SealError, SealInputError, write_bundle

    try:
        extras, note = _cards(args) if getattr(args, "card", False) else ([], "")
        result = write_bundle(args.files, args.sums, args.out, force=args.force, extras=extras, verify_note=note)
    except SealError as exc:  # like verify: a file it cannot read is 2, one that does not verify is 1
        raise CliError(str(exc), EXIT_UNREADABLE if isinstance(exc, SealInputError) else EXIT_PROBLEMS) from None
    except OSError as exc:
        raise cannot_write(args.out, exc) from None
    print(f"reveal bundle in {result.folder}:")
    for path in result.files:
        print(f"  {path.name}")
    print(f"season fingerprint (SHA-256 of {SUMS_NAME}): {result.fingerprint}")
    return EXIT_OK


def _cards(args: argparse.Namespace) -> tuple[list[tuple[str, bytes]], str]:
    """Each revealed board's card (PNG, Markdown page, JSON) and the VERIFY.txt paragraph on recomputing them;
    measured before anything is written, so a refused or interrupted card leaves no half bundle."""
    import json

    from core.analysis.config import AnalysisCancelled
    from core.card.figures import CardError, measure_card
    from core.card.render import card_figure, figure_bytes, markdown
    from core.cli import card as card_command
    from core.seal.sealing import revealed_boards

    if not 0 <= args.workers <= 64:
        raise CliError(f"--workers {args.workers}: give 0 (all cores) or a count up to 64", EXIT_USAGE)
    extras: list[tuple[str, bytes]] = []
    lines = ["", "Board cards", "-----------", ""]
    for name, board in revealed_boards(args.files, args.sums):
        stem = name.removesuffix(SEALED_SUFFIX)
        cfg = card_command.config_for("standard", args.card_seed, args.workers)
        try:
            card = measure_card(board, cfg, f"{stem}.yaml")
        except CardError as exc:
            raise CliError(f"{name}: {exc}", EXIT_PROBLEMS) from None
        except AnalysisCancelled:
            raise CliError("interrupted before the cards were finished", EXIT_INTERRUPTED) from None
        png = f"{stem}-card.png"
        extras += [(png, figure_bytes(card_figure(card, board), "png")),
                   (f"{stem}-card.md", markdown(card, png, f"{stem}.yaml").encode("utf-8")),
                   (f"{stem}-card.json", (json.dumps(card, indent=2) + "\n").encode("utf-8"))]
        m = card["measured_at"]
        commit = f", commit {m['commit']}" if m.get("commit") else ""
        lines += [
            f"{stem}-card.png/.md/.json: measured by lits {m['version']}{commit}, effort {m['effort']}, "
            f"seed {m['seed']}.",
            "A card is a function of the board, its settings and the seed, so anyone can recompute it:",
            f"  lits unseal {name} -o {stem}.yaml",
            f"  lits card {stem}.yaml --seed {m['seed']} --json > mine.json",
            f"and compare it with {stem}-card.json: every figure must be equal (only elapsed_s, timings_s",
            "and measured_at.workers depend on the machine).",
            "",
        ]
    note = "\n".join(lines)
    return extras, note.encode("ascii", "replace").decode("ascii")


def published_digest(path: str, sums: str | None, digest: str | None, refused: str) -> str | None:
    """:func:`core.seal.sealing.published_digest` with its refusals as exit codes (``refused`` names what was not
    done, e.g. "not unsealed")."""
    from core.seal.sealing import SealError, SealInputError
    from core.seal.sealing import published_digest as listed_digest

    try:
        return listed_digest(path, sums, digest)
    except SealInputError as exc:
        raise CliError(str(exc), EXIT_UNREADABLE) from None
    except SealError as exc:
        raise CliError(f"{refused}:\n{exc}", EXIT_PROBLEMS) from None


def _same_file(a: str, b: str) -> bool:
    """Whether two names reach one file (a link, another spelling of the path); by the resolved path when one
    of them does not exist yet."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def unseal_target_problem(sealed: str, output: str) -> str | None:
    """Why ``unseal`` must not write its board to ``output``, even with --force; None when it may.

    The sealed file being read is the only proof of its board (a lost one can never be proven), and a board file
    named like a sealed one would be taken for one, or replace one.
    """
    example = str(Path(output).with_suffix(".yaml"))
    if example == output:
        example = str(Path(output).with_name(Path(output).stem + "-board.yaml"))
    if _same_file(sealed, output):
        return f"{output}: refusing to write over the sealed file being read; give another name, e.g. {example}"
    if output.lower().endswith(SEALED_SUFFIX):
        return (f"{output}: an editable board file must not carry the sealed file's extension {SEALED_SUFFIX}; "
                f"give another name, e.g. {example}")
    return None


def run_unseal(args: argparse.Namespace) -> int:
    from core.board.boardfile import save_board
    from core.seal.sealing import board_from_fields, verify_file

    folder_problem = output_folder_problem(args.output, Path(args.file).stem + ".yaml")
    if folder_problem is not None:
        raise CliError(folder_problem, EXIT_UNREADABLE)
    target_problem = unseal_target_problem(args.file, args.output)
    if target_problem is not None:
        raise CliError(target_problem, EXIT_USAGE)
    try:
        read = read_sealed(args.file)
    except IsADirectoryError:
        raise CliError(f"{args.file}: is a folder, not a sealed board file", EXIT_UNREADABLE) from None
    except OSError as exc:
        raise CliError(f"{args.file}: cannot be read ({exc.strerror or exc})", EXIT_UNREADABLE) from None
    binary = sealcheck.binary_message(args.file, read.head)
    if binary is not None:
        raise CliError(binary, EXIT_UNREADABLE)
    expected = published_digest(args.file, args.sums, args.digest, "not unsealed")
    try:
        result = verify_file(read, expected)
    except ValueError as exc:
        raise CliError(f"--digest: {exc}", EXIT_USAGE) from None
    if not result.ok or result.fields is None:
        wrong_kind = sealcheck.is_board_file(read.head)
        raise CliError(f"not unsealed:\n{sealcheck.describe(result, args.file)}",
                       EXIT_UNREADABLE if wrong_kind else EXIT_PROBLEMS)
    if os.path.exists(args.output) and not args.force:
        raise CliError(f"{args.output}: already exists; use --force to overwrite it", EXIT_PROBLEMS)
    try:
        save_board(board_from_fields(result.fields), args.output)
    except OSError as exc:
        raise cannot_write(args.output, exc) from None
    f = result.fields
    print(f"{args.file}: season {f.season}, slot {f.slot}, SHA-256 {result.digest}")
    print(f"saved as {args.output}")
    return EXIT_OK
