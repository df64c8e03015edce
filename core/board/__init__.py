"""Board model, geometry, validation and board files: plain Python, the layer everything else stands on."""
