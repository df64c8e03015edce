"""The board canvas and the painter shared by the canvas, exports and ``lits render``."""
