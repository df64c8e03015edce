"""Measure the designer as a user meets it, in a fresh process: start-up, the first Play-test, the first Analyse
and the longest pause of the event loop during an analysis with the panel's default settings.

    python tests/gui/designer_probe.py [--skip-analysis] [--board FILE]

Prints one JSON line. A 10 ms QTimer ticks throughout; the longest gap between two ticks is the longest time the
window could not react. Used by ``tests/gui/test_designer_freezes.py``; run by hand for the README's figures.
Settings and app data go to a temporary folder.
"""

from __future__ import annotations

import time

STARTED = time.monotonic()

import argparse  # noqa: E402  (the clock starts before any import)
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

if not os.environ.get("QT_QPA_PLATFORM"):
    os.environ["QT_QPA_PLATFORM"] = "offscreen"


class Gaps:
    """The longest wait between ticks of a 10 ms timer, per phase."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.last = time.monotonic()
        self.longest = 0.0
        self.ticks = 0
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self.tick)
        self.timer.start()

    def tick(self) -> None:
        now = time.monotonic()
        self.longest = max(self.longest, now - self.last)
        self.last = now
        self.ticks += 1

    def reset(self) -> None:
        self.last = time.monotonic()
        self.longest = 0.0
        self.ticks = 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-analysis", action="store_true")
    parser.add_argument("--board", default=None)
    parser.add_argument("--idle", type=float, default=8.0, help="seconds to wait for the start-up warm-up")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="lits-probe-")
    os.environ["LITS_BOARD_STUDIO_DATA"] = tmp

    from PySide6.QtCore import QCoreApplication, QSettings
    from PySide6.QtWidgets import QApplication

    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)
    QCoreApplication.setOrganizationName("LITS Board Studio probe")
    QCoreApplication.setApplicationName("lits-designer")
    app = QApplication(["lits-designer"])
    from designer.app import create_window
    from designer.main_window import MainWindow

    window = create_window(args.board)
    assert isinstance(window, MainWindow)
    window.resize(1000, 700)
    window.show()
    app.processEvents()
    window.grab()
    result: dict[str, object] = {"warm_start_s": round(time.monotonic() - STARTED, 3)}
    geo = window.view.geometry_
    result["cell_px_1000x700"] = round(geo.cell, 1) if geo is not None else None

    def spin(seconds: float, until: object = None) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end and not (callable(until) and until()):
            app.processEvents()
            time.sleep(0.002)

    from designer import warmup

    gaps = Gaps()
    spin(args.idle, warmup.done.is_set)
    spin(0.5)
    result["warmup_done"] = warmup.done.is_set()
    result["longest_gap_during_warmup_s"] = round(gaps.longest, 3)
    gaps.reset()
    spin(3.0)  # the machine's own noise: the longest gap of an idle window
    result["longest_gap_idle_s"] = round(gaps.longest, 3)

    t0 = time.monotonic()
    playtest = window.playtest()
    app.processEvents()
    result["first_playtest_block_s"] = round(time.monotonic() - t0, 3)
    if playtest is not None:
        playtest.close()
    spin(0.3)

    if not args.skip_analysis:
        panel = window.analysis
        gaps.reset()
        t0 = time.monotonic()
        window.analyse_action.trigger()
        result["first_analyse_block_s"] = round(time.monotonic() - t0, 3)
        spin(1800, lambda: not panel.running)
        spin(120, panel.charts_ready)
        spin(0.3)
        result["analysis_s"] = round(time.monotonic() - t0, 1)
        result["longest_gap_during_analysis_s"] = round(gaps.longest, 3)
        result["ticks"] = gaps.ticks
        result["verdict"] = getattr(panel.report, "verdict", None)
        result["settings"] = [panel.agent.currentText(), panel.games.value(), panel.quick.isChecked()]
    window.document.undo_stack.setClean()
    window.close()
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
