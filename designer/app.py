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


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="lits-designer", description="Design a Battle of LITS board.")
    parser.add_argument("board", nargs="?", help="board file to open (default: the default board)")
    parser.add_argument("--theme", choices=("light", "dark"), help="colour theme (remembered)")
    args, _qt_args = parser.parse_known_args(list(argv))
    return args


def create_window(board_path: str | None = None, theme: str | None = None) -> object:
    """Build the main window with the given board (or the default); bad files are explained in a dialog.

    Work autosaved by a session that crashed or was killed is offered back before the window opens.
    """
    from PySide6.QtWidgets import QApplication

    from core.board.model import Board
    from designer.document.document import Document
    from designer.main_window import MainWindow, apply_theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    register_search_paths()
    window = MainWindow(Document(Board()))
    chosen = theme or window.theme
    apply_theme(app, chosen)
    if chosen != window.theme or theme:
        window.set_theme(chosen)
    _load_first_board(window, board_path)
    window.offer_recovery()
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
    """Entry point; returns the Qt exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(args_list)
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
