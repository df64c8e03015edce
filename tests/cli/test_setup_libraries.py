"""The README's system libraries for Qt are the ones `.ci/run` installs, and they cover every X11 library Qt's xcb
platform plugin links (a real window on a bare Debian 12 aborted with the xcb libraries the README listed)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.paths import REPO

PACKAGE = re.compile(r"lib[a-z0-9.+-]+\d[a-z0-9.+-]*")


def readme_packages() -> set[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    lines = re.findall(r"`sudo apt-get install -y --no-install-recommends ([^`]+)`", text)
    return {word for line in lines for word in line.split() if PACKAGE.fullmatch(word)}


def ci_packages() -> set[str]:
    text = (REPO / ".ci" / "run").read_text(encoding="utf-8").replace("\\\n", " ")
    commands = re.findall(r"apt-get install -y -qq --no-install-recommends ([^>\n]+)", text)
    words = {w.strip('"') for command in commands for w in command.split()}
    return {"libglib2.0-0" if w == "$glib" else w for w in words if w.startswith(("lib", "$glib"))}


def test_ci_installs_exactly_the_readme_list() -> None:
    readme = readme_packages()
    assert {"libgl1", "libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1"} <= readme
    assert ci_packages() == readme


def test_the_list_covers_every_library_the_xcb_plugin_links() -> None:
    """Each X11 library ``libqxcb.so`` needs (``readelf``), by the Debian package that ships it (``dpkg -S``)."""
    pyside = pytest.importorskip("PySide6")
    plugin = Path(pyside.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    qpa = Path(pyside.__file__).parent / "Qt" / "lib" / "libQt6XcbQpa.so.6"
    if not (plugin.is_file() and qpa.is_file() and shutil.which("readelf") and shutil.which("dpkg")):
        pytest.skip("needs PySide6's xcb plugin, readelf and dpkg (Debian or Ubuntu)")
    needed = set()
    for lib in (plugin, qpa):
        dynamic = subprocess.run(["readelf", "-d", str(lib)], capture_output=True, text=True, check=True).stdout
        needed |= {n for n in re.findall(r"\[(lib[^\]]+)\]", dynamic) if n.startswith(("libxcb", "libX11-xcb",
                                                                                          "libxkbcommon-x11"))}
    assert "libxcb-icccm.so.4" in needed and "libxcb-keysyms.so.1" in needed
    missing = []
    for name in sorted(needed):
        found = subprocess.run(["dpkg", "-S", f"*/{name}"], capture_output=True, text=True, check=False).stdout
        packages = {line.split(":")[0] for line in found.splitlines() if line}
        if not packages:
            pytest.skip(f"{name} is not installed here, so its package cannot be named")
        # libxcb1, libxcb-render0, libxcb-shm0 and libxcb-util1 come with the listed packages as their dependencies
        if not packages & readme_packages() and name not in ("libxcb.so.1", "libxcb-render.so.0", "libxcb-shm.so.0",
                                                              "libxcb-util.so.1"):
            missing.append(f"{name} ({', '.join(sorted(packages))})")
    assert not missing, missing
