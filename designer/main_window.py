"""The designer's main window: the board in the middle, the validation/properties/analysis panels beside it.

The window wires views to the Document and owns everything that needs the
user's say-so: file dialogs, the unsaved-changes prompt, settings, recovering
autosaved work.  The board gets the space first: the three panels share one
column of tabs on the right.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QByteArray, QFile, QIODevice, QSettings, QSize, Qt, QTimer
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QColor,
    QIcon,
    QKeySequence,
    QPainter,
    QPalette,
    QPixmap,
    QShowEvent,
)
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QTabWidget,
    QWidget,
)

from core.board.boardfile import BoardFileError, save_board
from core.board.fileio import write_failure
from core.board.geometry import DEFAULT_SIZE, MAX_SIZE, MIN_SIZE
from core.board.model import Board, Symbol, Transform
from core.board.validation import count_errors
from core.seal.sealcheck import SEALED_SUFFIX
from designer.canvas.board_view import LOCK_BRUSH, BoardView
from designer.canvas.render import THEMES, RenderOptions
from designer.dialogs.card import CardDialog
from designer.dialogs.export import PictureDialog, SealDialog, TextGridDialog, export_picture
from designer.dialogs.help import WorkflowDialog
from designer.document.autosave import (
    Autosaver,
    damaged_text,
    find_recoveries,
    recovered_status,
    recovered_text,
)
from designer.document.document import Document
from designer.document.recent import RecentFiles, RecentMenu
from designer.document.sealed import read_sealed_board
from designer.host.recent import RecentMatchesMenu
from designer.panels.analysis_panel import AnalysisPanel
from designer.panels.estimate import PredictedBalance, place_under
from designer.panels.openings_overlay import OpeningsOverlay
from designer.panels.side_panels import PropertiesPanel, ValidationPanel, align_top, scrolling

if TYPE_CHECKING:
    from designer.warmup import CompileProgress
    from designer.workers import JobError

APP_NAME = "LITS Board Studio"
STATE_VERSION = 2
"""Bumped when the default dock layout changes, so a layout saved by an older version is not restored."""
DOCK_WIDTH = (270, 380)
"""The panel column's width range; the board gets the rest of the window."""
ICON_STROKE = "#3b4252"


def load_icon(name: str, dark: bool = False) -> QIcon:
    """An icon from ``icons:NAME.svg``, recoloured for the dark theme so it stays visible."""
    if QApplication.instance() is None:  # pixmaps need an application; without one there is nothing to show
        return QIcon()
    file = QFile(f"icons:{name}.svg")
    if not file.open(QIODevice.OpenModeFlag.ReadOnly):
        return QIcon()
    data = bytes(file.readAll().data())
    file.close()
    if dark:
        data = data.replace(ICON_STROKE.encode(), b"#d8dee9")
    renderer = QSvgRenderer(QByteArray(data))
    icon = QIcon()
    for px in (16, 24, 32, 48):
        pixmap = QPixmap(px, px)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        renderer.render(painter)
        painter.end()
        icon.addPixmap(pixmap)
    return icon


def apply_theme(app: QApplication, theme: str) -> None:
    """Fusion style with a light or dark palette (the canvas follows through RenderOptions)."""
    app.setStyle("Fusion")
    if theme == "dark":
        pal = QPalette()
        roles = {
            QPalette.ColorRole.Window: "#2b2d31", QPalette.ColorRole.WindowText: "#e6e6e6",
            QPalette.ColorRole.Base: "#1e1f22", QPalette.ColorRole.AlternateBase: "#2b2d31",
            QPalette.ColorRole.ToolTipBase: "#2b2d31", QPalette.ColorRole.ToolTipText: "#e6e6e6",
            QPalette.ColorRole.Text: "#e6e6e6", QPalette.ColorRole.Button: "#35373c",
            QPalette.ColorRole.ButtonText: "#e6e6e6", QPalette.ColorRole.BrightText: "#ff6b6b",
            QPalette.ColorRole.Highlight: "#3d7bd9", QPalette.ColorRole.HighlightedText: "#ffffff",
            QPalette.ColorRole.Link: "#7fb6ff", QPalette.ColorRole.PlaceholderText: "#8a8f98",
        }
        for role, color in roles.items():
            pal.setColor(role, QColor(color))
        for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
            pal.setColor(QPalette.ColorGroup.Disabled, role, QColor("#777b82"))
        app.setPalette(pal)
    else:
        app.setPalette(app.style().standardPalette())


class MainWindow(QMainWindow):
    """One document per window."""

    def __init__(self, document: Document | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document or Document(Board())
        self.settings = QSettings()
        self.recent = RecentFiles(self.settings, self)
        self.sealed_origin: tuple[str, list[Symbol]] | None = None
        """The sealed file the board was opened from and its cells, so Host a match can propose it while unedited."""
        self.theme = str(self.settings.value("theme", "light"))
        if self.theme not in THEMES:
            self.theme = "light"
        self.view = BoardView(self.document)
        self.view.set_options(RenderOptions(theme=self.theme,
                                            grid=_bool(self.settings.value("view/grid", True)),
                                            coordinates=_bool(self.settings.value("view/coordinates", True))))
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setWidget(self.view)
        self.scroll_area.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setCentralWidget(self.scroll_area)

        self.validation = ValidationPanel(self.document)
        self.properties = PropertiesPanel(self.document)
        self.analysis = AnalysisPanel(self.document)
        self.analysis.set_theme(self.theme)
        self.estimate = PredictedBalance(self.document, self.view.set_heat, self)  # the live estimate, its layer
        place_under(self.estimate.line, self.analysis.verdict)
        right = Qt.DockWidgetArea.RightDockWidgetArea
        self.setTabPosition(right, QTabWidget.TabPosition.North)
        self.validation_dock = self._dock("Validation", scrolling(align_top(self.validation)), right)
        self.properties_dock = self._dock("Properties", scrolling(align_top(self.properties)), right)
        analysis_area = scrolling(self.analysis)
        # The charts are drawn for the panel's width; a scroll bar that came and went with the results changed
        # that width and left the charts cut off until they were drawn again.
        analysis_area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.analysis_dock = self._dock("Analysis", analysis_area, right)
        self.tabifyDockWidget(self.validation_dock, self.properties_dock)
        self.tabifyDockWidget(self.properties_dock, self.analysis_dock)
        self.validation_dock.raise_()

        self.hover_label = QLabel()
        self.valid_label = QLabel()
        self.valid_label.setToolTip("Whether the board is fit for a match; the Validation tab lists the problems")
        self.brush_label = QLabel()
        self.engine_note = QLabel()
        self.engine_note.setVisible(False)
        self.engine_note.setToolTip("The game engine is compiled once after installing; nothing waits for it but "
                                    "an analysis or play-test started before it is ready")
        self.statusBar().addWidget(self.hover_label, 1)
        self.statusBar().addPermanentWidget(self.engine_note)
        self.statusBar().addPermanentWidget(self.valid_label)
        self.statusBar().addPermanentWidget(self.brush_label)
        # QStatusBar hides its normal widgets during a message only if they are visible at that
        # moment; a message posted before the window is shown (a broken board on the command
        # line) was drawn on top of the hover text. Keep the two apart ourselves.
        self.statusBar().messageChanged.connect(lambda text: self.hover_label.setVisible(not text))

        self._build_actions()
        self._build_menus()
        self._build_toolbar()

        self.view.hovered.connect(self._on_hover)
        self.view.cursorMoved.connect(self._on_hover)
        self.view.brushRequested.connect(self._on_brush_requested)
        self.validation.statusChanged.connect(self._on_validation)
        self._on_validation(self.validation.status.text())
        # The hovered cell's symbol changes under a still mouse too (paint, undo, tools, a new board).
        self.document.cellsChanged.connect(lambda _cells: self._on_hover(self.view.hover))
        self.view.cellClicked.connect(lambda _c: self.view.set_selected(()))
        self.validation.cellSelected.connect(self._on_problem_selected)
        self.properties.newBoardRequested.connect(self.new_board)
        self.analysis.heatChanged.connect(self.estimate.show_analysis_heat)  # one heatmap, shared
        self.openings = OpeningsOverlay(self.document, self.view, self.analysis, self.openings_action,
                                        self.statusBar(), self)
        self.document.fileChanged.connect(self._update_title)
        self.document.paramsChanged.connect(self._update_title)
        self.document.boardReplaced.connect(self._update_title)
        # A message about the previous board ("3 broken pairs...") must not outlive it.
        self.document.boardReplaced.connect(self.statusBar().clearMessage)
        self.set_brush(Symbol.O)
        self._update_title()
        self.setWindowIcon(load_icon("app"))
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 820)
        state = self.settings.value("window/state")
        self._layout_restored = isinstance(state, QByteArray) and not state.isEmpty() \
            and self.restoreState(state, STATE_VERSION)
        self._shown_once = False
        self.autosaver = Autosaver(self.document, parent=self)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._shown_once:
            return
        self._shown_once = True
        if not self._layout_restored:
            self.fit_docks()
        # Load the engine once the window is on screen, so neither the first Analyse nor the first
        # Play-test waits for numba.
        QTimer.singleShot(300, self._warm_up)

    def _warm_up(self) -> None:
        from designer import warmup

        self.analysis.engine_compiling = warmup.compiling.is_set
        runner = warmup.start(self.document.board)
        if runner is not None:
            # Methods, not lambdas: the warm-up outlives a closed window, and a method's connection ends with it.
            runner.on_progress(self._engine_progress)
            runner.on_done(self._engine_loaded)
            runner.on_failed(self._engine_failed)

    def _engine_loaded(self, _seconds: float) -> None:
        self.analysis.engine_ready()
        self.engine_note.setVisible(False)

    def _engine_failed(self, _error: JobError) -> None:
        """The first click loads the engine instead; the note goes, since nothing is being prepared any more."""
        self.engine_note.setVisible(False)

    def _engine_progress(self, value: CompileProgress) -> None:
        """The first start's compile of the engine, said in the status bar while it lasts."""
        self.engine_note.setText(value.words())
        self.engine_note.setVisible(value.done < value.total)

    def fit_docks(self) -> None:
        """Give the panel column about a quarter of the window, within DOCK_WIDTH; the board takes the rest."""
        low, high = DOCK_WIDTH
        width = max(low, min(high, self.width() // 4))
        self.resizeDocks([self.validation_dock], [width], Qt.Orientation.Horizontal)

    # -- construction ------------------------------------------------------------------
    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock-{title.lower()}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _action(self, text: str, slot: object, shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
                icon: str | None = None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if icon:
            action.setIcon(load_icon(icon, self.theme == "dark"))
            action.setData(icon)
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        _tooltip_with_keys(action, tip)
        return action

    def _build_actions(self) -> None:
        key = QKeySequence.StandardKey
        self.new_action = self._action("&New…", lambda: self.new_board(None), key.New, "new")
        self.open_action = self._action("&Open…", lambda: self.open_file(None), key.Open, "open")
        self.save_action = self._action("&Save", self.save, key.Save, "save")
        self.save_as_action = self._action("Save &As…", lambda: self.save_as(None), key.SaveAs)
        self.quit_action = self._action("&Quit", self.close, key.Quit)
        self.export_board_action = self._action("Board file (copy)…", lambda: self.export_board_copy(None))
        self.export_png_action = self._action("Picture (PNG)…", lambda: self.export_picture("png"), icon="export")
        self.export_svg_action = self._action("Picture (SVG)…", lambda: self.export_picture("svg"))
        self.export_text_action = self._action("Text grid for chat…", self.export_text)
        self.export_seal_action = self._action("Sealed file for a season…", self.export_sealed)
        self.export_card_action = self._action("Board card…", lambda: CardDialog(
            self.document.snapshot(), self.document.path, self).open())

        self.undo_action = self.document.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcuts(QKeySequence.keyBindings(key.Undo))
        self.undo_action.setIcon(load_icon("undo", self.theme == "dark"))
        self.undo_action.setData("undo")
        self.redo_action = self.document.undo_stack.createRedoAction(self, "&Redo")
        redo_keys = QKeySequence.keyBindings(key.Redo)
        for extra in ("Ctrl+Shift+Z", "Ctrl+Y"):
            if QKeySequence(extra) not in redo_keys:
                redo_keys.append(QKeySequence(extra))
        self.redo_action.setShortcuts(redo_keys)
        self.redo_action.setIcon(load_icon("redo", self.theme == "dark"))
        self.redo_action.setData("redo")
        self._refresh_stack_tips()
        self.document.undo_stack.undoTextChanged.connect(self._refresh_stack_tips)
        self.document.undo_stack.redoTextChanged.connect(self._refresh_stack_tips)

        self.brush_group = QActionGroup(self)
        self.brush_actions: dict[Symbol, QAction] = {}
        for symbol, text, keys, icon in ((Symbol.O, "Brush &O", ("1", "O"), "brush-o"),
                                         (Symbol.X, "Brush &X", ("2", "X"), "brush-x"),
                                         (Symbol.EMPTY, "&Eraser", ("0", "E"), "erase")):
            act = self._action(text, lambda _=False, s=symbol: self.set_brush(s), None, icon,
                               "Paint with the mouse; from the keyboard, Space or Enter paints the cell under "
                               "the board's cursor (arrow keys move it)")
            act.setShortcuts([QKeySequence(k) for k in keys])
            _tooltip_with_keys(act)
            act.setCheckable(True)
            self.brush_group.addAction(act)
            self.brush_actions[symbol] = act
        self.lock_action = self._action("&Lock brush", lambda: self.set_brush(LOCK_BRUSH), "L", "lock",
                                        "Click or drag to lock cells (each with its partner) that Improve this "
                                        "board must keep; start on a locked cell or use the right button to "
                                        "unlock. Locks are kept while the designer runs, not in the board file")
        self.lock_action.setCheckable(True)
        self.brush_group.addAction(self.lock_action)
        self.clear_locks_action = self._action("Clear loc&ks", self.document.clear_locks, None, None,
                                               "Unlock every cell (undoable)")
        self.clear_action = self._action("C&lear board", self.document.clear, None, "clear",
                                         "Remove every symbol (undoable)")
        self.random_action = self._action("&Random fill…", lambda: self.random_fill(None), "Ctrl+R", "random")
        self.transform_actions = [
            self._action("Rotate 90° clockwise", lambda: self.document.transform(Transform.ROT90), "Ctrl+]", "rotate"),
            self._action("Rotate 90° anticlockwise", lambda: self.document.transform(Transform.ROT270), "Ctrl+["),
            self._action("Mirror left-right", lambda: self.document.transform(Transform.FLIP_H), None, "mirror"),
            self._action("Mirror top-bottom", lambda: self.document.transform(Transform.FLIP_V)),
            self._action("Mirror on the diagonal", lambda: self.document.transform(Transform.TRANSPOSE)),
            self._action("Swap O and X", lambda: self.document.transform(Transform.SWAP), None, "swap"),
        ]
        self.repair_action = self._action("Repair all broken pairs", self.document.repair_all)

        self.zoom_in_action = self._action("Zoom &in", lambda: self.view.set_zoom(self.view.zoom * 1.25),
                                           key.ZoomIn, "zoom-in")
        self.zoom_in_action.setShortcuts([QKeySequence("Ctrl++"), QKeySequence("Ctrl+=")])
        _tooltip_with_keys(self.zoom_in_action)
        self.zoom_out_action = self._action("Zoom &out", lambda: self.view.set_zoom(self.view.zoom / 1.25),
                                            "Ctrl+-", "zoom-out")
        self.zoom_reset_action = self._action("&Fit to window", lambda: self.view.set_zoom(1.0), "Ctrl+0")
        self.grid_action = self._action("&Grid lines", self._toggle_view_options)
        self.grid_action.setCheckable(True)
        self.grid_action.setChecked(self.view.options.grid)
        self.coords_action = self._action("&Coordinates", self._toggle_view_options)
        self.coords_action.setCheckable(True)
        self.coords_action.setChecked(self.view.options.coordinates)
        self.openings_action: QAction = self._action(
            "&Fair openings", lambda: self.openings.refresh(), "Ctrl+Shift+F", None,
            "Each opening the last analysis tried, on the board, in the charts' colours: green solid ✓ = shown fair, "
            "orange-red hatched ✗ = shown one-sided, grey dashed ? = not settled yet, with the first mover's win "
            "rate and a legend under the board; hover or click one for its figures")
        self.theme_group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for theme in THEMES:
            act = self._action(f"{theme.capitalize()} theme", lambda _=False, t=theme: self.set_theme(t))
            act.setCheckable(True)
            act.setChecked(theme == self.theme)
            self.theme_group.addAction(act)
            self.theme_actions[theme] = act

        self.analyse_action = self._action("&Analyse balance", self._start_analysis, "Ctrl+Shift+A", "analyse",
                                           "Play test games to see whether the board is fair")
        self.playtest_action = self._action("&Play-test", self.playtest, "Ctrl+T", "playtest",
                                            "Play the board in a test window")
        self.generate_action = self._action("&Generate boards…", self.generate_boards)
        self.improve_action = self._action("&Improve this board…", self.improve_board)
        self.about_action = self._action("&About", self._about)
        self.help_action = self._action("&How to prepare a board", self.show_help, key.HelpContents, None,
                                        "Design, validate, analyse, play-test, seal and reveal: the steps in order")

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addActions([self.new_action, self.open_action])
        self.recent_menu = RecentMenu(self.recent, parent=self)
        self.recent_menu.openRequested.connect(self.open_file)
        file_menu.addMenu(self.recent_menu)
        file_menu.addSeparator()
        file_menu.addActions([self.save_action, self.save_as_action])
        export = file_menu.addMenu("&Export")
        export.addActions([self.export_board_action, self.export_png_action, self.export_svg_action,
                           self.export_text_action, self.export_seal_action, self.export_card_action])
        file_menu.addSeparator()
        self.host_action = file_menu.addAction("&Host a match…", self.host_match)
        file_menu.addMenu(RecentMatchesMenu(self.settings, self.host_match, self))
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)

        edit = bar.addMenu("&Edit")
        edit.addActions([self.undo_action, self.redo_action])
        edit.addSeparator()
        edit.addActions([*self.brush_actions.values(), self.lock_action])
        edit.addSeparator()
        edit.addActions([self.clear_action, self.clear_locks_action, self.random_action])
        transform = edit.addMenu("&Transform")
        transform.addActions(self.transform_actions)
        edit.addAction(self.repair_action)

        view = bar.addMenu("&View")
        view.addActions([self.zoom_in_action, self.zoom_out_action, self.zoom_reset_action])
        view.addSeparator()
        view.addActions([self.grid_action, self.coords_action, self.openings_action, self.estimate.toggle])
        view.addSeparator()
        view.addActions(list(self.theme_actions.values()))
        view.addSeparator()
        for dock in (self.validation_dock, self.properties_dock, self.analysis_dock):
            view.addAction(dock.toggleViewAction())

        tools = bar.addMenu("&Tools")
        tools.addActions([self.analyse_action, self.playtest_action, self.generate_action, self.improve_action])
        help_menu = bar.addMenu("&Help")
        help_menu.addActions([self.help_action, self.about_action])

    def _build_toolbar(self) -> None:
        tb = self.addToolBar("Main")
        tb.setObjectName("toolbar-main")
        tb.setIconSize(QSize(22, 22))
        tb.addActions([self.new_action, self.open_action, self.save_action])
        tb.addSeparator()
        tb.addActions([self.undo_action, self.redo_action])
        tb.addSeparator()
        tb.addActions([*self.brush_actions.values(), self.lock_action])
        tb.addSeparator()
        tb.addActions([self.clear_action, self.random_action, self.transform_actions[0], self.transform_actions[2]])
        tb.addSeparator()
        tb.addActions([self.zoom_in_action, self.zoom_out_action])
        tb.addSeparator()
        tb.addActions([self.analyse_action, self.playtest_action])

    # -- small slots -------------------------------------------------------------------
    def _refresh_stack_tips(self, *_args: object) -> None:
        """Undo/Redo tooltips name the step and the keys ("Undo Paint O from C3 (Ctrl+Z)")."""
        for action in (self.undo_action, self.redo_action):
            if shiboken6.isValid(action):  # the stack outlives the window's actions while it closes
                _tooltip_with_keys(action)

    def set_brush(self, brush: Symbol | str) -> None:
        """A symbol brush (O, X, Symbol.EMPTY for the eraser) or LOCK_BRUSH."""
        if brush == LOCK_BRUSH:
            self.view.set_lock_brush()
            self.lock_action.setChecked(True)
            self.brush_label.setText("Brush: lock")
            return
        if not isinstance(brush, Symbol):
            raise ValueError(f"unknown brush {brush!r}")
        self.view.set_brush(brush)
        self.brush_actions[brush].setChecked(True)
        self.brush_label.setText("Brush: " + ("eraser" if brush is Symbol.EMPTY else brush.value))

    def _on_brush_requested(self, brush: object) -> None:
        if isinstance(brush, Symbol) or brush == LOCK_BRUSH:
            self.set_brush(brush)  # type: ignore[arg-type]

    def _on_validation(self, verdict: str) -> None:
        self.valid_label.setText(verdict)
        self.repair_action.setEnabled(self.validation.repairable > 0)  # it mends pairs, nothing else

    def _on_hover(self, cell: object) -> None:
        self.hover_label.setText(self.view.describe(cell if isinstance(cell, int) else None))

    def _on_problem_selected(self, cells: object) -> None:
        if isinstance(cells, tuple):
            self.view.set_selected(tuple(c for c in cells if isinstance(c, int)))

    def _toggle_view_options(self) -> None:
        opts = self.view.options
        self.view.set_options(RenderOptions(grid=self.grid_action.isChecked(),
                                            coordinates=self.coords_action.isChecked(), theme=opts.theme))
        self.settings.setValue("view/grid", self.grid_action.isChecked())
        self.settings.setValue("view/coordinates", self.coords_action.isChecked())
        self._update_playtests()

    def _update_playtests(self) -> None:
        """Open play-test windows follow the designer's theme, grid and coordinates."""
        for child in self.findChildren(QMainWindow):
            set_options = getattr(child, "set_render_options", None)
            if callable(set_options):
                set_options(self.view.options)

    def set_theme(self, theme: str) -> None:
        self.theme = theme
        self.settings.setValue("theme", theme)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, theme)
        opts = self.view.options
        self.view.set_options(RenderOptions(grid=opts.grid, coordinates=opts.coordinates, theme=theme))
        for action in self.findChildren(QAction):
            name = action.data()
            if isinstance(name, str) and name:
                action.setIcon(load_icon(name, theme == "dark"))
        self.theme_actions[theme].setChecked(True)
        self.analysis.set_theme(theme)
        self._update_playtests()

    def _update_title(self) -> None:
        name = self.document.board.name or self.document.display_name
        self.setWindowTitle(f"{name} ({self.document.display_name})[*] - {APP_NAME}")
        self.setWindowModified(self.document.dirty)

    def show_help(self) -> WorkflowDialog:
        dialog = WorkflowDialog(self)
        dialog.show()
        return dialog

    def _about(self) -> None:
        QMessageBox.about(self, APP_NAME, f"{APP_NAME}: design, check, analyse, seal and play-test "
                                          "Battle of LITS boards.")

    # -- files -------------------------------------------------------------------------
    def maybe_save(self) -> bool:
        """Ask before unsaved changes are lost; False means the user cancelled."""
        if not self.document.dirty:
            return True
        answer = QMessageBox.question(
            self, "Unsaved changes",
            f"{self.document.display_name} has unsaved changes. Save them first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new_board(self, size: int | None) -> bool:
        if not self.maybe_save():
            return False
        if size is None:
            value, ok = QInputDialog.getInt(self, "New board", f"Board size (even, {MIN_SIZE}-{MAX_SIZE})",
                                            DEFAULT_SIZE, MIN_SIZE, MAX_SIZE, 2)
            if not ok:
                return False
            size = value
        if size % 2:
            QMessageBox.warning(self, "New board", f"{size} is odd; a board needs an even size.")
            return False
        self.document.new_board(size)
        return True

    def open_file(self, path: str | None) -> bool:
        if not self.maybe_save():
            return False
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Open board", self._last_dir(),
                                                  f"Board files (*.yaml *.yml);;Sealed boards (*{SEALED_SUFFIX})")
            if not path:
                return False
        return self.load_path(path)

    def load_path(self, path: str, quiet: bool = False) -> bool:
        """Open without asking about unsaved changes; a bad file is explained, never a traceback."""
        if path.lower().endswith(SEALED_SUFFIX):
            return self._open_sealed(path, quiet)
        try:
            self.document.open(path)
        except BoardFileError as exc:
            there = os.path.isfile(path)  # a file with a mistake stays listed, to open again once it is mended
            if not quiet:
                listed = there and os.path.abspath(path) in self.recent.paths()
                advice = "\n\nMend it in a text editor and open it again (File ▸ Open Recent keeps it)." if listed \
                    else ""
                QMessageBox.warning(self, "Cannot open board", "\n".join(f"• {d}" for d in exc.details[:20]) +
                                    f"\n\n({exc.path}){advice}")
            if not there:
                self.recent.remove(path)
            return False
        self.recent.add(os.path.abspath(path))
        errors = count_errors(self.validation.problems)
        if errors:
            self.validation_dock.raise_()
            self.statusBar().showMessage(f"{errors}: see the Validation panel", 8000)
        return True

    def _open_sealed(self, path: str, quiet: bool) -> bool:
        """A revealed sealed file opens as an untitled copy (:mod:`designer.document.sealed`)."""
        opened = read_sealed_board(path)
        if opened.board is None:
            if not quiet:
                QMessageBox.warning(self, "Cannot open sealed board", opened.problem)
            if opened.unreadable:
                self.recent.remove(path)
            return False
        self.document.replace_board(opened.board, None)
        self.sealed_origin = (os.path.abspath(path), list(opened.board.cells))
        self.recent.add(os.path.abspath(path))
        self.statusBar().showMessage(f"Opened the sealed board {os.path.basename(path)} (SHA-256 "
                                     f"{opened.digest[:16]}…) as an untitled copy; the sealed file is never "
                                     "written.", 10000)
        return True

    def save(self) -> bool:
        if not self.document.path:
            return self.save_as(None)
        if self.document.changed_on_disk():
            answer = QMessageBox.question(
                self, "File changed on disk",
                f"{self.document.path} was changed by another program after it was opened or saved here. Saving "
                "replaces those changes with the board shown here.\n\nReplace it? (No keeps the file as it is; "
                "Save As writes the board to another file.)",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
            if answer != QMessageBox.StandardButton.Yes:
                return False
        return self._write(self.document.path)

    def save_as(self, path: str | None) -> bool:
        if path is None:
            start = self.document.path or os.path.join(self._last_dir(), slug(self.document.board.name) + ".yaml")
            path = self._ask_save_path("Save board", start, "Board files (*.yaml *.yml)", (".yaml", ".yml"))
            if not path:
                return False
        return self._write(path)

    def _ask_save_path(self, title: str, start: str, file_filter: str, suffixes: tuple[str, ...]) -> str:
        """A save path from the dialog, with ``suffixes[0]`` added when the name has none of them.

        The dialog only confirmed overwriting the name as typed, so adding a suffix asks again
        when that file exists.  Empty string: cancelled or the user declined to replace.
        """
        path, _ = QFileDialog.getSaveFileName(self, title, start, file_filter)
        if not path or path.lower().endswith(suffixes):
            return path
        full = path + suffixes[0]
        if os.path.exists(full):
            answer = QMessageBox.question(self, "Replace file?", f"{full} already exists. Replace it?",
                                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                          QMessageBox.StandardButton.No)
            if answer != QMessageBox.StandardButton.Yes:
                return ""
        return full

    def _write(self, path: str) -> bool:
        try:
            written = self.document.save(path)
        except OSError as exc:
            QMessageBox.warning(self, "Not saved", write_failure(path, exc))
            return False
        self.recent.add(written)
        self.statusBar().showMessage(f"Saved {written}", 4000)
        return True

    def _last_dir(self) -> str:
        if self.document.path:
            return os.path.dirname(self.document.path)
        return self.recent.last_dir()

    # -- export, analysis, play-test ----------------------------------------------------
    def export_picture(self, kind: str, path: str | None = None, options: RenderOptions | None = None,
                       px: int | None = None) -> bool:
        board = self.document.snapshot()
        if options is None or px is None:
            dialog = PictureDialog(self.view.options, 800, self)
            if dialog.exec() != PictureDialog.DialogCode.Accepted:
                return False
            options, px = dialog.options(board), dialog.px.value()
        if path is None:
            start = os.path.join(self._last_dir(), f"{slug(board.name)}.{kind}")
            path = self._ask_save_path(f"Export {kind.upper()}", start, f"{kind.upper()} (*.{kind})", (f".{kind}",))
            if not path:
                return False
        try:
            export_picture(board, path, options, px)
        except OSError as exc:
            QMessageBox.warning(self, "Export failed", write_failure(path, exc))
            return False
        except ValueError as exc:
            QMessageBox.warning(self, "Export failed", str(exc) if str(exc).startswith(path) else f"{path}: {exc}")
            return False
        self.statusBar().showMessage(f"Exported {path}", 4000)
        return True

    def export_board_copy(self, path: str | None) -> bool:
        """Write the board file elsewhere without making it this window's file (e.g. to send to a co-host)."""
        if path is None:
            start = os.path.join(self._last_dir(), slug(self.document.board.name) + "-copy.yaml")
            path = self._ask_save_path("Export board file", start, "Board files (*.yaml *.yml)", (".yaml", ".yml"))
            if not path:
                return False
        try:
            save_board(self.document.snapshot(), path)
        except OSError as exc:
            QMessageBox.warning(self, "Export failed", write_failure(path, exc))
            return False
        self.statusBar().showMessage(f"Exported {path}", 4000)
        return True

    def export_text(self) -> None:
        TextGridDialog(self.document.snapshot(), self).exec()

    def export_sealed(self) -> SealDialog | None:
        """Seal the board as shown here; unsaved edits are offered a save first, and the dialog says which."""
        if self.document.dirty:
            answer = QMessageBox.question(
                self, "Seal the board as shown?",
                f"{self.document.display_name} has changes that are not saved. Sealing commits to the board "
                "exactly as shown here.\n\nSave it first? (No seals the shown board and leaves the file as it is.)",
                QMessageBox.StandardButton.Save | QMessageBox.StandardButton.No | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Save)
            if answer == QMessageBox.StandardButton.Cancel:
                return None
            if answer == QMessageBox.StandardButton.Save and not self.save():
                return None
        dialog = SealDialog(self.document.snapshot(), self.document.path, self, saved=not self.document.dirty,
                            name=self.document.board.name or self.document.display_name)
        dialog.open()
        return dialog

    def random_fill(self, pairs: int | None) -> bool:
        """Fill the unlocked cells with random pairs (locked cells keep their symbols)."""
        half = self.document.free_pairs()
        if pairs is None:
            default = min(half, round(self.document.board.cell_count * 0.28 / 2))
            kept = ", locked cells kept" if self.document.locks else ""
            value, ok = QInputDialog.getInt(self, "Random fill", f"Symbol pairs (0-{half}{kept})", default, 0, half)
            if not ok:
                return False
            pairs = value
        try:
            return self.document.random_fill(pairs)
        except ValueError as exc:
            QMessageBox.warning(self, "Random fill", str(exc))
            return False

    def _start_analysis(self) -> None:
        self.analysis_dock.show()
        self.analysis_dock.raise_()
        self.analysis.start()

    def generate_boards(self) -> QWidget:
        """Tools > Generate boards…: a result opens as a new untitled board (after asking about unsaved changes)."""
        from designer.dialogs.generate import GenerateDialog

        dialog = GenerateDialog(self, params_from=self.document.snapshot())
        dialog.openBoard.connect(self._open_generated)
        dialog.show()
        return dialog

    def _open_generated(self, board: object) -> None:
        """A generated board is in no file yet: unsaved (autosaved, asked about on close) like any new work."""
        if isinstance(board, Board) and self.maybe_save():
            self.document.replace_board(board, None)
            self.document.mark_unsaved()

    def improve_board(self) -> QWidget:
        """Tools > Improve this board: proposals for this document, applied as one undo step each."""
        from designer.dialogs.improve import ImproveDialog

        dialog = ImproveDialog(self.document, parent=self)
        dialog.show()
        return dialog

    def playtest(self) -> QWidget:
        """Open a play-test window on a copy of the board (later edits here do not reach it); while the engine
        is still loading, a small window that says so opens at once and becomes the play-test."""
        from designer.playtest.launcher import open_playtest

        return open_playtest(self.document.snapshot(), self, self.view.options)

    def host_match(self, folder: str = "") -> QWidget | None:
        """File > Host a match: run a live match on this board (or resume one from its folder's journal)."""
        from designer.host.window import open_host_window

        board = self.document.snapshot()
        origin = self.sealed_origin  # a sealed board opened and not edited since: propose its file
        sealed = origin[0] if origin is not None and origin[1] == list(board.cells) else ""
        return open_host_window(self, board, self.view.options, sealed, folder)

    # -- recovery ----------------------------------------------------------------------
    def offer_recovery(self) -> bool:
        """Offer autosaved work left by a session that crashed or was killed; True when one was recovered."""
        recovered = False
        found = find_recoveries(self.autosaver.folder)
        waiting = 0
        for index, recovery in enumerate(found):
            if recovered:
                break  # one board per window; the others are offered at the next start
            answer = QMessageBox.question(self, "Recover unsaved work?", recovered_text(recovery),
                                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
                                          | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Yes)
            if answer == QMessageBox.StandardButton.Cancel:
                waiting += 1
                continue  # kept for the next start
            if answer == QMessageBox.StandardButton.Yes:
                try:
                    board = recovery.load()
                except BoardFileError as exc:
                    kept = recovery.set_aside()
                    QMessageBox.warning(self, "Cannot recover", damaged_text(recovery, exc.details, kept))
                    continue
                self.document.replace_board(board, recovery.reopen_as())
                self.document.restore_locks(recovery.lock_cells(board.size))
                self.document.mark_unsaved()
                self.autosaver.adopt(recovery)  # on disk at once, as this session's autosave
                self.statusBar().showMessage(recovered_status(recovery, waiting + len(found) - index - 1), 10000)
                recovered = True
            recovery.discard()
        return recovered

    # -- closing -----------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self.autosaver.remove()  # a clean quit: nothing to recover next time
        self.analysis.shutdown()
        self.estimate.shutdown()
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.sync()
        event.accept()


def _tooltip_with_keys(action: QAction, _tip: str = "") -> None:
    """A toolbar tooltip that names the shortcut: "Undo Paint O from C3 (Ctrl+Z)", then the status tip."""
    text = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…")
    keys = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts())
    label = f"{text} ({keys})" if keys else text
    if action.statusTip():
        label += f"\n{action.statusTip()}"
    if action.toolTip() != label:  # setToolTip emits changed(), which calls this again
        action.setToolTip(label)


def slug(name: str) -> str:
    """A file name from a board name."""
    clean = "".join(ch.lower() if ch.isalnum() else "-" for ch in name).strip("-")
    while "--" in clean:
        clean = clean.replace("--", "-")
    return clean or "board"


def _bool(value: object) -> bool:
    """QSettings returns 'true'/'false' strings from INI files."""
    if isinstance(value, str):
        return value.lower() in ("1", "true", "yes")
    return bool(value)
