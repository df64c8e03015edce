"""Sealed boards: commit to a secret board before the season, reveal it at the match.

The format itself (render, strict parse, verification) lives in
:mod:`core.seal.sealcheck`, a standard-library-only file that is also shipped to
players as ``verify_sealed.py``; this module connects it to the app's
:class:`~core.board.model.Board`, writes sealed files and ``SHA256SUMS`` without ever
overwriting a commitment by accident, and assembles reveal bundles.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from core.board.fileio import atomic_write_bytes, atomic_write_text, fsync_dir, stage_bytes
from core.board.model import Board, GameParams, Symbol
from core.board.validation import Severity, validate
from core.seal import PRIVATE_MAP_NAME, SLOT_PREFIX, sealcheck
from core.seal.sealcheck import (
    SEALED_SUFFIX,
    SUMS_NAME,
    FileBytes,
    SealedFields,
    SealedFormatError,
    VerifyResult,
    check_code,
    digest_hex,
    parse,
    verify_bytes,
    verify_file,
)

__all__ = [
    "PRIVATE_MAP_NAME",
    "SEALED_SUFFIX",
    "SLOT_PREFIX",
    "SUMS_NAME",
    "BundleResult",
    "FileBytes",
    "SealError",
    "SealInputError",
    "SealedBoard",
    "SealedFormatError",
    "VerifyResult",
    "board_from_fields",
    "default_slots",
    "fields_from_board",
    "parse",
    "read_sealed",
    "revealed_boards",
    "seal_board",
    "sealed_file_name",
    "verify_bytes",
    "verify_file",
    "write_bundle",
    "write_private_map",
    "write_sealed",
]

NONCE_BYTES = 32
VERIFY_SCRIPT_NAME = "verify_sealed.py"
VERIFY_TEXT_NAME = "VERIFY.txt"


class SealError(ValueError):
    """A request the sealing code refuses; the message names the board, slot or file and the reason."""


class SealInputError(SealError):
    """An input that cannot be read as what it should be (a missing sealed file, an unreadable SHA256SUMS, a
    picture or a board file where a sealed file belongs) or an output path that cannot take the result (not a
    folder, a season folder for a bundle): the command line's exit 2, where a file that fails its check is exit 1."""


@dataclass(frozen=True)
class SealedBoard:
    """One sealed board: the canonical bytes and the digest that commits to them."""

    fields: SealedFields
    data: bytes

    @property
    def text(self) -> str:
        return self.data.decode("ascii")

    @property
    def digest(self) -> str:
        return digest_hex(self.data)

    @property
    def check_code(self) -> str:
        return check_code(self.digest)

    @property
    def slot(self) -> str:
        return self.fields.slot

    @property
    def file_name(self) -> str:
        return sealed_file_name(self.fields.slot)


def sealed_file_name(slot: str) -> str:
    return f"{slot}{SEALED_SUFFIX}"


def check_id(kind: str, value: str) -> str:
    """Season and slot ids are file names and sealed text, so only a safe charset is allowed."""
    if not sealcheck.ID_RE.match(value):
        raise SealError(f"{kind} id {value!r} is not allowed: use 1-64 of A-Z a-z 0-9 . _ - "
                        "starting with a letter or digit")
    return value


def fields_from_board(board: Board, season: str, slot: str, nonce_hex: str) -> SealedFields:
    p = board.params
    return SealedFields(
        size=board.size, supply=p.supply, first=p.first.value, pie=p.pie, turn_seconds=p.turn_time,
        bank_seconds=p.bank, season=season, slot=slot, nonce=nonce_hex, rows=tuple(board.rows()),
    )


def published_digest(path: str, sums: str | None, digest: str | None) -> str | None:
    """The digest a sealed file's bytes must match: ``digest`` as given, or the one ``sums`` lists for it.

    With ``sums`` the file on disk is checked against the list first (SealInputError when a file cannot be read,
    SealError with the checker's words when it fails); the listed digest is returned as well, because the bytes
    about to be used must be held to the same published digest."""
    if sums is None:
        return digest
    reports, code = sealcheck.check_files([path], sums_path=sums)
    if code == sealcheck.EXIT_UNREADABLE:
        raise SealInputError(str(reports[0]["text"]))
    if code != sealcheck.EXIT_OK:
        raise SealError(str(reports[0]["text"]))
    listed = reports[0].get("expected")
    return listed if isinstance(listed, str) else None


def repeated_boards(boards: Sequence[Board]) -> list[tuple[int, int]]:
    """``(i, j)`` for each board ``i`` that plays the same game as the earlier board ``j`` (the same grid and
    settings; names and notes aside).  Why: a board given twice by mistake takes a slot meant for another, and
    nobody could tell before the reveal."""
    first: dict[tuple[object, ...], int] = {}
    pairs = []
    for i, board in enumerate(boards):
        j = first.setdefault((board.size, tuple(board.cells), board.params), i)
        if j != i:
            pairs.append((i, j))
    return pairs


def seal_board(board: Board, season: str, slot: str, nonce: bytes | None = None) -> SealedBoard:
    """Seal one board under a fresh 256-bit nonce.

    ``nonce`` exists for known-answer tests only: a real seal must always draw a
    new one, because boards have so little entropy that an unsalted or reused
    salt lets anyone brute-force the board from its digest.
    """
    check_id("season", season)
    check_id("slot", slot)
    errors = [p for p in validate(board) if p.severity is Severity.ERROR]
    if errors:
        shown = "; ".join(p.message for p in errors[:5]) + (f"; and {len(errors) - 5} more" if len(errors) > 5 else "")
        why = ("is not rotationally anti-symmetric" if any(p.code == "antisymmetry" for p in errors)
               else "cannot be played in a match")
        raise SealError(f"slot {slot}: the board {why} and cannot be sealed: {shown}")
    if nonce is None:
        nonce = secrets.token_bytes(NONCE_BYTES)
    if len(nonce) != NONCE_BYTES:
        raise SealError(f"a nonce is {NONCE_BYTES} random bytes, not {len(nonce)}")
    fields = fields_from_board(board, season, slot, nonce.hex())
    return SealedBoard(fields=fields, data=sealcheck.render(fields))


def board_from_fields(fields: SealedFields) -> Board:
    """The editable board a sealed file describes (its name records where it came from)."""
    params = GameParams(supply=fields.supply, first=Symbol(fields.first), pie=fields.pie,
                        turn_time=fields.turn_seconds, bank=fields.bank_seconds)
    return Board.from_rows(list(fields.rows), params=params, name=f"{fields.season} {fields.slot}")


def read_sealed(path: str | os.PathLike[str]) -> FileBytes:
    """A sealed file's bytes (the first ones of an oversize file, with its true size and whole-file digest, for
    :func:`verify_file`); OSError is left to the caller, which knows the exit code."""
    return sealcheck.read_file(os.fspath(path))


def read_sums(path: Path) -> tuple[dict[str, str], bytes]:
    """{file name: lower-case digest} in file order plus the raw bytes; raises SealError naming the line.

    The same reader and parser as the verifier (``sealcheck.read_sums_file``), so sealing, bundling and
    verifying can never disagree about what a SHA256SUMS file lists.
    """
    try:
        return sealcheck.read_sums_file(str(path))
    except OSError as exc:
        raise SealInputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise SealInputError(str(exc)) from None


def _existing_sealed(out_dir: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Nonces and seasons of sealed files already in the folder: a nonce is never used twice, seasons never mix."""
    nonces: dict[str, str] = {}
    seasons: dict[str, str] = {}
    if not out_dir.is_dir():
        return nonces, seasons
    for path in sorted(out_dir.glob(f"*{SEALED_SUFFIX}")):
        try:
            data = read_sealed(path).head
        except OSError:
            continue
        nonce = re.search(rb"^nonce ([0-9a-f]{64})$", data, re.MULTILINE)
        if nonce:
            nonces[nonce.group(1).decode("ascii")] = path.name
        season = re.search(rb"^season (\S+)$", data, re.MULTILINE)
        if season:
            seasons[path.name] = season.group(1).decode("ascii", errors="replace")
    return nonces, seasons


def default_slots(out_dir: str | os.PathLike[str], count: int) -> list[str]:
    """``count`` neutral slot ids after the highest ``dmN`` already in the folder or its SHA256SUMS."""
    folder = Path(out_dir)
    names: set[str] = set()
    if folder.is_dir():
        names.update(p.name for p in folder.iterdir())
        sums_path = folder / SUMS_NAME
        if sums_path.is_file():
            with contextlib.suppress(SealError):
                names.update(Path(name).name for name in read_sums(sums_path)[0])
    pattern = re.compile(f"^{SLOT_PREFIX}([0-9]{{1,9}}){re.escape(SEALED_SUFFIX)}$", re.IGNORECASE)
    used = [int(m.group(1)) for m in map(pattern.match, names) if m]
    start = max(used, default=0) + 1
    return [f"{SLOT_PREFIX}{start + i}" for i in range(count)]


def write_sealed(out_dir: str | os.PathLike[str], sealed_list: Sequence[SealedBoard],
                 force: bool = False, append: bool = False) -> tuple[list[Path], Path, str]:
    """Write each sealed file and merge its line into ``SHA256SUMS``; returns (paths, sums path, fingerprint).

    Everything is checked before anything is written, so a refusal leaves the folder untouched: an existing
    ``SHA256SUMS`` may already be published, so changing it needs ``append`` (``force`` alone is not enough:
    replacing a slot changes the fingerprint too); an existing sealed file, or a slot already listed with
    another digest, is a published commitment and is only replaced with ``force``.

    Every commitment stays revealable whatever fails: the sealed files and the new ``SHA256SUMS`` are
    written completely under temporary names first; then ``SHA256SUMS`` is renamed into place and only
    after that the sealed files, so a listed digest always has its complete file and a replaced sealed
    file is removed only once its successor is listed.
    """
    folder = Path(out_dir)
    if folder.exists() and not folder.is_dir():
        raise SealInputError(f"{folder}: exists and is not a folder")
    if not sealed_list:
        raise SealError("nothing to seal")
    # Windows and macOS file systems ignore case, so slots that differ only in case would be one file there.
    slots = [s.slot.lower() for s in sealed_list]
    dupes = sorted({s.slot for s in sealed_list if slots.count(s.slot.lower()) > 1})
    if dupes:
        raise SealError(f"slot ids must be unique (ignoring case, as Windows and macOS file names do); given more "
                        f"than once: {', '.join(dupes)}")
    nonces = [s.fields.nonce for s in sealed_list]
    if len(set(nonces)) != len(nonces):
        raise SealError("two sealed boards share a nonce; every board needs its own fresh nonce")
    seasons = sorted({s.fields.season for s in sealed_list})
    if len(seasons) > 1:
        raise SealError(f"one folder holds one season; got {', '.join(seasons)}")
    sums_path = folder / SUMS_NAME
    listed: dict[str, str] = {}
    sums_raw = b""
    problems: list[str] = []
    if sums_path.exists():
        listed, sums_raw = read_sums(sums_path)
        if not append:
            problems.append(f"{sums_path}: already exists, and its season fingerprint "
                            f"({hashlib.sha256(sums_raw).hexdigest()[:16]}...) may already be published; sealing "
                            "into this folder would change it. Seal into a new folder, or add to this season "
                            "with --append (and then publish the new SHA256SUMS and fingerprint)")
    used, old_seasons = _existing_sealed(folder)
    for name, season in old_seasons.items():
        if season != seasons[0] and not (force and name in {s.file_name for s in sealed_list}):
            problems.append(f"{folder / name}: belongs to season {season}, not {seasons[0]}; "
                            "one folder (and one SHA256SUMS) holds one season")
            break
    on_disk = {p.name for p in folder.iterdir()} if folder.is_dir() else set()
    for sealed in sealed_list:
        path = folder / sealed.file_name
        twins = sorted(name for name in on_disk | set(listed)
                       if name != sealed.file_name and name.lower() == sealed.file_name.lower())
        if twins:
            problems.append(f"{folder / twins[0]}: slot {sealed.slot} differs from it only in case, which Windows "
                            "and macOS file names ignore; choose another slot id")
        if path.exists() and not force:
            problems.append(f"{path}: already exists (a sealed board is a commitment; use --force to replace it)")
        old = listed.get(sealed.file_name)
        if old is not None and old != sealed.digest and not force:
            problems.append(f"{sums_path}: slot {sealed.slot} is already listed with digest {old}; "
                            "replacing a published commitment needs --force")
        if sealed.fields.nonce in used and used[sealed.fields.nonce] != sealed.file_name:
            problems.append(f"slot {sealed.slot}: its nonce is already used by {used[sealed.fields.nonce]}")
    if problems:
        raise SealError("\n".join(problems))
    folder.mkdir(parents=True, exist_ok=True)
    sums = merge_sums(sums_raw, sealed_list)
    staged: list[tuple[Path, Path]] = []
    staged_sums: Path | None = None
    try:
        for sealed in sealed_list:
            # secret until the match: 0600 keeps other accounts on the machine out
            staged.append((stage_bytes(folder / sealed.file_name, sealed.data, mode=0o600), folder / sealed.file_name))
        staged_sums = stage_bytes(sums_path, sums)
        os.replace(staged_sums, sums_path)  # the commit: from here on every listed digest has its complete file
    except BaseException:
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if staged_sums is not None:
            with contextlib.suppress(OSError):
                os.unlink(staged_sums)
        raise
    for index, (tmp, target) in enumerate(staged):
        try:
            os.replace(tmp, target)
        except OSError as exc:
            left = ", ".join(f"{t} -> {g.name}" for t, g in staged[index:])
            raise SealError(f"{SUMS_NAME} is updated, but renaming the sealed files failed ({exc.strerror or exc}); "
                            f"they are complete, so rename them by hand now: {left}") from None
    fsync_dir(folder)
    return [target for _, target in staged], sums_path, hashlib.sha256(sums).hexdigest()


def write_private_map(out_dir: str | os.PathLike[str], rows: Sequence[tuple[str, str, str]]) -> Path:
    """Add ``(slot, board file, board name)`` rows to the host's private slot map; returns its path.

    The map is what lets the host find the right sealed file at each match; it is never listed in
    SHA256SUMS, and it is private because it names the boards.
    """
    import datetime

    path = Path(out_dir) / PRIVATE_MAP_NAME
    old = path.read_text(encoding="utf-8") if path.exists() else (
        "# PRIVATE: which board is behind each slot. Do not publish this file; SHA256SUMS does not list it.\n"
        "# slot<TAB>sealed at (UTC)<TAB>board file<TAB>board name\n")
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    def clean(text: str) -> str:  # one line per slot, whatever the board name or file name holds
        return " ".join(text.encode("utf-8", "backslashreplace").decode("utf-8").split())

    lines = [f"{clean(slot)}\t{stamp}\t{clean(board_file)}\t{clean(name)}\n" for slot, board_file, name in rows]
    atomic_write_text(path, old + "".join(lines))
    with contextlib.suppress(OSError):
        os.chmod(path, 0o600)
    return path


def merge_sums(raw: bytes, sealed_list: Sequence[SealedBoard]) -> bytes:
    """Keep every existing line byte for byte, replace the lines of re-sealed slots, append new slots.

    Rewriting the whole file would change the published season fingerprint for
    no reason, e.g. if the host's copy used ``*name`` or CRLF lines.
    """
    lines = raw.decode("ascii").splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    new = {s.file_name: s.digest for s in sealed_list}
    out = []
    for line in lines:
        parsed = sealcheck.parse_sums_line(line)
        name = None if parsed is None else parsed[1]
        if name is not None and name in new:
            digest = new.pop(name)
            out.append(f"{digest}  {name}\n")
        else:
            out.append(line)
    out.extend(f"{digest}  {name}\n" for name, digest in new.items())
    return "".join(out).encode("ascii")


@dataclass(frozen=True)
class BundleResult:
    folder: Path
    files: list[Path]
    fingerprint: str


def verify_script_source() -> bytes:
    """The exact bytes of core/seal/sealcheck.py, shipped as the players' verifier."""
    return Path(sealcheck.__file__).read_bytes()


def verify_text(items: Sequence[tuple[str, SealedFields, str]], fingerprint: str) -> str:
    """VERIFY.txt: how a player checks each revealed file with stock tools on every OS."""
    first_name = items[0][0]
    season = items[0][1].season
    lines = [
        "How to check the revealed LITS board(s) yourself",
        "=================================================",
        "",
        f"Season: {season}",
        f"Season fingerprint (SHA-256 of {SUMS_NAME}): {fingerprint}",
        f"First make sure this {SUMS_NAME} is the one the host published before the season: its SHA-256",
        "must equal the season fingerprint that was published then (not just the line above).",
        "",
    ]
    for name, fields, digest in items:
        lines += [
            f"File: {name}   (season {fields.season}, slot {fields.slot}, {fields.size}x{fields.size})",
            f"  expected SHA-256: {digest}",
            f"  check code:       {check_code(digest)}",
            "",
        ]
    lines += [
        "Linux:",
        f"  sha256sum -c --ignore-missing {SUMS_NAME}",
        f"  sha256sum {SUMS_NAME}            (compare with the season fingerprint)",
        "macOS:",
        f"  shasum -a 256 -c --ignore-missing {SUMS_NAME}",
        f"  (an older shasum without --ignore-missing: shasum -a 256 -c {SUMS_NAME}; slots not revealed",
        "  yet then say 'FAILED open or read', which is expected; the files in this folder must say OK)",
        "Windows (Command Prompt):",
        f"  certutil -hashfile {first_name} SHA256",
        "Windows (PowerShell):",
        f"  Get-FileHash {first_name} -Algorithm SHA256",
        "  (Windows prints the digest in upper case and certutil may space it out; compare the digits,",
        "  ignoring case and spaces, with the expected SHA-256 above)",
        "Python 3 (any system, nothing to install; also explains damage and prints the board):",
        f"  python3 {VERIFY_SCRIPT_NAME} {first_name} --sums {SUMS_NAME}",
        "  python3 -c \"import hashlib,sys;print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())\" "
        f"{first_name}",
        "",
        "Keep the sealed file byte for byte: do not open and save it in an editor or let git or e-mail",
        "convert its line endings (in git: `*.lits-sealed -text` in .gitattributes). Any changed byte,",
        "even a line ending, changes the digest.",
        "",
    ]
    return "\n".join(lines)


SHOWN_NAMES = 5
"""Sealed files named in a refusal; the rest are counted."""


def bundle_folder_problem(folder: Path, revealed: Sequence[str]) -> str | None:
    """Why a reveal bundle must not go into ``folder``; None when it may.

    The host posts the bundle folder whole, so a folder holding the private slot map, or sealed files other than
    ``revealed`` (the season folder), would publish boards before their match. Sealed files in a folder that
    already holds a bundle (its VERIFY.txt, and no slot map) were revealed by that bundle.
    """
    if not folder.is_dir():
        return None
    names = sorted(p.name for p in folder.iterdir())
    season = PRIVATE_MAP_NAME in names
    held = [PRIVATE_MAP_NAME] if season else []
    earlier_bundle = VERIFY_TEXT_NAME in names and not season
    hidden = [] if earlier_bundle else [n for n in names if n.lower().endswith(SEALED_SUFFIX) and n not in revealed]
    if hidden:
        shown = ", ".join(hidden[:SHOWN_NAMES]) + (
            f" and {len(hidden) - SHOWN_NAMES} more" if len(hidden) > SHOWN_NAMES else "")
        held.append(f"the unrevealed sealed file{'s' if len(hidden) > 1 else ''} {shown}")
    if not held:
        return None
    stems = [Path(name).stem for name in revealed]
    new_name = "reveal-" + (stems[0] if len(stems) == 1 else f"{stems[0]}-{stems[-1]}")
    example = os.path.join(os.path.dirname(os.path.normpath(folder)), new_name) + os.sep
    return (f"{folder}: this folder holds {' and '.join(held)}; choose a new folder for the bundle, "
            f"e.g. {example}")


def revealed_boards(sealed_paths: Sequence[str | os.PathLike[str]],
                    sums_path: str | os.PathLike[str]) -> list[tuple[str, Board]]:
    """(file name, board) of each sealed file, verified against SHA256SUMS exactly as :func:`write_bundle` does
    (so a reveal can measure what it reveals before it writes anything)."""
    items, _copies, _raw = _verified(sealed_paths, Path(sums_path), Path("."))
    return [(name, board_from_fields(fields)) for name, fields, _digest in items]


def _verified(sealed_paths: Sequence[str | os.PathLike[str]], sums_file: Path, folder: Path) -> tuple[
        list[tuple[str, SealedFields, str]], list[tuple[Path, bytes]], bytes]:
    """Each sealed file verified against SHA256SUMS: (name, fields, digest), its copy into ``folder``, the sums."""
    listed, sums_raw = read_sums(sums_file)
    items: list[tuple[str, SealedFields, str]] = []
    copies: list[tuple[Path, bytes]] = []
    for raw_path in sealed_paths:
        path = Path(raw_path)
        try:
            read = read_sealed(path)
        except OSError as exc:
            raise SealInputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
        binary = sealcheck.binary_message(str(path), read.head)
        if binary is not None:
            raise SealInputError(binary)
        if sealcheck.is_board_file(read.head):
            raise SealInputError(f"{path} is an editable board file, not a sealed one: seal it with `lits seal`")
        expected = listed.get(path.name)
        if expected is None:
            raise SealError(f"{path}: {path.name} is not listed in {sums_file}")
        result = verify_file(read, expected)
        if not result.ok or result.fields is None or result.digest is None:
            why = "; ".join(p.text() for p in result.problems)
            raise SealError(f"{path}: does not verify against {sums_file}: {why}")
        items.append((path.name, result.fields, result.digest))
        copies.append((folder / path.name, read.head))  # verified, so the whole file
    if len({f.season for _, f, _ in items}) > 1:
        raise SealError("the files belong to different seasons; make one bundle per season")
    return items, copies, sums_raw


def write_bundle(sealed_paths: Sequence[str | os.PathLike[str]], sums_path: str | os.PathLike[str],
                 out_dir: str | os.PathLike[str], force: bool = False,
                 extras: Sequence[tuple[str, bytes]] = (), verify_note: str = "") -> BundleResult:
    """Copy the revealed files and SHA256SUMS byte for byte and add VERIFY.txt and the verify script.

    Every file is verified against SHA256SUMS first: a bundle that does not
    check out would only make the host look like a cheat. Existing files in the
    folder with identical bytes are fine; different ones need ``force``; a folder
    that would publish other boards (:func:`bundle_folder_problem`) is refused.
    ``extras`` (name, bytes) are more files for the bundle (the board cards), written the same way, and
    ``verify_note`` (ASCII) ends VERIFY.txt (how to recompute them).
    """
    folder = Path(out_dir)
    items, copies, sums_raw = _verified(sealed_paths, Path(sums_path), folder)
    fingerprint = hashlib.sha256(sums_raw).hexdigest()
    copies.append((folder / SUMS_NAME, sums_raw))
    copies.append((folder / VERIFY_SCRIPT_NAME, verify_script_source()))
    copies += [(folder / name, data) for name, data in extras]
    verify_txt = verify_text(items, fingerprint) + verify_note
    copies.append((folder / VERIFY_TEXT_NAME, verify_txt.encode("ascii")))
    if folder.exists() and not folder.is_dir():
        raise SealInputError(f"{folder}: exists and is not a folder")
    leak = bundle_folder_problem(folder, [name for name, _, _ in items])
    if leak is not None:
        raise SealInputError(leak)
    clashes = []
    for target, data in copies:
        if target.exists() and not force:
            try:
                same = target.read_bytes() == data
            except OSError:
                same = False
            if not same:
                clashes.append(str(target))
    if clashes:
        raise SealError(f"would overwrite files with different content (use --force): {', '.join(clashes)}")
    folder.mkdir(parents=True, exist_ok=True)
    for target, data in copies:
        if target.name == VERIFY_TEXT_NAME:
            atomic_write_text(target, verify_txt)
        else:
            atomic_write_bytes(target, data)
    return BundleResult(folder=folder, files=[t for t, _ in copies], fingerprint=fingerprint)

