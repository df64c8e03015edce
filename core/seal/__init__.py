"""Sealing a season: the sealed-file format, SHA256SUMS, and the stand-alone verifier players run."""

SLOT_PREFIX = "dm"
"""Default slot ids are neutral, ``dm1``, ``dm2``, ...: a file name such as ``dense`` would leak into SHA256SUMS."""
PRIVATE_MAP_NAME = "PRIVATE-slots.txt"
"""The host's own note of which board is behind each slot; never listed in SHA256SUMS, never published."""
