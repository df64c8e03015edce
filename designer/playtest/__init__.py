"""The play-test window: draws a core.play session and forwards input to it."""
