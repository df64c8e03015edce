"""Match day in the studio: the Host window over ``core.match``."""
