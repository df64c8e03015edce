"""What the Host window's helper process runs.  No Qt here: the spawned process loads only ``core``."""

from __future__ import annotations

import signal

from core.match.host import draw_post
from core.selfplay.worker import lower_priority


def start(nice: int) -> None:
    """The helper's initializer: below the window's priority, Ctrl-C left to the window."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    lower_priority(nice)


__all__ = ["draw_post", "start"]
