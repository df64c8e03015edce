"""Dialogs for exports: pictures, text grids and sealed files."""
