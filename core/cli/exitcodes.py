"""The one exit-code table of the ``lits`` command line: every command exits with one of these.

Scripts branch on the code, so each kind of outcome has one code whatever the command: an argument that is wrong
and a file that cannot be read are both 2 (run it again with other input), a check that failed is 1 (the input was
read and is not what it should be), a full disk has its own code (free space and run it again).  ``tests/cli/
test_exit_table.py`` walks the table command by command, and :func:`markdown_table` is what the README shows.
"""

from __future__ import annotations

import enum
import errno
from typing import NamedTuple


class Exit(enum.IntEnum):
    """Exit codes.  ``USAGE`` and ``UNREADABLE`` share 2 on purpose: both mean "this input cannot be used"."""

    OK = 0
    PROBLEMS = 1
    USAGE = 2
    UNREADABLE = 2
    INTERNAL = 3
    NOT_COMPARED = 4
    DISK_FULL = 5
    INTERRUPTED = 130


class Row(NamedTuple):
    name: str
    """The :class:`Exit` member."""
    meaning: str

    @property
    def code(self) -> int:
        return int(Exit[self.name])


TABLE: tuple[Row, ...] = (
    Row("OK", "done, everything fine (warnings allowed)"),
    Row("PROBLEMS", "the check failed: a board file with a problem (a bad row, an unknown key), a board no match "
                    "can use (refused by `analyze`, `openings`, `seal`, `duel`), a record that breaks a rule, a digest "
                    "mismatch, a folder that refuses a seal, no balanced board found by `generate`"),
    Row("USAGE", "an argument is wrong: an unknown option or agent, a number out of range (`--time 1`, "
                 "`--games 0`, `--workers -1`, `--pairs 0`), an opening that is not a legal first placement, an "
                 "output name with an unknown extension, a `--time` too short to judge one board"),
    Row("UNREADABLE", "a file cannot be read as what the command expects: missing, a folder, empty, binary, bad "
                      "YAML, a sealed file where a board belongs or the reverse, an unreadable `SHA256SUMS`"),
    Row("INTERNAL", "an internal error: a bug, please report it (`LITS_DEBUG=1` shows the details)"),
    Row("NOT_COMPARED", "`lits verify` only: the files are well-formed, but no `--sums` or `--digest` was given, "
                        "so nothing was compared"),
    Row("DISK_FULL", "the disk (or the quota) is full: every file is written whole or not at all; free some space "
                     "and run it again"),
    Row("INTERRUPTED", "interrupted (Ctrl-C at any moment prints one line, no traceback)"),
)
"""Every outcome a command reports, in the order the README lists them."""

DISK_FULL_ERRNOS = frozenset(code for code in (errno.ENOSPC, getattr(errno, "EDQUOT", None)) if code is not None)


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` (or an error it was raised from) is a full disk or an exceeded quota."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in DISK_FULL_ERRNOS:
            return True
        current = current.__cause__ or current.__context__
    return False


def disk_full_message(what: str = "") -> str:
    """The one sentence for a full disk (``what``: the file or stream that could not be written)."""
    where = f"{what}: " if what else ""
    return (f"{where}cannot write: the disk is full (no space left on the device, or the quota is used up); "
            "free some space and run it again")


def markdown_table() -> str:
    """The table as the README shows it: one line per code (the two meanings of 2 on separate lines)."""
    lines = ["| code | meaning |", "| --- | --- |"]
    lines += [f"| {row.code} | {row.meaning} |" for row in TABLE]
    return "\n".join(lines)
