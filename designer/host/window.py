"""The Host window: run a live death match from the studio.

Everything the window shows comes from ``core.match`` (the journal, the rebuilt match, its judgements, the
post); the window only draws it and forwards the host's input.  Every button writes one journal event through
:meth:`core.match.host.Match.submit`, so closing the window, or a crash, loses nothing: opening the folder again
rebuilds the match from its journal.  The post's picture is drawn by ``lits match post``'s own code in a helper
process (matplotlib would otherwise hold the GUI thread), so the image copied here is the one the command line
writes.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QFont, QImage, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.board.fileio import file_stamp
from core.board.model import Board
from core.engine.rules import Placement
from core.match.events import (
    Correct,
    End,
    Event,
    EventError,
    MatchRule,
    Move,
    Pause,
    Refusal,
    Resign,
    Resume,
    Source,
    Undo,
)
from core.match.host import Match, MatchExistsError, RevealError, reveal_sealed, start_problem
from core.match.journal import JOURNAL_ADVICE, JOURNAL_NAME, JournalError
from core.match.post import make_post
from core.match.session import (
    DEFAULT_WINDOW,
    MAX_WINDOW,
    Implausible,
    MatchSession,
    Refused,
)
from core.match.times import AN_HOUR_MS, TimeError, clock_text, now_ms, parse_when, span_text
from core.match.words import log_line, refused_text
from core.play.clock import format_seconds
from core.selfplay.worker import start_helper
from designer import clipboard
from designer.canvas.render import RenderOptions
from designer.dialogs.forms import ok_cancel_form
from designer.host import helper
from designer.host.recent import last_match_parent, match_closed, match_opened
from designer.playtest.canvas import PlayCanvas, board_beside
from designer.workers import HELPER_NICE

TO_MOVE = "The player to move"
VERDICT_MS = 60_000
"""How long a verdict stays once the paste box is empty."""
CHOOSE = "Choose who posted it"
"""The Posted by box once a move has counted: every post names its poster, so a player's second post in a row is
never charged to the opponent."""
OK_COLOUR = "#2e7d32"
BAD_COLOUR = "#c62828"


class _Relay(QObject):
    """Carries a helper process's answer to the GUI thread (a queued signal)."""

    drawn = Signal(int, object)
    broken = Signal(str)


class PictureMaker(QObject):
    """Draws posts in one helper process, newest request wins; ``ready(text, png path)`` or ``failed(message)``.

    Even handing a request over happens off the GUI thread: the first one starts the helper process, which took
    50-100 ms at load 8 (a window that opens with a stall)."""

    ready = Signal(str, str)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool: cf.ProcessPoolExecutor | None = None
        self._token = 0
        self._closed = False
        self._lock = threading.Lock()
        self._handover = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="post-picture")
        self._relay = _Relay(self)
        self._relay.drawn.connect(self._on_drawn)
        self._relay.broken.connect(self.failed)

    def request(self, folder: str) -> None:
        self._token += 1
        token = self._token
        with contextlib.suppress(RuntimeError):  # shut down: the window is closing
            self._handover.submit(self._submit, token, folder)

    def _submit(self, token: int, folder: str) -> None:
        """Runs on the hand-over thread: start the helper if needed and give it the request."""
        with self._lock:
            if self._closed:
                return
            if self._pool is None:
                self._pool = cf.ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                                    initializer=start_helper, initargs=(HELPER_NICE,))
            try:
                future = self._pool.submit(helper.draw_post, folder)
            except (RuntimeError, cf.BrokenExecutor):  # a helper that died: start a new one next time
                self._pool = None
                with contextlib.suppress(RuntimeError):
                    self._relay.broken.emit("the helper that draws pictures stopped; try again")
                return
        future.add_done_callback(lambda f: self._deliver(token, f))

    def _deliver(self, token: int, future: cf.Future[tuple[str, str]]) -> None:
        """Runs on the pool's thread: hand the answer to the GUI thread, unless the window is gone."""
        with contextlib.suppress(RuntimeError):  # the window closed while the picture was drawn
            self._relay.drawn.emit(token, future)

    def _on_drawn(self, token: int, future: object) -> None:
        if token != self._token or not isinstance(future, cf.Future):
            return
        try:
            text, path = future.result()
        except Exception as exc:  # reported in words; the host can post the text meanwhile
            if isinstance(exc, cf.BrokenExecutor):
                with self._lock:
                    self._pool = None
            self.failed.emit(f"{type(exc).__name__}: {exc}")
            return
        self.ready.emit(text, path)

    def shutdown(self) -> None:
        self._token += 1
        self._handover.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            self._closed = True
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None


class HostWindow(QMainWindow):
    """One match: players, the paste box that judges as it is typed, the board, live clocks, the post."""

    recorded = Signal()
    """A journal event was written (a post judged, a pause, ...)."""
    picture_ready = Signal()

    def __init__(self, match: Match, parent: QWidget | None = None, options: RenderOptions | None = None,
                 clock: Callable[[], int] = now_ms, tick_ms: int = 200, draw_pictures: bool = True) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.match = match
        self._clock = clock
        self._said_at = 0
        """When the verdict line was last set (wall-clock ms)."""
        self.post_text = ""
        self.post_image: QImage | None = None
        self._drawn_text = ""
        session = match.session
        self.setWindowTitle(f"Host a match: {session.names[0]} vs {session.names[1]} ({match.folder})")
        self.canvas = PlayCanvas(session.board)
        self.canvas.options = replace(options or RenderOptions(), title="")
        self.canvas.set_legal([], interactive=False)
        self._build()
        self.pictures = PictureMaker(self)
        self.pictures.ready.connect(self._on_picture)
        self.pictures.failed.connect(lambda message: self.picture_label.setText(f"No picture: {message}"))
        self._draw_pictures = draw_pictures
        self._journal_seen = self._journal_stamp()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._on_timer)
        self.timer.start(tick_ms)
        match_opened(QSettings(), str(self.match.folder))  # offered back if the studio stops with it open
        self.refresh()

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        big = QFont()
        big.setPointSize(big.pointSize() + 3)
        big.setBold(True)
        self.players_label = QLabel()
        self.players_label.setFont(big)
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.problem_label = QLabel()
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet(f"color: {BAD_COLOUR}; font-weight: bold")
        self.problem_label.hide()
        self.journal_problem: str | None = None
        self.clock_labels = [QLabel(), QLabel()]
        for label in self.clock_labels:
            label.setFont(big)
        clocks = QHBoxLayout()
        for label in self.clock_labels:
            clocks.addWidget(label)

        self.by_combo = QComboBox()
        self.time_edit = QLineEdit()
        self.time_edit.setPlaceholderText("now, or the post's time: 14:03:27")
        self.paste_edit = QLineEdit()
        self.paste_edit.setPlaceholderText("paste the move as posted, e.g. e6 f6 g6 f7")
        self.paste_edit.textChanged.connect(self.judge)
        self.paste_edit.returnPressed.connect(self.record_move)
        self.time_edit.returnPressed.connect(self.paste_edit.setFocus)  # the time first, then the move: Enter moves on
        self.by_combo.currentIndexChanged.connect(self.judge)
        self.verdict_label = QLabel()
        self.verdict_label.setWordWrap(True)
        self.correction_label = QLabel()
        self.correction_label.setWordWrap(True)
        self.correction_label.hide()
        form = QFormLayout()
        form.addRow("Posted by", self.by_combo)
        form.addRow("Post time", self.time_edit)
        form.addRow("Move", self.paste_edit)
        form.addRow(self.verdict_label)
        form.addRow(self.correction_label)

        self.record_button = QPushButton("&Record move")
        self.record_button.clicked.connect(self.record_move)
        self.correct_button = QPushButton("&Correct last move")
        self.correct_button.setToolTip("Replace the last move by the pasted one (its player, within the window)")
        self.correct_button.clicked.connect(self.correct_move)
        self.swap_button = QPushButton("&Swap")
        self.swap_button.setToolTip("The pie rule: only as the second player's first turn")
        self.swap_button.clicked.connect(self.swap)
        self.pause_button = QPushButton("&Pause")
        self.pause_button.clicked.connect(self.toggle_pause)
        self.resign_button = QPushButton("Re&sign…")
        self.resign_button.clicked.connect(self.resign)
        self.end_button = QPushButton("&End match")
        self.end_button.clicked.connect(self.end_match)
        self.undo_button = QPushButton("&Undo last…")
        self.undo_button.setToolTip("Take back the last event recorded (a slip: a wrong time, a wrong post), with "
                                    "an event of its own; asks first, showing what it takes back")
        self.undo_button.clicked.connect(self.undo_last)
        buttons = QHBoxLayout()
        for button in (self.record_button, self.correct_button, self.swap_button, self.pause_button,
                       self.resign_button, self.end_button, self.undo_button):
            buttons.addWidget(button)

        self.post_edit = QPlainTextEdit()
        self.post_edit.setReadOnly(True)
        mono = QFont("DejaVu Sans Mono")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.post_edit.setFont(mono)
        self.picture_label = FitPicture()
        self.copy_button = QPushButton("C&opy post (text and picture)")
        self.copy_button.clicked.connect(self.copy_post)
        post_box = QGroupBox("Post for the game room")
        post_layout = QVBoxLayout(post_box)
        post_layout.addWidget(self.post_edit, 2)
        post_layout.addWidget(self.picture_label, 1)
        post_layout.addWidget(self.copy_button)

        self.log_list = QListWidget()

        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.addWidget(self.players_label)
        side_layout.addLayout(clocks)
        side_layout.addWidget(self.status_label)
        side_layout.addWidget(self.problem_label)
        side_layout.addLayout(form)
        side_layout.addLayout(buttons)
        side_layout.addWidget(post_box, 3)
        side_layout.addWidget(QLabel("Journal"))
        side_layout.addWidget(self.log_list, 1)
        self.setCentralWidget(board_beside(self.canvas, side, side_stretch=2))

    def set_render_options(self, options: RenderOptions) -> None:
        """Follow the designer's theme, grid and coordinates."""
        self.canvas.options = replace(options, title="")
        self.canvas.update()

    # ------------------------------------------------------------------ showing the match
    @property
    def session(self) -> MatchSession:
        return self.match.session

    def refresh(self) -> None:
        """Redraw everything from the match (after it changed)."""
        s = self.session
        self.players_label.setText(" vs ".join(s.label(seat) for seat in (0, 1)))
        current = self.by_combo.currentText()
        anyone = CHOOSE if s.actions else TO_MOVE
        self.by_combo.blockSignals(True)
        self.by_combo.clear()
        self.by_combo.addItems([anyone, *s.names])
        self.by_combo.setCurrentText(current if current in s.names else anyone)
        self.by_combo.blockSignals(False)
        state = s.state
        ids = {c: i for i, p in enumerate(state.placements) for c in p.cells}
        self.canvas.set_pieces({c: state.placements[i].ptype for c, i in ids.items()}, ids)
        self.log_list.clear()
        for seq, event in s.events:
            self.log_list.addItem(f"{seq:>3}  {log_line(event)}" + ("  (taken back)" if seq in s.undone else ""))
        self.log_list.scrollToBottom()
        ended = s.ended is not None
        for button in (self.record_button, self.correct_button, self.swap_button, self.pause_button,
                       self.resign_button):
            button.setEnabled(not ended and not (s.over and button is not self.correct_button))
        self.end_button.setEnabled(not ended and s.over)
        self.swap_button.setEnabled(not ended and not s.over and s.state.swap_refusal() is None)
        self.undo_button.setEnabled(len(s.standing()) > 1)
        self.pause_button.setText("&Resume" if s.paused_at is not None else "&Pause")
        self.tick()
        self.judge()
        self._update_post()

    def _journal_stamp(self) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
        """What tells that the journal changed: its and its check file's modification time and size (an edit in
        place keeps the size)."""
        return file_stamp(self.match.journal.path), file_stamp(self.match.journal.check_path)

    def _on_timer(self) -> None:
        """Follow the journal (a command typed in a terminal writes to it too), then the clocks."""
        stamp = self._journal_stamp()
        if stamp != self._journal_seen:
            self._journal_seen = stamp
            try:
                self.match.reload()
            except JournalError as exc:
                self._distrust(str(exc))
                return
            self._distrust(None)
            self.refresh()
            return
        self.tick()

    def _distrust(self, problem: str | None) -> None:
        """Show (or, once the journal reads again, clear) why the journal cannot be trusted, with the way on; while
        it stands, nothing can be recorded and the clocks stop following it."""
        self.journal_problem = problem
        self.problem_label.setVisible(problem is not None)
        if problem is not None:
            self.problem_label.setText(f"The journal cannot be trusted: {problem}\n{JOURNAL_ADVICE}")
        for button in (self.record_button, self.correct_button, self.swap_button, self.pause_button,
                       self.resign_button, self.end_button):
            button.setEnabled(problem is None and self.session.ended is None)
        if problem is None:
            self.swap_button.setEnabled(self.session.state.swap_refusal() is None and not self.session.over)
        self.undo_button.setEnabled(problem is None and len(self.session.standing()) > 1)

    def tick(self) -> None:
        """The live clocks (a QTimer calls this): each player's turn time and bank, by the wall clock."""
        if self.journal_problem is not None:
            return
        s = self.session
        now = max(self._clock(), s.now)
        self._fade_verdict(self._clock())
        clocks = s.clocks(now)
        for seat, label in enumerate(self.clock_labels):
            turn, bank, running = clocks[seat]
            mark = "▶ " if running else ""
            moving = not s.over and seat == s.seat_to_move()
            turn_text = f"turn {format_seconds(turn / 1000)}, " if moving else ""
            label.setText(f"{mark}{s.label(seat)}: {turn_text}bank {format_seconds(bank / 1000)}")
        result = s.result_text()
        if result:
            self.status_label.setText(f"Result: {result}" + (" The match is closed." if s.ended else
                                                              " Press End match to close it."))
            return
        ran_out = self._ran_out(now)
        if ran_out is not None:
            flagged, deadline = ran_out
            name = s.label(flagged) if flagged is not None else "?"
            self.status_label.setText(f"{name}'s bank ran out at {s.clock_at(deadline)}: the next event records "
                                      "the loss on time (End match closes it).")
            self.end_button.setEnabled(s.ended is None)
            return
        paused = f"Paused since {s.clock_at(s.paused_at)}. " if s.paused_at is not None else ""
        self.status_label.setText(f"{paused}{s.label(s.seat_to_move())} to move.")

    def _ran_out(self, at: int) -> tuple[int | None, int] | None:
        """(the seat whose clock runs, the instant its bank emptied) when that is at or before ``at``, else None."""
        s = self.session
        deadline = s.deadline()
        if deadline is None or at < deadline:
            return None
        return s.clock.current, deadline

    def _by(self) -> str | None:
        text = self.by_combo.currentText()
        return None if text in ("", TO_MOVE, CHOOSE) else text

    def judge(self) -> None:
        """Judge the pasted text as it is typed: what it would be if recorded now, and where on the board."""
        text = self.paste_edit.text()
        s = self.session
        last = s.state.placements[-1].cells if s.state.placements else ()
        self.correction_label.hide()
        if not text.strip():
            self.verdict_label.setText("")
            self.canvas.set_marks(highlight=last)
            return
        typed = self.time_edit.text().strip()
        try:
            at = parse_when(typed, (s.now, s.zone))[0] if typed else max(self._clock(), s.now)
        except TimeError as exc:
            self._say(str(exc), ok=False)
            return
        ran_out = self._ran_out(at) if s.result() is None else None
        if ran_out is not None:
            flagged, deadline = ran_out
            name = s.label(flagged) if flagged is not None else "The player to move"
            self._say(f"Too late to count: {name}'s bank ran out at {s.clock_at(deadline)}, so recording it "
                      "records the loss on time", ok=False)
            self.canvas.set_marks(highlight=last)
            return
        reading = self.match.chat_reading(text)
        text = reading.text
        try:
            verdict = s.judge_move(text, self._by())
        except (Refused, EventError) as exc:
            self._say(str(exc), ok=False)
            return
        if verdict.counted:
            cells = verdict.move.cells if isinstance(verdict.move, Placement) else ()
            self._say(f"{reading.quote + ' ' if reading.quote else ''}Counts: {verdict.message}", ok=True)
            self.canvas.set_marks(highlight=cells)
        else:
            unread = f" {reading.unread}" if reading.unread and verdict.rule is MatchRule.NOTATION else ""
            assert verdict.rule is not None
            self._say(refused_text(Refusal(verdict.rule, verdict.message), cells=False) + unread, ok=False)
            self.canvas.set_marks(highlight=last, problems=verdict.cells)
        self._judge_correction(text, at)

    def _judge_correction(self, text: str, at: int) -> None:
        """While the last move may still be corrected, what the pasted text would be as its correction: the host
        sees before pressing Correct whether it counts."""
        s = self.session
        previous = s.last_action
        if previous is None or at > previous.at + s.window_ms or s.result() is not None:
            self.correction_label.hide()
            return
        try:
            verdict = s.judge_correction(text, self._by(), at)
        except (Refused, EventError) as exc:
            verdict_text, ok = str(exc), False
        else:
            verdict_text = verdict.message if verdict.counted else f"not counted ({verdict.rule}): {verdict.message}"
            ok = verdict.counted
        self.correction_label.setStyleSheet(f"color: {OK_COLOUR if ok else BAD_COLOUR}")
        self.correction_label.setText(f"As Correct last move: {verdict_text}")
        self.correction_label.show()

    def _say(self, text: str, ok: bool) -> None:
        self.verdict_label.setStyleSheet(f"color: {OK_COLOUR if ok else BAD_COLOUR}")
        self.verdict_label.setText(text)
        self._said_at = self._clock()

    def _fade_verdict(self, now: int) -> None:
        """A verdict about a post no longer in the paste box goes after a minute: a red line left for minutes reads
        as a problem with what comes next."""
        if not self.paste_edit.text().strip() and self.verdict_label.text() and now - self._said_at > VERDICT_MS:
            self.verdict_label.setText("")

    def _update_post(self) -> None:
        post = make_post(self.session)
        self.post_text = post.text
        self.post_edit.setPlainText(post.text)
        if post.text != self._drawn_text:
            self.post_image = None
            self.picture_label.set_image(None)
            self.picture_label.setText("Drawing the picture…" if self._draw_pictures else "")
            if self._draw_pictures:
                self.pictures.request(str(self.match.folder))

    def _on_picture(self, text: str, path: str) -> None:
        image = QImage(path)
        if image.isNull():
            self.picture_label.setText(f"No picture: {path} cannot be read")
            return
        self._drawn_text = text
        self.post_image = image
        self.picture_label.set_image(image)
        self.picture_ready.emit()

    def copy_post(self) -> None:
        """Text and picture on the clipboard in one go (a chat client pastes what it takes)."""
        ran_out = self._ran_out(max(self._clock(), self.session.now)) if self.session.result() is None else None
        if ran_out is not None:  # the post would still show a bank that is empty by now
            flagged, deadline = ran_out
            name = self.session.label(flagged) if flagged is not None else "The running player"
            self._say(f"Not copied: {name}'s bank ran out at {self.session.clock_at(deadline)}, which the post does "
                      "not show yet; press End match to record the loss on time, then copy the post", ok=False)
            return
        drawn = self.post_image is not None and self._drawn_text == self.post_text
        clipboard.put(self.post_text, self.post_image if drawn else None)
        if not drawn and self._draw_pictures:  # a post pasted without its board would look complete
            self._say("Copied the text only: the picture is still being drawn; copy again in a moment", ok=False)

    # ------------------------------------------------------------------ recording
    def _confirm(self, title: str, text: str) -> bool:
        """Ask the host before a step that is hard to see in a slip (tests answer for the host here)."""
        answer = QMessageBox.question(self, title, text, QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                      QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def _submit(self, event_at: Callable[[str], Event], confirmed: bool = False) -> list[Event] | None:
        """Write the event ``event_at`` makes for the time in the Time box (now when empty); a refusal or bad input
        is said in the verdict line and nothing else happens."""
        try:
            written = self.match.submit(event_at(self.match.when(self.time_edit.text().strip() or None)),
                                        confirmed=confirmed)
        except Implausible as exc:
            if self._confirm("Unusual time", f"{exc}.\n\nRecord it at this time anyway?"):
                return self._submit(event_at, confirmed=True)
            self._say(f"Not recorded: {exc}; give the post's time in the Time box", ok=False)
            return None
        except Refused as exc:
            self._say(f"Refused: {exc}", ok=False)
            self.refresh_after_refusal()
            return None
        except (EventError, TimeError) as exc:
            self._say(str(exc), ok=False)
            return None
        except JournalError as exc:
            self._distrust(str(exc))
            QMessageBox.critical(self, "Journal cannot be trusted", f"{exc}\n\n{JOURNAL_ADVICE}")
            return None
        except OSError as exc:
            QMessageBox.critical(self, "Not counted", self.match.failure_text(exc))
            self.match.reload()
            return None
        self._journal_seen = self._journal_stamp()
        last = written[-1]
        refusal = last.refusal if isinstance(last, Move | Correct) else None
        if refusal is None:  # a refused post is re-entered with the time it was posted at
            self.time_edit.clear()
        self.by_combo.setCurrentIndex(0)  # each post names its own poster, the one before may have been refused
        self.refresh()
        if refusal is not None:
            self._say(refused_text(refusal, cells=False), ok=False)
        self.recorded.emit()
        return written

    def refresh_after_refusal(self) -> None:
        """A refused host command may still have recorded a timeout that fell before it."""
        message = self.verdict_label.text()
        self.refresh()
        self._say(message, ok=False)

    def _post(self, kind: str, text: str) -> None:
        problem = self.session.poster_problem(kind, self._by())
        if problem is not None:
            self._say(f"Not recorded: {problem[0].upper()}{problem[1:]} (Posted by)", ok=False)
            self.by_combo.setFocus()
            return
        reading = self.match.chat_reading(text)
        post = Correct if kind == "correct" else Move
        by = self._by()
        written = self._submit(lambda at: post(at, reading.text, by, reading.posted))
        last = None if written is None else written[-1]
        if isinstance(last, Move | Correct) and last.counted:
            self.paste_edit.clear()
            if reading.quote is not None:
                self._say(f"{reading.quote} Counted.", ok=True)

    def record_move(self) -> None:
        if self.paste_edit.text().strip():
            self._post("move", self.paste_edit.text())

    def correct_move(self) -> None:
        if self.paste_edit.text().strip():
            self._post("correct", self.paste_edit.text())

    def swap(self) -> None:
        self._post("move", "swap")

    def toggle_pause(self) -> None:
        self._submit(Resume if self.session.paused_at is not None else Pause)

    def resign(self) -> None:
        s = self.session
        names = list(s.names)
        box = QMessageBox(self)
        box.setWindowTitle("Resign")
        box.setText("Who resigns?")
        buttons = [box.addButton(name, QMessageBox.ButtonRole.AcceptRole) for name in names]
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        for name, button in zip(names, buttons, strict=True):
            if box.clickedButton() is button:
                self.resign_player(name)

    def resign_player(self, name: str) -> None:
        self._submit(lambda at: Resign(at, name))

    def end_match(self) -> None:
        self._submit(End)

    def undo_last(self) -> None:
        """Take back the last command's events after showing them; the journal keeps them and the undo."""
        s = self.session
        try:
            lines = s.undo_lines(1)
        except Refused as exc:
            self._say(f"Refused: {exc}", ok=False)
            return
        taken = "\n".join(f"line {seq}: {log_line(s.event_at(seq))}" for seq in sorted(lines))
        if not self._confirm("Undo", f"Take back:\n{taken}\n\nThe journal keeps them, marked as taken back."):
            return
        if self._submit(lambda at: Undo(at, 1), confirmed=True) is not None:
            seq, last = self.session.standing()[-1]
            self._say(f"Taken back line(s) {', '.join(map(str, sorted(lines)))}: the match stands as after line "
                      f"{seq} ({log_line(last).strip()})", ok=True)

    def closeEvent(self, event: QCloseEvent) -> None:
        match_closed(QSettings(), str(self.match.folder))
        self.timer.stop()
        self.pictures.shutdown()
        super().closeEvent(event)


class FitPicture(QLabel):
    """The post's picture shown whole at whatever size the layout gives it: a cut preview would hide the move line,
    the clocks and the result that the copied PNG holds."""

    def __init__(self) -> None:
        super().__init__()
        self._image: QImage | None = None
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setMinimumSize(160, 160)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)  # the picture never drives layout

    def set_image(self, image: QImage | None) -> None:
        self._image = image
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        if self._image is None:
            self.setPixmap(QPixmap())
            return
        side = max(1, min(self.width(), self.height()))
        self.setPixmap(QPixmap.fromImage(self._image).scaled(side, side, Qt.AspectRatioMode.KeepAspectRatio,
                                                             Qt.TransformationMode.SmoothTransformation))


class HostSetupDialog(QDialog):
    """Who plays O and X, when the first player's clock starts, how long a post may be corrected, and, for a
    sealed board, its file and the published SHA256SUMS or digest it is checked against."""

    def __init__(self, parent: QWidget | None = None, board: Board | None = None, sealed: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("Host a match")
        self.o_edit = QLineEdit()
        self.o_edit.setPlaceholderText("name in the game room")
        self.x_edit = QLineEdit()
        self.x_edit.setPlaceholderText("name in the game room")
        self.start_edit = QLineEdit()
        self.start_edit.setPlaceholderText("now, or when play begins: 20:00:00")
        self.start_edit.setToolTip("The first player's clock runs from this time: set up early, give the time the "
                                   "match begins (today, this computer's time zone)")
        self.window_spin = QSpinBox()
        self.window_spin.setRange(0, MAX_WINDOW)
        self.window_spin.setValue(DEFAULT_WINDOW)
        self.window_spin.setSuffix(" s")
        self.window_spin.setToolTip("How long after a post its player may still correct it")
        self.sealed_edit = QLineEdit(sealed)
        self.sealed_edit.setPlaceholderText("optional: the season's .lits-sealed file of this match")
        self.sealed_edit.setToolTip("A sealed board is checked against its published digest, and the journal "
                                    "keeps the proof that the board played is the one committed")
        self.sums_edit = QLineEdit()
        self.sums_edit.setPlaceholderText("SHA256SUMS file, or the published digest")
        for edit in (self.o_edit, self.x_edit, self.start_edit, self.sealed_edit, self.sums_edit):
            # wide enough for its hint: a placeholder cut short ("name in the gam…") says nothing
            edit.setMinimumWidth(edit.fontMetrics().horizontalAdvance(edit.placeholderText()) + 24)
        rows: list[tuple[str, QWidget]] = []
        self.board_problems: list[str] = []
        """Why the edited board cannot be played, said here so the host gives a sealed file before typing more."""
        if board is not None:
            from core.board.validation import Severity, validate

            first = board.params.first.value
            about = QLabel(f"{board.name or 'Untitled board'} ({board.size}x{board.size}); the player of {first} "
                           "places first")
            self.board_problems = [p.message for p in validate(board) if p.severity is Severity.ERROR]
            if self.board_problems:
                about.setText(f"{board.name or 'Untitled board'} cannot be played in a match: "
                              f"{'; '.join(self.board_problems[:3])}. Mend it in the editor, or give the match's "
                              "sealed file below.")
                about.setStyleSheet("color: #b3261e;")
            about.setWordWrap(True)
            rows.append(("Board", about))
        self.sealed_browse = QPushButton("Browse…")
        self.sealed_browse.clicked.connect(lambda: self._browse(self.sealed_edit, "The match's sealed board",
                                                                "Sealed boards (*.lits-sealed);;All files (*)"))
        self.sums_browse = QPushButton("Browse…")
        self.sums_browse.clicked.connect(lambda: self._browse(self.sums_edit, "The season's published SHA256SUMS",
                                                              "SHA256SUMS (SHA256SUMS*);;All files (*)"))
        rows += [("Plays O", self.o_edit), ("Plays X", self.x_edit), ("Clocks start", self.start_edit),
                 ("Correction window", self.window_spin),
                 ("Sealed board", _with_button(self.sealed_edit, self.sealed_browse)),
                 ("Checked against", _with_button(self.sums_edit, self.sums_browse))]
        ok_cancel_form(self, rows)

    def _browse(self, edit: QLineEdit, title: str, kinds: str) -> None:
        """Pick the file in the folder of what is typed (or the sealed file's), not wherever the program started."""
        typed = edit.text().strip() or self.sealed_edit.text().strip()
        start = str(Path(typed).parent) if typed else ""
        path, _kind = QFileDialog.getOpenFileName(self, title, start, kinds)
        if path:
            edit.setText(path)

    def start_time(self) -> str | None:
        return self.start_edit.text().strip() or None

    def start_problem(self) -> str | None:
        """A clock start far from now, said before the match starts: "8:05" typed at 03:35 would run the first
        player's clock from a time nobody meant, and the first post would then be refused with no way on."""
        typed = self.start_time()
        if typed is None:
            return None
        start, zone = parse_when(typed)
        now = now_ms()
        gap = start - now
        if abs(gap) <= AN_HOUR_MS:
            return None
        when = "from now" if gap > 0 else "ago"
        return (f"The clocks would start at {clock_text(start, zone)}, {span_text(abs(gap))} {when} (it is "
                f"{clock_text(now, zone)}). Start the match with that time?")

    def reveal(self) -> tuple[Board, Source] | None:
        """The sealed board and the start event's source, checked against its published digest; None when no
        sealed file was given.  RevealError says why it cannot start the match."""
        path = self.sealed_edit.text().strip()
        if not path:
            return None
        given = self.sums_edit.text().strip()
        if not given:
            raise RevealError(f"{path}: a sealed board needs its published digest, so the reveal is checked: give "
                              "its SHA256SUMS file or the digest", True)
        as_digest = len(given) == 64 and all(c in "0123456789abcdefABCDEF" for c in given)
        try:
            return reveal_sealed(path, None if as_digest else given, given if as_digest else None)
        except RevealError as exc:
            if exc.digest:
                raise RevealError(f"Checked against: {exc}", True) from None
            raise


def _with_button(edit: QLineEdit, button: QPushButton) -> QWidget:
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(edit, 1)
    layout.addWidget(button)
    return row


def open_host_window(parent: QWidget | None, board: Board, options: RenderOptions | None = None,
                     sealed: str = "", folder: str = "") -> HostWindow | None:
    """File > Host a match: pick the match's folder (``folder``: the one chosen from Recent matches or offered
    back after a crash); one with a journal resumes, an empty one starts a match on ``board`` (or on the sealed
    file named in the setup, ``sealed`` proposed) after asking who plays O and X."""
    if not folder:
        folder = QFileDialog.getExistingDirectory(parent, "Match folder: an empty folder starts a match, a folder "
                                                          "with a journal resumes it", last_match_parent(QSettings()))
    if not folder:
        return None
    try:
        if (Path(folder) / JOURNAL_NAME).exists():
            match = Match.open(folder)
        else:
            from core.board.validation import Severity, validate

            problem = start_problem(folder)  # said before the names are typed, not after
            if problem is not None:
                raise MatchExistsError(problem)
            dialog = HostSetupDialog(parent, board, sealed)
            while True:  # a name, a time or a sealed file to mend keeps what was typed
                if dialog.exec() != QDialog.DialogCode.Accepted:
                    return None
                try:
                    revealed = dialog.reveal()
                    played, source = revealed if revealed is not None else (board, None)
                    errors = dialog.board_problems if revealed is None else [
                        p.message for p in validate(played) if p.severity is Severity.ERROR]
                    if errors:
                        QMessageBox.warning(dialog, "Cannot host this match", "This board cannot be played in a "
                                            "match: " + "; ".join(errors[:3]))
                        continue
                    far = dialog.start_problem()
                    if far is not None and QMessageBox.question(
                            dialog, "Clocks start", far, QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                            QMessageBox.StandardButton.No) != QMessageBox.StandardButton.Yes:
                        continue
                    match = Match.create(folder, played, dialog.o_edit.text(), dialog.x_edit.text(),
                                         dialog.start_time(), dialog.window_spin.value(), source)
                    break
                except (EventError, TimeError, RevealError) as exc:
                    QMessageBox.warning(dialog, "Cannot host this match", str(exc))
    except JournalError as exc:
        QMessageBox.warning(parent, "Cannot host this match", f"{exc}\n\n{JOURNAL_ADVICE}")
        return None
    except (EventError, MatchExistsError, TimeError) as exc:
        QMessageBox.warning(parent, "Cannot host this match", str(exc))
        return None
    except OSError as exc:
        QMessageBox.warning(parent, "Cannot host this match", f"{folder}: {exc}")
        return None
    window = HostWindow(match, parent, options)
    window.show()
    return window


__all__ = ["HostSetupDialog", "HostWindow", "PictureMaker", "open_host_window"]
