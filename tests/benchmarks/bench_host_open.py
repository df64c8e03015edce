"""How long the window's event loop stalls while File > Host a match opens on a 12x12 match after one move.

Usage: ``python tests/benchmarks/bench_host_open.py`` (offscreen; a 5 ms timer measures the loop's longest gap
while the Host window opens, three times in one designer process, the first with the window's module not yet
imported).  Run it twice when the machine writes no bytecode (``PYTHONDONTWRITEBYTECODE``), or after
``python -m compileall core designer``: an installed package has its bytecode.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HOME"] = tempfile.mkdtemp()  # the designer's settings and autosaves stay out of the user's folders


def make_match(folder: Path) -> Path:
    match = folder / "m1"
    lits = [sys.executable, "-m", "core.cli", "match"]
    board = str(ROOT / "boards" / "default.yaml")
    subprocess.run([*lits, "start", board, "--o", "Ana", "--x", "Ben", "--dir", str(match), "--at", "14:00:00"],
                   check=True, capture_output=True, cwd=ROOT)
    subprocess.run([*lits, "move", str(match), "f6 g6 e7 f7", "--by", "Ana", "--at", "14:00:20"], check=True,
                   capture_output=True, cwd=ROOT)
    return match


def main() -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    match = make_match(Path(tempfile.mkdtemp()))
    app = QApplication(["bench_host_open"])
    from designer.app import create_window

    win: object = create_window(str(ROOT / "boards" / "default.yaml"))
    win.show()  # type: ignore[attr-defined]
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    ticker = QTimer()
    ticker.timeout.connect(tick)
    ticker.start(5)
    results: list[float] = []

    def open_it() -> None:
        gaps.clear()
        last[0] = time.perf_counter()
        host = win.host_match(str(match))  # type: ignore[attr-defined]

        def close() -> None:
            results.append(1000 * max(gaps))
            if host is not None:
                host.close()
            if len(results) < 3:
                QTimer.singleShot(1500, open_it)
            else:
                print(f"longest gap while opening the Host window: {', '.join(f'{r:.0f}' for r in results)} ms "
                      f"(load average {os.getloadavg()[0]:.1f})")
                app.quit()

        QTimer.singleShot(1500, close)

    QTimer.singleShot(4000, open_it)
    app.exec()


if __name__ == "__main__":
    main()
