"""The play-test canvas and the agent runner, without the rules engine."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from core.board.geometry import parse_cell
from core.board.model import Board
from designer.playtest.canvas import PlayCanvas


def cells(text: str, size: int = 6) -> tuple[int, ...]:
    return tuple(sorted(parse_cell(t, size) for t in text.split()))


@pytest.fixture
def canvas(qtbot):  # type: ignore[no-untyped-def]
    widget = PlayCanvas(Board(size=6))
    qtbot.addWidget(widget)
    widget.resize(400, 400)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def centre(widget: PlayCanvas, name: str) -> QPoint:
    return widget.cell_centre(parse_cell(name, widget.board.size)).toPoint()


def hover(widget: PlayCanvas, name: str) -> None:
    """Move the mouse onto a cell; a move to where the cursor already is sends no event, so go via a corner."""
    QTest.mouseMove(widget, QPoint(1, 1))
    QTest.mouseMove(widget, centre(widget, name))


def test_click_places_the_previewed_legal_placement(canvas, qtbot) -> None:  # type: ignore[no-untyped-def]
    a, b = cells("A1 B1 C1 D1"), cells("A1 A2 A3 A4")
    canvas.set_legal([a, b], interactive=True)
    hover(canvas, "A1")
    assert canvas.choice_count == 2
    first = canvas.preview
    assert first in (a, b)
    with qtbot.waitSignal(canvas.placement_clicked) as blocker:
        QTest.mouseClick(canvas, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre(canvas, "A1"))
    assert blocker.args == [first]


def test_keys_wheel_and_right_click_cycle_the_candidates(canvas) -> None:  # type: ignore[no-untyped-def]
    options = [cells("A1 B1 C1 D1"), cells("A1 A2 A3 A4"), cells("A1 B1 C1 B2")]
    canvas.set_legal(options, interactive=True)
    hover(canvas, "A1")
    seen = [canvas.preview]
    for _ in range(2):
        QTest.keyClick(canvas, Qt.Key.Key_R)
        seen.append(canvas.preview)
    assert sorted(seen) == sorted(options)
    QTest.keyClick(canvas, Qt.Key.Key_Space)
    assert canvas.preview == seen[0]
    QTest.mouseClick(canvas, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, centre(canvas, "A1"))
    assert canvas.preview == seen[2]
    canvas.cycle(1)
    assert canvas.preview == seen[0]
    wheel(canvas, "A1", -120)
    assert canvas.preview == seen[1]
    wheel(canvas, "A1", 120)
    assert canvas.preview == seen[0]


def wheel(widget: PlayCanvas, name: str, delta: int) -> None:
    pos = QPointF(centre(widget, name))
    event = QWheelEvent(pos, QPointF(widget.mapToGlobal(pos.toPoint())), QPoint(), QPoint(0, delta),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def test_preview_falls_back_to_a_neighbouring_cell(canvas) -> None:  # type: ignore[no-untyped-def]
    only = cells("A1 B1 C1 D1")
    canvas.set_legal([only], interactive=True)
    hover(canvas, "B2")
    assert canvas.preview == only
    hover(canvas, "F6")
    assert canvas.preview == ()


def test_no_preview_and_no_click_when_not_interactive(canvas, qtbot) -> None:  # type: ignore[no-untyped-def]
    canvas.set_legal([cells("A1 B1 C1 D1")], interactive=False)
    hover(canvas, "A1")
    assert canvas.preview == ()
    with qtbot.assertNotEmitted(canvas.placement_clicked):
        QTest.mouseClick(canvas, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre(canvas, "A1"))


def test_cell_centres_hit_their_own_cells(canvas) -> None:  # type: ignore[no-untyped-def]
    canvas.grab()  # paint once so the geometry is the painted one
    geo = canvas.board_geometry()
    for cell in range(36):
        assert geo.cell_at(QPointF(canvas.cell_centre(cell))) == cell
