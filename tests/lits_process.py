"""``lits`` in a fresh process, from this checkout, as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.paths import REPO


def run_lits(args: list[str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "core.cli", *args], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=timeout)
