"""``lits moves``, ``lits replay`` and ``lits bench``: JSON contracts and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.board.model import Symbol
from core.cli import main
from core.engine.rules import GameState
from tests.paths import DATA
from tests.reference_rules import RefGame, from_notation, notation

DEFAULT = "boards/default.yaml"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_moves_on_empty_board(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "moves", DEFAULT)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 1976
    assert lines[0].split() == sorted(lines[0].split(), key=lambda n: (int(n[1:]), n[0]))


def test_moves_json_after_record_matches_reference(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = write(tmp_path, "g.txt", "# opening\nC3 D3 E3 C4\nswap\n\nf3,g3,h3,i3\n")
    code, out, _ = run(capsys, "moves", DEFAULT, "--record", record, "--json")
    data = json.loads(out)
    assert code == 0
    ref = RefGame(12)
    for text in ("C3 D3 E3 C4", "F3 G3 H3 I3"):
        ref.play(from_notation(text))
    assert {" ".join(m) for m in data["moves"]} == {notation(p) for p in ref.legal()}
    assert all(len(m) == 4 for m in data["moves"]) and data["count"] == len(data["moves"])
    code, out, _ = run(capsys, "moves", DEFAULT, "--record", record)
    assert code == 0 and sorted(out.splitlines()) == sorted(" ".join(m) for m in data["moves"])


def test_moves_exit_codes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    illegal = write(tmp_path, "bad.txt", "C3 D3 E3 C4\nA10 B10 C10 D10\n")
    code, _, err = run(capsys, "moves", DEFAULT, "--record", illegal)
    assert code == 1 and "action 2" in err and "shares no edge" in err
    code, _, err = run(capsys, "moves", DEFAULT, "--record", write(tmp_path, "n.txt", "C3 D3 E3 Z4\n"))
    assert code == 1 and "line 1" in err
    code, _, err = run(capsys, "moves", str(tmp_path / "missing.yaml"))
    assert code == 2 and "missing.yaml" in err and "Traceback" not in err
    # README: 1 when the input has problems (an invalid board), 2 when a file cannot be read, as in lits analyze
    code, _, err = run(capsys, "moves", write(tmp_path, "b.yaml", "grid: [\"...\"]\n"))
    assert code == 1 and "b.yaml" in err
    code, _, err = run(capsys, "replay", write(tmp_path, "b.yaml", "grid: [\"...\"]\n"), illegal)
    assert code == 1 and "b.yaml" in err
    code, _, err = run(capsys, "moves", write(tmp_path, "c.yaml", "grid: [\"...\"\n"))
    assert code == 2 and "c.yaml" in err and "not valid YAML" in err


def test_replay_json_contract_for_a_legal_partial_game(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = write(tmp_path, "g.txt", "C3 D3 E3 C4\nswap\nF3 G3 H3 I3\n")
    code, out, _ = run(capsys, "replay", DEFAULT, record, "--json")
    data = json.loads(out)
    assert code == 0
    assert data["ok"] is True and data["error"] is None and data["over"] is False and data["winner"] is None
    assert data["to_move"] == "O" and set(data["score"]) == {"O", "X"}
    assert all(isinstance(v, int) for v in data["score"].values())
    code, out, _ = run(capsys, "replay", DEFAULT, record)
    assert code == 0 and "O to move" in out


def test_replay_json_for_finished_game(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from core.board.boardfile import load_board

    board = load_board(DEFAULT)
    state = GameState(board)
    while not state.is_over():
        state.push(next(iter(state.legal_placements())))
    result = state.result()
    assert result is not None
    record = write(tmp_path, "full.txt", "\n".join(p.notation() for p in state.placements) + "\n")
    code, out, _ = run(capsys, "replay", DEFAULT, record, "--json")
    data = json.loads(out)
    assert code == 0 and data["over"] is True and data["winner"] == result.winner.value
    assert data["score"] == {"O": result.score[Symbol.O], "X": result.score[Symbol.X]}


def test_replay_rule_break_and_unreadable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = write(tmp_path, "g.txt", "# x\nC3 D3 E3 C4\n\nF3 G3 H3 I3\nswap\n")
    code, out, _ = run(capsys, "replay", DEFAULT, record, "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False
    assert data["error"]["ply"] == 3 and "swap" in data["error"]["reason"]
    assert data["to_move"] == "O" and data["over"] is False
    code, out, _ = run(capsys, "replay", DEFAULT, record)
    assert code == 1 and "action 3 (swap)" in out
    code, _, err = run(capsys, "replay", DEFAULT, str(tmp_path / "none.txt"), "--json")
    assert code == 2 and "none.txt" in err
    code, out, _ = run(capsys, "replay", DEFAULT, write(tmp_path, "sq.txt", "C3 D3 E3 C4\nA1 B1 A2 B2\n"))
    assert code == 1 and "action 2 (line 2:" in out and "2x2 square" in out
    code, out, _ = run(capsys, "replay", DEFAULT, write(tmp_path, "sq.txt", "C3 D3 E3 C4\nA1 B1 A2 B2\n"), "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and data["error"]["ply"] == 2 and data["error"]["rule"] == "notation"
    assert "2x2 square" in data["error"]["reason"] and data["placements"] == 1 and data["to_move"] == "X"


def test_a_rule_break_names_the_line_of_a_record_with_comments(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    """Records from the play-test and from lits match open with comments, so the action's number is not its line."""
    record = write(tmp_path, "g.txt", "# LITS play-test record, board: Crossroads\n# Ana against Ben\n\nC3 D3 E3 C4\n"
                                      "swap\n\nA10 B10 C10 D10\n")
    code, out, _ = run(capsys, "replay", DEFAULT, record)
    assert code == 1
    assert out.splitlines()[0].startswith(f"{record}: line 7: action 3 (A10 B10 C10 D10): ")
    assert out.splitlines()[1] == "position before that action (1 placement, after the swap):"
    code, out, _ = run(capsys, "replay", DEFAULT, record, "--json")
    assert code == 1 and json.loads(out)["error"]["line"] == 7 and json.loads(out)["error"]["ply"] == 3
    code, _, err = run(capsys, "moves", DEFAULT, "--record", record)
    assert code == 1 and f"{record}: line 7: action 3 (A10 B10 C10 D10)" in err


def test_moves_says_why_it_lists_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An empty answer alone looked like a failure; stdout stays the list (empty) for scripts."""
    from core.board.boardfile import load_board

    board = load_board(DEFAULT)
    state = GameState(board)
    while not state.is_over():
        state.push(next(iter(state.legal_placements())))
    record = write(tmp_path, "full.txt", "\n".join(p.notation() for p in state.placements) + "\n")
    code, out, err = run(capsys, "moves", DEFAULT, "--record", record)
    assert (code, out) == (0, "")
    assert err.startswith(f"{record}: no legal placement is left. Game over after {len(state.placements)} placements")
    code, out, err = run(capsys, "moves", DEFAULT, "--record", record, "--json")
    assert code == 0 and json.loads(out)["count"] == 0 and err == ""


def test_replay_says_a_legal_record_is_legal(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = write(tmp_path, "g.txt", "C3 D3 E3 C4\nswap\nF3 G3 H3 I3\n")
    code, out, _ = run(capsys, "replay", DEFAULT, record)
    assert code == 0 and out.splitlines()[0] == f"{record}: legal, 3 actions (2 placements and a swap)"
    one = write(tmp_path, "one.txt", "C3 D3 E3 C4\n")
    code, out, _ = run(capsys, "replay", DEFAULT, one)
    assert code == 0 and out.splitlines()[0] == f"{one}: legal, 1 placement"
    empty = write(tmp_path, "empty.txt", "# nothing played yet\n")
    code, out, _ = run(capsys, "replay", DEFAULT, empty)
    assert code == 0 and out.splitlines()[0] == f"{empty}: no moves in this record (the starting position)"
    assert "O to move, 1976 legal placements" in out


def test_replay_with_the_arguments_swapped(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = write(tmp_path, "g.txt", "C3 D3 E3 C4\nswap\n")
    code, out, err = run(capsys, "replay", record, DEFAULT)
    assert code == 2 and out == ""
    assert err.strip() == (f"lits replay: {record}: this is not a board file: it holds plain text, not the keys of "
                           "a board (such as grid:); it reads as a game record, and the order is "
                           f"`lits replay BOARD RECORD` (here: `lits replay {DEFAULT} {record}`)")
    # Plain text that is no record gets the loader's words only.
    code, _, err = run(capsys, "replay", write(tmp_path, "note.txt", "hello\n"), record)
    assert code == 2 and err.strip().endswith("note.txt: this is not a board file: it holds plain text, not the keys "
                                              "of a board (such as grid:)")


def test_a_board_file_given_as_the_record(capsys: pytest.CaptureFixture[str]) -> None:
    """Another kind of file where the record belongs is exit 2 naming the kind, not a rule broken at action 1."""
    from core.seal.sealcheck import looks_sealed

    sealed = str(DATA / "seal" / "match-01.lits-sealed")
    assert looks_sealed(Path(sealed).read_bytes()[:64])
    form = "not a game record (one placement per line, e.g. E6 F6 G6 F7, or swap)"
    for record, said in ((DEFAULT, "this is a board file"),
                         (sealed, "this is a sealed board file (made by `lits seal`)")):
        for argv in (["replay", DEFAULT, record], ["replay", DEFAULT, record, "--json"],
                     ["moves", DEFAULT, "--record", record]):
            code, out, err = run(capsys, *argv)
            assert (code, out) == (2, ""), argv
            assert err.strip() == f"lits {argv[0]}: {record}: {said}, {form}"


def test_bench_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "--json", "--games", "300")
    data = json.loads(out)
    assert code == 0
    assert data["playouts_per_s"] > 0 and data["warmup_s"] >= 0 and data["legal_list_us"] > 0
    assert 15 < data["mean_game_length"] < 21
    code, _, err = run(capsys, "bench", "--games", "0")
    assert code == 2 and "--games" in err
    code, _, err = run(capsys, "bench", "--games", "10000000000")  # would allocate 400 GB of results
    assert code == 2 and "--games 10000000000" in err and "at most" in err


def test_lits_entry_point_runs_moves() -> None:
    proc = subprocess.run([sys.executable, "-m", "core.cli", "moves", DEFAULT, "--json"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0 and len(json.loads(proc.stdout)["moves"]) == 1976
