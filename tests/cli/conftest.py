"""Command-line tests see ``lits render`` even where the installed package metadata predates its entry point."""

from __future__ import annotations

import pytest

import core.cli


@pytest.fixture(autouse=True)
def render_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the designer's ``lits render`` the way its entry point does, if the metadata lacks it."""
    if "render" not in core.cli.plugin_commands():
        monkeypatch.setitem(core.cli.EXTRA_COMMANDS, "render", "designer.render_cli:register")
