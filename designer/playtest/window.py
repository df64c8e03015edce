"""Play-test window: play the current board under the match rules before committing to it.

The game itself (turns, the pie swap and who holds which symbol, undo/redo, records, the clock, when an agent
moves and at what pace) is ``core.play.session.PlaySession``, and every line of text and mark it shows is worked
out by ``core.play.view``; this window draws that and forwards input.  Agents think on the designer's typed
``Worker``; the window holds an answer back for as long as the session's pace asks.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QFont, QKeyEvent, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.board.geometry import cell_name
from core.board.model import MAX_CLOCK_SECONDS, Board
from core.engine.rules import SWAP, IllegalReason, Placement
from core.play import view
from core.play.session import (
    SEATS,
    STEP_PACE,
    AgentRequest,
    Change,
    Move,
    PlaySession,
    Refusal,
    agent_decision,
)
from designer.canvas.render import RenderOptions
from designer.playtest.canvas import PlayCanvas, board_beside
from designer.workers import Control, JobError, Worker

AGENT_CHOICES: tuple[tuple[str, str | None], ...] = (
    ("Human", None),
    ("Random player", "random"),
    ("Greedy player", "greedy"),
    ("Search, 200 simulations", "mcts:200"),
    ("Casual level", "casual"),
    ("Search, 1,000 simulations", "mcts:1000"),
    ("Search, 5,000 simulations", "mcts:5000"),
    ("Club level", "club"),
    ("Look-ahead, 8,000 positions", "ab:8000"),
    ("Search, 20,000 simulations", "mcts:20000"),
    ("Expert level", "expert"),
    ("Look-ahead, 1 s a move", "ab:t=1"),
)
"""Opponent strengths offered in the window, weakest first (spec strings of ``core.agents.spec``)."""

STEP = STEP_PACE
PACE_CHOICES: tuple[tuple[str, int], ...] = (
    ("As fast as they think", 0),
    ("At least 0.5 s per move", 500),
    ("At least 1 s per move", 1000),
    ("At least 2 s per move", 2000),
    ("Step: one move per click", STEP),
)
"""Agent-against-agent pace: a least time between a move and the answer, or one agent move per click."""
DEFAULT_PACE = 1
RECORD_SUFFIXES = (".lits-game", ".txt")
RECORD_FILTER = "Game records (" + " ".join(f"*{suffix}" for suffix in RECORD_SUFFIXES) + ")"
"""What the record dialogs list; a saved name gets the first suffix when it has none of them."""


class PlaytestWindow(QMainWindow):
    """A play-test session on a copy of ``board`` (hot-seat or against agents)."""

    game_over = Signal(str)
    """Emitted with the result text when the shown game becomes finished (again after an undo and redo)."""
    position_changed = Signal()

    def __init__(self, board: Board, parent: QWidget | None = None, *,
                 time_source: Callable[[], float] = time.monotonic, tick_ms: int = 200,
                 options: RenderOptions | None = None) -> None:
        super().__init__(parent)
        self.session = PlaySession(board, time_source=time_source)
        self.board = self.session.board
        """The play-test's own copy of the board (the designer goes on editing its own)."""
        self.session.set_pace(PACE_CHOICES[DEFAULT_PACE][1])
        self.last_illegal: IllegalReason | None = None
        self._hover_cell: int | None = None
        self._hover_status = ""
        self._said = ""
        """The last message :meth:`_say` put in the status bar."""
        self._answer: tuple[AgentRequest, Move] | None = None
        self._runner: Worker[tuple[AgentRequest, Move], None] = Worker(self)
        self._runner.on_done(self._on_agent_answer)
        self._runner.on_failed(self._on_agent_error)
        self._pace_timer = QTimer(self)
        self._pace_timer.setSingleShot(True)
        self._pace_timer.timeout.connect(self._deliver_answer)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # a closed play-test frees its timer and state
        self._build_ui()
        if options is not None:
            self.set_render_options(options)
        self._timer = QTimer(self)
        self._timer.setInterval(tick_ms)
        self._timer.timeout.connect(self.tick_clocks)
        self._timer.start()
        self._unsubscribe = self.session.subscribe(self._on_change)
        self._on_change(Change.POSITION)
        note = view.board_note(self.board)
        if note is not None:
            self._say(note, error=True)

    # ================================================================== UI ==========
    def _build_ui(self) -> None:
        self.setWindowTitle(f"Play-test — {self.board.name or 'untitled board'}")
        self.canvas = PlayCanvas(self.board)
        self.canvas.placement_clicked.connect(self._on_canvas_click)
        self.canvas.hovered.connect(self._on_hover)

        side = QWidget()
        col = QVBoxLayout(side)

        players = QGroupBox("Players")
        form = QFormLayout(players)
        self.seat_combos: list[QComboBox] = []
        for seat in SEATS:
            combo = QComboBox()
            for label, spec in AGENT_CHOICES:
                combo.addItem(label, spec)
            combo.currentIndexChanged.connect(lambda _i, s=seat: self._on_agent_choice(s))
            self.seat_combos.append(combo)
            info = self.session.seat_info(seat)  # before any move, so the symbol each player starts with
            form.addRow(f"{info.name} (starts as {info.symbol.value}):", combo)
        self.pace_combo = QComboBox()
        for label, ms in PACE_CHOICES:
            self.pace_combo.addItem(label, ms)
        self.pace_combo.setCurrentIndex(DEFAULT_PACE)
        self.pace_combo.setToolTip("Agent against agent: a least time per move so the game can be followed. "
                                   "Step: every agent move waits for a click of “Agent move” (F6)")
        self.pace_combo.currentIndexChanged.connect(self._on_pace)
        form.addRow("Agent pace:", self.pace_combo)
        buttons = QHBoxLayout()
        self.step_button = QPushButton("Agent move")
        self.step_button.setToolTip("Let the agent to move make one move now (F6): in step mode, or to play on "
                                    "from a position reached by undo")
        self.step_button.clicked.connect(self.step)
        buttons.addWidget(self.step_button)
        new_game = QPushButton("New game")
        new_game.clicked.connect(self.new_game)
        buttons.addWidget(new_game)
        form.addRow(buttons)
        col.addWidget(players)

        self.result_box = QGroupBox("Result")
        rcol = QVBoxLayout(self.result_box)
        self.result_label = QLabel()
        self.result_label.setWordWrap(True)
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        rcol.addWidget(self.result_label)
        col.addWidget(self.result_box)

        self.swap_button = QPushButton("Swap sides (pie rule)")
        self.swap_button.setToolTip("Instead of placing, take over the first placement and its symbol")
        self.swap_button.clicked.connect(self.swap)
        col.addWidget(self.swap_button)

        entry = QHBoxLayout()
        self.notation_edit = QLineEdit()
        self.notation_edit.setPlaceholderText("four cells, e.g. A1 A2 A3 B3 (or 'swap')")
        self.notation_edit.returnPressed.connect(self.submit_notation)
        self.notation_edit.installEventFilter(self)
        entry.addWidget(self.notation_edit)
        place = QPushButton("Place")
        place.clicked.connect(self.submit_notation)
        entry.addWidget(place)
        col.addLayout(entry)
        self.message_label = QLabel()
        self.message_label.setWordWrap(True)
        self.message_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        col.addWidget(self.message_label)

        self.hints_box = QCheckBox("Show hints (legal placements)")
        self.hints_box.toggled.connect(lambda _on: self._refresh())
        col.addWidget(self.hints_box)
        self.hint_label = QLabel()
        self.hint_label.setWordWrap(True)
        col.addWidget(self.hint_label)

        clocks = QGroupBox("Clock settings")
        cform = QFormLayout(clocks)
        self.clock_box = QCheckBox("Clocks on")
        self.clock_box.setChecked(True)
        self.clock_box.toggled.connect(self.session.set_clocks_enabled)
        cform.addRow(self.clock_box)
        self.turn_spin = QSpinBox()
        self.bank_spin = QSpinBox()
        for spin, value in ((self.turn_spin, self.board.params.turn_time), (self.bank_spin, self.board.params.bank)):
            spin.setRange(0, MAX_CLOCK_SECONDS)
            spin.setSuffix(" s")
            spin.setValue(value)
        cform.addRow("Time per turn:", self.turn_spin)
        cform.addRow("Bank:", self.bank_spin)
        cbuttons = QHBoxLayout()
        apply = QPushButton("Apply && restart clocks")
        apply.clicked.connect(self.restart_clocks)
        cbuttons.addWidget(apply)
        self.pause_button = QPushButton("Pause")
        self.pause_button.setCheckable(True)
        self.pause_button.toggled.connect(self.set_paused)
        cbuttons.addWidget(self.pause_button)
        cform.addRow(cbuttons)
        col.addWidget(clocks)

        moves = QGroupBox("Moves")
        mcol = QVBoxLayout(moves)
        self.move_list = QListWidget()
        self.move_list.setMinimumHeight(140)
        self.move_list.setWordWrap(True)  # the swap line is longer than the panel is wide
        self.move_list.itemClicked.connect(lambda item: self.go_to(self.move_list.row(item) + 1))
        mcol.addWidget(self.move_list)
        nav = QHBoxLayout()
        self.nav_buttons: dict[str, QPushButton] = {}
        for key, text, tip, slot in (
            ("first", "|◀", "Go to the start", self.go_first),
            ("prev", "◀", "One move back", self.go_prev),
            ("next", "▶", "One move forward", self.go_next),
            ("last", "▶|", "Go to the last move", self.go_last),
        ):
            b = QPushButton(text)
            b.setToolTip(tip)
            b.clicked.connect(slot)
            nav.addWidget(b)
            self.nav_buttons[key] = b
        mcol.addLayout(nav)
        col.addWidget(moves, 1)

        scroll = QScrollArea()
        scroll.setWidget(side)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(side.sizeHint().width() + 24)
        right = QWidget()
        rcol2 = QVBoxLayout(right)
        rcol2.setContentsMargins(0, 0, 0, 0)
        rcol2.addWidget(self._build_header())
        rcol2.addWidget(scroll, 1)
        self.setCentralWidget(board_beside(self.canvas, right, side_stretch=1))
        self._build_menus()
        self.resize(1100, 760)

    def _build_header(self) -> QWidget:
        """The result banner, whose turn it is, the clocks, the score and the supply: never scrolled away."""
        header = QWidget()
        hcol = QVBoxLayout(header)
        hcol.setContentsMargins(9, 6, 9, 0)
        self.result_banner = QLabel()
        self.result_banner.setWordWrap(True)
        self.result_banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.result_banner.setFont(self._scaled_font(1.4))
        self.result_banner.setMargin(6)  # not a style-sheet padding, which the wrapped height does not count
        self.result_banner.setVisible(False)
        hcol.addWidget(self.result_banner)
        self.turn_label = QLabel()
        self.turn_label.setWordWrap(True)
        self.turn_label.setFont(self._scaled_font(1.0))
        hcol.addWidget(self.turn_label)
        for label in (self.result_banner, self.turn_label):
            label.installEventFilter(self)  # keeps wrapped lines whole: see fit_height
        self.clock_labels = [QLabel(), QLabel()]
        for label in self.clock_labels:
            label.setFont(self._scaled_font(1.6))
            hcol.addWidget(label)
        self.score_label = QLabel()
        hcol.addWidget(self.score_label)
        self.supply_label = QLabel()
        self.supply_label.setToolTip("Pieces of each type still in the shared supply")
        hcol.addWidget(self.supply_label)
        return header

    def _scaled_font(self, factor: float) -> QFont:
        font = QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * factor)
        font.setBold(True)
        return font

    def _build_menus(self) -> None:
        menu = self.menuBar().addMenu("&Game")
        self.undo_action = self._action(menu, "&Undo", QKeySequence.StandardKey.Undo, self.undo)
        self.redo_action = self._action(menu, "&Redo", QKeySequence.StandardKey.Redo, self.redo)
        # QKeySequence(StandardKey.Redo) is only the platform's first binding (Ctrl+Y on some
        # platforms); like the designer, accept all of them plus Ctrl+Shift+Z and Ctrl+Y.
        redo_keys = QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)
        for extra in ("Ctrl+Shift+Z", "Ctrl+Y"):
            if QKeySequence(extra) not in redo_keys:
                redo_keys.append(QKeySequence(extra))
        self.redo_action.setShortcuts(redo_keys)
        replay = self.menuBar().addMenu("&Replay")
        for text, key, slot in (("&First position", "Alt+Home", self.go_first),
                                ("&Previous move", "Alt+Left", self.go_prev),
                                ("&Next move", "Alt+Right", self.go_next),
                                ("&Last move", "Alt+End", self.go_last)):
            self._action(replay, text, QKeySequence(key), slot)
        self._action(menu, "&Agent move", QKeySequence("F6"), self.step)
        menu.addSeparator()
        self._action(menu, "&Open record…", QKeySequence.StandardKey.Open, self._open_dialog)
        self._action(menu, "&Save record…", QKeySequence.StandardKey.Save, self._save_dialog)
        menu.addSeparator()
        self._action(menu, "&New game", QKeySequence.StandardKey.New, self.new_game)
        self._action(menu, "&Close", QKeySequence.StandardKey.Close, self.close)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Ctrl+Z / Ctrl+Shift+Z in the empty move entry take back or redo a move.

        A line edit claims the undo keys for its own text even when it is empty, so after
        entering a move by notation (the focus stays in the entry) Ctrl+Z brought the typed
        cells back instead of taking the move back.
        """
        if event.type() == QEvent.Type.Resize and isinstance(watched, QLabel):  # the banner and the turn line
            fit_height(watched)
        if (watched is self.notation_edit and event.type() == QEvent.Type.ShortcutOverride
                and isinstance(event, QKeyEvent) and not self.notation_edit.text()
                and (event.matches(QKeySequence.StandardKey.Undo) or event.matches(QKeySequence.StandardKey.Redo))):
            event.ignore()  # not claimed by the entry: the window's Undo/Redo shortcut runs
            return True
        return super().eventFilter(watched, event)

    def set_render_options(self, options: RenderOptions) -> None:
        """Draw the board with the designer's theme, grid and coordinates (the title stays off)."""
        self.canvas.options = replace(options, title="")
        self.canvas.update()

    def _action(self, menu: QMenu, text: str, key: QKeySequence | QKeySequence.StandardKey,
                slot: Callable[[], object]) -> QAction:
        action = QAction(text, self)
        action.setShortcut(key if isinstance(key, QKeySequence) else QKeySequence(key))
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action

    # ============================================================= the session ======
    def _on_change(self, change: Change) -> None:
        """Every session change: keep the runner in step with it, redraw, and let a due agent start."""
        if self.session.thinking is None:
            if self._runner.busy:
                self._runner.cancel()
            self._answer = None
            self._pace_timer.stop()
        self._refresh()
        if change is Change.POSITION:
            self.position_changed.emit()
        elif change is Change.FINISHED:
            self.game_over.emit(self.session.result_text())
        self._start_agent()

    # ============================================================= playing ==========
    def _answered(self, refusal: Refusal | None) -> bool:
        if refusal is None:
            self._say("")
            return True
        self._say(view.refused_move_text(refusal), error=True)
        if refusal.reason is not None:
            self.last_illegal = refusal.reason
            self.canvas.set_marks(problems=refusal.reason.cells)
        return False

    def play(self, move: Move) -> bool:
        """Make ``move`` at the cursor (cutting any moves after it); False with a message when it is illegal."""
        return self._answered(self.session.play(move))

    def swap(self) -> bool:
        """A person's pie-rule choice, offered to the second player at their first turn only."""
        return self._answered(self.session.play_as_person(SWAP))

    def submit_notation(self) -> bool:
        """Play the placement (or ``swap``) typed in the line edit."""
        ok = self._answered(self.session.play_text(self.notation_edit.text()))
        if ok:
            self.notation_edit.setText("")  # unlike clear(), also drops the entry's own undo history
        return ok

    def _on_canvas_click(self, cells: object) -> None:
        if isinstance(cells, tuple) and not self.session.is_over:
            self._answered(self.session.play_as_person(Placement.from_cells(cells, self.board.size)))

    # ========================================================== navigation ==========
    def go_to(self, ply: int) -> None:
        """Show the position after ``ply`` moves (0 = start); the moves after it are kept for redo."""
        if ply != self.session.ply:
            self._say("")
        self.session.go_to(ply)

    def go_first(self) -> None:
        self.go_to(0)

    def go_prev(self) -> None:
        self.go_to(self.session.ply - 1)

    def go_next(self) -> None:
        self.go_to(self.session.ply + 1)

    def go_last(self) -> None:
        self.go_to(len(self.session.moves))

    def undo(self) -> None:
        """Take back a move; against an agent, back to the last position where a person was to move."""
        self._say("")
        self.session.undo()

    def redo(self) -> None:
        self._say("")
        self.session.redo()

    def new_game(self) -> None:
        self._say("")
        self.session.new_game(self.turn_spin.value(), self.bank_spin.value())

    # ============================================================== agents ==========
    def _on_agent_choice(self, seat: int) -> None:
        spec = self.seat_combos[seat].currentData()
        self.session.set_agent(seat, spec if isinstance(spec, str) else None)

    def _on_pace(self) -> None:
        pace = self.pace_combo.currentData()
        self.session.set_pace(pace if isinstance(pace, int) else 0)

    def step(self) -> bool:
        """Let the agent to move make one move (step mode, or playing on from a position reached by undo)."""
        return self.session.step()

    def _start_agent(self) -> None:
        request = self.session.start_agent()
        if request is None:
            return

        def work(_job: Control[None], r: AgentRequest = request) -> tuple[AgentRequest, Move]:
            return r, agent_decision(r.spec, r.board, list(r.moves), r.seed)  # only copies: safe off the GUI thread

        self._runner.request(work)

    def _on_agent_answer(self, answer: tuple[AgentRequest, Move]) -> None:
        """Show the answer once the session's pace allows (the agent thinks meanwhile, so slow agents lose
        nothing)."""
        self._answer = answer
        wait = self.session.answer_delay_ms()
        if wait > 0:
            self._pace_timer.start(wait)
        else:
            self._deliver_answer()

    def _deliver_answer(self) -> None:
        answer, self._answer = self._answer, None
        if answer is not None:
            refusal = self.session.finish_agent(*answer)
            if refusal is not None:
                self._say(refusal.message, error=True)

    def _on_agent_error(self, error: JobError) -> None:
        request = self.session.thinking
        if request is not None:
            self.session.agent_failed(request)
        self._say(view.agent_failed_text(str(error)), error=True)

    # ============================================================== clocks ==========
    def tick_clocks(self) -> None:
        """Charge elapsed time (the QTimer calls this; tests call it after moving a fake clock)."""
        if self.session.tick() is None:
            self._show_clocks()

    def set_paused(self, paused: bool) -> None:
        """Pause freezes the clocks and the agents; the board stays browsable.  Resuming takes back a "the game is
        paused" refusal, which would otherwise stand under a game that goes on."""
        self.session.set_paused(paused)
        if not paused:
            self._say("")

    def set_clocks_enabled(self, enabled: bool) -> None:
        self.clock_box.setChecked(enabled)

    def restart_clocks(self) -> None:
        """Apply the edited limits: fresh banks for both players and a new turn for the one to move (a game lost on
        time goes on, so a "lost on time" refusal shown before is taken back)."""
        self._say("")
        self.session.restart_clocks(self.turn_spin.value(), self.bank_spin.value())

    # ============================================================== records =========
    def save_record(self, path: str) -> bool:
        """Write the game as a record; a failure names the file the host chose, not the temporary one beside it."""
        refusal = view.save_record(self.session, path)
        if refusal is not None:
            self._say(refusal.message, error=True)
            return False
        self._say(view.saved_text(self.session, path))
        return True

    def load_record(self, path: str) -> bool:
        """Load a record for this board and show its final position; agents and clocks are switched off."""
        refusal = self.session.load(path)
        if refusal is not None:
            self._say(refusal.message, error=True)
            if refusal.reason is not None:
                self.canvas.set_marks(problems=refusal.reason.cells)
            return False
        self._say(view.loaded_text(self.session, path))
        return True

    def _open_dialog(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(self, "Open game record", "", f"{RECORD_FILTER};;All files (*)")
        if path:
            self.load_record(path)

    def _save_dialog(self) -> None:
        """Save through the dialog; a name typed without a suffix gets ``.lits-game``, or Open record… (which lists
        only game records) would not show the file just saved."""
        path, _filter = QFileDialog.getSaveFileName(self, "Save game record", "", f"{RECORD_FILTER};;All files (*)")
        if not path:
            return
        if not path.lower().endswith(RECORD_SUFFIXES):
            full = path + RECORD_SUFFIXES[0]
            if os.path.exists(full) and QMessageBox.question(
                    self, "Replace file?", f"{full} already exists. Replace it?",
                    QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                    QMessageBox.StandardButton.No) != QMessageBox.StandardButton.Yes:
                return
            path = full
        self.save_record(path)

    # ============================================================= display ==========
    def _say(self, text: str, error: bool = False) -> None:
        """Show ``text`` under the move entry and in the status bar; an empty text also takes the last one out of
        the status bar, where a refusal otherwise stayed for seconds after the legal move that followed it."""
        self.message_label.setText(text)
        self.message_label.setStyleSheet(f"color: {error_colour(self.palette())}; font-weight: bold;" if error else "")
        if not error:
            self.canvas.set_marks()
        bar = self.statusBar()
        if text:
            bar.showMessage(text, 8000)
        elif self._said and bar.currentMessage() == self._said:
            bar.clearMessage()
            self._hover_status = ""
            if self._hover_cell is not None:  # the cell under the mouse, as before the message
                self._hover_status = self._hover_text(self._hover_cell)
                bar.showMessage(self._hover_status)
        self._said = text

    def _refresh(self) -> None:
        shown = view.table_view(self.session, hints=self.hints_box.isChecked())
        self.canvas.set_pieces(shown.pieces, shown.piece_ids)
        self.canvas.set_legal(list(shown.legal), interactive=shown.interactive)
        self._show_controls(shown)
        self.supply_label.setText(shown.supply_line)
        self.score_label.setText(shown.score_line)
        self.swap_button.setEnabled(shown.can_swap)
        self.canvas.set_hints(shown.hint_counts)
        self.hint_label.setText(shown.hint_line)

        self.move_list.blockSignals(True)
        self.move_list.clear()
        for text in shown.move_texts:
            self.move_list.addItem(text)
        if shown.ply:
            self.move_list.setCurrentRow(shown.ply - 1)
        self.move_list.blockSignals(False)
        back, forward = shown.can_go_back, shown.can_go_forward
        for key, on in (("first", back), ("prev", back), ("next", forward), ("last", forward)):
            self.nav_buttons[key].setEnabled(on)
        self.undo_action.setEnabled(back)
        self.redo_action.setEnabled(forward)
        self._show_result(shown)
        self._show_clocks(shown.clock_lines)
        self._refresh_hover_status()

    def _show_controls(self, shown: view.TableView) -> None:
        """Whose turn it is, and the seat, pace and clock controls as the session has them."""
        self.turn_label.setText(shown.turn_line)
        fit_height(self.turn_label)
        for seat, combo in zip(SEATS, self.seat_combos, strict=True):
            spec = self.session.agent(seat)
            index = 0 if spec is None else combo.findData(spec)
            if index < 0:  # a spec the list does not offer, set from code
                combo.addItem(f"Agent {spec}", spec)
                index = combo.count() - 1
            if index != combo.currentIndex():
                combo.blockSignals(True)
                combo.setCurrentIndex(index)
                combo.blockSignals(False)
        self.pace_combo.setEnabled(shown.pace_enabled)
        self.step_button.setEnabled(shown.step_enabled)
        for box, on in ((self.clock_box, shown.clocks_on), (self.pause_button, shown.paused)):
            if box.isChecked() != on:
                box.blockSignals(True)
                box.setChecked(on)
                box.blockSignals(False)
        self.pause_button.setText("Resume" if shown.paused else "Pause")

    def _show_result(self, shown: view.TableView) -> None:
        """The banner names the winner; the board marks the symbols that scored, the winner's strongest."""
        result = shown.result
        self.result_box.setVisible(result is not None)
        self.result_banner.setVisible(result is not None)
        self.canvas.set_scoring(*shown.scoring)
        if result is None:
            self.result_label.setText("")
            self.result_banner.setText("")
            return
        self.result_label.setText(result.explain())
        self.result_banner.setText(result.headline())
        fit_height(self.result_banner)
        pal = self.palette()
        self.result_banner.setStyleSheet(
            f"background: {pal.color(QPalette.ColorRole.Highlight).name()}; "
            f"color: {pal.color(QPalette.ColorRole.HighlightedText).name()}; border-radius: 4px;")

    def _show_clocks(self, lines: tuple[str, str] | None = None) -> None:
        for seat, label in zip(SEATS, self.clock_labels, strict=True):
            label.setText(view.clock_line(self.session, seat) if lines is None else lines[seat])

    def _on_hover(self, cell: object) -> None:
        self._hover_cell = cell if isinstance(cell, int) else None
        if self._hover_cell is not None:
            self._hover_status = self._hover_text(self._hover_cell)
            self.statusBar().showMessage(self._hover_status)

    def _hover_text(self, cell: int) -> str:
        count = self.canvas.choice_count
        extra = f" — {count} placements here (wheel, R/Space or right-click to cycle)" if count else ""
        return f"{cell_name(cell, self.board.size)}{extra}"

    def _refresh_hover_status(self) -> None:
        """After a move the count under a still mouse changes; a message shown since then is left alone."""
        if self._hover_cell is None or self.statusBar().currentMessage() != self._hover_status:
            return
        self._hover_status = self._hover_text(self._hover_cell)
        self.statusBar().showMessage(self._hover_status)

    def closeEvent(self, event: QCloseEvent) -> None:
        # Drop the session -> window reference (and the closure holding it), so the window can go without the GC.
        self._unsubscribe()
        self._unsubscribe = lambda: None
        self._timer.stop()
        self._pace_timer.stop()
        self._runner.cancel()
        self._runner.wait(10_000)
        super().closeEvent(event)


def fit_height(widget: QObject) -> None:
    """Give a word-wrapped label the height its lines need at its width.

    Layouts under a splitter do not ask for the height-for-width, so a wrapped banner was cut off.
    """
    if isinstance(widget, QLabel) and widget.width() > 0:
        widget.setMinimumHeight(max(0, widget.heightForWidth(widget.width())))


def error_colour(palette: QPalette) -> str:
    """Red for error text that stays readable: dark red on a light window, light red on a dark one."""
    return "#ff8080" if palette.color(QPalette.ColorRole.Window).lightness() < 128 else "#c0001a"
