"""Match day: adjudicate a live death match from its journal, without Qt.

A match lives in a folder: ``journal.jsonl`` (every event, append-only, hash-chained), ``journal.check`` (the
last line's number and hash, so a truncated journal is noticed), ``board.yaml``, ``record.txt`` (the play-test
record format) and ``posts/``.  Every command rebuilds the match from the journal and re-judges each line, so
the journal alone is the match.
"""
