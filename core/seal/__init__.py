"""Sealing a season: the sealed-file format, SHA256SUMS, and the stand-alone verifier players run."""
