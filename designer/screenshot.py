"""``python -m designer.screenshot OUT.png``: a picture of the main window for the README.

Renders offscreen (no display needed) with a board and a real analysis result (the panel's default settings,
which are ``lits analyze``'s), so the screenshot in the README always shows what the current code draws.
Settings and app data go to a temporary folder: the user's own never change the picture.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m designer.screenshot",
                                     description="Render the designer's main window to a PNG, offscreen.")
    parser.add_argument("output", metavar="OUT.png")
    parser.add_argument("--board", default=None, help="board file (default: the default board)")
    parser.add_argument("--agent", default=None, help="analysis agents (default: the panel's, greedy + club)")
    parser.add_argument("--time", type=int, default=None, help="analysis time limit in seconds (default: the panel's)")
    parser.add_argument("--quick", action="store_true", help="a quick analysis (seconds instead of a minute)")
    parser.add_argument("--theme", choices=("light", "dark"), default="light")
    parser.add_argument("--width", type=int, default=1440)
    parser.add_argument("--height", type=int, default=900)
    args = parser.parse_args(argv)
    if not args.output.lower().endswith(".png"):
        print(f"designer.screenshot: {args.output}: the screenshot is a .png file", file=sys.stderr)
        return 2
    if not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"

    from PySide6.QtCore import QBuffer, QByteArray, QCoreApplication, QIODevice, QSettings, QTemporaryDir
    from PySide6.QtWidgets import QApplication

    from core.board.fileio import atomic_write_bytes
    from designer.app import create_window
    from designer.main_window import MainWindow

    # Never read or write the user's own settings: the picture must not depend on them.
    tmp = QTemporaryDir()
    os.environ["LITS_BOARD_STUDIO_DATA"] = tmp.path()  # no autosave is offered or written
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp.path())
    QCoreApplication.setOrganizationName("LITS Board Studio screenshot")
    QCoreApplication.setApplicationName("lits-designer")
    app = QApplication.instance() or QApplication(["lits-designer"])
    window = create_window(args.board, args.theme)
    assert isinstance(window, MainWindow)
    window.resize(args.width, args.height)
    window.show()
    app.processEvents()

    from core.analysis.run import analyze
    from designer.panels.analysis_panel import make_config

    panel = window.analysis
    if args.agent:
        panel.agent.setCurrentText(args.agent)
    if args.time:
        panel.time_limit.setValue(args.time)
    panel.quick.setChecked(args.quick)
    board = window.document.snapshot()
    config = make_config(panel.agent.currentText(), panel.time_limit.value(), quick=args.quick)
    print(f"analysing {board.name or 'the board'} with {', '.join(config.agents)}, effort {config.effort}…",
          file=sys.stderr)
    report = analyze(board, config, progress=None, cancel=threading.Event())
    window.analysis_dock.raise_()
    panel.show_report(report, board.size, getattr(report, "elapsed", None), quick=args.quick)
    if panel.heat_select.count() > 1:
        panel.heat_select.setCurrentIndex(1)
    deadline = time.monotonic() + 120
    while not panel.charts_ready() and time.monotonic() < deadline:  # drawn by the chart process
        app.processEvents()
        time.sleep(0.02)
    # Hover a cell so the picture shows the partner highlight and the status text.
    cell = 2 * board.size + 4
    window.view.hover = cell
    window.hover_label.setText(window.view.describe(cell))
    window.view.update()
    settled = 0
    while settled < 20 and time.monotonic() < deadline:  # the layout takes the charts in; a new width redraws them
        app.processEvents()
        time.sleep(0.02)
        settled = settled + 1 if panel.charts_ready() else 0
    pixmap = window.grab()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    pixmap.save(buffer, "PNG")
    buffer.close()
    atomic_write_bytes(args.output, bytes(data.data()))
    print(f"{args.output}: {pixmap.width()}x{pixmap.height()} px, verdict {report.verdict}", file=sys.stderr)
    window.document.undo_stack.setClean()
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
