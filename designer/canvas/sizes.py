"""Picture size limits shared by the painter, the export dialog and ``lits render`` (no Qt: the command line
reads them before it loads the painter)."""

MIN_PICTURE_PX = 16
MAX_PICTURE_PX = 10000
