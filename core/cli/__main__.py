"""``python -m core.cli`` runs the same command line as ``lits``."""

from core.cli import run

run()
