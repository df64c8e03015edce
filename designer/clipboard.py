"""Text and picture on the clipboard in one go, without crashing the program when it quits.

A chat client pastes whichever of the two it takes, so the Host window's post goes on the clipboard as one
``QMimeData`` holding both.  That object is made from Python, and the clipboard keeps it until another program
copies something.  If it is still there when the program ends, Qt deletes it from a destructor that runs after
the Python interpreter is gone, and PySide's clean-up for a Python-made object then dereferences the dead
interpreter: a segmentation fault on every quit after a copy (seen with PySide6 6.11 on the offscreen and xcb
platforms).  So before the interpreter shuts down (an ``atexit`` handler, which runs before PySide's own), the
post's text is handed back to the clipboard through ``QClipboard.setText``, whose data Qt makes itself; the
picture is dropped at that point, the text stays pasteable where the platform keeps a clipboard after its owner
quits.
"""

from __future__ import annotations

import atexit

import shiboken6
from PySide6.QtCore import QMimeData
from PySide6.QtGui import QGuiApplication, QImage

_ours: QMimeData | None = None
"""The Python-made data last put on the clipboard (it may since have been replaced and deleted by Qt)."""


def code_block(text: str) -> str:
    """``text`` between two lines of three backticks: chat clients (Discord, Slack, Matrix, GitHub) then show it
    in a fixed-width font and keep its spaces, so a text grid's columns stay under their letters."""
    return f"```\n{text.rstrip(chr(10))}\n```\n"


def put(text: str, image: QImage | None = None) -> None:
    """Put ``text`` and, when given, ``image`` on the clipboard as one paste."""
    global _ours
    mime = QMimeData()
    mime.setText(text)
    if image is not None and not image.isNull():
        mime.setImageData(image)
    QGuiApplication.clipboard().setMimeData(mime)
    _ours = mime


def hand_over() -> None:
    """Replace the Python-made data still on the clipboard with Qt-made text (see the module's docstring)."""
    global _ours
    mime, _ours = _ours, None
    if mime is None or not shiboken6.isValid(mime) or QGuiApplication.instance() is None:
        return  # nothing of ours left: another copy replaced it and Qt deleted it while Python was alive
    clipboard = QGuiApplication.clipboard()
    if clipboard.mimeData() is not mime:
        return
    clipboard.setText(mime.text())  # deletes ``mime`` now, while the interpreter can still clean it up


atexit.register(hand_over)  # registered after PySide's own atexit clean-up, so it runs before it
