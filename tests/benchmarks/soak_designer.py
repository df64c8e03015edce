"""Soak the designer: 300,000 void Qt calls and a 60-second scripted hover over the board in one process.

    python tests/benchmarks/soak_designer.py [--seconds 60] [--updates 300000]

Exits non-zero when the session dies (e.g. PySide6 6.12.0 on Python 3.11) or ``None`` loses references.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--updates", type=int, default=300_000)
    args = parser.parse_args()
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM") or "offscreen")
    proc = subprocess.run([sys.executable, str(REPO / "tests" / "gui" / "qt_soak.py"), "--updates",
                           str(args.updates), "--hovers", "1", "--seconds", str(args.seconds)],
                          capture_output=True, text=True, env=env, cwd=REPO)
    if proc.returncode != 0:
        print(f"the session died with exit {proc.returncode}:\n{proc.stderr[-2000:]}")
        return 1
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    import PySide6

    print(f"PySide6 {PySide6.__version__}, Python {sys.version.split()[0]}: survived {figures['updates']:,} "
          f"update() calls and {figures['hovers']:,} hover repaints in {args.seconds:.0f} s; "
          f"refcount(None) {figures['start']} -> {figures['end']}")
    return 0 if figures["start"] - figures["end"] < 500 else 1


if __name__ == "__main__":
    sys.exit(main())
