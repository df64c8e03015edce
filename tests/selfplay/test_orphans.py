"""Helper processes end when their parent dies: a killed ``lits analyze`` or a crashed designer leaves no workers
waiting for ever on their task queue."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.paths import REPO

RUNNER_PARENT = textwrap.dedent("""
    import os, signal
    from core.selfplay.runner import Runner

    runner = Runner(workers=2)
    runner.start()
    print(" ".join(str(pid) for pid in runner._executor._processes), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")

HELPER_PARENT = textwrap.dedent("""
    import concurrent.futures as cf, multiprocessing, os, signal
    from core.selfplay.worker import start_helper

    pool = cf.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=start_helper,
                                  initargs=(0,))
    print(pool.submit(os.getpid).result(), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie nobody reaped has ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    if status.exists():
        try:
            return "\tZ" not in status.read_text().split("State:", 1)[1].splitlines()[0]
        except (OSError, IndexError):
            return False
    return True


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and /proc")
@pytest.mark.parametrize("script", [RUNNER_PARENT, HELPER_PARENT], ids=["analysis-workers", "designer-helper"])
def test_helpers_end_when_their_parent_is_killed(script: str, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out, err = tmp_path / "out", tmp_path / "err"
    # files, not pipes: a worker that outlives its parent keeps the parent's stdout open, so reading a pipe to
    # its end would wait for the very workers under test
    with out.open("w") as stdout, err.open("w") as stderr:
        code = subprocess.run([sys.executable, "-c", script], env=env, cwd=REPO, stdout=stdout, stderr=stderr,
                              timeout=600).returncode
    assert code == -9, err.read_text()
    pids = [int(p) for p in out.read_text().split()]
    assert pids
    deadline = time.monotonic() + 60
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in pids if alive(p)]
    for pid in left:  # do not leave them behind for the rest of the run
        os.kill(pid, 9)
    assert not left, f"workers {left} outlived their killed parent"
