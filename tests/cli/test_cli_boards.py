"""``lits boards``: the bundled boards listed and copied where a host can edit them, never over a file unasked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.board.boardfile import bundled_boards_dir, load_board
from core.cli import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, main


def bundled_names() -> list[str]:
    folder = bundled_boards_dir()
    assert folder is not None
    return sorted(p.stem for p in folder.glob("*.yaml"))


def test_lists_every_bundled_board_with_its_size_and_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["boards"]) == EXIT_OK
    out = capsys.readouterr().out.splitlines()
    names = bundled_names()
    assert "default" in names and len(names) >= 5
    rows = [line.split() for line in out[1:-1]]
    assert [r[0] for r in rows] == names
    assert all(r[1] in ("12x12", "10x10") for r in rows)
    assert "lits boards --copy-to FOLDER" in out[-1]
    assert main(["boards", "--json"]) == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    assert [Path(b["path"]).stem for b in data["boards"]] == names
    assert all(load_board(b["path"]).size == b["size"] for b in data["boards"])


def test_copies_one_or_all_and_refuses_to_overwrite_without_force(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "mine"
    assert main(["boards", "dense.yaml", "--copy-to", str(target)]) == EXIT_OK
    assert sorted(p.name for p in target.iterdir()) == ["dense.yaml"]
    folder = bundled_boards_dir()
    assert folder is not None
    assert (target / "dense.yaml").read_bytes() == (folder / "dense.yaml").read_bytes()
    (target / "dense.yaml").write_text("my edits\n")
    capsys.readouterr()
    assert main(["boards", "--copy-to", str(target)]) == EXIT_PROBLEMS
    err = capsys.readouterr().err
    assert "dense.yaml: already exists; nothing was copied (use --force" in err
    assert sorted(p.name for p in target.iterdir()) == ["dense.yaml"]  # all or nothing
    assert (target / "dense.yaml").read_text() == "my edits\n"
    assert main(["boards", "--copy-to", str(target), "--force"]) == EXIT_OK
    assert sorted(p.stem for p in target.iterdir()) == bundled_names()
    assert (target / "dense.yaml").read_bytes() == (folder / "dense.yaml").read_bytes()


def test_an_unknown_name_lists_the_known_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["boards", "chess", "--copy-to", str(tmp_path)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "no bundled board named chess" in err and "default" in err
    assert list(tmp_path.iterdir()) == []
