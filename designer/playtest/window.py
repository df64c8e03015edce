"""Play-test window: play the current board under the match rules before committing to it.

Every rule decision (legality, the pie swap, the end of the game, the result)
comes from ``core.engine.rules.GameState``; this window only decides who is to act
(a person or an agent), keeps the clocks, and shows the game.  The game is kept
as a list of moves plus a cursor, so undo/redo and the replay of a loaded
record are the same operation: moving the cursor.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeyEvent, QKeySequence, QPalette
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
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from core.agents.search import make_agent, parse_agent
from core.board.geometry import cell_name
from core.board.model import PIECE_TYPES, Board, Symbol
from core.board.validation import Severity, validate
from core.engine.record import RecordError, load_record, replay, save_record
from core.engine.rules import SWAP, GameState, IllegalReason, Placement
from designer.canvas.render import RenderOptions
from designer.playtest.canvas import PlayCanvas
from designer.playtest.clock import MatchClock, format_seconds
from designer.workers import BackgroundRunner

Move = Placement | str
"""A placement or :data:`core.engine.rules.SWAP`."""

AGENT_CHOICES: tuple[tuple[str, str | None], ...] = (
    ("Human", None),
    ("Random agent", "random"),
    ("Greedy agent", "greedy"),
    ("MCTS 200 playouts", "mcts:200"),
    ("Casual level", "casual"),
    ("MCTS 1000 playouts", "mcts:1000"),
    ("MCTS 5000 playouts", "mcts:5000"),
    ("Club level", "club"),
    ("MCTS 20000 playouts", "mcts:20000"),
    ("Expert level", "expert"),
)
"""Opponent strengths offered in the window, weakest first (spec strings of ``core.agents.search``)."""

SEAT_NAMES = ("Player 1", "Player 2")


@dataclass(frozen=True)
class SeatInfo:
    """Who a seat is: its name, the symbol it owns at the current position and its agent spec."""

    seat: int
    name: str
    symbol: Symbol
    agent: str | None


class PlaytestWindow(QMainWindow):
    """A play-test session on a copy of ``board`` (hot-seat or against agents)."""

    game_over = Signal(str)
    """Emitted with the result text when the shown game becomes finished (again after an undo and redo)."""
    position_changed = Signal()

    def __init__(self, board: Board, parent: QWidget | None = None, *,
                 time_source: Callable[[], float] = time.monotonic, tick_ms: int = 200,
                 options: RenderOptions | None = None) -> None:
        super().__init__(parent)
        self.board = board.copy()
        self._time_source = time_source
        self._moves: list[Move] = []
        self._ply = 0
        self._state = GameState(self.board)
        self._agents: list[str | None] = [None, None]
        self._pending_agent_move: Move | None = None
        self._announced = False
        self.last_illegal: IllegalReason | None = None
        self._hover_cell: int | None = None
        self._hover_status = ""
        self.agent_seed = random.randrange(1 << 30)
        """Agents draw their random choices from this seed (plus the ply), so a test can fix it."""
        self._runner = BackgroundRunner(self)
        self._runner.finished.connect(self._on_agent_move)
        self._runner.error.connect(self._on_agent_error)
        p = self.board.params
        self.clock: MatchClock[int] = MatchClock((0, 1), p.turn_time, p.bank, now=time_source)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # a closed play-test frees its timer and state
        self._build_ui()
        if options is not None:
            self.set_render_options(options)
        self._timer = QTimer(self)
        self._timer.setInterval(tick_ms)
        self._timer.timeout.connect(self.tick_clocks)
        self._timer.start()
        self._after_position_change(new_turn=True)
        errors = [p for p in validate(self.board) if p.severity is Severity.ERROR]
        if errors:
            more = f" and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''}" if len(errors) > 1 else ""
            self._say(f"Note: this board is not valid for a match ({errors[0].message}{more}); "
                      "play-testing it anyway.", error=True)

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
        for seat in (0, 1):
            combo = QComboBox()
            for label, spec in AGENT_CHOICES:
                combo.addItem(label, spec)
            combo.currentIndexChanged.connect(lambda _i, s=seat: self._on_agent_choice(s))
            self.seat_combos.append(combo)
            start = self.board.params.first if seat == 0 else self.board.params.first.other
            form.addRow(f"{SEAT_NAMES[seat]} (starts as {start.value}):", combo)
        new_game = QPushButton("New game")
        new_game.clicked.connect(self.new_game)
        form.addRow(new_game)
        col.addWidget(players)

        # Whose turn, the supply and the score stay in view above the scrolling controls.
        header = QWidget()
        hcol = QVBoxLayout(header)
        hcol.setContentsMargins(9, 6, 9, 0)
        self.turn_label = QLabel()
        self.turn_label.setWordWrap(True)
        font = self.turn_label.font()
        font.setBold(True)
        self.turn_label.setFont(font)
        hcol.addWidget(self.turn_label)
        self.supply_label = QLabel()
        self.supply_label.setToolTip("Pieces of each type still in the shared supply")
        hcol.addWidget(self.supply_label)
        self.score_label = QLabel()
        hcol.addWidget(self.score_label)
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

        clocks = QGroupBox("Clocks")
        cform = QFormLayout(clocks)
        self.clock_box = QCheckBox("Clocks on")
        self.clock_box.setChecked(True)
        self.clock_box.toggled.connect(self._on_clock_toggle)
        cform.addRow(self.clock_box)
        self.turn_spin = QSpinBox()
        self.turn_spin.setRange(0, 24 * 3600)
        self.turn_spin.setSuffix(" s")
        self.turn_spin.setValue(self.board.params.turn_time)
        self.bank_spin = QSpinBox()
        self.bank_spin.setRange(0, 24 * 3600)
        self.bank_spin.setSuffix(" s")
        self.bank_spin.setValue(self.board.params.bank)
        cform.addRow("Time per turn:", self.turn_spin)
        cform.addRow("Bank:", self.bank_spin)
        buttons = QHBoxLayout()
        apply = QPushButton("Apply && restart clocks")
        apply.clicked.connect(self.restart_clocks)
        buttons.addWidget(apply)
        self.pause_button = QPushButton("Pause")
        self.pause_button.setCheckable(True)
        self.pause_button.toggled.connect(self.set_paused)
        buttons.addWidget(self.pause_button)
        cform.addRow(buttons)
        self.clock_labels = [QLabel(), QLabel()]
        for clock_label in self.clock_labels:
            cform.addRow(clock_label)
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
        rcol2.addWidget(header)
        rcol2.addWidget(scroll, 1)
        splitter = QSplitter()
        splitter.addWidget(self.canvas)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        self.setCentralWidget(splitter)

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
        menu.addSeparator()
        self._action(menu, "&Open record…", QKeySequence.StandardKey.Open, self._open_dialog)
        self._action(menu, "&Save record…", QKeySequence.StandardKey.Save, self._save_dialog)
        menu.addSeparator()
        self._action(menu, "&New game", QKeySequence.StandardKey.New, self.new_game)
        self._action(menu, "&Close", QKeySequence.StandardKey.Close, self.close)
        self.resize(1100, 760)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Ctrl+Z / Ctrl+Shift+Z in the empty move entry take back or redo a move.

        A line edit claims the undo keys for its own text even when it is empty, so after
        entering a move by notation (the focus stays in the entry) Ctrl+Z brought the typed
        cells back instead of taking the move back.
        """
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

    # ============================================================= queries ==========
    @property
    def state(self) -> GameState:
        """The game at the cursor (read-only for callers: change it through the window)."""
        return self._state

    @property
    def moves(self) -> list[Move]:
        return list(self._moves)

    @property
    def ply(self) -> int:
        return self._ply

    @property
    def swapped(self) -> bool:
        """Whether the pie swap is among the moves up to the cursor (the seats then own the other symbols)."""
        return any(m == SWAP for m in self._moves[: self._ply])

    def seat_of(self, symbol: Symbol) -> int:
        """Which person owns ``symbol`` at the cursor: the swap exchanges symbols between the persons."""
        first = self.board.params.first
        seat = 0 if symbol is first else 1
        return 1 - seat if self.swapped else seat

    def seat_info(self, seat: int) -> SeatInfo:
        first = self.board.params.first
        symbol = first if (seat == 0) != self.swapped else first.other
        return SeatInfo(seat, SEAT_NAMES[seat], symbol, self._agents[seat])

    def mover(self) -> SeatInfo | None:
        """Who acts now, or None when the game is over (no legal placement, or a flag fell)."""
        if self.is_over:
            return None
        return self.seat_info(self.seat_of(self._state.to_move))

    @property
    def is_over(self) -> bool:
        return self.clock.flagged is not None or self._state.is_over()

    def result_text(self) -> str:
        """Score, winner and (when it decides) the tie rule, in plain words."""
        if self.clock.flagged is not None:
            loser = self.seat_info(self.clock.flagged)
            winner = self.seat_info(1 - self.clock.flagged)
            score = self._state.score()
            return (f"{loser.name} ({loser.symbol.value}) ran out of time: the turn time and the bank are used up. "
                    f"{winner.name} ({winner.symbol.value}) wins on time.\n"
                    f"Uncovered symbols at that moment: O {score[Symbol.O]}, X {score[Symbol.X]}.")
        result = self._state.result()
        if result is None:
            return ""
        o, x = result.score[Symbol.O], result.score[Symbol.X]
        winner = self.seat_info(self.seat_of(result.winner))
        loser = self.seat_info(1 - winner.seat)
        lines = [
            f"No legal placement is left after {result.placements} placement{'s' if result.placements != 1 else ''}.",
            f"Score (uncovered symbols): O {o}, X {x}.",
        ]
        if result.reason == "score":
            lines.append(f"{result.winner.value} wins with more uncovered symbols: "
                         f"{winner.name} ({self._who(winner)}) beats {loser.name} ({self._who(loser)}).")
        else:
            last = "nobody placed a piece" if result.last_mover is None else \
                f"the last placement was made by {result.last_mover.value}"
            lines.append(f"The score is tied, so the tie rule decides: the tie goes to the symbol that made the last "
                         f"placement ({last}). {result.winner.value} wins: {winner.name} ({self._who(winner)}).")
        if self.swapped:
            lines.append("The players swapped sides by the pie rule, so Player 1 played "
                         f"{self.seat_info(0).symbol.value} and Player 2 played {self.seat_info(1).symbol.value}.")
        return "\n".join(lines)

    @staticmethod
    def _who(info: SeatInfo) -> str:
        return f"agent {info.agent}" if info.agent else "person"

    def agent_thinking(self) -> bool:
        return self._runner.busy

    # ============================================================= playing ==========
    def play(self, move: Move) -> bool:
        """Make ``move`` at the cursor (cutting any moves after it); False with a message when it is illegal."""
        if self.clock.paused:
            self._say("The game is paused; resume it to play on.", error=True)
            return False
        if self.clock.flagged is not None:
            self._say("The game was lost on time; restart the clocks or start a new game to play on.", error=True)
            return False
        if self.is_over:
            self._say("The game is over: no legal placement is left. Undo or start a new game to play on.",
                      error=True)
            return False
        if isinstance(move, str):
            refusal = self._state.swap_refusal()
            if refusal is not None:
                self._show_illegal(refusal)
                return False
        else:
            reason = self._state.why_illegal(move)
            if reason is not None:
                self._show_illegal(reason)
                return False
        del self._moves[self._ply:]
        self._moves.append(move)
        self._state.push_action(move)
        self._ply += 1
        self._say("")
        self._after_position_change(new_turn=True)
        return True

    def _show_illegal(self, reason: IllegalReason) -> None:
        """Name the broken rule and outline the cells involved."""
        self.last_illegal = reason
        self._say(f"Illegal ({reason.rule}): {reason.message}", error=True)
        self.canvas.set_marks(problems=reason.cells)

    def swap(self) -> bool:
        """A person's pie-rule choice, offered to the second player at their first turn only."""
        if self._mover_is_agent():
            self._say("It is the agent's turn; the agent makes its own pie-rule choice.", error=True)
            return False
        return self.play(SWAP)

    def submit_notation(self) -> bool:
        """Play the placement (or ``swap``) typed in the line edit."""
        text = self.notation_edit.text().strip()
        if not text:
            self._say("Type the four cells of a placement, e.g. A1 A2 A3 B3.", error=True)
            return False
        if text.lower() in ("swap", "pie"):
            ok = self.swap()
        else:
            try:
                move = Placement.parse(text, self.board.size)
            except ValueError as exc:
                self._say(f"{text!r}: {exc}", error=True)
                return False
            if self._mover_is_agent():
                self._say("It is the agent's turn.", error=True)
                return False
            ok = self.play(move)
        if ok:
            self.notation_edit.setText("")  # unlike clear(), also drops the entry's own undo history
        return ok

    def _on_canvas_click(self, cells: object) -> None:
        if self._mover_is_agent() or self.is_over:
            return
        if isinstance(cells, tuple):
            self.play(Placement.from_cells(cells, self.board.size))

    def _mover_is_agent(self) -> bool:
        who = self.mover()
        return who is not None and who.agent is not None

    # ========================================================== navigation ==========
    def go_to(self, ply: int) -> None:
        """Show the position after ``ply`` moves (0 = start); the moves after it are kept for redo."""
        ply = max(0, min(ply, len(self._moves)))
        if ply == self._ply:
            return
        self._runner.cancel()
        self._pending_agent_move = None
        while self._ply > ply:
            self._state.pop()
            self._ply -= 1
        while self._ply < ply:
            self._state.push_action(self._moves[self._ply])
            self._ply += 1
        self._say("")
        self._after_position_change(new_turn=True)

    def go_first(self) -> None:
        self.go_to(0)

    def go_prev(self) -> None:
        self.go_to(self._ply - 1)

    def go_next(self) -> None:
        self.go_to(self._ply + 1)

    def go_last(self) -> None:
        self.go_to(len(self._moves))

    def undo(self) -> None:
        """Take back a move; against an agent, back to the last position where a person was to move."""
        if self._ply == 0:
            return
        target = self._ply - 1
        if any(a is None for a in self._agents) and any(a is not None for a in self._agents):
            probe = target
            while probe > 0 and self._agent_moves_at(probe):
                probe -= 1
            target = probe
        self.go_to(target)

    def redo(self) -> None:
        if self._ply < len(self._moves):
            self.go_to(self._ply + 1)

    def _agent_moves_at(self, ply: int) -> bool:
        """Whether an agent is to act in the position after ``ply`` moves."""
        state = GameState(self.board)
        swapped = False
        for move in self._moves[:ply]:
            state.push_action(move)
            swapped = swapped or move == SWAP
        if state.is_over():
            return False
        first = self.board.params.first
        seat = 0 if state.to_move is first else 1
        if swapped:
            seat = 1 - seat
        return self._agents[seat] is not None

    def new_game(self) -> None:
        self._runner.cancel()
        self._pending_agent_move = None
        self._moves.clear()
        self._ply = 0
        self._state = GameState(self.board)
        self.clock.reset(self.turn_spin.value(), self.bank_spin.value())
        self._say("")
        self._after_position_change(new_turn=True)

    # ============================================================== agents ==========
    def set_agent(self, seat: int, spec: str | None) -> None:
        """Let an agent (``random``, ``greedy``, ``mcts:N``) or a person (None) play ``seat``."""
        if spec is not None:
            spec = parse_agent(spec).text  # AgentSpecError (a ValueError) names the accepted forms
        index = next((i for i, (_label, s) in enumerate(AGENT_CHOICES) if s == spec), -1)
        combo = self.seat_combos[seat]
        if index < 0:
            combo.addItem(f"Agent {spec}", spec)
            index = combo.count() - 1
        combo.setCurrentIndex(index)  # fires _on_agent_choice

    def _on_agent_choice(self, seat: int) -> None:
        spec = self.seat_combos[seat].currentData()
        self._agents[seat] = spec if isinstance(spec, str) else None
        self._runner.cancel()
        self._refresh()
        self._maybe_start_agent()

    def _maybe_start_agent(self) -> None:
        who = self.mover()
        if (who is None or who.agent is None or self._runner.busy or self.clock.paused
                or self._ply != len(self._moves)):
            return
        spec = who.agent
        board = self.board.copy()
        moves = list(self._moves)
        seed = (self.agent_seed * 1009 + len(moves)) & 0x7FFFFFFF
        self._runner.request(lambda _job: agent_decision(spec, board, moves, seed))
        self._refresh()

    def _on_agent_move(self, move: object) -> None:
        if not isinstance(move, Placement | str):
            self._say(f"The agent answered {move!r}, which is not a move.", error=True)
            return
        if self.clock.paused:
            self._pending_agent_move = move
            return
        self.play(move)

    def _on_agent_error(self, message: str) -> None:
        self._say(f"The agent failed: {message}", error=True)
        self._refresh()

    # ============================================================== clocks ==========
    def tick_clocks(self) -> None:
        """Charge elapsed time (the QTimer calls this; tests call it after moving a fake clock)."""
        was = self.clock.flagged
        self.clock.tick()
        if was is None and self.clock.flagged is not None:
            self._runner.cancel()
            self._refresh()
        else:
            self._show_clocks()

    def set_paused(self, paused: bool) -> None:
        """Pause freezes the clocks and the agents; the board stays browsable."""
        if paused:
            self.clock.pause()
        else:
            self.clock.resume()
            pending, self._pending_agent_move = self._pending_agent_move, None
            if pending is not None:
                self.play(pending)
        if self.pause_button.isChecked() != paused:
            self.pause_button.setChecked(paused)
        self.pause_button.setText("Resume" if paused else "Pause")
        self._refresh()
        if not paused:
            self._maybe_start_agent()

    def set_clocks_enabled(self, enabled: bool) -> None:
        self.clock_box.setChecked(enabled)

    def _on_clock_toggle(self, enabled: bool) -> None:
        self.clock.set_enabled(enabled)
        self._refresh()

    def restart_clocks(self) -> None:
        """Apply the edited limits: fresh banks for both players and a new turn for the one to move."""
        self.clock.reset(self.turn_spin.value(), self.bank_spin.value())
        self._after_position_change(new_turn=True)

    # ============================================================== records =========
    def save_record(self, path: str) -> bool:
        comments = [f"LITS play-test record, board: {self.board.name or 'untitled'} "
                    f"({self.board.size}x{self.board.size}, first {self.board.params.first.value})"]
        state, _problem = replay(self.board, self._moves)
        result = state.result()
        if result is not None:
            comments.append(result.explain())
        try:
            save_record(path, self._moves, self.board.size, comments)
        except (OSError, ValueError) as exc:
            self._say(f"Could not save the record to {path}: {exc}", error=True)
            return False
        self._say(f"Saved {len(self._moves)} moves to {path}.")
        return True

    def load_record(self, path: str) -> bool:
        """Load a record for this board and show its final position; agents and clocks are switched off."""
        try:
            moves = load_record(path, self.board.size)
        except RecordError as exc:
            self._say(str(exc), error=True)
            return False
        _state, problem = replay(self.board, moves)
        if problem is not None:
            self._say(f"{path}: {problem.message(self.board.size)}; the record does not fit this board.", error=True)
            self.canvas.set_marks(problems=problem.reason.cells)
            return False
        self._runner.cancel()
        self._pending_agent_move = None
        for seat in (0, 1):
            self.seat_combos[seat].blockSignals(True)
            self.seat_combos[seat].setCurrentIndex(0)
            self.seat_combos[seat].blockSignals(False)
        self._agents = [None, None]
        self.clock_box.setChecked(False)
        self.clock.reset(self.turn_spin.value(), self.bank_spin.value())
        self._moves = list(moves)
        self._ply = 0
        self._state = GameState(self.board)
        self._announced = False
        self.go_to(len(self._moves))
        self._after_position_change(new_turn=True)
        self._say(f"Loaded {len(moves)} moves from {path}; use the arrows to replay them.")
        return True

    def _open_dialog(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(self, "Open game record", "", "Game records (*.lits-game *.txt);;"
                                                    "All files (*)")
        if path:
            self.load_record(path)

    def _save_dialog(self) -> None:
        path, _filter = QFileDialog.getSaveFileName(self, "Save game record", "", "Game records (*.lits-game *.txt);;"
                                                    "All files (*)")
        if path:
            self.save_record(path)

    # ============================================================= display ==========
    def _say(self, text: str, error: bool = False) -> None:
        self.message_label.setText(text)
        self.message_label.setStyleSheet(f"color: {error_colour(self.palette())}; font-weight: bold;" if error else "")
        if not error:
            self.canvas.set_marks()
        if text:
            self.statusBar().showMessage(text, 8000)

    def _after_position_change(self, new_turn: bool) -> None:
        self._announced = self._announced and self.is_over
        if new_turn:
            who = self.mover()
            if who is None:
                self.clock.stop()
            else:
                self.clock.start_turn(who.seat)
        self._refresh()
        self.position_changed.emit()
        self._maybe_start_agent()

    def _refresh(self) -> None:
        state = self._state
        ids = {c: i for i, p in enumerate(state.placements) for c in p.cells}
        self.canvas.set_pieces({c: state.placements[i].ptype for c, i in ids.items()}, ids)
        who = self.mover()
        legal = [] if who is None else list(state.legal_placements())
        human = who is not None and who.agent is None
        self.canvas.set_legal([p.cells for p in legal], interactive=human and not self.clock.paused)

        if who is None:
            self.turn_label.setText("Game over")
        else:
            kind = "agent " + who.agent if who.agent else "person"
            thinking = " — thinking…" if self._runner.busy else ""
            self.turn_label.setText(f"{who.symbol.value} to move: {who.name} ({kind}){thinking}")
        supply = {t: state.supply_left(t) for t in PIECE_TYPES}
        self.supply_label.setText("Supply left: " + "  ".join(f"{t} {supply[t]}" for t in PIECE_TYPES))
        score = state.score()
        self.score_label.setText(f"Uncovered symbols: O {score[Symbol.O]}  X {score[Symbol.X]}")
        self.swap_button.setEnabled(human and state.can_swap())

        if self.hints_box.isChecked() and who is not None:
            counts: dict[int, int] = {}
            for p in legal:
                for cell in p.cells:
                    counts[cell] = counts.get(cell, 0) + 1
            self.canvas.set_hints(counts)
            self.hint_label.setText(f"{len(legal)} legal placements; {len(counts)} cells coverable "
                                    "(the number in a cell counts the placements covering it).")
        else:
            self.canvas.set_hints(None)
            self.hint_label.setText("")

        self.move_list.blockSignals(True)
        self.move_list.clear()
        for text in move_texts(self.board, self._moves):
            self.move_list.addItem(text)
        if self._ply:
            self.move_list.setCurrentRow(self._ply - 1)
        self.move_list.blockSignals(False)
        self.nav_buttons["first"].setEnabled(self._ply > 0)
        self.nav_buttons["prev"].setEnabled(self._ply > 0)
        self.nav_buttons["next"].setEnabled(self._ply < len(self._moves))
        self.nav_buttons["last"].setEnabled(self._ply < len(self._moves))
        self.undo_action.setEnabled(self._ply > 0)
        self.redo_action.setEnabled(self._ply < len(self._moves))

        result = self.result_text()
        self.result_box.setVisible(bool(result))
        self.result_label.setText(result)
        if result and not self._announced:
            self._announced = True
            self.game_over.emit(result)
        self._show_clocks()
        self._refresh_hover_status()

    def _show_clocks(self) -> None:
        for seat in (0, 1):
            info = self.seat_info(seat)
            if not self.clock.enabled:
                self.clock_labels[seat].setText(f"{info.name} ({info.symbol.value}): clocks off")
                continue
            r = self.clock.reading(seat)
            mark = " ◀" if r.running else (" (paused)" if self.clock.paused and self.clock.current == seat else "")
            flag = " — OUT OF TIME" if self.clock.flagged == seat else ""
            self.clock_labels[seat].setText(f"{info.name} ({info.symbol.value}): turn {format_seconds(r.turn_left)}"
                                            f"  bank {format_seconds(r.bank_left)}{mark}{flag}")

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
        self._timer.stop()
        self._runner.cancel()
        self._runner.wait(10_000)
        super().closeEvent(event)


def error_colour(palette: QPalette) -> str:
    """Red for error text that stays readable: dark red on a light window, light red on a dark one."""
    return "#ff8080" if palette.color(QPalette.ColorRole.Window).lightness() < 128 else "#c0001a"


def move_texts(board: Board, moves: list[Move]) -> list[str]:
    """The move list in match notation: placements numbered, each with the symbol that made it."""
    out = []
    number = 0
    first = board.params.first
    for move in moves:
        if isinstance(move, Placement):
            number += 1
            symbol = first if number % 2 == 1 else first.other
            out.append(f"{number}. {symbol.value} {move.notation()}  ({move.ptype})")
        else:
            out.append(f"   {SWAP}: {SEAT_NAMES[1]} takes over {first.value} and the first placement (pie rule)")
    return out


def agent_decision(spec: str, board: Board, moves: list[Move], seed: int) -> Move:
    """The agent's action after ``moves``: a placement, or the pie swap when its evaluation favours swapping.

    Runs on a worker thread, so it builds its own game state from the board and the moves.
    """
    state = GameState(board)
    for move in moves:
        state.push_action(move)
    agent = make_agent(spec, board, seed)
    kernel = state.kernel_state()
    index = agent.choose(kernel)
    if state.can_swap() and agent.wants_swap(kernel, state.placements[0].index, searched=True):
        return SWAP
    if index < 0:
        raise ValueError("the agent found no legal placement although the game is not over")
    return Placement.from_index(index, board.size)
