"""Engine messages in the designer's words: the command line's flags become the controls that do the same.

``core`` explains refusals for the command line ("use --force to replace it"); a host in the designer has no
flags to give, so every message shown in a dialog goes through :func:`for_gui`.
"""

from __future__ import annotations

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
