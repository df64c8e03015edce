"""``lits render``: pictures of board files from the command line."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from core.cli import main
from tests.paths import REPO

BOARD = REPO / "boards" / "default.yaml"


def test_module_does_not_import_qt() -> None:
    code = "import sys, designer.render_cli; print('PySide6' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("px", [64, 500])
def test_png_has_requested_size(tmp_path: Path, px: int, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("PySide6")
    from PySide6.QtGui import QImage

    out = tmp_path / "board.png"
    assert main(["render", str(BOARD), "-o", str(out), "--size", str(px), "--theme", "dark"]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (px, px)
    assert f"{px}x{px} px PNG" in capsys.readouterr().out


def test_grid_and_coordinates_change_the_picture(tmp_path: Path) -> None:
    pytest.importorskip("PySide6")
    plain, full = tmp_path / "plain.png", tmp_path / "full.png"
    assert main(["render", str(BOARD), "-o", str(plain), "--no-grid", "--no-coords", "--size", "200"]) == 0
    assert main(["render", str(BOARD), "-o", str(full), "--size", "200"]) == 0
    assert plain.read_bytes() != full.read_bytes()


def test_svg_is_svg(tmp_path: Path) -> None:
    pytest.importorskip("PySide6")
    out = tmp_path / "board.svg"
    assert main(["render", str(BOARD), "-o", str(out), "--size", "320"]) == 0
    root = ET.parse(out).getroot()
    assert root.tag.endswith("svg")
    assert root.get("width") == "320"
    assert "Crossroads" in out.read_text()


def test_unknown_extension(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", str(BOARD), "-o", str(tmp_path / "board.gif")]) == 2
    err = capsys.readouterr().err
    assert "board.gif" in err and ".png or .svg" in err
    assert not (tmp_path / "board.gif").exists()


def test_bad_board_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text('grid:\n  - "OX."\n')
    assert main(["render", str(bad), "-o", str(tmp_path / "x.png")]) == 1
    err = capsys.readouterr().err
    assert "bad.yaml" in err and "Traceback" not in err
    assert main(["render", str(tmp_path / "missing.yaml"), "-o", str(tmp_path / "x.png")]) == 2
    assert "missing.yaml: no such file" in capsys.readouterr().err


def test_size_and_folder_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", str(BOARD), "-o", str(tmp_path / "x.png"), "--size", "5"]) == 2
    assert "--size 5" in capsys.readouterr().err
    assert main(["render", str(BOARD), "-o", str(tmp_path / "nope" / "x.png")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_missing_pyside_is_explained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "designer.canvas.render", None)  # import now raises ImportError
    assert main(["render", str(BOARD), "-o", str(tmp_path / "x.png")]) == 2
    assert "pip install PySide6-Essentials" in capsys.readouterr().err
