"""The side panels hold still for a host who scrolls them: the wheel scrolls past a drop-down or number box
instead of changing it (a field clicked into still takes the wheel)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QScrollArea, QWidget
from pytestqt.qtbot import QtBot

from tests.gui.windows import open_window


def wheel(widget: QWidget, notches: int = -3) -> None:
    """Turn the wheel over the middle of ``widget`` (negative: towards the host, scrolling down)."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                        QPoint(0, 120 * notches), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def test_the_wheel_scrolls_the_panels_past_their_fields(qtbot: QtBot) -> None:
    win = open_window(qtbot, 1000, 360)  # short: the Analysis and Properties panels scroll
    fields: list[QWidget] = []
    for dock in (win.analysis_dock, win.properties_dock):
        dock.show()
        dock.raise_()
        area = dock.widget()
        assert isinstance(area, QScrollArea)
        qtbot.waitUntil(lambda area=area: area.verticalScrollBar().maximum() > 0, timeout=3000)
        boxes: list[QWidget] = [*area.findChildren(QComboBox), *area.findChildren(QAbstractSpinBox)]
        assert boxes
        for box in boxes:
            before = box.currentText() if isinstance(box, QComboBox) else box.text()
            bar = area.verticalScrollBar()
            bar.setValue(0)
            box.setEnabled(True)
            wheel(box)
            after = box.currentText() if isinstance(box, QComboBox) else box.text()
            assert after == before, f"the wheel changed {box.objectName() or type(box).__name__}"
            assert bar.value() > 0, "the wheel over a field should scroll the panel"
        fields.extend(boxes)
    # A field the host clicked into still takes the wheel.
    limit = win.analysis.time_limit
    limit.setFocus()
    qtbot.waitUntil(limit.hasFocus, timeout=2000)
    wheel(limit, 1)
    assert limit.value() == limit.singleStep()
