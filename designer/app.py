"""``lits-designer [BOARD]``: start the designer window.

Resources are looked up in the installed package first (``designer/resources``,
put there by the wheel build) and then in the source checkout, so the same code
runs installed and from git; boards come from ``core.board.boardfile.bundled_boards_dir``.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parent
ORGANIZATION = "LITS Board Studio"
APPLICATION = "lits-designer"


CHECK_OUTLINE_CONTRAST = 3.3
"""Contrast ratio of a check box's or radio button's outline against the window behind it and its own fill: WCAG
2.1 asks at least 3:1 for what identifies a control (1.4.11); a little above it survives antialiasing."""


def find_dir(name: str) -> Path | None:
    """``designer/<name>`` when installed, else the repository's ``<name>/``."""
    for candidate in (PACKAGE_DIR / name, REPO_DIR / name):
        if candidate.is_dir():
            return candidate
    return None


def default_board_path() -> Path | None:
    from core.board.boardfile import default_board_path as bundled_default

    return bundled_default()


def register_search_paths() -> None:
    """Make ``icons:NAME.svg`` and ``resources:...`` resolve wherever the package lives."""
    from PySide6.QtCore import QDir

    resources = find_dir("resources")
    if resources is None:
        return
    QDir.addSearchPath("resources", str(resources))
    icons = resources / "icons"
    if icons.is_dir():
        QDir.addSearchPath("icons", str(icons))


def relative_luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG 2.1 relative luminance of an sRGB colour with channels 0..1."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast_ratio(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    """WCAG 2.1 contrast ratio, 1 (same) to 21 (black on white)."""
    hi, lo = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def outline_towards(ink: tuple[float, float, float], backgrounds: Sequence[tuple[float, float, float]],
                    target: float = CHECK_OUTLINE_CONTRAST) -> tuple[float, float, float]:
    """The colour nearest the first background, on the way to ``ink``, that reaches ``target`` against every
    background (``ink`` itself when nothing nearer does): an outline as quiet as the contrast rule allows."""
    base = backgrounds[0]
    for step in range(1, 21):
        t = step / 20
        colour = tuple(b + (i - b) * t for b, i in zip(base, ink, strict=True))
        if all(contrast_ratio(colour, bg) >= target for bg in backgrounds):  # type: ignore[arg-type]
            return colour  # type: ignore[return-value]
    return ink


def install_indicator_style(app: object) -> None:
    """Keep check box and radio button outlines visible in every theme (see :func:`_indicator_style`).

    The theme code sets a plain Fusion style and then the palette; this hook wraps whatever style is current
    each time the application's palette changes, so the outline follows every theme switch."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication

    assert isinstance(app, QApplication)
    if app.findChild(QObject, "indicator-style-keeper") is not None:
        return
    style_type = _indicator_style()

    class Keeper(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if watched is app and event.type() == QEvent.Type.ApplicationPaletteChange:
                wrap()
            return False

    def wrap() -> None:
        current = app.style()
        if not isinstance(current, style_type):
            app.setStyle(style_type(current.name()))

    keeper = Keeper(app)
    keeper.setObjectName("indicator-style-keeper")
    app.installEventFilter(keeper)
    wrap()


def _indicator_style() -> type:
    """A proxy style that draws check box and radio button indicators with an outline of at least
    :data:`CHECK_OUTLINE_CONTRAST` against the window and the indicator's fill.

    Fusion draws that outline a shade darker than the window (1.2:1 on the dark theme, 2.2:1 on the light
    one), so an unticked box was nearly invisible on the dark theme."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QPainter, QPalette, QPen
    from PySide6.QtWidgets import QProxyStyle, QStyle, QStyleOption, QWidget

    def rgb(colour: QColor) -> tuple[float, float, float]:
        return colour.redF(), colour.greenF(), colour.blueF()

    class IndicatorStyle(QProxyStyle):
        def drawPrimitive(self, element: QStyle.PrimitiveElement, option: QStyleOption, painter: QPainter,
                          widget: QWidget | None = None) -> None:
            super().drawPrimitive(element, option, painter, widget)
            box = element == QStyle.PrimitiveElement.PE_IndicatorCheckBox
            if not box and element != QStyle.PrimitiveElement.PE_IndicatorRadioButton:
                return
            pal = option.palette  # type: ignore[attr-defined]
            ink = pal.color(QPalette.ColorRole.WindowText)
            outline = QColor.fromRgbF(*outline_towards(rgb(ink), [rgb(pal.color(QPalette.ColorRole.Window)),
                                                                   rgb(pal.color(QPalette.ColorRole.Base))]))
            if not option.state & QStyle.StateFlag.State_Enabled:  # type: ignore[attr-defined]
                outline.setAlphaF(0.5)
            painter.save()
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            rect = QRectF(option.rect).adjusted(0.5, 0.5, -0.5, -0.5)  # type: ignore[attr-defined]
            if box:
                painter.setPen(QPen(outline, 1.0))
                painter.drawRect(rect)
            else:  # a thin antialiased circle never reaches its full colour: a little wider
                painter.setPen(QPen(outline, 1.5))
                painter.drawEllipse(rect.adjusted(0.75, 0.75, -0.75, -0.75))
            painter.restore()

    return IndicatorStyle


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The command line; ``--version`` and a wrong argument end here (SystemExit 0 or 2) before any window.

    Every argument is checked: Qt never sees this command line (the application is made from the program
    name only), so an unknown flag is a mistake to report, not one to pass on."""
    from core import __version__

    parser = argparse.ArgumentParser(prog="lits-designer", description="Design a Battle of LITS board.")
    parser.add_argument("board", nargs="?", help="board file to open (default: the default board)")
    parser.add_argument("--theme", choices=("light", "dark"), help="colour theme (remembered)")
    parser.add_argument("--version", action="version", version=f"lits-designer {__version__}")
    return parser.parse_args(list(argv))


def create_window(board_path: str | None = None, theme: str | None = None) -> object:
    """Build the main window with the given board (or the default); bad files are explained in a dialog.

    Work autosaved by a session that crashed or was killed is offered back before the window opens.
    """
    from PySide6.QtWidgets import QApplication

    from core.board.model import Board
    from designer.document.document import Document
    from designer.host.recent import offer_open_matches
    from designer.main_window import MainWindow, apply_theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    register_search_paths()
    install_indicator_style(app)
    window = MainWindow(Document(Board()))
    chosen = theme or window.theme
    apply_theme(app, chosen)
    if chosen != window.theme or theme:
        window.set_theme(chosen)
    _load_first_board(window, board_path)
    window.offer_recovery()
    offer_open_matches(window, window.settings, window.host_match)  # a Host window the studio stopped with
    return window


def _load_first_board(window: object, board_path: str | None) -> None:
    """The board named on the command line, else the bundled default as an untitled copy."""
    from PySide6.QtWidgets import QMessageBox

    from core.board.boardfile import BoardFileError, load_board
    from designer.main_window import MainWindow

    assert isinstance(window, MainWindow)
    default = default_board_path()
    from core.seal.sealcheck import SEALED_SUFFIX

    if board_path and board_path.lower().endswith(SEALED_SUFFIX):
        if window.load_path(board_path):  # a revealed sealed file opens as an untitled copy
            return
    elif board_path:
        try:
            load_board(board_path)
        except BoardFileError as exc:
            QMessageBox.warning(window, "Cannot open board",
                                "The board file could not be opened; the default board is shown instead.\n\n"
                                + "\n".join(f"• {d}" for d in exc.details[:20]) + f"\n\n({exc.path})")
        else:
            if window.load_path(board_path, quiet=True):
                return
    if default is not None:
        # Opened as untitled, so Save never overwrites the shipped default board.
        with contextlib.suppress(BoardFileError):
            window.document.replace_board(load_board(default), None)


def guard_qt() -> bool:
    """On a PySide6 build that would crash within seconds, say so with the fix instead of starting."""
    from PySide6.QtWidgets import QMessageBox

    from designer.qt_guard import check

    health = check()
    if health.ok:
        return True
    print(f"lits-designer: {health.message}", file=sys.stderr)
    QMessageBox.critical(None, "LITS Board Studio cannot start", health.message)
    return False


def main(argv: Sequence[str] | None = None) -> int | None:
    """Entry point; returns the exit code: 0 after ``--version``, 2 for a wrong argument, else Qt's."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parse_args(args_list)
    except SystemExit as exc:  # --version (0) or a wrong argument (2, usage printed): no window
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    try:
        from PySide6.QtWidgets import QApplication
    except ImportError as exc:
        print(f"lits-designer: PySide6 is needed for the designer window ({exc}); "
              "install it with: pip install PySide6-Essentials", file=sys.stderr)
        return 2
    from PySide6.QtCore import QCoreApplication

    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else APPLICATION])
    assert isinstance(app, QApplication)
    if not guard_qt():
        return 1
    window = create_window(args.board, args.theme)
    from designer.main_window import MainWindow

    assert isinstance(window, MainWindow)
    window.show()
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main())
