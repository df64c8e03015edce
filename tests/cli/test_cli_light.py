"""A light command line: commands that need no engine import neither numba, scipy, matplotlib nor Qt,
and ``lits render`` reaches the command line from the designer package, never from ``core``."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import core.cli
from core.cli import main
from tests.paths import BOARDS, REPO

HEAVY = {"numba", "scipy", "matplotlib", "PySide6", "shiboken6", "llvmlite"}


def imported_modules(*argv: str, cwd: Path = REPO) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``python -X importtime -m core.cli ARGV`` and return the result and every module it imported."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "core.cli", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    names = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    return proc, names


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("season")
    assert main(["seal", str(BOARDS / "default.yaml"), "--season", "s1", "--out", str(folder / "out")]) == 0
    return folder


def light_commands(season: Path) -> dict[str, list[str]]:
    out = season / "out"
    return {
        "help": ["--help"],
        "version": ["--version"],
        "validate": ["validate", str(BOARDS / "default.yaml")],
        "seal": ["seal", str(BOARDS / "sparse.yaml"), "--season", "s1", "--out", str(season / "other")],
        "verify": ["verify", str(out / "dm1.lits-sealed"), "--sums", str(out / "SHA256SUMS")],
        "unseal": ["unseal", str(out / "dm1.lits-sealed"), "-o", str(season / "back.yaml")],
        "reveal-bundle": ["reveal-bundle", str(out / "dm1.lits-sealed"), "--sums", str(out / "SHA256SUMS"),
                          "--out", str(season / "bundle")],
        "seal --help": ["seal", "--help"],
        "boards": ["boards"],
        "learn --help": ["learn", "--help"],
    }


@pytest.mark.parametrize("name", ["help", "version", "validate", "seal", "verify", "unseal", "reveal-bundle",
                                  "seal --help", "boards", "learn --help"])
def test_commands_without_the_engine_stay_light(season: Path, name: str) -> None:
    proc, modules = imported_modules(*light_commands(season)[name])
    assert proc.returncode == 0, proc.stdout + proc.stderr[-2000:]
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert heavy == [], f"lits {name} imported {heavy[:8]}"
    assert not any(m.startswith(("core.engine", "core.agents", "core.analysis", "designer")) for m in modules)


def test_match_commands_answer_without_the_compiled_engine(tmp_path: Path) -> None:
    """A match command judges one post while the player's clock runs: the rules in Python, no numba, no scipy,
    no drawing library (``post`` loads matplotlib only for the picture)."""
    from tests.match.script import START, write_board

    folder = tmp_path / "m"
    assert main(["match", "start", str(write_board(tmp_path)), "--o", "Al", "--x", "Bo", "--dir", str(folder),
                 "--at", START]) == 0
    for argv, code in ((["move", "a2 b2 c2 c3", "--by", "Al", "--at", "14:00:20"], 0),
                       (["swap", "--by", "Bo", "--at", "14:00:50"], 0),
                       (["move", "C1 D1 E1 F1", "--by", "Al", "--at", "14:01:20"], 0),
                       (["correct", "E1 F1 D2 E2", "--by", "Al", "--at", "14:01:30"], 0),
                       (["move", "D1 D2 D3 D4", "--by", "Bo", "--at", "14:01:40"], 1),
                       (["status", "--at", "14:01:45"], 0),
                       (["undo", "--yes", "--at", "14:01:50"], 0),
                       (["post", "--no-picture"], 0)):
        proc, modules = imported_modules("match", argv[0], str(folder), *argv[1:])
        assert proc.returncode == code, proc.stdout + proc.stderr[-2000:]
        heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
        assert heavy == [], f"lits match {argv[0]} imported {heavy[:8]}"
        assert not any(m.startswith(("core.engine.kernels", "core.agents", "core.selfplay", "designer"))
                       for m in modules), argv
        assert "pydantic" not in modules, f"lits match {argv[0]} loaded the board file schema it does not need"


def test_help_lists_every_command_without_importing_their_modules() -> None:
    proc, modules = imported_modules("--help")
    for command in core.cli.BUILTIN_COMMANDS:
        assert f"    {command.name}" in proc.stdout
    commands = {m for m in modules if m.startswith("core.cli.")} - {"core.cli.exitcodes"}  # the exit-code table
    assert not commands, "the listing must come from BUILTIN_COMMANDS"
    assert "core.board.boardfile" not in modules and "yaml" not in modules


def test_verify_does_not_even_load_board_files(season: Path) -> None:
    _, modules = imported_modules(*light_commands(season)["verify"])
    assert not {"yaml", "pydantic", "core.board.boardfile", "core.cli.validate"} & modules


def test_each_builtin_command_is_registered_by_its_module() -> None:
    """BUILTIN_COMMANDS is the one list of commands: each one's module really adds it, with its summary."""
    for command in core.cli.BUILTIN_COMMANDS:
        parser = core.cli.build_parser([command.name])
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        assert command.name in sub.choices
        helps = {c.dest: c.help for c in sub._choices_actions}
        assert helps[command.name] == command.summary


# -- lits render comes from the designer package -------------------------------------------------

def test_core_has_no_render_module() -> None:
    assert not (REPO / "core" / "cli" / "render.py").exists()
    for path in (REPO / "core").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "import designer" not in text and "from designer" not in text, path


def test_the_designer_declares_render_as_an_entry_point() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    target = project["entry-points"][core.cli.COMMAND_GROUP]["render"]
    assert target == "designer.render_cli:register"
    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers(dest="command")
    core.cli._load(target)(subparsers)
    assert "render" in subparsers.choices


def test_plugins_are_discovered_through_the_registry(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(core.cli.EXTRA_COMMANDS, "render", "designer.render_cli:register")
    assert core.cli.plugin_commands()["render"] == "designer.render_cli:register"
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    assert "render" in capsys.readouterr().out
    monkeypatch.delitem(core.cli.EXTRA_COMMANDS, "render")
    monkeypatch.setattr(core.cli, "plugin_commands", dict)  # as on a machine without the designer installed
    assert main(["render", str(BOARDS / "default.yaml"), "-o", "x.png"]) == 2
    assert "'render' is not a command" in capsys.readouterr().err


def test_a_bare_lits_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "analyze" in err and "match" in err and "seal" in err
    assert "required" not in err


def test_a_bare_command_with_actions_lists_its_actions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match"]) == 2
    err = capsys.readouterr().err
    assert "start" in err and "correct" in err and "required" not in err


def test_a_mistyped_command_names_the_nearest_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["anlyze", str(BOARDS / "default.yaml")]) == 2
    assert capsys.readouterr().err.strip() == (
        "lits: 'anlyze' is not a command; did you mean `lits analyze`? `lits --help` lists them")
    assert main(["frobnicate"]) == 2
    assert capsys.readouterr().err.strip() == "lits: 'frobnicate' is not a command; `lits --help` lists them"
    assert main(["validate", str(BOARDS / "default.yaml")]) == 0


def test_a_broken_plugin_is_listed_and_explained(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(core.cli.EXTRA_COMMANDS, "draw", "no_such_package.cli:register")
    assert main(["draw", "anything", "--flag"]) == 2
    err = capsys.readouterr().err
    assert "lits draw: this command comes from the 'no_such_package' package, which cannot be loaded" in err
    assert "Traceback" not in err
    assert main(["validate", str(BOARDS / "default.yaml")]) == 0  # the built-in commands are unaffected


def test_render_without_pyside6_says_how_to_install_it(tmp_path: Path) -> None:
    """A subprocess where PySide6 cannot be imported at all, as on a machine without it."""
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('PySide6', 'shiboken6'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import core.cli\n"
        "core.cli.EXTRA_COMMANDS['render'] = 'designer.render_cli:register'\n"
        "sys.exit(core.cli.main(sys.argv[1:]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, "render", str(BOARDS / "default.yaml"), "-o",
                           str(tmp_path / "b.png")], cwd=REPO, capture_output=True, text=True, timeout=120,
                          check=False, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 2, proc.stderr
    assert "lits render: drawing pictures needs PySide6" in proc.stderr
    assert "pip install PySide6-Essentials" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "b.png").exists()


def test_every_help_text_reads_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    """Descriptions are printed verbatim by argparse (only argument help is %-formatted), so a doubled ``%%``
    written for the one shows up in the other; no help page may show it or a stray format field."""
    for command in core.cli.BUILTIN_COMMANDS:
        with pytest.raises(SystemExit) as stop:
            main([command.name, "--help"])
        assert stop.value.code == 0
        text = capsys.readouterr().out
        assert "%%" not in text and "%(" not in text, f"lits {command.name} --help: {text}"
