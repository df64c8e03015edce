"""No freezes: in a fresh designer process (as a user starts it) the window opens quickly, the first Play-test and
the first Analyse do not wait for the engine, and a 10 ms timer keeps ticking through a whole analysis with the
panel's default settings, which give the bundled default board a verdict.

Figures before this work, on the 2-core development machine: warm start 1.6-2.2 s (half of it importing
matplotlib), first Analyse blocked 0.5-1.3 s, first Play-test 1.4-2.3 s, stalls of 100-285 ms during an
analysis, and "inconclusive" on the default board. The machine is shared and noisy, so the bounds below are
generous multiples of the goals (warm start 1 s, no stall over 50 ms); the figures are printed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROBE = Path(__file__).with_name("designer_probe.py")


def run_probe(*args: str) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(REPO), QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, str(PROBE), *args], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=2400)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    print("designer probe:", result)
    return result


def test_no_freeze_from_start_to_a_verdict_on_the_default_board() -> None:
    result = run_probe()
    assert result["warmup_done"] is True
    assert isinstance(result["warm_start_s"], float) and result["warm_start_s"] < 3.0
    assert isinstance(result["first_playtest_block_s"], float) and result["first_playtest_block_s"] < 0.5
    assert isinstance(result["first_analyse_block_s"], float) and result["first_analyse_block_s"] < 0.25
    assert result["settings"] == ["greedy + mcts:1000", 160, False]
    assert result["verdict"] in ("balanced", "lopsided"), result
    gap, idle = result["longest_gap_during_analysis_s"], result["longest_gap_idle_s"]
    assert isinstance(gap, float) and isinstance(idle, float)
    # Compared with the same window standing idle: on a quiet machine both are a few tens of milliseconds;
    # on a saturated one the scheduler alone makes gaps of 100 ms and more.
    assert gap < max(0.25, 4 * idle), result
    assert isinstance(result["ticks"], int) and isinstance(result["analysis_s"], float)
    assert result["ticks"] >= 0.3 * result["analysis_s"] / 0.01  # the loop ticked all along
