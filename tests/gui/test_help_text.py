"""Help ▸ How to prepare a board names menu paths and shortcuts; each one must exist in the window as written."""

from __future__ import annotations

import re

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot

from designer.dialogs.help import workflow_html
from tests.gui.windows import open_window

PATH = re.compile(r"(File|Edit|View|Tools|Help)((?: ▸ [A-Z][\w ]*?[\w.]+?)+)(?= \(|[.,;:]| give| opens| plays| draws| "
                  r"writes|$)")


def menu_paths(menu: QMenu, prefix: str) -> dict[str, QAction]:
    out: dict[str, QAction] = {}
    for action in menu.actions():
        text = action.text().replace("&", "").rstrip(".…").strip()
        path = f"{prefix} ▸ {text}"
        if action.menu() is not None:
            out.update(menu_paths(action.menu(), path))  # type: ignore[arg-type]
        else:
            out[path] = action
    return out


def test_every_menu_path_and_shortcut_in_the_help_exists(qtbot: QtBot) -> None:
    win = open_window(qtbot)
    actions: dict[str, QAction] = {}
    for top in win.menuBar().actions():
        if top.menu() is not None:
            actions.update(menu_paths(top.menu(), top.text().replace("&", "")))  # type: ignore[arg-type]
    text = re.sub(r"<[^>]+>", "", workflow_html())
    named = [m.group(1) + m.group(2) for m in PATH.finditer(text)]
    assert len(named) >= 6, named
    for path in named:
        assert path in actions, f"the help names {path!r}, which is not in the menus: {sorted(actions)}"
    for path, shortcut in re.findall(r"((?:File|Edit|View|Tools)(?: ▸ [^()]+?)) \((Ctrl\+[\w+]+)\)", text):
        assert actions[path.strip()].shortcut().toString() == shortcut, path


def test_the_help_takes_the_host_to_the_match_in_the_designer() -> None:
    """The last step is done in the designer (File ▸ Host a match checks the reveal), not on the command line; and
    the help claims no fairness the analysis may contradict."""
    text = re.sub(r"<[^>]+>", "", workflow_html())
    assert "File ▸ Host a match" in text
    assert "lits " not in text and "reveal-bundle" not in text
    assert "fair by construction" not in text
