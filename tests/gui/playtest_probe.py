"""Measure an early Play-test as a user meets it, in a fresh designer process: Ctrl+T right after the window is
shown (before or during the start-up warm-up), then wait until the play-test window is open.

    python tests/gui/playtest_probe.py [--delay SECONDS]

Prints one JSON line: how long the Ctrl+T call held the GUI thread, what it opened at once, when the play-test
window was open, the event loop's longest gap and its gaps over 50 ms (a 10 ms QTimer ticks throughout) while
the engine loaded and when the play-test window was built, every engine module imported on the GUI thread after
Ctrl+T (there should be none: they load on a worker), and the load average (the machine is shared: compare runs
made at similar load).  Used by ``tests/gui/test_designer_rough_edges.py``; settings and app data go to a
temporary folder.
"""

from __future__ import annotations

import time

STARTED = time.monotonic()

import argparse  # noqa: E402  (the clock starts before any import)
import itertools  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from importlib.machinery import ModuleSpec  # noqa: E402
from types import ModuleType  # noqa: E402

if not os.environ.get("QT_QPA_PLATFORM"):
    os.environ["QT_QPA_PLATFORM"] = "offscreen"

ENGINE = ("numba", "llvmlite", "scipy", "core.engine", "core.agents", "core.analysis", "core.play",
          "designer.playtest.window")
"""Modules that take the engine's loading time; the GUI thread must not import them while the window runs."""


class ImportLog:
    """Every module actually loaded (not found in ``sys.modules``), with the thread that loaded it."""

    def __init__(self) -> None:
        self.loaded: list[tuple[str, str]] = []

    def find_spec(self, name: str, _path: Sequence[str] | None, _target: ModuleType | None = None) -> ModuleSpec | None:
        self.loaded.append((name, threading.current_thread().name))
        return None  # only watching: the real finders load it

    def on_gui_thread(self, since: int) -> list[str]:
        gui = threading.main_thread().name
        return sorted({name for name, thread in self.loaded[since:]
                       if thread == gui and name.startswith(ENGINE)})


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=0.0, help="seconds between showing the window and Ctrl+T")
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="lits-probe-")
    os.environ["LITS_BOARD_STUDIO_DATA"] = tmp
    log = ImportLog()
    sys.meta_path.insert(0, log)  # type: ignore[arg-type]

    from PySide6.QtCore import QCoreApplication, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)
    QCoreApplication.setOrganizationName("LITS Board Studio probe")
    QCoreApplication.setApplicationName("lits-designer")
    app = QApplication(["lits-designer"])
    from designer.app import create_window
    from designer.main_window import MainWindow

    window = create_window(None)
    assert isinstance(window, MainWindow)
    window.resize(1000, 700)
    window.show()
    app.processEvents()
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))

    def spin(seconds: float, until: object = None) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end and not (callable(until) and until()):
            app.processEvents()
            time.sleep(0.002)

    spin(args.delay)
    from designer import warmup

    try:
        from designer.playtest.launcher import PlaytestStarter
    except ImportError:  # a version without it (to measure what it changed): the play-test opens directly
        PlaytestStarter = type(None)  # type: ignore[assignment,misc]

    result: dict[str, object] = {"delay_s": args.delay, "warmup_started": warmup._runner is not None,
                                 "warmup_done": warmup.done.is_set()}
    opened_at: list[float] = []
    since = len(log.loaded)
    timer.start()
    t0 = time.monotonic()
    ticks.append(t0)
    window.playtest_action.trigger()  # Ctrl+T
    result["ctrl_t_block_s"] = round(time.monotonic() - t0, 3)
    shown = [w for w in QApplication.topLevelWidgets() if w.isVisible() and w is not window]
    result["opened_at_once"] = [type(w).__name__ for w in shown]
    starter = next((w for w in shown if isinstance(w, PlaytestStarter)), None)
    if starter is not None:
        result["says"] = starter.message.text()
        starter.opened.connect(lambda _w: opened_at.append(time.monotonic()))
        spin(args.timeout, lambda: starter.playtest is not None)
        spin(0.3)
        playtest = starter.playtest
    else:
        opened_at.append(t0)
        playtest = next((w for w in shown if type(w).__name__ == "PlaytestWindow"), None)
        spin(0.3)
    end = time.monotonic()
    result["playtest_open"] = playtest is not None and playtest.isVisible()
    result["playtest_open_after_s"] = round(opened_at[0] - t0, 3) if opened_at else None
    ticks.append(end)
    gaps = [(b - a, a) for a, b in itertools.pairwise(ticks)]
    built = opened_at[0] if opened_at else end
    loading = [g for g, at in gaps if at < built - 0.001]
    after = [g for g, at in gaps if at >= built - 0.3]  # the gap that contains building the play-test window
    result["longest_gap_while_loading_s"] = round(max(loading, default=0.0), 3)
    result["gaps_over_50ms_while_loading"] = [round(g, 3) for g in loading if g > 0.05]
    result["longest_gap_building_playtest_s"] = round(max(after, default=0.0), 3)
    imported = log.on_gui_thread(since)
    result["engine_imports_on_gui_thread"] = imported[:10] + ([f"... {len(imported)} in all"] if imported[10:] else [])
    result["load_avg"] = [round(x, 2) for x in os.getloadavg()]
    if playtest is not None:
        playtest.close()
    window.document.undo_stack.setClean()
    window.close()
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
