"""LITS Board Studio desktop app (PySide6); all Qt code of the project lives here."""
