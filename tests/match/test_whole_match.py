"""A whole match as a host lives it: a mistyped hour taken back with undo, a full disk in the middle, a command
killed after writing its line but before its check file, another killed before it answered; the folder goes on
each time, and ``lits replay`` replays the record to the same result."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import main
from core.match.host import Match
from tests.match.script import START, write_board
from tests.paths import REPO

KILLED_BEFORE_CHECK = """
import os, sys
sys.path.insert(0, sys.argv[1])
import core.match.journal as journal
journal.atomic_write_text = lambda *args, **kwargs: os._exit(9)  # killed between the line and its check file
from core.cli import main
main(sys.argv[2:])
"""

KILLED_BEFORE_ANSWER = """
import os, sys
sys.path.insert(0, sys.argv[1])
import core.cli.match as command
command._say = lambda *args, **kwargs: os._exit(9)  # killed after everything was written, before it answered
from core.cli import main
main(sys.argv[2:])
"""


def lits(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["match", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out + out.err


def killed(script: str, *args: str) -> None:
    proc = subprocess.run([sys.executable, "-c", script, str(REPO), "match", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 9, proc.stderr


def test_a_whole_match_with_slips_a_full_disk_and_crashes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    m = str(tmp_path / "m")
    assert lits(capsys, "start", str(write_board(tmp_path)), "--o", "Al", "--x", "Bo", "--dir", m, "--at",
                START)[0] == 0
    assert lits(capsys, "move", m, "I play a2 b2 c2 c3", "--at", "14:00:20")[0] == 0

    # Bo's swap typed an hour late: asked first, recorded with --yes, taken back with undo
    assert lits(capsys, "swap", m, "--by", "Bo", "--at", "15:00:50")[0] == 1
    assert lits(capsys, "swap", m, "--by", "Bo", "--at", "15:00:50", "--yes")[0] == 1
    code, said = lits(capsys, "undo", m, "--yes", "--at", "15:01:00")
    assert code == 0 and "Bo (X) to move - turn 1:00, bank 5:00" in said

    # the disk is full when the swap is entered at its real time: not counted, and counted once there is space
    def full(path: object, text: str) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr("core.match.journal.atomic_write_text", full)
    code, said = lits(capsys, "swap", m, "--by", "Bo", "--at", "14:00:50")
    assert code == 5 and "Not counted" in said
    monkeypatch.undo()
    code, said = lits(capsys, "swap", m, "--by", "Bo", "--at", "14:00:50")
    assert code == 0 and "move 2: Bo swaps" in said

    # killed between its line and its check file: not counted, noted, and the same command counts it
    killed(KILLED_BEFORE_CHECK, "move", m, "C1 D1 E1 F1", "--by", "Al", "--at", "14:01:20")
    code, said = lits(capsys, "status", m)
    assert code == 0 and "was never counted" in said
    code, said = lits(capsys, "move", m, "C1", "D1", "E1", "F1", "--by", "Al", "--at", "14:01:20")
    assert code == 0 and "move 3: Al places an I" in said and "it was cut away" in said

    # killed after writing the correction, before answering: run again, it says it already counted
    killed(KILLED_BEFORE_ANSWER, "correct", m, "e1 F1 d2 E2", "--by", "Al", "--at", "14:02:00")
    code, said = lits(capsys, "correct", m, "e1 F1 d2 E2", "--by", "Al", "--at", "14:02:00")
    assert code == 0 and said.startswith("Already counted as move 3 at 14:02:00")

    assert lits(capsys, "move", m, "E3 D4 E4 E5", "--by", "Bo", "--at", "14:02:30")[0] == 0
    code, said = lits(capsys, "move", m, "my move C6 D6 E6 F6 gl", "--by", "Al", "--at", "14:05:10")
    assert code == 0 and "Al (X) wins by the tie rule: 3 to 3" in said
    assert lits(capsys, "end", m, "--at", "14:05:20")[0] == 0

    events = [json.loads(x) for x in (Path(m) / "journal.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [e["event"] for e in events] == ["start", "move", "timeout", "move", "undo", "move", "move", "correct",
                                            "move", "move", "end"]
    session = Match.open(m).session
    assert [a.move if isinstance(a.move, str) else a.move.notation() for a in session.actions] == [
        "A2 B2 C2 C3", "swap", "E1 F1 D2 E2", "E3 D4 E4 E5", "C6 D6 E6 F6"]
    assert main(["replay", f"{m}/board.yaml", f"{m}/record.txt", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["winner"], report["result_reason"], report["score"]) == ("X", "tie-rule", {"O": 3, "X": 3})
