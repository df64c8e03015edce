"""Rules engine: placement tables, compiled kernels, the Python game state, notation and game records."""
