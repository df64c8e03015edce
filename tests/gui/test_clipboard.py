"""The post goes on the clipboard as text and picture, and the program still quits cleanly after a copy."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("PySide6")

from PySide6.QtGui import QColor, QGuiApplication, QImage

from designer import clipboard
from tests.paths import REPO

pytestmark = pytest.mark.gui

QUIT_AFTER_COPY = textwrap.dedent("""
    import sys
    from PySide6.QtGui import QColor, QImage
    from PySide6.QtWidgets import QApplication
    from designer import clipboard

    app = QApplication([])
    image = QImage(8, 8, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    clipboard.put("Move 1 | Al (O) | A1 B1 C1 D1", image if sys.argv[1] == "picture" else None)
    print(QApplication.clipboard().text())
""")


@pytest.mark.parametrize("what", ["picture", "text"])
def test_the_program_quits_cleanly_after_a_copy(what: str) -> None:
    """Qt used to delete the Python-made clipboard data after the interpreter was gone: a segfault on quit."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", QUIT_AFTER_COPY, what], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Move 1 | Al (O) | A1 B1 C1 D1"


def test_put_holds_text_and_picture_and_hand_over_keeps_the_text(qtbot) -> None:  # type: ignore[no-untyped-def]
    image = QImage(8, 8, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    clipboard.put("the post", image)
    mime = QGuiApplication.clipboard().mimeData()
    assert mime.text() == "the post" and mime.hasImage()

    clipboard.hand_over()
    mime = QGuiApplication.clipboard().mimeData()
    assert mime.text() == "the post" and not mime.hasImage()
    assert clipboard._ours is None


def test_hand_over_leaves_a_later_copy_alone(qtbot) -> None:  # type: ignore[no-untyped-def]
    clipboard.put("the post")
    QGuiApplication.clipboard().setText("copied later, elsewhere")
    clipboard.hand_over()
    assert QGuiApplication.clipboard().text() == "copied later, elsewhere"
