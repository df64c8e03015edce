"""The form dialogs (the picture export's options, the Host window's setup): labelled fields, then OK and Cancel."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel

from designer.canvas.render import RenderOptions
from designer.dialogs.export import PictureDialog
from designer.host.window import HostSetupDialog

pytestmark = pytest.mark.gui


def labels(form: QFormLayout) -> list[str]:
    out = []
    for row in range(form.rowCount()):
        item = form.itemAt(row, QFormLayout.ItemRole.LabelRole)
        widget = item.widget() if item is not None else None
        out.append(widget.text() if isinstance(widget, QLabel) else "")
    return out


def buttons(dialog: QDialog) -> QDialogButtonBox:
    box = dialog.findChild(QDialogButtonBox)
    assert box is not None
    return box


@pytest.mark.parametrize("make", [lambda: HostSetupDialog(), lambda: PictureDialog(RenderOptions())])
def test_ok_accepts_and_cancel_rejects(qtbot, make) -> None:  # type: ignore[no-untyped-def]
    for button, result in ((QDialogButtonBox.StandardButton.Ok, QDialog.DialogCode.Accepted),
                           (QDialogButtonBox.StandardButton.Cancel, QDialog.DialogCode.Rejected)):
        dialog = make()
        qtbot.addWidget(dialog)
        dialog.open()
        buttons(dialog).button(button).click()
        assert dialog.result() == result
        assert not dialog.isVisible()


def test_the_fields_keep_their_labels_and_order(qtbot) -> None:  # type: ignore[no-untyped-def]
    host = HostSetupDialog()
    qtbot.addWidget(host)
    layout = host.layout()
    assert isinstance(layout, QFormLayout)
    assert labels(layout) == ["Plays O", "Plays X", "Clocks start", "Correction window", "Sealed board",
                              "Checked against", ""]
    picture = PictureDialog(RenderOptions())
    qtbot.addWidget(picture)
    layout = picture.layout()
    assert isinstance(layout, QFormLayout)
    assert labels(layout) == ["Size", "", "", "", "Theme", ""]
    grid = layout.itemAt(1, QFormLayout.ItemRole.FieldRole)
    assert grid is not None and grid.widget() is picture.grid
