"""Test-wide settings: headless Qt and settings that never touch the user's own."""

from __future__ import annotations

import os

# An empty value with no display aborts the whole run, so replace it too (not setdefault).
if not os.environ.get("QT_QPA_PLATFORM"):
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
# Compiled kernels are cached on disk; keep test runs from writing into the source tree's caches.
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(os.path.dirname(__file__), "..", ".numba_cache"))
