#!/bin/sh
# Writes the saved analysis reports the tests load (see README.md here); run from the repository root.
set -e
out=tests/data/reports
lits() { python -m core.cli "$@"; }
lits analyze boards/default.yaml --agent greedy --workers 2 --json > $out/default-balanced.json
lits analyze boards/dense.yaml --agent greedy --check mcts:100 --workers 2 --json > $out/dense-checked.json
lits analyze boards/sparse.yaml --agent greedy --agent mcts:40 --check mcts:200 --games 60 --workers 2 \
    --json > $out/sparse-refined.json
lits analyze boards/dense.yaml --quick --workers 2 --json > $out/dense-quick.json
lits analyze $out/tiny-short.yaml --agent greedy --games 60 --workers 1 --json > $out/tiny-lopsided.json
lits analyze $out/tiny-1.yaml --agent greedy --games 60 --workers 1 --json > $out/tiny-inconclusive.json
