"""Agents that choose placements: random, greedy and MCTS searches over the engine's kernels."""
