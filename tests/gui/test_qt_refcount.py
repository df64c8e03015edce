"""Regression for PySide6 6.12.0 on Python 3.11: void Qt calls must not eat references to ``None``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from designer import qt_guard

SOAK = Path(__file__).with_name("qt_soak.py")
REPO = Path(__file__).resolve().parents[2]


def test_long_session_keeps_none_alive() -> None:
    """Thousands of void calls and board repaints in one process: it survives and None keeps its references."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, str(SOAK), "--updates", "20000", "--hovers", "300"],
                          capture_output=True, text=True, env=env, timeout=300, cwd=REPO)
    assert proc.returncode == 0, f"the Qt session died (exit {proc.returncode}): {proc.stderr[-2000:]}"
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["hovers"] >= 300
    # Each leaked reference is one lost per void call; a healthy build loses none (allow a little noise).
    assert figures["start"] - figures["after_updates"] < 100, figures
    assert figures["start"] - figures["end"] < 500, figures


def test_probe_finds_no_leak_on_the_installed_build() -> None:
    from PySide6.QtWidgets import QApplication

    _ = QApplication.instance() or QApplication([])
    assert qt_guard.probe_none_leak() < qt_guard.PROBE_CALLS // 2
    assert qt_guard.check().ok


def test_known_bad_combination_is_named_with_the_fix() -> None:
    assert qt_guard.known_bad("6.12.0", (3, 11))
    assert not qt_guard.known_bad("6.12.0", (3, 12)), "None is immortal from 3.12 on"
    assert not qt_guard.known_bad("6.11.3", (3, 11))
    assert qt_guard.parse_version("6.12.0a1") == (6, 12, 0)
    text = qt_guard.message_for("6.12.0")
    assert "6.12.0" in text and "pip install" in text and "\n" not in text


def test_designer_refuses_to_start_on_a_bad_build(monkeypatch: pytest.MonkeyPatch, dialogs: object) -> None:
    from designer import app

    monkeypatch.setattr(qt_guard, "check", lambda: qt_guard.QtHealth(False, qt_guard.message_for("6.12.0")))
    assert app.guard_qt() is False
    kinds = [(kind, text) for kind, _title, text in dialogs.calls]  # type: ignore[attr-defined]
    assert kinds and kinds[0][0] == "critical" and "pip install" in kinds[0][1]
