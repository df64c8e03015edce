"""The exit-code table (``core.cli.exitcodes.TABLE``), walked command by command: every row of every command has a
case that exits with that row's code, or a stated reason why the command never meets it.

Most cases run ``main`` in this process; a full disk under stdout runs ``lits`` itself with stdout on /dev/full
(Linux's device whose every write fails with "no space left on the device"), and a full disk under a file the
command writes is a file system whose writes fail that way (``FullDisk``).  Internal errors and interrupts are
raised from a function the command really calls.
"""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import core.board.fileio as fileio
from core.board.boardfile import save_board
from core.board.model import Board, GameParams, Symbol
from core.cli import BUILTIN_COMMANDS, main
from core.cli.exitcodes import TABLE, Exit, markdown_table
from tests.paths import REPO

COMMANDS = [c.name for c in BUILTIN_COMMANDS] + ["render"]


@dataclass(frozen=True)
class Case:
    argv: tuple[str, ...]
    """With ``{tiny}``, ``{broken}``, ``{nopiece}``, ``{empty}``, ``{sealed}``, ``{damaged}``, ``{sums}``, ``{record}``,
    ``{bad_record}``, ``{tmp}`` filled in."""
    raise_in: str = ""
    """``module:attribute`` replaced by a function that raises ``raises`` (an error inside the command)."""
    raises: type[BaseException] = RuntimeError
    full_disk: str = ""
    """``stdout``: run ``lits`` with stdout on /dev/full; ``stream``: stdout raises ENOSPC in this process;
    ``files``: every file written through ``core.board.fileio`` fails with ENOSPC."""
    setup: Callable[[pytest.MonkeyPatch, Path], None] | None = None


def stub_generate(judge_need: float) -> Callable[[pytest.MonkeyPatch, Path], None]:
    """``lits generate`` on simulated costs (as in test_cli_generate): a judge whose verdict needs ``judge_need``
    simulated seconds, two worker threads."""

    def setup(monkeypatch: pytest.MonkeyPatch, _tmp: Path) -> None:
        import concurrent.futures as cf

        import core.cli.generate as command
        from core.generate.layout import layout_of
        from core.generate.pool import ExecutorPool
        from tests.generate.timing import FakeClock, Judge, Screen

        clock = FakeClock()
        ex = cf.ThreadPoolExecutor(max_workers=2)
        EXECUTORS.append(ex)
        judge = Judge(clock, need=judge_need, game=0.005, overhead=4.0, workers=2)
        target = layout_of(Board.random(6, 4, seed=5))

        def components(_args: object, _cfg: object, _level: str) -> tuple[object, ...]:
            return Screen(clock, target, cost=0.5, workers=2), judge, ExecutorPool(ex, 2), None

        monkeypatch.setattr(command, "_components", components)
        monkeypatch.setattr(command, "_clock", clock)

    return setup


def small_card(monkeypatch: pytest.MonkeyPatch, _tmp: Path) -> None:
    """``lits card`` with a small card played in this process (tests/card/common.py)."""
    import core.cli.card as command
    from tests.card.common import small_config

    monkeypatch.setattr(command, "config_for", lambda _effort, seed, _workers: small_config(seed=seed, inline=True))


CARD = ("card", "{tiny}", "--workers", "1")
LEARN_DATA = ("learn", "data", "--out", "{tmp}/d", "--shards", "1")


def tiny_learn_data(_monkeypatch: pytest.MonkeyPatch, tmp: Path) -> None:
    """A data folder of a few greedy games for ``lits learn train`` (the real plan plays club for minutes)."""
    pytest.importorskip("sklearn")
    from core.learn.data import Plan
    from core.learn.play import play_data

    plan = Plan(seed=1, shards=2, agent="greedy", games_per_board=4, boards_per_shard=4)
    play_data(tmp / "work" / "d", plan, inline=True)


MATCH_START = ("match", "start", "{tiny}", "--o", "Ann", "--x", "Bo", "--dir", "{tmp}/m")
EXECUTORS: list[Any] = []
"""Thread pools of the simulated generate runs, shut down after each test."""

SIM_GENERATE = ("generate", "--size", "6", "--pairs", "4..4", "--count", "1", "--seed", "1", "--time", "300",
                "--out", "{tmp}/gen")

CASES: dict[tuple[str, str], list[Case]] = {
    ("validate", "OK"): [Case(("validate", "{tiny}"))],
    ("validate", "PROBLEMS"): [Case(("validate", "{broken}"))],
    ("validate", "USAGE"): [Case(("validate", "{tiny}", "--nope"))],
    ("validate", "UNREADABLE"): [Case(("validate", "{empty}"))],
    ("validate", "INTERNAL"): [Case(("validate", "{tiny}"), raise_in="core.cli.validate:read_board")],
    ("validate", "DISK_FULL"): [Case(("validate", "{tiny}", "--json"), full_disk="stdout")],
    ("validate", "INTERRUPTED"): [Case(("validate", "{tiny}"), raise_in="core.cli.validate:read_board",
                                       raises=KeyboardInterrupt)],

    ("analyze", "OK"): [Case(("analyze", "{tiny}", "--agent", "random", "--games", "10", "--workers", "1",
                              "--check", "none"))],
    ("analyze", "PROBLEMS"): [Case(("analyze", "{broken}", "--agent", "random"))],
    ("analyze", "USAGE"): [Case(("analyze", "{tiny}", "--time", "1")), Case(("analyze", "{tiny}", "--agent", "foo")),
                           Case(("analyze", "{tiny}", "--workers", "-1")),
                           Case(("analyze", "{tiny}", "--games", "0"))],
    ("analyze", "UNREADABLE"): [Case(("analyze", "{empty}"))],
    ("analyze", "INTERNAL"): [Case(("analyze", "{tiny}"), raise_in="core.cli.analyze:load_board_arg")],
    ("analyze", "DISK_FULL"): [Case(("analyze", "{tiny}", "--agent", "random", "--games", "10", "--workers", "1",
                                     "--check", "none", "--report", "{tmp}/r.md"), full_disk="files")],
    ("analyze", "INTERRUPTED"): [Case(("analyze", "{tiny}"), raise_in="core.cli.analyze:load_board_arg",
                                      raises=KeyboardInterrupt)],

    ("openings", "OK"): [Case(("openings", "{tiny}", "--opening", "A1 B1 C1 B2", "--agent", "random",
                               "--max-games", "10", "--workers", "1"))],
    ("openings", "PROBLEMS"): [Case(("openings", "{broken}", "--all"))],
    ("openings", "USAGE"): [Case(("openings", "{tiny}", "--all", "--games", "2")),
                            Case(("openings", "{tiny}", "--opening", "A1 B1 C1 Q1")),
                            Case(("openings", "{tiny}", "--all", "--agent", "puct:t=1"))],
    ("openings", "UNREADABLE"): [Case(("openings", "{empty}", "--all"))],
    ("openings", "INTERNAL"): [Case(("openings", "{tiny}", "--all"), raise_in="core.cli.openings:load_board_arg")],
    ("openings", "DISK_FULL"): [Case(("openings", "{tiny}", "--all", "--checkpoint", "{tmp}/ck.jsonl"),
                                     full_disk="files")],
    ("openings", "INTERRUPTED"): [Case(("openings", "{tiny}", "--all"), raise_in="core.cli.openings:load_board_arg",
                                       raises=KeyboardInterrupt)],

    ("boards", "OK"): [Case(("boards",)), Case(("boards", "dense", "--copy-to", "{tmp}/mine"))],
    ("boards", "PROBLEMS"): [Case(("boards", "--copy-to", "{tmp}/mine"), setup=lambda _mp, tmp: (
        (tmp / "work" / "mine").mkdir(), (tmp / "work" / "mine" / "dense.yaml").write_text("mine\n")))],
    ("boards", "USAGE"): [Case(("boards", "nope", "--copy-to", "{tmp}/mine")), Case(("boards", "dense"))],
    ("boards", "UNREADABLE"): [Case(("boards",), setup=lambda mp, _tmp: mp.setattr(
        "core.board.boardfile.bundled_boards_dir", lambda: None))],
    ("boards", "INTERNAL"): [Case(("boards",), raise_in="core.cli.boards:read_board")],
    ("boards", "DISK_FULL"): [Case(("boards", "--copy-to", "{tmp}/mine"), full_disk="files")],
    ("boards", "INTERRUPTED"): [Case(("boards",), raise_in="core.cli.boards:read_board", raises=KeyboardInterrupt)],

    ("duel", "OK"): [Case(("duel", "{tiny}", "--agent", "random", "--agent", "greedy", "--pairs", "2", "--workers",
                           "1"))],
    ("duel", "USAGE"): [Case(("duel", "{tiny}", "--agent", "random", "--agent", "greedy", "--pairs", "0"))],
    ("duel", "PROBLEMS"): [Case(("duel", "{nopiece}", "--agent", "random", "--agent", "greedy", "--pairs", "2"))],
    ("duel", "UNREADABLE"): [Case(("duel", "{empty}", "--agent", "random", "--agent", "greedy", "--pairs", "2"))],
    ("duel", "INTERNAL"): [Case(("duel", "{tiny}", "--agent", "random", "--agent", "greedy", "--pairs", "2"),
                                raise_in="core.cli.duel:load_board_arg")],
    ("duel", "DISK_FULL"): [Case(("duel", "{tiny}", "--agent", "random", "--agent", "greedy", "--pairs", "2",
                                  "--workers", "1"), full_disk="stream")],
    ("duel", "INTERRUPTED"): [Case(("duel", "{tiny}", "--agent", "random", "--agent", "greedy", "--pairs", "2"),
                                   raise_in="core.cli.duel:load_board_arg", raises=KeyboardInterrupt)],

    ("card", "OK"): [Case((*CARD, "--json"), setup=small_card)],
    ("card", "PROBLEMS"): [Case(("card", "{nopiece}"))],
    ("card", "USAGE"): [Case((*CARD, "-o", "{tmp}/card.jpg")), Case(("card", "{tiny}", "--workers", "-1")),
                        Case((*CARD, "--effort", "quick"))],
    ("card", "UNREADABLE"): [Case(("card", "{empty}"))],
    ("card", "INTERNAL"): [Case(CARD, raise_in="core.cli.card:load_board_arg")],
    ("card", "DISK_FULL"): [Case((*CARD, "-o", "{tmp}/card.png"), setup=small_card, full_disk="files")],
    ("card", "INTERRUPTED"): [Case(CARD, raise_in="core.cli.card:load_board_arg", raises=KeyboardInterrupt)],

    ("generate", "OK"): [Case(SIM_GENERATE, setup=stub_generate(3.0))],
    ("generate", "PROBLEMS"): [Case(SIM_GENERATE, setup=stub_generate(1e9))],  # every finalist inconclusive
    ("generate", "USAGE"): [Case(("generate", "--count", "0", "--out", "{tmp}/g")),
                            Case(("generate", "--level", "chess", "--out", "{tmp}/g"))],
    ("generate", "INTERNAL"): [Case(("generate", "--out", "{tmp}/g"), raise_in="core.cli.generate:_components")],
    ("generate", "DISK_FULL"): [Case(SIM_GENERATE, setup=stub_generate(3.0), full_disk="files")],
    ("generate", "INTERRUPTED"): [Case(("generate", "--out", "{tmp}/g"), raise_in="core.cli.generate:_components",
                                       raises=KeyboardInterrupt)],

    ("moves", "OK"): [Case(("moves", "{tiny}"))],
    ("moves", "PROBLEMS"): [Case(("moves", "{tiny}", "--record", "{bad_record}"))],
    ("moves", "USAGE"): [Case(("moves", "{tiny}", "--nope"))],
    ("moves", "UNREADABLE"): [Case(("moves", "{empty}"))],
    ("moves", "INTERNAL"): [Case(("moves", "{tiny}"), raise_in="core.cli.play:load_board_arg")],
    ("moves", "DISK_FULL"): [Case(("moves", "{tiny}", "--json"), full_disk="stdout")],
    ("moves", "INTERRUPTED"): [Case(("moves", "{tiny}"), raise_in="core.cli.play:load_board_arg",
                                    raises=KeyboardInterrupt)],

    ("replay", "OK"): [Case(("replay", "{tiny}", "{record}"))],
    ("replay", "PROBLEMS"): [Case(("replay", "{tiny}", "{bad_record}"))],
    ("replay", "USAGE"): [Case(("replay", "{tiny}"))],
    ("replay", "UNREADABLE"): [Case(("replay", "{tiny}", "{tmp}/missing.txt"))],
    ("replay", "INTERNAL"): [Case(("replay", "{tiny}", "{record}"), raise_in="core.cli.play:load_board_arg")],
    ("replay", "DISK_FULL"): [Case(("replay", "{tiny}", "{record}"), full_disk="stream")],
    ("replay", "INTERRUPTED"): [Case(("replay", "{tiny}", "{record}"), raise_in="core.cli.play:load_board_arg",
                                     raises=KeyboardInterrupt)],

    ("bench", "OK"): [Case(("bench", "--games", "5", "--board", "{tiny}"))],
    ("bench", "USAGE"): [Case(("bench", "--games", "0"))],
    ("bench", "UNREADABLE"): [Case(("bench", "--board", "{empty}"))],
    ("bench", "INTERNAL"): [Case(("bench", "--board", "{tiny}"), raise_in="core.cli.play:load_board_arg")],
    ("bench", "DISK_FULL"): [Case(("bench", "--games", "5", "--board", "{tiny}"), full_disk="stream")],
    ("bench", "INTERRUPTED"): [Case(("bench", "--board", "{tiny}"), raise_in="core.cli.play:load_board_arg",
                                    raises=KeyboardInterrupt)],

    ("seal", "OK"): [Case(("seal", "{tiny}", "--season", "s1", "--out", "{tmp}/season"))],
    ("seal", "PROBLEMS"): [Case(("seal", "{broken}", "--season", "s1", "--out", "{tmp}/season"))],
    ("seal", "USAGE"): [Case(("seal", "{tiny}", "--season", "bad id!", "--out", "{tmp}/season"))],
    ("seal", "UNREADABLE"): [Case(("seal", "{empty}", "--season", "s1", "--out", "{tmp}/season"))],
    ("seal", "INTERNAL"): [Case(("seal", "{tiny}", "--season", "s1", "--out", "{tmp}/season"),
                                raise_in="core.cli.seal:load_board_arg")],
    ("seal", "DISK_FULL"): [Case(("seal", "{tiny}", "--season", "s1", "--out", "{tmp}/season"), full_disk="files")],
    ("seal", "INTERRUPTED"): [Case(("seal", "{tiny}", "--season", "s1", "--out", "{tmp}/season"),
                                   raise_in="core.cli.seal:load_board_arg", raises=KeyboardInterrupt)],

    ("verify", "OK"): [Case(("verify", "{sealed}", "--sums", "{sums}"))],
    ("verify", "PROBLEMS"): [Case(("verify", "{damaged}", "--sums", "{sums}"))],
    ("verify", "USAGE"): [Case(("verify", "{sealed}", "--digest", "zz"))],
    ("verify", "UNREADABLE"): [Case(("verify", "{tmp}/missing.lits-sealed", "--sums", "{sums}")),
                               Case(("verify", "{sealed}", "--sums", "{tmp}/missing-sums"))],
    ("verify", "INTERNAL"): [Case(("verify", "{sealed}"), raise_in="core.seal.sealcheck:check_files")],
    ("verify", "NOT_COMPARED"): [Case(("verify", "{sealed}"))],
    ("verify", "DISK_FULL"): [Case(("verify", "{sealed}", "--sums", "{sums}"), full_disk="stdout")],
    ("verify", "INTERRUPTED"): [Case(("verify", "{sealed}"), raise_in="core.seal.sealcheck:check_files",
                                     raises=KeyboardInterrupt)],

    ("reveal-bundle", "OK"): [Case(("reveal-bundle", "{sealed}", "--sums", "{sums}", "--out", "{tmp}/bundle"))],
    ("reveal-bundle", "PROBLEMS"): [Case(("reveal-bundle", "{damaged}", "--sums", "{sums}", "--out",
                                          "{tmp}/bundle"))],
    ("reveal-bundle", "USAGE"): [Case(("reveal-bundle", "{sealed}", "--out", "{tmp}/bundle"))],  # no --sums
    ("reveal-bundle", "UNREADABLE"): [
        Case(("reveal-bundle", "{tmp}/missing.lits-sealed", "--sums", "{sums}", "--out", "{tmp}/bundle")),
        Case(("reveal-bundle", "{sealed}", "--sums", "{tmp}/missing-sums", "--out", "{tmp}/bundle"))],
    ("reveal-bundle", "INTERNAL"): [Case(("reveal-bundle", "{sealed}", "--sums", "{sums}", "--out", "{tmp}/bundle"),
                                         raise_in="core.seal.sealing:write_bundle")],
    ("reveal-bundle", "DISK_FULL"): [Case(("reveal-bundle", "{sealed}", "--sums", "{sums}", "--out",
                                           "{tmp}/bundle"), full_disk="files")],
    ("reveal-bundle", "INTERRUPTED"): [Case(("reveal-bundle", "{sealed}", "--sums", "{sums}", "--out",
                                             "{tmp}/bundle"), raise_in="core.seal.sealing:write_bundle",
                                            raises=KeyboardInterrupt)],

    ("unseal", "OK"): [Case(("unseal", "{sealed}", "-o", "{tmp}/back.yaml"))],
    ("unseal", "PROBLEMS"): [Case(("unseal", "{damaged}", "-o", "{tmp}/back.yaml"))],
    ("unseal", "USAGE"): [Case(("unseal", "{sealed}", "-o", "{tmp}/back.yaml", "--digest", "zz"))],
    ("unseal", "UNREADABLE"): [Case(("unseal", "{tmp}/missing.lits-sealed", "-o", "{tmp}/back.yaml"))],
    ("unseal", "INTERNAL"): [Case(("unseal", "{sealed}", "-o", "{tmp}/back.yaml"),
                                  raise_in="core.cli.seal:read_sealed")],
    ("unseal", "DISK_FULL"): [Case(("unseal", "{sealed}", "-o", "{tmp}/back.yaml"), full_disk="files")],
    ("unseal", "INTERRUPTED"): [Case(("unseal", "{sealed}", "-o", "{tmp}/back.yaml"),
                                     raise_in="core.cli.seal:read_sealed", raises=KeyboardInterrupt)],

    ("learn", "OK"): [Case(("learn", "train", "--data", "{tmp}/d", "--out", "{tmp}/m.npz", "--max-iter", "2"),
                           setup=tiny_learn_data)],
    ("learn", "USAGE"): [Case(("learn", "data", "--out", "{tmp}/d", "--shards", "0")),
                         Case(("learn", "data", "--out", "{tmp}/d", "--agent", "puct:t=1")),
                         Case(("learn", "data", "--out", "{tmp}/d", "--agent", "grandmaster")),
                         Case(("learn", "train", "--data", "{tmp}/d", "--out", "{tmp}/m.npz", "--extra", "99")),
                         Case(("learn", "eval", "--cached-only")),
                         Case(("learn", "eval", "--cached-only", "--cache", "{tmp}/c.json", "--save"))],
    ("learn", "UNREADABLE"): [Case(("learn", "train", "--data", "{tmp}/missing", "--out", "{tmp}/m.npz")),
                              Case(("learn", "eval", "--model", "{empty}"))],
    ("learn", "INTERNAL"): [Case(LEARN_DATA, raise_in="core.learn.data:open_folder")],
    ("learn", "DISK_FULL"): [Case(LEARN_DATA, full_disk="files")],
    ("learn", "INTERRUPTED"): [Case(LEARN_DATA, raise_in="core.learn.data:open_folder", raises=KeyboardInterrupt)],

    ("match", "OK"): [Case(MATCH_START)],
    ("match", "PROBLEMS"): [Case(("match", "start", "{broken}", "--o", "Ann", "--x", "Bo", "--dir", "{tmp}/m"))],
    ("match", "USAGE"): [Case((*MATCH_START, "--correction-window", "99999"))],
    ("match", "UNREADABLE"): [Case(("match", "start", "{empty}", "--o", "Ann", "--x", "Bo", "--dir", "{tmp}/m"))],
    ("match", "INTERNAL"): [Case(MATCH_START, raise_in="core.cli.match:_board_and_source")],
    ("match", "DISK_FULL"): [Case(MATCH_START, full_disk="files")],
    ("match", "INTERRUPTED"): [Case(MATCH_START, raise_in="core.cli.match:_board_and_source",
                                    raises=KeyboardInterrupt)],

    ("render", "OK"): [Case(("render", "{tiny}", "-o", "{tmp}/b.png"))],
    ("render", "USAGE"): [Case(("render", "{tiny}", "-o", "{tmp}/x.jpg"))],
    ("render", "UNREADABLE"): [Case(("render", "{empty}", "-o", "{tmp}/b.png"))],
    ("render", "INTERNAL"): [Case(("render", "{tiny}", "-o", "{tmp}/b.png"),
                                  raise_in="designer.render_cli:load_board_arg")],
    ("render", "DISK_FULL"): [Case(("render", "{tiny}", "-o", "{tmp}/b.png"), full_disk="files")],
    ("render", "INTERRUPTED"): [Case(("render", "{tiny}", "-o", "{tmp}/b.png"),
                                     raise_in="designer.render_cli:load_board_arg", raises=KeyboardInterrupt)],
}

NOT_MET: dict[tuple[str, str], str] = {
    ("bench", "PROBLEMS"): "a benchmark measures; it checks nothing that could fail",
    ("render", "PROBLEMS"): "a picture is drawn of any readable board, valid or not",
    ("generate", "UNREADABLE"): "generate reads no input file",
    ("learn", "PROBLEMS"): "learn makes and measures a model; it checks nothing that could fail",
    **{(c, "NOT_COMPARED"): "lits verify only" for c in COMMANDS if c != "verify"},
}

ALL = [(command, row.name) for command in COMMANDS for row in TABLE]


def test_every_row_of_every_command_has_a_case_or_a_reason() -> None:
    assert COMMANDS == ["validate", "analyze", "openings", "boards", "duel", "card", "generate", "moves", "replay",
                        "bench", "seal", "verify", "reveal-bundle", "unseal", "learn", "match", "render"]
    for key in ALL:
        assert (key in CASES) != (key in NOT_MET), key
    assert set(CASES) | set(NOT_MET) == set(ALL)


def test_the_table_has_one_code_per_outcome() -> None:
    assert [(row.name, row.code) for row in TABLE] == [
        ("OK", 0), ("PROBLEMS", 1), ("USAGE", 2), ("UNREADABLE", 2), ("INTERNAL", 3), ("NOT_COMPARED", 4),
        ("DISK_FULL", 5), ("INTERRUPTED", 130)]
    assert {m.name for m in Exit} | {"UNREADABLE"} == {row.name for row in TABLE}
    text = markdown_table()
    assert text.splitlines()[:2] == ["| code | meaning |", "| --- | --- |"] and len(text.splitlines()) == 2 + len(TABLE)


# -- the files the cases use --------------------------------------------------------------------------

@pytest.fixture()
def files(tmp_path: Path) -> dict[str, str]:
    tiny = Board.random(size=6, pairs=6, seed=12, params=GameParams(supply=(2, 2, 2, 2)))
    save_board(tiny, tmp_path / "tiny.yaml")
    broken = tiny.copy()
    cell = next(c for c in range(36) if broken.cells[c] is Symbol.EMPTY and broken.cells[35 - c] is Symbol.EMPTY)
    broken.set_raw(cell, Symbol.O)  # its partner stays empty: a board no match can use
    save_board(broken, tmp_path / "broken.yaml")
    save_board(Board.random(size=6, pairs=6, seed=12, params=GameParams(supply=(0, 0, 0, 0))),
               tmp_path / "nopiece.yaml")  # no piece can ever be placed
    (tmp_path / "empty.yaml").write_text("")
    (tmp_path / "record.txt").write_text("# no moves yet\n")
    (tmp_path / "bad_record.txt").write_text("swap\n")  # the swap only comes as the second action
    season = tmp_path / "sealed"
    assert main(["seal", str(tmp_path / "tiny.yaml"), "--season", "s1", "--out", str(season)]) == 0
    damaged = tmp_path / "dm1.lits-sealed"  # the name SHA256SUMS lists, other bytes
    damaged.write_bytes((season / "dm1.lits-sealed").read_bytes().replace(b"\n", b"\r\n"))
    return {"tiny": str(tmp_path / "tiny.yaml"), "broken": str(tmp_path / "broken.yaml"),
            "empty": str(tmp_path / "empty.yaml"), "sealed": str(season / "dm1.lits-sealed"),
            "damaged": str(damaged), "sums": str(season / "SHA256SUMS"), "record": str(tmp_path / "record.txt"),
            "bad_record": str(tmp_path / "bad_record.txt"), "tmp": str(tmp_path / "work"),
            "nopiece": str(tmp_path / "nopiece.yaml")}


class FullStream(io.TextIOBase):
    """A stdout on a full disk."""

    def writable(self) -> bool:
        return True

    def write(self, _s: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class FullDisk:
    """``os`` as ``core.board.fileio`` sees it on a full disk: the temporary file opens, its writes fail."""

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    @staticmethod
    def fdopen(fd: int, *_args: Any, **_kw: Any) -> Any:
        os.close(fd)
        return _FullFile()


@dataclass
class _FullFile:
    closed: bool = field(default=False)

    def __enter__(self) -> _FullFile:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.closed = True

    def write(self, _data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _patch_raise(monkeypatch: pytest.MonkeyPatch, target: str, exc: type[BaseException]) -> None:
    import importlib

    module, _, attr = target.partition(":")

    def boom(*_args: object, **_kw: object) -> Any:
        raise exc("injected") if exc is not KeyboardInterrupt else KeyboardInterrupt()

    monkeypatch.setattr(importlib.import_module(module), attr, boom)


@pytest.mark.parametrize(("command", "row"), [pytest.param(c, r, id=f"{c}-{r}") for c, r in ALL if (c, r) in CASES])
def test_the_exit_code_of(command: str, row: str, files: dict[str, str], tmp_path: Path,
                          monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    if command == "render":
        pytest.importorskip("PySide6", reason="lits render draws with Qt")
    expected = int(Exit[row])
    work = Path(files["tmp"])
    work.mkdir()
    try:
        for case in CASES[(command, row)]:
            with monkeypatch.context() as mp:
                code, out, err = _run_case(case, files, tmp_path, mp, capsys)
            argv = [a.format(**files) for a in case.argv]
            assert code == expected, (argv, out[-500:], err)
            assert "Traceback" not in out + err, err
            if expected != 0:
                assert (out + err).strip(), argv  # always a message
            if row == "DISK_FULL":
                assert "the disk is full" in err, err
                leftovers = [p for p in tmp_path.rglob("*") if p.name.startswith(".") and p.name.endswith(".tmp")]
                assert leftovers == []  # written whole or not at all
            if row == "INTERNAL":
                assert "internal error" in err
            if row == "INTERRUPTED":
                assert "interrupted" in err
    finally:
        while EXECUTORS:
            EXECUTORS.pop().shutdown(wait=True)


def _run_case(case: Case, files: dict[str, str], tmp_path: Path, mp: pytest.MonkeyPatch,
              capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    argv = [a.format(**files) for a in case.argv]
    if case.setup is not None:
        case.setup(mp, tmp_path)
    if case.raise_in:
        _patch_raise(mp, case.raise_in, case.raises)
    if case.full_disk == "files":
        mp.setattr(fileio, "os", FullDisk())
    if case.full_disk == "stdout":
        if not Path("/dev/full").exists():
            pytest.skip("needs /dev/full")
        with open("/dev/full", "w") as full:
            proc = subprocess.run([sys.executable, "-m", "core.cli", *argv], stdout=full, stderr=subprocess.PIPE,
                                  text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=300,
                                  check=False)
        return proc.returncode, "", proc.stderr
    capsys.readouterr()
    if case.full_disk == "stream":
        mp.setattr(sys, "stdout", FullStream())
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refuses the arguments itself
        code = exc.code if isinstance(exc.code, int) else 2
    mp.undo()  # stdout back before reading what was printed
    out, err = capsys.readouterr()
    return code, out, err


def test_the_readme_shows_the_table_the_commands_use() -> None:
    from core.cli.exitcodes import markdown_table
    from tests.paths import REPO

    assert markdown_table() in (REPO / "README.md").read_text(encoding="utf-8")
