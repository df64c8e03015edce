"""Open a play-test without freezing the designer, also in the first seconds after start.

The play-test needs the compiled engine and the placement tables of the board's size.  The start-up warm-up
(:mod:`designer.warmup`) loads them on a worker thread; a Play-test asked for before it ended built its window on
the GUI thread, which then waited for the same imports and tables (0.5-2 s with the window frozen).  Now, while
anything is left to load, a small window opens at once and says the play-test is getting ready; a worker waits
for the warm-up and loads what this board needs, and only then is the play-test window built (on the GUI thread,
from loaded tables) in its place.  This module imports no engine code, so choosing between the two is instant.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QLabel, QMainWindow, QProgressBar, QPushButton, QVBoxLayout, QWidget

from core.board.model import Board
from designer import warmup
from designer.canvas.render import RenderOptions
from designer.workers import Control, JobError, Worker

WAIT_STEP_S = 0.02
"""How often the waiting worker looks whether it was cancelled (closing the window waits for it to notice)."""


def open_playtest(board: Board, parent: QWidget | None = None,
                  options: RenderOptions | None = None) -> QMainWindow:
    """The play-test window on ``board`` when everything it needs is loaded, else a :class:`PlaytestStarter`
    that becomes it; either is shown."""
    window: QMainWindow
    if warmup.prepared(board):
        from designer.playtest.window import PlaytestWindow

        window = PlaytestWindow(board, parent=parent, options=options)
    else:
        window = PlaytestStarter(board, parent, options)
    window.show()
    return window


class PlaytestStarter(QMainWindow):
    """Says the play-test is getting ready while a worker loads what it needs, then opens it and closes."""

    opened = Signal(object)
    """The play-test window, once it is built."""

    def __init__(self, board: Board, parent: QWidget | None = None, options: RenderOptions | None = None) -> None:
        super().__init__(parent)
        self.board = board
        self.options = options
        self.playtest: QMainWindow | None = None
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle(f"Play-test — {board.name or 'untitled board'}")
        self.message = QLabel("Getting the play-test ready: the game engine is still loading (a few seconds "
                              "after the designer starts, longer on its very first start).")
        self.message.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)  # busy: loading reports no steps (a first start's compile does, see below)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.close)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addWidget(self.message)
        layout.addWidget(self.bar)
        layout.addWidget(cancel, 0, Qt.AlignmentFlag.AlignRight)
        self.setCentralWidget(body)
        self.resize(460, 150)
        self.runner: Worker[None, None] = Worker(self)
        self.runner.on_done(self._open)
        self.runner.on_failed(self._failed)
        snapshot = board.copy()
        self.warming = warmup.start(snapshot)  # asked for before the window's own warm-up began: begin it now
        if self.warming is not None:
            self.warming.on_progress(self._on_engine_progress)
        self.runner.request(lambda job: _prepare(snapshot, job))

    def _on_engine_progress(self, value: warmup.CompileProgress) -> None:
        """The first start's compile of the engine: its share done, and the same words as the status bar."""
        if not shiboken6.isValid(self):  # deleted with the designer window while the warm-up still reports
            return
        if self.bar.isVisible():
            self.bar.setRange(0, max(1, value.total))
            self.bar.setValue(min(value.done, value.total))
            self.message.setText(f"Getting the play-test ready. {value.words()}; the play-test opens then.")

    def set_render_options(self, options: RenderOptions) -> None:
        """The designer's theme, grid and coordinates, for the play-test window when it opens."""
        self.options = options

    def _open(self, _loaded: None) -> None:
        from designer.playtest.window import PlaytestWindow

        window = PlaytestWindow(self.board, parent=self.parentWidget(), options=self.options)
        self.playtest = window
        window.show()
        self.opened.emit(window)
        QTimer.singleShot(0, self.close)

    def _failed(self, error: JobError) -> None:
        self.bar.setVisible(False)
        self.message.setText(f"The play-test could not start: the game engine did not load ({error}).")

    def closeEvent(self, event: QCloseEvent) -> None:
        self.runner.cancel()  # the worker stops waiting; what it loaded stays loaded
        if self.warming is not None:  # the warm-up outlives this window: its reports must not reach it
            self.warming.progress.disconnect(self._on_engine_progress)
            self.warming = None
        super().closeEvent(event)


def _prepare(board: Board, job: Control[None]) -> None:
    """On the worker: wait for the start-up warm-up, then load what ``board`` needs and the play-test window's
    module (the warm-up sits under the play-test and does not import it); Cancelled: the window closed."""
    while not warmup.done.wait(WAIT_STEP_S):
        job.check()
    job.check()
    warmup.prepare(board)
    import designer.playtest.window  # noqa: F401  (the module only, here: its widgets are made on the GUI thread)
