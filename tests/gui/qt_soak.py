"""A long Qt session in one process: void Qt calls and hover repaints of the real designer window.

Run as a script so that a crash (``none_dealloc`` aborts the interpreter) fails the caller instead of killing the
test runner. Prints one JSON line with the reference counts of ``None`` before and after.
Used by ``tests/gui/test_qt_refcount.py`` (short) and ``tests/benchmarks/soak_designer.py`` (60 s, 300,000 calls).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

if not os.environ.get("QT_QPA_PLATFORM"):
    os.environ["QT_QPA_PLATFORM"] = "offscreen"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--updates", type=int, default=20_000, help="bare QWidget.update() calls")
    parser.add_argument("--hovers", type=int, default=300, help="hover moves over the board, each repainted")
    parser.add_argument("--seconds", type=float, default=0.0, help="keep hovering at least this long")
    args = parser.parse_args()

    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QWidget

    from designer.app import create_window

    app = QApplication.instance() or QApplication([])
    start_refs = sys.getrefcount(None)
    widget = QWidget()
    for _ in range(args.updates):
        widget.update()
    after_updates = sys.getrefcount(None)

    window = create_window()
    window.resize(1100, 800)  # type: ignore[attr-defined]
    window.show()  # type: ignore[attr-defined]
    view = window.view  # type: ignore[attr-defined]
    QTest.qWaitForWindowExposed(view)
    w, h = max(view.width(), 2), max(view.height(), 2)
    moves = 0
    deadline = time.monotonic() + args.seconds
    while moves < args.hovers or time.monotonic() < deadline:
        x = (moves * 37) % w
        y = (moves * 53) % h
        QTest.mouseMove(view, QPoint(x, y))
        view.repaint()
        app.processEvents()
        moves += 1
    end_refs = sys.getrefcount(None)
    window.close()  # type: ignore[attr-defined]
    print(json.dumps({"start": start_refs, "after_updates": after_updates, "end": end_refs,
                      "hovers": moves, "updates": args.updates}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
