"""Named strength levels (``casual``, ``club``, ``expert``), looked up at run time in ``core.agents.levels``.

That module arrives with the stronger agents; until then only agent specs are levels.  Nothing here imports the
engine, so the designer can list the names without loading numba on the GUI thread.  The lookup accepts the
shapes such a module is likely to have: a mapping ``LEVELS`` (or ``NAMED_LEVELS``) from name to an agent spec or
to an object with an ``agent``/``spec``/``text`` attribute, or a function ``parse_level``/``resolve_level``/
``level_agent``/``agent_for_level``/``level_spec``/``get_level``.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from typing import Any

LEVELS_MODULE = "core.agents.levels"
_TABLES = ("LEVELS", "NAMED_LEVELS", "levels")
_FUNCTIONS = ("parse_level", "resolve_level", "level_agent", "agent_for_level", "level_spec", "get_level")


def levels_module() -> Any | None:
    """The levels module when this installation has it, else None."""
    try:
        if importlib.util.find_spec(LEVELS_MODULE) is None:
            return None
    except ModuleNotFoundError:
        return None
    return importlib.import_module(LEVELS_MODULE)


def level_names() -> list[str]:
    """Named levels available here (empty until ``core.agents.levels`` exists)."""
    mod = levels_module()
    if mod is None:
        return []
    for attr in _TABLES:
        table = getattr(mod, attr, None)
        if isinstance(table, Mapping):
            return [str(k) for k in table]
    names = getattr(mod, "LEVEL_NAMES", None)
    return [str(n) for n in names] if isinstance(names, list | tuple) else []


def _spec_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    for attr in ("agent", "spec", "text"):
        inner = getattr(value, attr, None)
        if inner is not None:
            return _spec_text(inner)
    return None


def named_level_spec(name: str) -> str | None:
    """The agent spec text a named level stands for, or None when there is no such level."""
    mod = levels_module()
    if mod is None:
        return None
    for attr in _TABLES:
        table = getattr(mod, attr, None)
        if isinstance(table, Mapping) and name in table:
            return _spec_text(table[name])
    for fn_name in _FUNCTIONS:
        fn = getattr(mod, fn_name, None)
        if callable(fn):
            try:
                return _spec_text(fn(name))
            except (KeyError, ValueError):
                return None
    return None
