"""``python tests/gui/improve_screenshot.py OUT.png [WIDTHxHEIGHT]``: the Improve dialog as Tools > Improve this
board opens it on the bundled default board, with three proposals, grabbed offscreen to a PNG
(``docs/improve-dialog.png``) on a screen of the given size (default 1920x1080; the dialog fits itself to it).

The proposals come from the GUI tests' stand-in scoring function (its best layout empties J1 and puts X on J2),
which makes the picture take seconds instead of minutes; the figures in it are that function's ("test" level),
not an analysis, and which proposals a run finds depends on how far it got in its time.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time


def main(out: str, screen: str = "1920x1080") -> int:
    import json

    tmp = tempfile.mkdtemp(prefix="lits-shot-")
    width, height = (int(x) for x in screen.lower().split("x"))
    config = os.path.join(tmp, "screen.json")
    with open(config, "w", encoding="utf-8") as f:
        json.dump({"screens": [{"name": "shot", "x": 0, "y": 0, "width": width, "height": height,
                                "logicalDpi": 96, "logicalBpi": 96, "dpr": 1}]}, f)
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"
    os.environ["LITS_BOARD_STUDIO_DATA"] = tmp
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)
    app = QApplication(["lits-designer"])
    from core.board.geometry import parse_cell
    from core.generate.layout import layout_of
    from designer.app import create_window
    from designer.dialogs.improve import ImproveDialog
    from designer.main_window import MainWindow
    from tests.gui.test_generate_dialogs import engine_for

    window = create_window(None)
    assert isinstance(window, MainWindow)
    window.resize(1280, 820)
    window.show()
    target = list(layout_of(window.document.board))
    target[parse_cell("J1", 12)] = 0
    target[parse_cell("J2", 12)] = 2
    dialog = ImproveDialog(window.document, parent=window, engine=engine_for(tuple(target)))
    dialog.show()
    dialog.time_box.setValue(10)
    dialog.start()
    end = time.monotonic() + 300
    while (dialog.running or not dialog.proposals) and time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)
    for _ in range(30):
        app.processEvents()
        time.sleep(0.01)
    ok = dialog.grab().save(out)
    said = dialog.progress.label.text()
    print(f"{out}: {dialog.width()}x{dialog.height()}, {len(dialog.proposals)} proposals; {said}", flush=True)
    window.document.undo_stack.setClean()
    window.close()
    return 0 if ok and dialog.proposals else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
