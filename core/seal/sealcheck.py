#!/usr/bin/env python3
"""Verify a sealed Battle of LITS board: is this file exactly the board the host committed to?

This one file is the only definition of the sealed-board format (version 1). The
LITS Board Studio imports it, and every reveal bundle carries a verbatim copy
named ``verify_sealed.py``, so players check a reveal with nothing but Python
3.7 or newer (standard library only, no install; so no 3.10-only syntax here):

    python3 verify_sealed.py BOARD.lits-sealed --sums SHA256SUMS
    python3 verify_sealed.py BOARD.lits-sealed --digest 64HEX

The commitment is the SHA-256 of the sealed file's exact bytes, so the same check
also works with sha256sum, shasum, certutil or Get-FileHash. This script adds a
strict parse (every line must match its exact pattern, the file must re-render to
the same bytes) and explains damage such as CRLF line endings, a byte-order mark
or trailing spaces instead of only saying "mismatch".

Exit status: 0 every file matches, 1 a mismatch or a malformed file, 2 a file or
argument that cannot be used (an editable board file or a binary file, such as a
picture, given instead of a sealed one too), 4 every file is well-formed but no digest
was given to compare. A new meaning of the format gets a new version
line; the version 1 rules here must never change.
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import hmac
import json
import os
import re
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

FORMAT_NAME = "lits-sealed-board"
FORMAT_VERSION = 1
VERSION_LINE = f"{FORMAT_NAME} v{FORMAT_VERSION}"
GAME = "battle-of-lits"
SEALED_SUFFIX = ".lits-sealed"
SUMS_NAME = "SHA256SUMS"

MAX_SEALED_BYTES = 4096
"""The largest v1 file (26x26, longest ids) is 1036 bytes; anything much bigger is not a sealed board."""
MAX_SUMS_BYTES = 1024 * 1024

# The board model's own limits (tests/seal pins them equal): this file travels alone in reveal bundles, so it
# spells them out instead of importing core.board.
MIN_SIZE = 4
MAX_SIZE = 26
MAX_SUPPLY = 99
MAX_CLOCK_SECONDS = 24 * 3600
PIECE_TYPES = ("L", "I", "T", "S")
COLUMN_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
ID_RE = re.compile(f"^{ID_PATTERN}$")
HEX64_RE = re.compile(r"^[0-9a-f]{64}$")
_NUM = r"(0|[1-9][0-9]{0,5})"
# As sha256sum -c reads it: leading blanks, the digest, one space, then "*" (binary), " " (text) or the name
# itself (a line pasted from a web page often keeps only one space).
_SUMS_LINE_RE = re.compile(r"^[ \t]*([0-9A-Fa-f]{64}) [ *]?(.+)$")
_SEALED_HEAD_RE = re.compile(rb"^(?:\xef\xbb\xbf)?lits-sealed-board v[0-9]+\r?\n")
_BOARD_FILE_RE = re.compile(rb"(?m)^(?:grid|version|name|author|notes|first|pie|supply|clock)[ \t]*:")
# Words only a sealed board holds: a file with one of them is a damaged sealed board, whatever else is broken.
_SEALED_WORDS_RE = re.compile(rb"lits-sealed|battle-of|of-lits|supply L=|-seconds [0-9]|nonce [0-9a-f]{8}")

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_UNREADABLE = 2
EXIT_NOT_COMPARED = 4
EXIT_DISK_FULL = 5
"""The same codes as ``lits verify`` (``core.cli.exitcodes``; this file stays standalone)."""
NOT_COMPARED = ("nothing was compared: the files are well-formed, but without --sums SHA256SUMS or --digest HEX "
                "nobody can tell whether they are the committed ones")

# Each header line in its fixed order: key, exact pattern of the whole line, what a valid line looks like.
_HEADER: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("game", re.compile(f"^game ({GAME})$"), f"game {GAME}"),
    ("size", re.compile(f"^size {_NUM}$"), f"size N (an even number {MIN_SIZE}..{MAX_SIZE})"),
    ("supply", re.compile(f"^supply L={_NUM} I={_NUM} T={_NUM} S={_NUM}$"),
     f"supply L=n I=n T=n S=n (each 0..{MAX_SUPPLY})"),
    ("first", re.compile(r"^first (O|X)$"), "first O or first X"),
    ("pie", re.compile(r"^pie (yes|no)$"), "pie yes or pie no"),
    ("turn-seconds", re.compile(f"^turn-seconds {_NUM}$"), f"turn-seconds N (0..{MAX_CLOCK_SECONDS})"),
    ("bank-seconds", re.compile(f"^bank-seconds {_NUM}$"), f"bank-seconds N (0..{MAX_CLOCK_SECONDS})"),
    ("season", re.compile(f"^season ({ID_PATTERN})$"),
     "season ID (1-64 of A-Z a-z 0-9 . _ -, starting with a letter or digit)"),
    ("slot", re.compile(f"^slot ({ID_PATTERN})$"),
     "slot ID (1-64 of A-Z a-z 0-9 . _ -, starting with a letter or digit)"),
    ("nonce", re.compile(r"^nonce ([0-9a-f]{64})$"), "nonce followed by 64 lower-case hex digits"),
)
HEADER_LINES = 1 + len(_HEADER)
"""Lines before the first grid row (the version line plus the parameters)."""


class FieldError(ValueError):
    """Field values that no v1 sealed file can hold."""


@dataclass(frozen=True)
class SealedFields:
    """Everything a v1 sealed file says; constructing one checks every rule, so render() never emits a bad file."""

    size: int
    supply: tuple[int, int, int, int]
    first: str
    pie: bool
    turn_seconds: int
    bank_seconds: int
    season: str
    slot: str
    nonce: str
    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        problems = field_problems(self)
        if problems:
            raise FieldError("; ".join(problems))


def field_problems(f: SealedFields) -> list[str]:
    """Every rule a v1 file's fields break; an empty list means the fields can be sealed."""
    out: list[str] = []
    if isinstance(f.size, bool) or not isinstance(f.size, int) or not MIN_SIZE <= f.size <= MAX_SIZE or f.size % 2:
        out.append(f"size {f.size!r} is not an even number {MIN_SIZE}..{MAX_SIZE}")
    if len(f.supply) != len(PIECE_TYPES):
        out.append(f"supply needs {len(PIECE_TYPES)} counts (L, I, T, S), got {len(f.supply)}")
    else:
        for name, count in _named(f.supply):
            if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_SUPPLY:
                out.append(f"supply of {name} must be 0..{MAX_SUPPLY}, not {count!r}")
    if f.first not in ("O", "X"):
        out.append(f"first player must be O or X, not {f.first!r}")
    if not isinstance(f.pie, bool):
        out.append(f"pie must be yes or no, not {f.pie!r}")
    for name, seconds in (("turn time", f.turn_seconds), ("bank", f.bank_seconds)):
        if isinstance(seconds, bool) or not isinstance(seconds, int) or not 0 <= seconds <= MAX_CLOCK_SECONDS:
            out.append(f"{name} must be 0..{MAX_CLOCK_SECONDS} seconds, not {seconds!r}")
    for name, value in (("season", f.season), ("slot", f.slot)):
        if not isinstance(value, str) or not ID_RE.match(value):
            out.append(f"{name} id {value!r} must be 1-64 of A-Z a-z 0-9 . _ - starting with a letter or digit")
    if not isinstance(f.nonce, str) or not HEX64_RE.match(f.nonce):
        out.append("nonce must be 64 lower-case hex digits (32 random bytes)")
    if out:
        return out
    if len(f.rows) != f.size:
        return [f"a {f.size}x{f.size} board needs {f.size} grid rows, got {len(f.rows)}"]
    for number, row in enumerate(f.rows, start=1):
        if len(row) != f.size or any(ch not in ".OX" for ch in row):
            out.append(f"grid row {number} must be {f.size} characters of '.', 'O', 'X'")
    if not out:
        out.extend(broken_pairs(f.rows))
    return out


def _named(supply: Sequence[int]) -> list[tuple[str, int]]:
    """Pair piece names with counts; zip(strict=) would need Python 3.10, and players may have 3.8."""
    if len(supply) != len(PIECE_TYPES):
        raise ValueError(f"supply needs {len(PIECE_TYPES)} counts (L, I, T, S), got {len(supply)}")
    return list(zip(PIECE_TYPES, supply))  # noqa: B905 - length checked above


def cell_name(row: int, col: int) -> str:
    return f"{COLUMN_LETTERS[col]}{row + 1}"


def broken_pairs(rows: Sequence[str]) -> list[str]:
    """Plain words for every cell pair that breaks rotational anti-symmetry (O faces X, empty faces empty)."""
    n = len(rows)
    mirror = {".": ".", "O": "X", "X": "O"}
    out = []
    for index in range(n * n // 2):
        r, c = divmod(index, n)
        r2, c2 = n - 1 - r, n - 1 - c
        a, b = rows[r][c], rows[r2][c2]
        if mirror.get(a) != b:
            def holds(ch: str) -> str:
                return "is empty" if ch == "." else f"holds {ch}"
            out.append(f"{cell_name(r, c)} {holds(a)} but its partner {cell_name(r2, c2)} {holds(b)}")
    return out


def render(f: SealedFields) -> bytes:
    """The canonical sealed bytes: the only thing that is ever hashed."""
    lines = [
        VERSION_LINE,
        f"game {GAME}",
        f"size {f.size}",
        "supply " + " ".join(f"{name}={count}" for name, count in _named(f.supply)),
        f"first {f.first}",
        f"pie {'yes' if f.pie else 'no'}",
        f"turn-seconds {f.turn_seconds}",
        f"bank-seconds {f.bank_seconds}",
        f"season {f.season}",
        f"slot {f.slot}",
        f"nonce {f.nonce}",
        *f.rows,
    ]
    return ("\n".join(lines) + "\n").encode("ascii")


def digest_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_code(digest: str) -> str:
    """The first 32 hex digits in groups of four: easy to read aloud, still 128 bits."""
    return " ".join(digest[i:i + 4] for i in range(0, 32, 4))


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a file; ``code`` is stable for programs, ``message`` is for people."""

    code: str
    message: str
    line: int | None = None

    def text(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


class SealedFormatError(ValueError):
    """Bytes that are not a well-formed v1 sealed board; ``problems`` says why, most important first."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("; ".join(p.text() for p in problems))


def _encoding_problems(data: bytes) -> list[Problem]:
    """Damage that transport and editors typically do, each with its usual cause."""
    out: list[Problem] = []
    if data.startswith(b"\xef\xbb\xbf"):
        out.append(Problem("bom", "the file starts with a UTF-8 byte-order mark (BOM), which Notepad and some other "
                                  "editors add when saving; the sealed file has none, so its digest cannot match"))
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        out.append(Problem("utf16", "the file was saved as UTF-16 text; the sealed file is plain ASCII"))
        return out
    if b"\r\n" in data:
        first = data[: data.index(b"\r\n")].count(b"\n") + 1
        out.append(Problem("crlf", "the file has Windows line endings (CRLF); it was converted after sealing (by git "
                                   "autocrlf, e-mail or a Windows editor). The sealed file uses LF only", first))
    elif b"\r" in data:
        first = data[: data.index(b"\r")].count(b"\n") + 1
        out.append(Problem("cr", "the file contains carriage returns (old Mac line endings); the sealed file uses LF "
                                 "only", first))
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    for offset, byte in enumerate(body):
        if byte > 0x7E or (byte < 0x20 and byte not in (0x09, 0x0A, 0x0D)):
            line = body[:offset].count(b"\n") + 1
            out.append(Problem("not-ascii", f"byte 0x{byte:02x} is not printable ASCII; a sealed file is plain "
                                            "ASCII text", line))
            break
    return out


def _whitespace_problems(text: str) -> list[Problem]:
    out: list[Problem] = []
    lines = text.split("\n")
    # A cut-off last line may end in a space by chance; the truncation is the real story there.
    complete = lines if text.endswith("\n") else lines[:-1]
    for number, line in enumerate(complete, start=1):
        stripped = line.rstrip(" \t\r")
        if stripped != line.rstrip("\r"):
            out.append(Problem("trailing-space", "trailing spaces or tabs at the end of the line (an editor or a "
                                                 "copy-paste added them); the sealed file has none", number))
            break
    for number, line in enumerate(lines, start=1):
        if line.startswith((" ", "\t")):
            out.append(Problem("leading-space", "the line starts with spaces or tabs; the sealed file has none",
                               number))
            break
    if text.endswith("\n\n"):
        out.append(Problem("blank-line", "the file ends with an extra empty line; the sealed file ends right after "
                                         "the last grid row"))
    return out


def _parse_lines(lines: list[str]) -> SealedFields:
    """Match each line against its exact pattern; the caller guarantees clean ASCII lines without the final LF."""
    first = lines[0] if lines else ""
    version = re.match(r"^lits-sealed-board v([0-9]+)$", first)
    if version is None:
        raise SealedFormatError([Problem("not-sealed", f"not a sealed LITS board: the first line must be "
                                                       f"{VERSION_LINE!r}, found {first[:60]!r}", 1)])
    if version.group(1) != str(FORMAT_VERSION):
        raise SealedFormatError([Problem(
            "unknown-version", f"format version v{version.group(1)} is unknown to this verifier, which knows only "
                               f"v{FORMAT_VERSION}; use a newer verifier", 1)])
    values: dict[str, tuple[str, ...]] = {}
    for index, (key, pattern, shape) in enumerate(_HEADER):
        number = index + 2
        if number > len(lines):
            raise SealedFormatError([Problem("truncated", f"the file is truncated: it ends after line {len(lines)}, "
                                                          f"before the {key!r} line")])
        line = lines[number - 1]
        match = pattern.match(line)
        if match is None:
            found = line.split(" ", 1)[0]
            if found != key:
                message = f"expected the {key!r} line ({shape}), found {line[:60]!r}"
            else:
                message = f"malformed {key!r} line {line[:80]!r}; it must read: {shape}"
            raise SealedFormatError([Problem("bad-line", message, number)])
        values[key] = match.groups()
    size = int(values["size"][0])
    supply = tuple(int(v) for v in values["supply"])
    turn, bank = int(values["turn-seconds"][0]), int(values["bank-seconds"][0])
    problems: list[Problem] = []
    if not MIN_SIZE <= size <= MAX_SIZE or size % 2:
        problems.append(Problem("bad-value", f"size {size} is not an even number {MIN_SIZE}..{MAX_SIZE}", 3))
    for name, count in _named(supply):
        if count > MAX_SUPPLY:
            problems.append(Problem("bad-value", f"supply of {name} is {count}, above {MAX_SUPPLY}", 4))
    for name, seconds, number in (("turn-seconds", turn, 7), ("bank-seconds", bank, 8)):
        if seconds > MAX_CLOCK_SECONDS:
            problems.append(Problem("bad-value", f"{name} {seconds} is above {MAX_CLOCK_SECONDS}", number))
    if problems:
        raise SealedFormatError(problems)
    rows = lines[HEADER_LINES:]
    for offset, row in enumerate(rows[:size]):
        number = HEADER_LINES + offset + 1
        if len(row) != size or any(ch not in ".OX" for ch in row):
            bad = next((j for j, ch in enumerate(row) if ch not in ".OX"), None)
            if bad is not None and bad < size:
                detail = f"cell {cell_name(offset, bad)} holds {row[bad]!r}, not one of '.', 'O', 'X'"
            else:
                detail = f"{len(row)} cells where the {size}x{size} board needs {size}"
            raise SealedFormatError([Problem("bad-row", f"grid row {offset + 1}: {detail}", number)])
    if len(rows) < size:
        raise SealedFormatError([Problem("truncated", f"the file is truncated: the {size}x{size} board needs {size} "
                                                      f"grid rows after the header, found {len(rows)}")])
    if len(rows) > size:
        raise SealedFormatError([Problem("extra-lines", f"unexpected text after the last grid row: "
                                                        f"{rows[size][:60]!r}", HEADER_LINES + size + 1)])
    broken = broken_pairs(rows)
    if broken:
        shown = "; ".join(broken[:3]) + (f"; and {len(broken) - 3} more" if len(broken) > 3 else "")
        raise SealedFormatError([Problem("antisymmetry", f"the grid was edited after sealing: {shown}. Every sealed "
                                                         "board is rotationally anti-symmetric")])
    return SealedFields(
        size=size, supply=(supply[0], supply[1], supply[2], supply[3]), first=values["first"][0],
        pie=values["pie"][0] == "yes", turn_seconds=turn, bank_seconds=bank, season=values["season"][0],
        slot=values["slot"][0], nonce=values["nonce"][0], rows=tuple(rows),
    )


def parse(data: bytes) -> SealedFields:
    """Strictly parse sealed bytes; raises SealedFormatError explaining the most likely damage first."""
    if is_board_file(data):
        raise SealedFormatError([Problem("not-sealed", BOARD_FILE_MESSAGE)])
    kind = binary_kind(data)
    if kind is not None:
        raise SealedFormatError([Problem("binary", f"this is {kind}, not a sealed board file")])
    if len(data) > MAX_SEALED_BYTES:
        raise SealedFormatError([_too_large(len(data))])
    if not data:
        raise SealedFormatError([Problem("empty", "the file is empty")])
    problems = _encoding_problems(data)
    if any(p.code in ("utf16", "not-ascii") for p in problems):
        raise SealedFormatError(problems)
    text = data.decode("ascii", errors="replace")
    problems += _whitespace_problems(text)
    if not text.endswith("\n"):
        problems.append(_missing_newline_problem(text))
    if problems:
        raise SealedFormatError(problems)
    fields = _parse_lines(text[:-1].split("\n"))
    if render(fields) != data:  # cannot happen with the patterns above; kept as the final guarantee
        raise SealedFormatError([Problem("not-canonical", "the file does not re-render to the same bytes")])
    return fields


def _too_large(size: int | None) -> Problem:
    said = f"{size} bytes" if size is not None else \
        f"more than {MAX_SEALED_BYTES} bytes (a stream, not read to its end)"
    return Problem("too-large", f"{said}; a sealed board is at most {MAX_SEALED_BYTES} bytes, so this is not one")


def _missing_newline_problem(text: str) -> Problem:
    """Tell a cut-off file from one whose final newline an editor dropped."""
    try:
        _parse_lines(text.split("\n"))
    except SealedFormatError:
        return Problem("truncated", "the file is truncated: it stops in the middle of a line (no final newline)")
    return Problem("no-final-newline", "the last line has no newline after it (an editor removed it); the sealed "
                                       "file ends with one newline")


def repaired(data: bytes) -> bytes:
    """Undo the usual transport damage (BOM, CRLF, trailing spaces, final newline) to tell the user what it hid."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    data = data.replace(b"\r\n", b"\n")
    lines = [line.rstrip(b" \t") for line in data.split(b"\n")]
    while lines and not lines[-1]:
        lines.pop()
    return b"\n".join(lines) + b"\n"


def normalize_digest(text: str) -> str:
    """Accept a digest as sha256sum, shasum, certutil (spaced) or Get-FileHash (upper case) print it."""
    compact = "".join(text.split()).lower()
    if re.fullmatch(r"[0-9a-f]{64}", compact):
        return compact
    if re.fullmatch(r"[0-9a-f]{32}", compact):
        raise ValueError("that is a 32-digit check code, not the full digest; verification needs all 64 hex digits")
    raise ValueError(f"{text.strip()[:80]!r} is not a SHA-256 digest (64 hex digits)")


def digests_equal(a_hex: str, b_hex: str) -> bool:
    """Constant-time comparison of two digests given as hex (either case)."""
    return hmac.compare_digest(bytes.fromhex(a_hex), bytes.fromhex(b_hex))


@dataclass
class VerifyResult:
    """The outcome for one file; ``ok`` only for a well-formed file with no problem that matches any expected digest."""

    digest: str | None
    """SHA-256 of the whole file; None only for a stream longer than a sealed board (never a partial digest)."""
    expected: str | None
    fields: SealedFields | None
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    size: int | None = None
    """The file's true size in bytes (None: a stream not read to its end)."""

    @property
    def well_formed(self) -> bool:
        return self.fields is not None

    @property
    def matched(self) -> bool | None:
        """Whether the digest matches the expected one; None when nothing was expected."""
        if self.expected is None:
            return None
        return self.digest is not None and digests_equal(self.digest, self.expected)

    @property
    def ok(self) -> bool:
        return self.well_formed and not self.problems and self.matched is not False

    def as_dict(self) -> dict[str, object]:
        f = self.fields
        return {
            "ok": self.ok,
            "well_formed": self.well_formed,
            "digest": self.digest,
            "check_code": None if self.digest is None else check_code(self.digest),
            "size": self.size,
            "expected": self.expected,
            "matched": self.matched,
            "problems": [{"code": p.code, "line": p.line, "message": p.message} for p in self.problems],
            "notes": self.notes,
            "board": None if f is None else {
                "season": f.season, "slot": f.slot, "size": f.size,
                "supply": dict(_named(f.supply)), "first": f.first, "pie": f.pie,
                "turn_seconds": f.turn_seconds, "bank_seconds": f.bank_seconds, "nonce": f.nonce,
                "grid": list(f.rows),
            },
        }


def verify_bytes(data: bytes, expected_digest: str | None = None) -> VerifyResult:
    """Strict parse plus constant-time digest check; never raises for bad data.

    Only a malformed ``expected_digest`` raises ValueError (its message says why),
    because that is the caller's input, not the file's.
    """
    expected = None if expected_digest is None else normalize_digest(expected_digest)
    result = VerifyResult(digest=digest_hex(data), expected=expected, fields=None, size=len(data))
    try:
        result.fields = parse(data)
    except SealedFormatError as exc:
        result.problems = exc.problems
        fixed = repaired(data)
        if fixed != data and len(data) <= MAX_SEALED_BYTES:
            try:
                parse(fixed)
            except SealedFormatError:
                pass
            else:
                note = "with that damage undone the file is a well-formed sealed board"
                if expected is not None and digests_equal(digest_hex(fixed), expected):
                    note += (" whose digest MATCHES the published one: the board is the committed one, but ask "
                             "the host for the original file (players need the exact bytes)")
                elif expected is not None:
                    note += ", but even so its digest does not match the published one"
                result.notes.append(note)
        if result.matched:
            result.notes.append("the bytes match the published digest, but they are not a valid v1 sealed board")
        return result
    if result.matched is False:
        result.problems.append(Problem(
            "digest-mismatch", "the file is a well-formed sealed board but NOT the committed one: its SHA-256 differs "
                               "from the published digest, so the grid, a game parameter, the season, the slot or "
                               "the nonce was changed"))
    return result


@dataclass(frozen=True)
class FileBytes:
    """What a checker reads of a file: its first bytes (all a sealed board can have, plus one), its true size,
    and the SHA-256 of the whole file, streamed, so a digest printed for a file is always the one sha256sum prints."""

    head: bytes
    size: int | None
    """None: a stream (a pipe, a device) longer than ``head``, not read to its end."""
    digest: str | None
    """None only when ``size`` is None: a partial digest is never given."""

    @property
    def whole(self) -> bool:
        return self.size == len(self.head)


HASH_CHUNK = 1 << 20


def read_file(path: str, limit: int = MAX_SEALED_BYTES) -> FileBytes:
    """Read ``limit`` + 1 bytes to parse and hash the rest of a regular file in chunks (never loaded whole);
    a longer stream is not read on (it may never end).  OSError propagates."""
    with open(path, "rb") as handle:
        head = handle.read(limit + 1)
        h = hashlib.sha256(head)
        size = len(head)
        if size <= limit:
            return FileBytes(head, size, h.hexdigest())
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return FileBytes(head, None, None)
        while True:  # no walrus: players run this file on Python 3.7
            chunk = handle.read(HASH_CHUNK)
            if not chunk:
                return FileBytes(head, size, h.hexdigest())
            h.update(chunk)
            size += len(chunk)


def verify_file(read: FileBytes, expected_digest: str | None = None) -> VerifyResult:
    """:func:`verify_bytes` for a file read by :func:`read_file`: an oversize file is refused with its true size
    and the digest of all its bytes."""
    if read.whole:
        return verify_bytes(read.head, expected_digest)
    expected = None if expected_digest is None else normalize_digest(expected_digest)
    kind = binary_kind(read.head)
    if is_board_file(read.head):
        problem = Problem("not-sealed", BOARD_FILE_MESSAGE)
    elif kind is not None:
        problem = Problem("binary", f"this is {kind}, not a sealed board file")
    else:
        problem = _too_large(read.size)
    result = VerifyResult(digest=read.digest, expected=expected, fields=None, problems=[problem], size=read.size)
    if read.digest is None:
        result.notes.append("no SHA-256 is shown: the stream was not read to its end")
    elif result.matched:
        result.notes.append("the bytes match the published digest, but they are not a valid v1 sealed board")
    return result


BOARD_FILE_MESSAGE = ("this is an editable board file (YAML), not a sealed board: check it with `lits validate`, "
                      f"or seal it with `lits seal`; a sealed file starts with the line {VERSION_LINE!r}")


def is_board_file(data: bytes) -> bool:
    """Whether bytes are an editable (YAML) board file rather than a sealed one: another command takes them."""
    return (not looks_sealed(data[:64]) and _magic_kind(data) is None
            and _BOARD_FILE_RE.search(data) is not None)


# The first bytes of the files most often picked by mistake (a board's picture, an export, an archive).
_MAGIC_NUMBERS = (
    (b"\x89PNG\r\n\x1a\n", "a PNG picture"),
    (b"\xff\xd8\xff", "a JPEG picture"),
    (b"GIF87a", "a GIF picture"),
    (b"GIF89a", "a GIF picture"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"PK\x05\x06", "a ZIP archive"),
)
BINARY_SNIFF_BYTES = 512
"""How many first bytes decide whether a file is binary (NUL bytes, or not UTF-8 text)."""


def _magic_kind(head: bytes) -> str | None:
    """The kind of file a known magic number starts, so the message names what the host picked by mistake."""
    for magic, kind in _MAGIC_NUMBERS:
        if head.startswith(magic):
            return kind
    return None


def binary_kind(head: bytes) -> str | None:
    """What binary file ``head`` begins, e.g. "a binary file (a PNG picture)"; None for text.

    Asked before the damage diagnoses, which would explain a picture's bytes as a sealed file converted to CRLF.
    A file with a sealed board's words, or with a UTF-16 byte-order mark, is left to those diagnoses: it is a
    damaged sealed file, not another kind of file.
    """
    kind = _magic_kind(head)
    if kind is not None:
        return f"a binary file ({kind})"
    sample = head[:BINARY_SNIFF_BYTES]
    # Without its NUL bytes, a sealed board saved as UTF-16 with no byte-order mark shows its words again.
    if sample.startswith((b"\xff\xfe", b"\xfe\xff")) or _SEALED_WORDS_RE.search(sample.replace(b"\x00", b"")):
        return None
    if b"\x00" in sample:
        return "a binary file"
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        cut_in_a_character = exc.reason == "unexpected end of data" and len(head) > len(sample)
        if not cut_in_a_character:
            return "a binary file"
    return None


def binary_message(path: str, head: bytes) -> str | None:
    """The one line for a binary file given where a sealed board belongs; None when it is text or a board file
    (which has its own message)."""
    kind = None if is_board_file(head) else binary_kind(head)
    return None if kind is None else f"{path} is {kind}, not a sealed board file"


def looks_sealed(head: bytes) -> bool:
    """Whether bytes start like a sealed board file (any version), so other tools can say what they were given."""
    return _SEALED_HEAD_RE.match(head) is not None


def parse_sums_line(line: str) -> tuple[str, str] | None:
    """(lower-case digest, file name) of one SHA256SUMS line, or None when it is not one."""
    match = _SUMS_LINE_RE.match(line.rstrip("\r\n"))
    return None if match is None else (match.group(1).lower(), match.group(2))


def parse_sums(text: str, name: str = SUMS_NAME) -> dict[str, str]:
    """Parse a coreutils SHA256SUMS text into {file name: lower-case digest}; errors name the line."""
    out: dict[str, str] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        parsed = parse_sums_line(line)
        if parsed is None:
            raise ValueError(f"{name}: line {number}: not a '<64 hex digits>  <file name>' line: {line[:80]!r}")
        digest, file_name = parsed
        if file_name in out and out[file_name] != digest:
            raise ValueError(f"{name}: line {number}: {file_name!r} is listed twice with different digests")
        out[file_name] = digest
    return out


def read_sums_file(path: str) -> tuple[dict[str, str], bytes]:
    """Read and parse a SHA256SUMS file: ({file name: lower-case digest}, raw bytes).

    OSError when it cannot be read; ValueError (naming the file and line) when it is not a SHA256SUMS file.
    """
    raw = read_capped(path, MAX_SUMS_BYTES)
    if len(raw) > MAX_SUMS_BYTES:
        raise ValueError(f"{path}: larger than {MAX_SUMS_BYTES // 1024} KiB; not a {SUMS_NAME} file")
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not ASCII text; not a {SUMS_NAME} file") from None
    return parse_sums(text, path), raw


def format_grid(rows: Sequence[str]) -> str:
    """The grid with column letters on top and row numbers on the left, as match notation names cells."""
    n = len(rows)
    width = len(str(n))
    lines = [" " * (width + 2) + " ".join(COLUMN_LETTERS[:n])]
    for number, row in enumerate(rows, start=1):
        lines.append(f"{number:>{width}}  " + " ".join(row))
    return "\n".join(lines)


def describe(result: VerifyResult, label: str) -> str:
    """The human report for one verified file."""
    lines: list[str] = []
    f = result.fields
    if result.ok:
        status = "OK, matches the published digest" if result.matched else "well-formed (no published digest given)"
    elif any(p.message == BOARD_FILE_MESSAGE for p in result.problems):
        status = "FAILED: an editable board file, not a sealed board"
    elif any(p.code == "binary" for p in result.problems):
        status = "FAILED: a binary file, not a sealed board"
    elif f is None:
        status = "FAILED: not a valid sealed board"
    elif any(p.code == "not-listed" for p in result.problems):
        status = f"FAILED: not listed in {SUMS_NAME}"
    else:
        status = "FAILED: digest mismatch"
    lines.append(f"{label}: {status}")
    for p in result.problems:
        lines.append(f"  problem: {p.text()}")
    for note in result.notes:
        lines.append(f"  note: {note}")
    lines.append(f"  SHA-256:    {result.digest or 'not computed'}")
    if result.expected is not None:
        lines.append(f"  published:  {result.expected}")
    if result.digest is not None:
        lines.append(f"  check code: {check_code(result.digest)}")
    if f is not None:
        supply = " ".join(f"{name}={count}" for name, count in _named(f.supply))
        lines.append(f"  season {f.season}, slot {f.slot}, {f.size}x{f.size}, supply {supply}, first {f.first}, "
                     f"pie {'yes' if f.pie else 'no'}, turn {f.turn_seconds}s, bank {f.bank_seconds}s")
        lines.append("")
        lines.extend("  " + line for line in format_grid(f.rows).split("\n"))
        lines.append("")
    return "\n".join(lines)


def read_capped(path: str, limit: int) -> bytes:
    """Read at most ``limit`` + 1 bytes so a huge or endless file is never loaded whole; OSError propagates."""
    with open(path, "rb") as handle:
        return handle.read(limit + 1)


def _basename(path: str) -> str:
    return re.split(r"[\\/]", path)[-1]


def expected_from_sums(sums: dict[str, str], path: str, digest: str | None) -> tuple[str | None, str | None]:
    """The published digest for a file by its name, plus a hint when the name is not listed."""
    name = _basename(path)
    if name in sums:
        return sums[name], None
    by_base = [listed for listed in sums if _basename(listed) == name]
    if len(by_base) == 1:  # the sums were made from another folder, e.g. `sha256sum season/*.lits-sealed`
        return sums[by_base[0]], None
    for other, value in sums.items():
        if digest is not None and digests_equal(value, digest):
            return None, (f"{name} is not listed in {SUMS_NAME}, but its digest is the one listed for {other}: "
                          f"the file was renamed; rename it back to {other}")
    return None, f"{name} is not listed in {SUMS_NAME} (listed: {', '.join(sorted(sums)) or 'nothing'})"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="verify_sealed.py",
        description="Check that sealed LITS board files are exactly the committed ones. Exit 0 when every file "
                    "matches, 1 on a mismatch or malformed file, 2 when a file or argument cannot be used.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help=f"sealed board files (*{SEALED_SUFFIX})")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--sums", metavar=SUMS_NAME, help="the published SHA256SUMS file")
    group.add_argument("--digest", metavar="HEX", help="the published SHA-256 digest (64 hex digits, any case)")
    parser.add_argument("--json", action="store_true", help="print one JSON object for machines")
    args = parser.parse_args(argv)
    for stream in (sys.stdout, sys.stderr):  # a file name that is not UTF-8 must not crash the report
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    reports, code = check_files(args.files, sums_path=args.sums, digest=args.digest)
    if args.json:
        files = [{k: v for k, v in report.items() if k != "text"} for report in reports]
        print(json.dumps({"ok": code == EXIT_OK, "files": files}, indent=2))
    else:
        for report in reports:
            print(report["text"], file=sys.stdout if report.get("readable", True) else sys.stderr)
    if code == EXIT_NOT_COMPARED:
        print(f"verify_sealed.py: {NOT_COMPARED}", file=sys.stderr)
    return code


def check_files(paths: Sequence[str], sums_path: str | None = None,
                digest: str | None = None) -> tuple[list[dict[str, object]], int]:
    """Verify files against a SHA256SUMS file or one digest; returns one report per file and the exit code.

    A bad SHA256SUMS or digest argument is reported as a single report with exit code 2; well-formed files
    checked against nothing give EXIT_NOT_COMPARED, because "OK" must never mean "not checked".
    """
    sums: dict[str, str] | None = None
    try:
        if digest is not None:
            try:
                digest = normalize_digest(digest)
            except ValueError as exc:
                raise ValueError(f"--digest: {exc}") from None
        if sums_path is not None:
            sums, _raw = read_sums_file(sums_path)
    except OSError as exc:
        return [_error_report(sums_path or "", f"{sums_path}: cannot be read ({exc.strerror or exc})")], EXIT_UNREADABLE
    except ValueError as exc:
        return [_error_report(sums_path or "--digest", str(exc))], EXIT_UNREADABLE
    reports: list[dict[str, object]] = []
    code = EXIT_OK
    for path in paths:
        try:
            read = read_file(path)
        except IsADirectoryError:
            reports.append(_error_report(path, f"{path}: is a folder, not a sealed board file"))
            code = max(code, EXIT_UNREADABLE)
            continue
        except OSError as exc:
            reports.append(_error_report(path, f"{path}: cannot be read ({exc.strerror or exc})"))
            code = max(code, EXIT_UNREADABLE)
            continue
        binary = binary_message(path, read.head)
        if binary is not None:
            reports.append(_error_report(path, binary, "binary"))
            code = max(code, EXIT_UNREADABLE)
            continue
        expected = digest
        hint = None
        if sums is not None:
            expected, hint = expected_from_sums(sums, path, read.digest)
        result = verify_file(read, expected)
        if hint is not None:
            result.problems.append(Problem("not-listed", hint))
        reports.append({"file": path, **result.as_dict(), "text": describe(result, path)})
        if is_board_file(read.head) or read.size == 0:  # the wrong kind of file, or none: as the exit table says
            code = max(code, EXIT_UNREADABLE)
        elif not result.ok:
            code = max(code, EXIT_PROBLEMS)
    if code == EXIT_OK and sums is None and digest is None:
        code = EXIT_NOT_COMPARED
    return reports, code


def _error_report(path: str, message: str, code: str = "unreadable") -> dict[str, object]:
    return {"file": path, "ok": False, "readable": False, "problems": [{"code": code, "line": None,
                                                                        "message": message}], "text": message}


def finish(code: int) -> int:
    """Write out the report; a full disk under stdout is one line and exit 5, not a traceback and exit 120; a
    reader that stopped early (``| head -2``) keeps the check's exit code, not a BrokenPipeError traceback."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _reader_gone()
        return code
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # what is still buffered goes nowhere, not to a traceback
        print("verify_sealed.py: standard output: cannot write: the disk is full; free some space and run it "
              "again", file=sys.stderr)
        return EXIT_DISK_FULL
    return code


def _reader_gone() -> None:
    """The rest of the output goes nowhere (the interpreter's last flush must not fail again)."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)


class _StopsEarly:
    """Standard output whose reader may stop early (``| head -2``): that ends the output, never the check, so the
    exit code is still the check's.  Why: with unbuffered output each print can meet the closed pipe."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            _reader_gone()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            _reader_gone()

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


if __name__ == "__main__":
    sys.stdout = _StopsEarly(sys.stdout)  # type: ignore[assignment]
    sys.exit(finish(main()))
