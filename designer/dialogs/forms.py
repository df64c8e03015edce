"""Dialogs that are a form: labelled fields, then OK and Cancel (the export's picture options, the host's setup)."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QWidget


def ok_cancel_form(dialog: QDialog, rows: Iterable[tuple[str, QWidget]]) -> QFormLayout:
    """Lay ``dialog`` out as ``rows`` (a label, "" for none, and its field) above OK, which accepts the dialog,
    and Cancel, which rejects it."""
    form = QFormLayout(dialog)
    for label, field in rows:
        form.addRow(label, field)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    form.addRow(buttons)
    return form
