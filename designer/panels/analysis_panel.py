"""Balance analysis from the designer: run ``core.analysis.run.analyze`` off the GUI thread and show the result.

The analysis runs on a snapshot copy of the board through a typed :class:`designer.workers.Worker` (the
engine itself fans out to worker processes), so the host can keep editing; Cancel sets the job's
``cancelled`` event, which the engine polls.  Nothing heavy happens on the GUI thread, and nothing heavy
competes with it: the engine is imported on the worker when the start-up warm-up has not loaded it yet, the
engine's worker processes run below the window's priority, progress is coalesced to at most ten values a
second, the verdict text and heatmaps are worked out on the worker, and the charts are drawn by matplotlib
in a helper process (:mod:`designer.panels.chart_process`), so matplotlib never holds the window's GIL.
The progress bar only appears when a run takes longer than half a second, so quick runs do not flash.
With a cluster address (``local:N`` or ``tcp://host:port``) the games run on a dask cluster instead of this
machine's process pool (:mod:`core.selfplay.cluster`); the seeds make the verdict the same either way.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.analysis import config as analysis_config
from core.analysis.config import AnalysisCancelled, AnalysisConfig, AnalysisProgress
from core.analysis.hostwords import describe_agent, eta_words, progress_words
from core.analysis.results import AnalysisReport, Analyzer, FloatGrid, ProgressFn
from core.board.fileio import atomic_write_text
from core.board.model import Board
from core.selfplay.cluster import ClusterError, ClusterSpec, DaskSession, parse_cluster
from designer.document.document import Document
from designer.panels.analysis_text import HEATMAP_TIPS, HostSummary, heatmaps, parse_agents, summarise, timing_line
from designer.workers import HELPER_NICE, Cancelled, Control, JobError, Refused, Worker

if TYPE_CHECKING:
    from designer.panels.analysis_charts import Charts

PROGRESS_DELAY_MS = 500
PROGRESS_STEPS = 1000
"""The bar's resolution: it shows the share of the run done, so stages of different sizes read as one run."""
ETA_CORRECTION_S = 15.0
"""The time left shown only goes up when it would run out while the engine still expects more than this."""
PROGRESS_INTERVAL_S = 0.1
"""Progress reaches the GUI at most this often: the engine reports every game, thousands a second."""
CHART_DEBOUNCE_MS = 150
DEFAULT_AGENTS = " + ".join(analysis_config.DEFAULT_AGENTS)
"""The command line's defaults (``lits analyze``), from ``core.analysis.config`` (plain Python: importing
``core.analysis.run`` loads numba, which the window must not wait for at start-up)."""
MIN_TIME = 10
"""Shortest time cap offered, above the engine's floor (``core.analysis.config.MIN_TIME``, 5 s): the workers
must start and every opening be screened before any game tells the host something."""
MAX_TIME = int(analysis_config.MAX_TIME)
"""Longest time cap offered (``lits analyze --time`` takes the same)."""
EFFORT_LABELS = {"standard": "Standard: the verdict to publish",
                 "thorough": "Thorough: expert strength (minutes)"}
"""The efforts the box offers (Quick is its own tick box), in the host's words."""
CLUSTER_SETTING = "analysis/cluster"
"""QSettings key of the last cluster address (empty: this machine)."""
PLAYERS: tuple[tuple[str, str], ...] = (
    ("Club level, after a quick greedy look", DEFAULT_AGENTS),
    ("Expert level, after a quick greedy look", "greedy + expert"),
    ("Casual level, after a quick greedy look", "greedy + casual"),
    ("Club level alone", "club"),
    ("Expert level alone", "expert"),
    ("Greedy player alone (fast, weak)", "greedy"),
    ("Searching player, 1000 simulations a move", "mcts:1000"),
)
"""The Players box's choices in words, with the agents each stands for (the levels first; ``club`` decides by
default, as in ``lits analyze``); agents may also be typed, as the command line takes them."""
AGENTS: tuple[str, ...] = tuple(spec for _words, spec in PLAYERS)
SEED_SETTING = "analysis/seed"
"""QSettings key of the last seed."""
MAX_SEED = 2**31 - 1
ENGINE_MODULE = "core.analysis.run"


def players_words(spec: str) -> str:
    """The Players box's words for ``spec`` (the spec itself when it is not one of :data:`PLAYERS`)."""
    key = " + ".join(parse_agents(spec))
    return next((words for words, choice in PLAYERS if choice == key), spec)


def players_spec(text: str) -> str:
    """The agents the Players box's ``text`` stands for: a choice's spec, or the typed text itself."""
    return next((spec for words, spec in PLAYERS if words == text.strip()), text)


def _setting_int(key: str, default: int, top: int) -> int:
    """An integer setting within 0..``top`` (a hand-edited settings file gives the default, never an error)."""
    try:
        value = int(str(QSettings().value(key, default)))
    except ValueError:
        return default
    return value if 0 <= value <= top else default


def default_analyze(board: Board, config: AnalysisConfig, *, progress: ProgressFn | None = None,
                    cancel: threading.Event | None = None, executor: cf.Executor | None = None,
                    executor_workers: int = 0) -> AnalysisReport:
    """The real engine (:data:`~core.analysis.results.Analyzer`), imported on first use, on the worker thread
    (importing it loads numba); its worker processes run below the window's priority
    (:data:`designer.workers.HELPER_NICE`)."""
    from core.analysis.run import analyze

    return analyze(board, config, progress, cancel, executor, executor_workers, worker_nice=HELPER_NICE)


def cluster_spec(text: str) -> ClusterSpec | None:
    """The cluster the panel's field names: None for this machine (empty), else ``local:N`` or an address.

    Raises :class:`ClusterError` with a one-line message for anything else."""
    return parse_cluster(text) if text.strip() else None


def run_on(spec: ClusterSpec | None, analyze: Analyzer, board: Board, cfg: AnalysisConfig,
           progress: ProgressFn | None = None, cancel: threading.Event | None = None) -> AnalysisReport:
    """``analyze`` on this machine's process pool, or on the dask cluster ``spec`` (opened and closed here)."""
    if spec is None:
        return analyze(board, cfg, progress=progress, cancel=cancel)
    with DaskSession(spec) as session:
        return analyze(board, cfg, progress=progress, cancel=cancel, executor=session.executor,
                       executor_workers=session.worker_count())


def make_config(agents: str | list[str], seconds: float = 0.0, quick: bool = False,
                effort: str = analysis_config.DEFAULT_EFFORT, seed: int = 0) -> AnalysisConfig:
    """The engine's config from the panel's choices, as ``lits analyze --effort E --time S`` builds it: the effort
    fixes the work, so the same board and seed give the same verdict on any machine; ``seconds`` (0 = none) is
    only a cap."""
    names = parse_agents(agents) if isinstance(agents, str) else list(agents)
    if quick and tuple(names) in {tuple(e.agents) for e in analysis_config.EFFORTS.values()}:
        names = list(analysis_config.QUICK.agents)  # a preset's players follow the preset, as the effort box does
    return AnalysisConfig.from_effort(analysis_config.QUICK.name if quick else effort, agents=names,
                                      time_budget=float(seconds), seed=seed)


def quick_effect(agents: list[str], seconds: float = 0.0) -> str | None:
    """What Quick changes, in words, from the engine's own ``effective()`` (None until the engine is loaded)."""
    if ENGINE_MODULE not in sys.modules:
        return None
    try:
        quick_look = analysis_config.EffortChoice(analysis_config.QUICK.name)
        config = analysis_config.AnalysisConfig(agents=agents, effort=quick_look)
        config.check()
        quick = config.effective()
    except ValueError:
        return None
    parts = []
    changed = [f"{a} → {b}" for a, b in zip(agents, quick.agents, strict=True) if a != b]
    if changed:
        parts.append("weaker search (" + ", ".join(changed) + ")")
    return "; ".join(parts) if parts else "no change for these settings"


@dataclass(frozen=True)
class Analysed:
    """An analysis's result: the report with its host summary and heatmaps, worked out on the worker (reading a
    rate's interval imports scipy.stats on first use, which held the GUI thread for over a second).  A run that
    could not start where it was asked to (the cluster: dask missing, or no scheduler at the address) is a
    :class:`~designer.workers.Refused` instead, and one the engine stopped a :class:`~designer.workers.Cancelled`."""

    report: AnalysisReport
    summary: HostSummary
    maps: dict[str, FloatGrid]


@dataclass(frozen=True)
class ChartsDrawn:
    """The charts of ``report``, drawn on the chart runner (shown only while that report is still the panel's)."""

    report: AnalysisReport
    charts: Charts


class ChartImage(QLabel):
    """One chart picture; it asks for no width of its own so the dock decides how wide the panel is."""

    def __init__(self) -> None:
        super().__init__()
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())


class AnalysisPanel(QWidget):
    """Agent strength and game budget in, verdict, charts and board heatmaps out.

    Signals: ``heatChanged(array or None, label)`` for the board canvas, ``runningChanged(bool)``.
    """

    heatChanged = Signal(object, str)
    runningChanged = Signal(bool)
    reportReady = Signal(object)

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.analyzer: Analyzer = default_analyze
        """What runs an analysis (tests give a stand-in that returns a saved report)."""
        self.report: AnalysisReport | None = None
        self.report_size = 0
        self.summary: HostSummary | None = None
        self.maps: dict[str, FloatGrid] = {}
        self.charts: Charts | None = None
        """The charts now shown (None before the first result)."""
        self.started_at = 0.0
        self.finished_at = 0.0
        self.dark = False
        self.last_progress: AnalysisProgress | None = None
        self.analysed: tuple[object, ...] | None = None
        """Size, cells and parameters of the board the shown report is about (None: no report)."""
        self._running = False
        self._running_board: Board | None = None
        self._run_quick = False
        """Whether the running analysis is a Quick look (its verdict's next step depends on it)."""
        self._chart_request: tuple[int, bool] | None = None
        self._progress_shown = 0
        """The share of the run the bar shows (of :data:`PROGRESS_STEPS`): it only moves forward within a run."""
        self._deadline: float | None = None
        """When the time left shown runs out (monotonic clock; None until the engine first estimates it)."""
        self._compiling_seen = False
        """The running analysis waited for the engine to be compiled (the first start after installing)."""
        self._work_started: float | None = None
        """When the running analysis reported its first step past the start and the compile (monotonic clock)."""
        self._effort_before_quick = 0
        """The effort the box held when Quick was ticked, shown again when it is unticked."""
        self.engine_compiling: Callable[[], bool] = lambda: False
        """Whether the first start's compile of the engine is still running (the window tells: an analysis
        started meanwhile waits for it, and the progress line says why)."""
        self._make_runners()
        self._make_settings()
        self._make_run_controls()
        self._make_results()
        self._lay_out()
        self._connect()

    def _make_runners(self) -> None:
        """The analysis's worker (progress coalesced) and the charts' worker."""
        self.runner: Worker[Analysed, AnalysisProgress] = Worker(self, progress_interval=PROGRESS_INTERVAL_S)
        self.runner.on_done(self._on_done)
        self.runner.on_failed(self._on_failed)
        self.runner.on_cancelled(self._on_cancelled)
        self.runner.on_progress(self._on_progress)
        self.chart_runner: Worker[ChartsDrawn, None] = Worker(self)
        self.chart_runner.on_done(self._on_charts)
        self.chart_runner.on_failed(self._on_chart_error)

    def _make_settings(self) -> None:
        """Who plays, the effort, the time cap, Quick, the seed and where the games run."""
        self.agent = QComboBox()
        self.agent.setEditable(True)
        for words, spec in PLAYERS:
            self.agent.addItem(words, spec)
        self.agent.setCurrentText(players_words(DEFAULT_AGENTS))
        self.agent.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.agent.setMinimumContentsLength(10)
        self.agent.setToolTip("Who plays the test games: the levels casual, club and expert (stronger and slower), "
                              "each after a quick look by the greedy player, or one level alone. You may also type "
                              "players, e.g. \"greedy + club\" or \"mcts:1000\" (a searching player with 1000 "
                              "simulations a move): several play in turn and the strongest decides, so the verdict "
                              "holds for its strength. Every opening it finds fair is then checked by a second "
                              f"engine, {describe_agent(analysis_config.CHECK_AGENT)}, and counts only if both "
                              "agree. The default is what lits analyze uses.")
        self.effort = QComboBox()
        for name, label in EFFORT_LABELS.items():
            self.effort.addItem(label, name)
        self.effort.setToolTip("How much play decides the verdict. The work is fixed, not the time: the same "
                               "board and seed give the same verdict on any computer, however busy. Standard "
                               "takes about a minute on two cores; Thorough lets the expert level decide, each game "
                               "about eight times the work (4-10 minutes on two cores, or use a cluster), and checks "
                               "each fair opening more firmly (two engines, up to "
                               f"{analysis_config.FIRM_CHECK_GAMES} games each), so it decides less often.")
        self.time_limit = QSpinBox()
        self.time_limit.setRange(0, MAX_TIME)
        self.time_limit.setSpecialValueText("No limit")
        self.time_limit.setValue(0)
        self.time_limit.setSingleStep(30)
        self.time_limit.setSuffix(" s")
        self.time_limit.setToolTip("An optional cap on the time the analysis may take (No limit by default). A run "
                                   "the cap cuts short says so, and its result then depends on this computer's "
                                   "speed: leave it at No limit for a verdict others can reproduce.")
        self.quick = QCheckBox("Quick look (weaker, shorter)")
        self.quick.setChecked(False)
        self.quick_note = QLabel()
        self.quick_note.setWordWrap(True)
        self.quick_note.setVisible(False)
        self.seed = QSpinBox()
        self.seed.setRange(0, MAX_SEED)
        self.seed.setValue(_setting_int(SEED_SETTING, 0, MAX_SEED))
        self.seed.setToolTip("Which test games are played: the same board, settings and seed give the same "
                             "verdict on any computer (lits analyze --seed takes the same number). Another seed "
                             "plays other games, a way to see whether a close verdict holds.")
        self.cluster = QLineEdit()
        self.cluster.setPlaceholderText("this computer")
        self.cluster.setClearButtonEnabled(True)
        self.cluster.setToolTip("Where the test games run: empty for this computer, local:N for a dask cluster of "
                                "N worker processes here, or tcp://host:8786 for a running dask scheduler "
                                "(keep it on a private network: a scheduler runs whatever its clients send).")
        self.cluster_error = QLabel()
        self.cluster_error.setWordWrap(True)
        self.cluster_error.setStyleSheet("color: #b3261e;")
        self.cluster_error.setVisible(False)

    def _make_run_controls(self) -> None:
        """Analyse and Cancel, the progress (shown only when a run takes a while) and the notices."""
        self.run_button = QPushButton("Analyse")
        self.run_button.setToolTip("Play test games on a copy of the board (Ctrl+Shift+A); you can keep editing")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.progress_bar = QProgressBar()
        self.progress_bar.setVisible(False)
        self.progress_label = QLabel()
        self.progress_label.setVisible(False)
        self.progress_label.setWordWrap(True)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.setVisible(False)
        self.show_timer = QTimer(self)
        self.show_timer.setSingleShot(True)
        self.show_timer.timeout.connect(self._show_progress)

    def _make_results(self) -> None:
        """The verdict, the stale-board note, the heatmap choice, the charts and Save."""
        self.verdict = QLabel("No analysis yet. Analyse plays test games on a copy of the board and says "
                              "whether the swap rule can keep it fair.")
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.stale_label = QLabel("The board has changed since this analysis: the heatmaps are hidden and the "
                                  "results describe the earlier board. Analyse again for the current board.")
        self.stale_label.setWordWrap(True)
        self.stale_label.setVisible(False)
        self.heat_select = QComboBox()
        self.heat_select.addItem("No heatmap")
        self.heat_select.setEnabled(False)
        self.heat_select.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.heat_select.setMinimumContentsLength(10)
        self.heat_select.setToolTip("Colour the board with one of the analysis maps (bright = high). "
                                    "Hidden while the board differs from the analysed one.")
        self.chart_images = [ChartImage() for _ in range(3)]
        self.raw_note = QLabel()
        self.raw_note.setWordWrap(True)
        self.chart_placeholder = QLabel("Charts appear here after an analysis.")
        self.chart_placeholder.setWordWrap(True)
        self.save_button = QPushButton("Save the report as a file…")
        self.save_button.setToolTip("Every figure of this analysis in one file (JSON, as lits analyze --json "
                                    "writes it), to keep with the board or compare runs")
        self.save_button.setEnabled(False)
        self.chart_timer = QTimer(self)
        self.chart_timer.setSingleShot(True)
        self.chart_timer.timeout.connect(self._request_charts)

    def _lay_out(self) -> None:
        """Settings, buttons, progress, verdict, heatmap choice, then the charts, top to bottom."""
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Players", self.agent)
        form.addRow("Effort", self.effort)
        form.addRow("Time limit", self.time_limit)
        form.addRow(self.quick)
        form.addRow(self.quick_note)
        form.addRow("Seed", self.seed)
        form.addRow("Games run on", self.cluster)
        form.addRow(self.cluster_error)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(buttons)
        parts: list[QWidget] = [self.progress_bar, self.progress_label, self.notice, self.verdict, self.stale_label]
        for widget in parts:
            layout.addWidget(widget)
        heat_row = QHBoxLayout()
        heat_label = QLabel("On board")
        heat_label.setToolTip(self.heat_select.toolTip())
        heat_row.addWidget(heat_label)
        heat_row.addWidget(self.heat_select, 1)
        layout.addLayout(heat_row)
        charts: list[QWidget] = [self.chart_placeholder, self.chart_images[0], self.chart_images[1], self.raw_note,
                                 self.chart_images[2], self.save_button]
        for widget in charts:
            layout.addWidget(widget)
        layout.addStretch(1)
        for image in self.chart_images:
            image.setVisible(False)
        self.raw_note.setVisible(False)

    def _connect(self) -> None:
        """The buttons, the settings' notes and remembered values, and the document's changes."""
        self.run_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.heat_select.currentTextChanged.connect(self._on_heat)
        self.save_button.clicked.connect(self._save_json)
        self.quick.toggled.connect(self._update_quick_note)
        self.effort.currentIndexChanged.connect(self._on_effort)
        self.agent.currentTextChanged.connect(self._update_quick_note)
        self.seed.valueChanged.connect(lambda value: QSettings().setValue(SEED_SETTING, value))
        self.document.boardReplaced.connect(self._on_board_replaced)
        self.document.cellsChanged.connect(lambda _cells: self._check_stale())
        self.document.paramsChanged.connect(self._check_stale)
        self._update_quick_note()
        self.cluster.setText(str(QSettings().value(CLUSTER_SETTING, "") or ""))
        self.cluster.textChanged.connect(self._on_cluster_changed)
        self._on_cluster_changed(self.cluster.text())

    # -- settings ----------------------------------------------------------------------
    def _update_quick_note(self) -> None:
        """Say what Quick does to these settings instead of changing the Time limit box behind the host's back."""
        agents = parse_agents(self.agent_spec())
        effect = quick_effect(agents) if agents else None
        general = ("A first look in seconds: searching players are capped at "
                   f"{analysis_config.QUICK.sims_cap} simulations a move and fewer games are played, with no "
                   "second engine, so it often says \"not decided yet\" and is never a verdict to publish; untick "
                   "it for one.")
        self._show_effort(quick=self.quick.isChecked())
        self.quick.setToolTip(general if effect is None else f"{general}\nWith these settings: {effect}.")
        self.quick_note.setText(f"Quick plays: {effect}." if effect else "")
        self.quick_note.setVisible(self.quick.isChecked() and bool(effect))

    def _show_effort(self, quick: bool) -> None:
        """While Quick is ticked the box names no effort: "Standard: the verdict to publish" beside a first look
        that is never one would say the opposite of what runs."""
        self.effort.setEnabled(not quick)
        if quick == (self.effort.currentIndex() < 0):
            return
        blocked = self.effort.blockSignals(True)  # the players follow a chosen effort, not this display
        if quick:
            self._effort_before_quick = self.effort.currentIndex()
            self.effort.setPlaceholderText("Quick look: a first look, not a verdict")
            self.effort.setCurrentIndex(-1)
        else:
            self.effort.setCurrentIndex(max(self._effort_before_quick, 0))
        self.effort.blockSignals(blocked)

    def _on_effort(self, _index: int) -> None:
        """A preset's players replace the box's only while it holds another preset's (a typed choice stays)."""
        presets = {" + ".join(e.agents) for e in analysis_config.EFFORTS.values()}
        if " + ".join(parse_agents(self.agent_spec())) in presets:
            chosen = analysis_config.EFFORTS[str(self.effort.currentData())]
            self.agent.setCurrentText(players_words(" + ".join(chosen.agents)))
        self._update_quick_note()

    def agent_spec(self) -> str:
        """The agents the Players box names, as ``lits analyze --agent`` takes them."""
        return players_spec(self.agent.currentText())

    @property
    def chosen_effort(self) -> str:
        """The effort the settings ask for: Quick's tick wins over the box."""
        if self.quick.isChecked():
            return analysis_config.QUICK.name
        return str(self.effort.itemData(max(self.effort.currentIndex(), 0)))

    def cluster_problem(self) -> str | None:
        """Why the cluster field cannot be used (None when it is empty or a valid address)."""
        try:
            cluster_spec(self.cluster.text())
        except ClusterError as exc:
            return str(exc)
        return None

    def _on_cluster_changed(self, text: str) -> None:
        problem = self.cluster_problem()
        self.cluster_error.setText(problem or "")
        self.cluster_error.setVisible(problem is not None)
        self.run_button.setEnabled(not self._running and problem is None)
        if problem is None:
            QSettings().setValue(CLUSTER_SETTING, text.strip())

    def engine_ready(self) -> None:
        """The start-up warm-up has loaded the engine: the Quick note can now give exact figures."""
        self._update_quick_note()

    # -- running -----------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._running

    def start(self) -> bool:
        """Analyse a snapshot of the board; returns False (after telling the host) when it cannot start."""
        if self._running:
            return False
        text = self.agent_spec()
        agents = parse_agents(text)
        seconds, quick = float(self.time_limit.value()), self.quick.isChecked()
        try:
            cluster = cluster_spec(self.cluster.text())
        except ClusterError as exc:
            self._reject(f"Games run on: {exc}")
            return False
        analyze = self.analyzer
        if not agents:
            QMessageBox.warning(self, "Analysis settings", "Choose who plays the test games (the Players box is "
                                                           f"empty), for example {PLAYERS[0][0]}.")
            return False
        try:  # plain Python (no engine): the settings are checked before anything starts
            config = make_config(agents, seconds, quick, self.chosen_effort, self.seed.value())
            config.check()
        except ValueError as exc:
            self._reject(f"Players {text.strip()!r}: {exc}")
            return False
        board = self.document.snapshot()
        self._running_board = board.copy()
        self._run_quick = quick

        def job(control: Control[AnalysisProgress]) -> Analysed:
            from designer.panels.analysis_charts import CHART_PROCESS

            CHART_PROCESS.prepare()  # the chart process imports matplotlib while the games run
            try:
                report = run_on(cluster, analyze, board, config, progress=control.progress,
                                cancel=control.cancelled)
            except AnalysisCancelled:
                raise Cancelled from None
            except ClusterError as exc:  # dask missing, or no scheduler at the address: say how to fix it
                raise Refused(f"Games run on: {exc}") from None
            control.check()
            summary = summarise(report, quick=quick, pie_rule=board.params.pie, seconds=seconds)
            return Analysed(report, summary, heatmaps(report, board.size))

        self.report_size = board.size
        self.started_at = time.monotonic()
        self.last_progress = None
        self._progress_shown = 0
        self._deadline = None
        self._compiling_seen = self.engine_compiling()
        self._work_started = None
        self._running = True
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.notice.setVisible(False)
        self.progress_bar.setRange(0, 0)
        self.progress_label.setText("Starting…")
        self.show_timer.start(PROGRESS_DELAY_MS)
        self.runner.request(job)
        self.runningChanged.emit(True)
        return True

    def _reject(self, message: str) -> None:
        QMessageBox.warning(self, "Analysis settings", message)

    def cancel(self) -> None:
        """Stop the run; the previous result (if any) stays, marked as the previous run's."""
        if not self._running:
            return
        self.runner.cancel()
        self._finish()
        if self.report is None:
            self.verdict.setText("Analysis cancelled.")
        else:
            self._show_notice("Analysis cancelled: the result below is from the previous run.")

    def _show_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.setVisible(True)

    def _show_progress(self) -> None:
        if self._running:
            self.progress_bar.setVisible(True)
            self.progress_label.setVisible(True)

    def _on_progress(self, p: AnalysisProgress) -> None:
        self.last_progress = p
        if p.phase == "compile" or (p.phase == "start" and self.engine_compiling()):
            self._compiling_seen = True
        elif p.phase != "start" and self._work_started is None:
            self._work_started = time.monotonic()
        if p.overall > 0 or p.total > 0:
            # the whole run's share (core's ``overall``) when there is one: a stage's own done/total restarts at 0
            share = p.overall if p.overall > 0 else p.done / p.total
            self._progress_shown = max(self._progress_shown, min(PROGRESS_STEPS, int(PROGRESS_STEPS * share)))
            self.progress_bar.setRange(0, PROGRESS_STEPS)
            self.progress_bar.setValue(self._progress_shown)
        text = progress_words(p)
        left = self._time_left(p.eta) if p.phase not in ("start", "compile", "done") else None
        if left is not None:
            text = f"{text} - {eta_words(left)}"
        if p.phase == "start" and self.engine_compiling():
            text = ("Waiting for the game engine to be compiled (once, after installing); the analysis starts as "
                    "soon as it is ready")
        if text != self.progress_label.text():  # a new text re-lays out the whole panel
            self.progress_label.setText(text)

    def _time_left(self, eta: float | None) -> float | None:
        """The time left to show: it counts down and never goes up over one run because a stage's estimate
        jittered (2 min, then 4 min, then 3 min read as a run going backwards); only when the count-down would
        end while the engine still expects more than :data:`ETA_CORRECTION_S` does the end move later."""
        if eta is None or eta != eta:
            return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())
        now = time.monotonic()
        expected = now + max(0.0, eta)
        if self._deadline is None or expected < self._deadline \
                or (self._deadline - now < ETA_CORRECTION_S / 3 and eta > ETA_CORRECTION_S):
            self._deadline = expected
        return max(0.0, self._deadline - now)

    def _finish(self) -> None:
        self.show_timer.stop()
        self._running = False
        self.progress_bar.setVisible(False)
        self.progress_label.setVisible(False)
        self.run_button.setEnabled(self.cluster_problem() is None)
        self.cancel_button.setEnabled(False)
        self.runningChanged.emit(False)

    def compile_wait(self) -> float:
        """Seconds the finished or running analysis waited for the engine's compile before it began (0: none)."""
        if not self._compiling_seen:
            return 0.0
        began = self._work_started if self._work_started is not None else self.finished_at
        return max(0.0, began - self.started_at)

    def _ended(self) -> None:
        """The run ended on its own (a result, a refusal or the engine's stop): the clock stops, the bar goes."""
        self.finished_at = time.monotonic()
        self._finish()

    def _on_done(self, result: Analysed) -> None:
        self._ended()
        waited = self.compile_wait()
        elapsed = self.finished_at - self.started_at - waited
        self.show_report(result.report, self.report_size, elapsed, self._running_board, quick=self._run_quick,
                         summary=result.summary, maps=result.maps, waited=waited)
        self.reportReady.emit(result.report)

    def _on_cancelled(self) -> None:
        self._ended()
        if self.report is None:
            self.verdict.setText("Analysis cancelled.")

    def _on_failed(self, error: JobError) -> None:
        if error.refused:  # the run could not start where it was asked to: advice, said as a settings problem
            self._ended()
            self._reject(error.message)
            return
        self._finish()
        message = str(error)
        text = f"Analysis failed: {message}"
        if self.report is None:
            self.verdict.setText(f"<b>Analysis failed</b><br>{_html(message)}")
        else:
            self._show_notice(text + " The result below is from the previous run.")

    def shutdown(self) -> None:
        """Cancel and wait for a running analysis and chart drawing (window closing)."""
        self.runner.cancel()
        self.chart_runner.cancel()
        self.runner.wait(30000)
        self.chart_runner.wait(30000)
        self._running = False

    # -- results -----------------------------------------------------------------------
    def show_report(self, report: AnalysisReport, size: int, elapsed: float | None = None,
                    board: Board | None = None, quick: bool | None = None, games: int | None = None,
                    summary: HostSummary | None = None, maps: dict[str, FloatGrid] | None = None,
                    waited: float = 0.0) -> None:
        """Show ``report``, the analysis of ``board`` (default: the board as it is now).

        ``summary`` and ``maps`` are worked out here unless the worker already did; ``waited`` is how long the run
        waited for the engine's compile before ``elapsed`` began.
        """
        analysed = board if board is not None else self.document.board
        self.report = report
        self.report_size = size
        self.analysed = _board_key(analysed)
        self.notice.setVisible(False)
        self.summary = summary or summarise(report, quick=quick, games=games, pie_rule=analysed.params.pie)
        self.verdict.setText(verdict_html(self.summary, elapsed, report.config.seed, waited))
        self.raw_note.setText(self.summary.raw_line)
        self.maps = maps if maps is not None else heatmaps(report, size)
        self.heat_select.blockSignals(True)
        self.heat_select.clear()
        self.heat_select.addItem("No heatmap")
        for label in self.maps:
            self.heat_select.addItem(label)
            self.heat_select.setItemData(self.heat_select.count() - 1, HEATMAP_TIPS.get(label, label),
                                         Qt.ItemDataRole.ToolTipRole)
        self.heat_select.blockSignals(False)
        self.heat_select.setEnabled(bool(self.maps))
        self.save_button.setEnabled(True)
        if self.maps:
            self.heat_select.setCurrentIndex(1)
        self._check_stale()
        self.charts = None
        self._request_charts()

    def set_theme(self, theme: str) -> None:
        """Redraw the charts in the window's colours."""
        self.dark = theme == "dark"
        if self.report is not None:
            self._request_charts()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.report is not None:
            self.chart_timer.start(CHART_DEBOUNCE_MS)

    def chart_width(self) -> int:
        layout = self.layout()
        side = 0 if layout is None else layout.contentsMargins().left() + layout.contentsMargins().right()
        return max(160, self.width() - side)

    def charts_ready(self) -> bool:
        """Whether the charts shown are those of the current report, width and theme (tests wait for it)."""
        return self.charts is not None and not self.chart_runner.busy and not self.chart_timer.isActive() \
            and (self.charts.width, self.charts.dark) == (self.chart_width(), self.dark)

    def _request_charts(self) -> None:
        """Draw the charts on the chart runner at the panel's width; the newest request wins."""
        report, width, dark = self.report, self.chart_width(), self.dark
        if report is None:
            return
        if self.charts is not None and (self.charts.width, self.charts.dark) == (width, dark) \
                and not self.chart_runner.busy:
            return
        dpr = self.devicePixelRatioF()

        def draw(_control: Control[None]) -> ChartsDrawn:
            from designer.panels.analysis_charts import render_charts

            return ChartsDrawn(report, render_charts(report, width, dpr, dark))

        self.chart_runner.request(draw)

    def _on_charts(self, result: ChartsDrawn) -> None:
        if result.report is not self.report:
            return
        charts = result.charts
        self.charts = charts
        self.chart_placeholder.setVisible(False)
        for label, image in zip(self.chart_images, charts.images, strict=True):
            label.setPixmap(QPixmap.fromImage(image))
            label.setFixedHeight(round(image.height() / image.devicePixelRatio()))
            label.setVisible(True)
        self.raw_note.setVisible(bool(self.raw_note.text()))
        if (charts.width, charts.dark) != (self.chart_width(), self.dark):
            self._request_charts()

    def _on_chart_error(self, error: JobError) -> None:
        self.chart_placeholder.setText(f"The charts could not be drawn: {error}")
        self.chart_placeholder.setVisible(True)

    @property
    def stale(self) -> bool:
        """Whether the board (cells or game parameters) differs from the one the shown report analysed."""
        return self.analysed is not None and self.analysed != _board_key(self.document.board)

    def _check_stale(self) -> None:
        """Hide the heatmap while the board differs from the analysed one; show it again after undo."""
        self.stale_label.setVisible(self.stale)
        self._on_heat(self.heat_select.currentText())

    def _on_heat(self, label: str) -> None:
        arr = self.maps.get(label)
        if arr is not None and self.report_size == self.document.board.size and not self.stale:
            self.heatChanged.emit(arr, label)
        else:
            self.heatChanged.emit(None, "")

    def _on_board_replaced(self) -> None:
        self.heat_select.setCurrentIndex(0)

    def _save_json(self) -> None:
        self.save_json(None)

    def save_json(self, path: str | None) -> bool:
        """Write the report as JSON (the same data as ``lits analyze --json``); None asks for the file."""
        if self.report is None:
            return False
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Save analysis report", "analysis.json", "JSON (*.json)")
            if not path:
                return False
        try:
            atomic_write_text(path, json.dumps(self.report.to_json(), indent=2) + "\n")
        except OSError as exc:
            QMessageBox.warning(self, "Save report", f"{path}: {exc.strerror or exc}")
            return False
        return True


def verdict_html(summary: HostSummary, elapsed: float | None = None, seed: int | None = None,
                 waited: float = 0.0) -> str:
    """The verdict block: headline, reasons, warnings, the seed and how long it took, and the next step last.

    ``elapsed`` is the analysis's own time; ``waited`` the time it waited for the engine's compile first, said
    apart (a 172 s "analysis" of which 155 s were the compile misled a host about what the next run costs)."""
    html = f"<p style='font-size:14pt; margin:0'><b>{summary.mark} {_html(summary.headline)}</b></p>"
    if summary.lines:
        html += "<ul style='margin-left:-20px'>" + "".join(f"<li>{_html(line)}</li>" for line in summary.lines) \
            + "</ul>"
    if summary.warnings:
        html += "<p><b>⚠ Worth knowing</b></p><ul style='margin-left:-20px'>" \
            + "".join(f"<li>{_html(w)}</li>" for w in summary.warnings) + "</ul>"
    small = []
    if seed is not None:
        small.append(f"Seed {seed}: the same board, settings and seed give this verdict again.")
    if elapsed is not None:
        small.append(timing_line(elapsed, waited))
    if small:
        html += f"<p><small>{' '.join(small)}</small></p>"
    html += f"<p><b>Next step:</b> {_html(summary.next_step)}</p>"
    return html


def _board_key(board: Board) -> tuple[object, ...]:
    """What an analysis depends on: the size, the cells and the game parameters (not the name or notes)."""
    return (board.size, tuple(board.cells), board.params)


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
