"""LITS Board Studio core: board model, rules engine, analysis and sealing.

Nothing in this package imports Qt, so it serves the command line, the worker
processes of an analysis and the designer alike.
"""

__version__ = "0.1.0"
