"""What the Host window's helper process runs.  No Qt here: the spawned process loads only ``core``."""

from __future__ import annotations

from core.match.host import draw_post

__all__ = ["draw_post"]
