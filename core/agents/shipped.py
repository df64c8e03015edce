"""Where the learned files that ship with the program are: ``resources/models`` in a checkout, installed as
``designer/resources/models`` (pyproject's force-include), so both places are looked in."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
MODELS = ROOT / "resources" / "models"


def shipped_path(name: str) -> Path:
    """The shipped file ``name``: the checkout's when it is there, else the installed package's."""
    here = MODELS / name
    return here if here.exists() else ROOT / "designer" / "resources" / "models" / name
