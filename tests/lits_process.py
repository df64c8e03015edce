"""``lits`` in a fresh process, from this checkout, as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence

from tests.paths import REPO


def run_lits(args: list[str], timeout: float = 600,
             entry: Sequence[str] = ("-m", "core.cli")) -> subprocess.CompletedProcess[str]:
    """``entry``: what Python runs, the command line itself or a benchmark script that wraps it."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, *entry, *args], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=timeout)
