"""Self-play: game tasks, the worker entry points and the runner that spreads games over processes."""
