"""5,000+ generated hostile files through the loader and every command that reads board files:
each gets the file's clear error (exit 1 or 2) or works (exit 0); never an internal error or a traceback."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

import core.board.fileio
from core.board.boardfile import BoardFileError, load_board
from core.cli import CliError, main
from tests.cli.hostile_corpus import corpus
from tests.paths import REPO

CORPUS_SIZE = 5200
ALLOWED = {0, 1, 2}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder = tmp_path_factory.mktemp("hostile")
    paths = []
    for name, data in corpus(CORPUS_SIZE):
        path = folder / name
        path.write_bytes(data)
        paths.append(str(path))
    return paths


@pytest.fixture(scope="module")
def loadable(files: list[str]) -> dict[str, bool]:
    """Each file through the loader itself: it loads, or raises BoardFileError, nothing else."""
    out = {}
    for path in files:
        try:
            load_board(path)
            out[path] = True
        except BoardFileError as exc:
            assert exc.details and all(isinstance(d, str) and d for d in exc.details), path
            out[path] = False
    return out


class Failures:
    def __init__(self) -> None:
        self.items: list[str] = []
        self.runs: Counter[str] = Counter()

    def check(self, command: str, files: list[str], code: int, out: str, err: str) -> None:
        self.runs[command] += len(files)
        bad = code not in ALLOWED or "Traceback" in out + err or "internal error" in out + err
        if bad:
            self.items.append(f"lits {command} {files[:3]}: exit {code}: {(err or out)[-300:]!r}")


def batches(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def test_the_corpus_is_large_and_reproducible(files: list[str]) -> None:
    assert len(files) >= 5000
    again = list(corpus(CORPUS_SIZE))
    assert [Path(p).name for p in files] == [name for name, _ in again]
    assert Path(files[-1]).read_bytes() == again[-1][1]


def test_no_internal_error_anywhere(files: list[str], loadable: dict[str, bool], tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    kinds = Counter("loads" if ok else "refused" for ok in loadable.values())
    assert kinds["loads"] >= 100 and kinds["refused"] >= 4000, kinds
    failures = Failures()

    def run(command: str, argv: list[str], paths: list[str]) -> int:
        code = main(argv)
        out, err = capsys.readouterr()
        failures.check(command, paths, code, out, err)
        return code

    # validate: every file, in batches, as text and as JSON; each file is reported
    for index, batch in enumerate(batches(files, 200)):
        json_flag = ["--json"] if index % 2 else []
        code = main(["validate", *json_flag, *batch])
        out, err = capsys.readouterr()
        failures.check("validate", batch, code, out, err)
        if json_flag and code in ALLOWED:
            reported = json.loads(out)["files"]
            assert [r["file"] for r in reported] == batch
            assert code == max(0 if r["valid"] else (1 if r["readable"] else 2) for r in reported)
    # verify: a board file is not a sealed file; every file gets its answer
    for batch in batches(files, 400):
        run("verify", ["verify", *batch, "--digest", "0" * 64], batch)

    # The other commands run one file at a time: every loadable file and as many refused ones, seeded.
    monkeypatch.setattr(core.board.fileio.os, "fsync", lambda fd: None)  # robustness, not durability, here
    rng = random.Random(7)
    good = [p for p, ok in loadable.items() if ok]
    sample = good + rng.sample([p for p, ok in loadable.items() if not ok], len(good))
    record = tmp_path / "empty-record.txt"
    record.write_text("")
    import core.analysis.run as analysis_run  # the analyze handler imports analyze() from here when it runs

    def no_analysis(*_args: object, **_kwargs: object) -> None:
        raise CliError("reached the analysis (skipped in this test)", 0)

    monkeypatch.setattr(analysis_run, "analyze", no_analysis)
    has_qt = True
    try:
        import PySide6  # noqa: F401
    except ImportError:
        has_qt = False
    for index, path in enumerate(sample):
        out_dir = tmp_path / f"season-{index}"
        run("seal", ["seal", path, "--season", "s1", "--out", str(out_dir)], [path])
        run("moves", ["moves", path], [path])
        run("replay", ["replay", path, str(record), "--json"], [path])
        run("analyze", ["analyze", path, "--games", "10"], [path])
        if has_qt:
            run("render", ["render", path, "-o", str(tmp_path / "picture.svg"), "--size", "16"], [path])
        if index % 10 == 0:
            run("bench", ["bench", "--board", path, "--games", "1"], [path])
        if out_dir.exists():
            sealed = next(out_dir.glob("*.lits-sealed"))
            run("verify", ["verify", str(sealed), "--sums", str(out_dir / "SHA256SUMS")], [path])
            run("unseal", ["unseal", str(sealed), "-o", str(tmp_path / f"back-{index}.yaml")], [path])
    assert failures.items == [], f"{len(failures.items)} internal errors, e.g.:\n" + "\n".join(failures.items[:10])
    expected = {"validate", "verify", "seal", "moves", "replay", "analyze", "bench", "unseal"} | (
        {"render"} if has_qt else set())
    assert set(failures.runs) == expected and failures.runs["validate"] == len(files)


def test_no_traceback_from_real_processes(files: list[str], loadable: dict[str, bool], tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONIOENCODING": "utf-8:strict"}
    rng = random.Random(11)
    some = rng.sample(files, 300)
    runs = [["validate", *some], ["validate", "--json", *some[:100]], ["verify", *some[:100]]]
    runs += [["seal", p, "--season", "s", "--out", str(tmp_path / f"s{i}")] for i, p in enumerate(some[:4])]
    for argv in runs:
        proc = subprocess.run([sys.executable, "-m", "core.cli", *argv], env=env, cwd=REPO, capture_output=True,
                              timeout=300, check=False)
        err = proc.stderr.decode("utf-8", "replace")
        assert proc.returncode in ALLOWED, (argv[0], err[-500:])
        assert "Traceback" not in err and "internal error" not in err, err[-500:]
