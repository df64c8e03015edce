"""The race is broken along its sections: no closure holds its state, and no step of it is a long function.
(Its games and figures are unchanged: tests/analysis/test_race.py and test_reproducible.py replay them.)"""

from __future__ import annotations

import ast

from tests.paths import REPO

RUN = REPO / "core" / "analysis" / "run.py"


def functions() -> dict[str, ast.FunctionDef]:
    tree = ast.parse(RUN.read_text(encoding="utf-8"))
    out: dict[str, ast.FunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = node
        if isinstance(node, ast.ClassDef):
            out |= {f"{node.name}.{f.name}": f for f in node.body if isinstance(f, ast.FunctionDef)}
    return out


def test_the_race_has_no_closures_and_no_long_step() -> None:
    found = functions()
    race = {name: f for name, f in found.items() if name == "_race" or name.startswith("_Race.")}
    assert len(race) >= 6, sorted(race)  # its sections: start, choose, carry on, play, finish, run
    for name, f in race.items():
        nested = [n.name for n in ast.walk(f) if isinstance(n, ast.FunctionDef) and n is not f]
        assert not nested, (name, nested)
        assert f.end_lineno is not None and f.end_lineno - f.lineno < 40, name
