"""Engine messages in the designer's words: the command line's flags become the controls that do the same.

``core`` explains refusals for the command line ("use --force to replace it"); a host in the designer has no
flags to give, so every message shown in a dialog goes through :func:`for_gui`.
"""

from __future__ import annotations

import errno
import os
import re

CONTROLS: dict[str, str] = {
    "--force": '"Replace existing sealed files"',
    "--append": '"Add to the season already in this folder"',
    "--games": "Games",
    "--quick": "Quick",
    "--agent": "Agent",
    "--season": "Season id",
    "--slot": "the slot id",
    "--out": "Folder",
}
"""Flags of ``lits`` commands and the designer control that does the same."""


def for_gui(message: str) -> str:
    """Replace command-line flags in ``message`` with the designer's controls (never shows ``--flag``)."""

    def control(match: re.Match[str]) -> str:
        return CONTROLS.get(match.group(1), "the matching option")

    text = re.sub(r"\buse (--[a-z][a-z-]*)", lambda m: f"tick {control(m)}" if m.group(1) == "--force"
                  else f"set {control(m)}", message)
    text = re.sub(r"\bneeds (--[a-z][a-z-]*)", lambda m: f"needs {control(m)}", text)
    text = re.sub(r"\bwith (--[a-z][a-z-]*)", lambda m: f"by ticking {control(m)}", text)
    text = re.sub(r"(?<![\w-])(--[a-z][a-z-]*)", control, text)
    return text


def write_failure(path: str, exc: OSError, kept: str = "Nothing else was changed.") -> str:
    """Why ``path`` was not written and what to do, naming the file the host chose: the error itself names the
    temporary file written beside it first, a name the host never saw.  ``kept`` says what is still safe."""
    folder = os.path.dirname(os.path.abspath(path))
    if exc.errno == errno.ENOENT:
        advice = f"the folder {folder} does not exist; choose another folder"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        advice = f"this account may not write in {folder}; choose another folder"
    elif exc.errno == errno.EISDIR:
        advice = "that name is a folder; choose a file name"
    elif exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        advice = "the disk is full; free some space and try again"
    else:
        advice = "choose another folder or try again"
    return f"{path} was not written ({exc.strerror or exc}): {advice}. {kept}"
