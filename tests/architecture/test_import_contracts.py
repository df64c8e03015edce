"""The layers in ``pyproject.toml`` ([tool.importlinter]) hold, and a wrong import really breaks them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import REPO

pytest.importorskip("importlinter")


def copy_project(root: Path) -> None:
    """The packages and the contracts, without caches, under ``root``."""
    for name in ("core", "designer"):
        shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns("__pycache__", "*.nb*"))
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """Run the contract checker on the packages under ``root`` with the project's configuration."""
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run([sys.executable, "-c", code, str(root / "pyproject.toml"), "--no-cache"],
                          capture_output=True, text=True, cwd=root, env={"PYTHONPATH": str(root), "PATH": ""},
                          timeout=300)


def test_the_contracts_hold() -> None:
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "broken" not in result.stdout.lower().replace("0 broken", "")


@pytest.mark.parametrize(("module", "bad_import", "contract"), [
    ("core/board/model.py", "core.engine.rules", "core layers"),
    ("core/engine/pieces.py", "designer.canvas.render", "core never imports the designer"),
    ("core/seal/sealcheck.py", "numba", "sealing needs only the board layer"),
    ("designer/document/document.py", "designer.main_window", "designer layers"),
    ("designer/warmup.py", "designer.playtest.window", "designer layers"),  # the warm-up sits under the play-test
])
def test_a_wrong_import_breaks_the_build(tmp_path: Path, module: str, bad_import: str, contract: str) -> None:
    copy_project(tmp_path)
    target = tmp_path / module
    target.write_text(target.read_text() + f"\nimport {bad_import}  # planted by the test\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    report = " ".join(result.stdout.split())
    importer = module.removesuffix(".py").replace("/", ".")
    assert contract in report, report[-3000:]
    assert f"{importer} -> {bad_import}" in report, report[-3000:]


def test_no_import_circle_anywhere() -> None:
    """Not even inside one layer: no module imports (directly or through others) a module that imports it."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("core", "designer", cache_dir=None)
    circles = sorted({tuple(sorted((m, dep))) for m in graph.modules
                      for dep in graph.find_modules_directly_imported_by(m)
                      if graph.find_shortest_chain(importer=dep, imported=m)})
    assert circles == [], circles


@pytest.mark.parametrize(("module", "contract"), [
    ("designer/stray.py", "designer layers"),
    ("designer/stray/__init__.py", "designer layers"),
    ("core/stray.py", "core layers"),
])
def test_a_module_outside_its_layers_contract_breaks_the_build(tmp_path: Path, module: str, contract: str) -> None:
    """Every module of ``core`` and ``designer`` has a layer: an unlisted one escapes every layer check."""
    copy_project(tmp_path)
    target = tmp_path / module
    target.parent.mkdir(exist_ok=True)
    target.write_text('"""Planted by the test: imports nothing, belongs to no layer."""\n')
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    report = " ".join(result.stdout.split())
    stray = module.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    assert contract in report and "not listed as layers" in report, report[-3000:]
    assert f"- {stray} " in report + " ", report[-3000:]


def test_every_top_level_module_is_in_a_layer() -> None:
    """The same rule read straight from ``pyproject.toml``, so a failure names the file to edit."""
    import tomllib

    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    for package in ("core", "designer"):
        [contract] = [c for c in contracts if c["type"] == "layers" and c.get("containers") == [package]]
        listed = {name.strip() for layer in contract["layers"] for name in layer.replace(":", "|").split("|")}
        present = {p.stem for p in (REPO / package).glob("*.py") if p.stem != "__init__"}
        present |= {p.parent.name for p in (REPO / package).glob("*/__init__.py")}
        assert present - listed == set(), f"pyproject.toml: add {sorted(present - listed)} to {contract['name']!r}"
        assert contract.get("exhaustive") is True, f"pyproject.toml: {contract['name']!r} must be exhaustive"
