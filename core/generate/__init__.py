"""Board generator: search anti-symmetric layouts the analysis calls balanced, and improve a host's board."""
