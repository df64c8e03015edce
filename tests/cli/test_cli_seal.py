"""``lits seal``, ``verify``, ``reveal-bundle`` and ``unseal`` as a host and a player use them."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from core.board.boardfile import load_board, save_board
from core.board.model import Board, GameParams, Symbol
from core.cli import main

HEX64 = re.compile(r"\b[0-9a-f]{64}\b")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def boards(tmp_path: Path) -> list[Path]:
    paths = []
    for i, size in enumerate((6, 8)):
        board = Board.random(size, 5, seed=i, params=GameParams(first=Symbol.X))
        path = tmp_path / f"match-{i + 1}.yaml"
        save_board(board, path)
        paths.append(path)
    return paths


@pytest.fixture()
def sealed_dir(tmp_path: Path, boards: list[Path], capsys: pytest.CaptureFixture[str]) -> Path:
    code, _, err = run(capsys, "seal", *map(str, boards), "--season", "s2026", "--out", str(tmp_path / "out"),
                       "--slot", "match-1", "--slot", "match-2")
    assert code == 0, err
    return tmp_path / "out"


def test_seal_prints_digests_check_codes_and_fingerprint(tmp_path: Path, boards: list[Path],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "seal", *map(str, boards), "--season", "s2026", "--out", str(out_dir))
    assert code == 0 and err == ""
    sums = (out_dir / "SHA256SUMS").read_bytes()
    for slot in ("dm1", "dm2"):  # neutral default slot ids: board file names never reach SHA256SUMS
        digest = hashlib.sha256((out_dir / f"{slot}.lits-sealed").read_bytes()).hexdigest()
        assert f"{digest}  {slot}.lits-sealed\n".encode() in sums
        assert f"SHA-256     {digest}" in out
        groups = " ".join(digest[i:i + 4] for i in range(0, 32, 4))
        assert f"check code  {groups}" in out
    assert f"season fingerprint (SHA-256 of SHA256SUMS): {hashlib.sha256(sums).hexdigest()}" in out


def test_seal_warns_when_two_slots_hold_the_same_board(tmp_path: Path, boards: list[Path],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    renamed = tmp_path / "renamed.yaml"
    board = load_board(boards[0])
    board.name = "another name"  # names and notes aside, it is the same game
    save_board(board, renamed)
    code, out, _ = run(capsys, "seal", str(boards[0]), str(boards[1]), str(renamed), "--season", "s",
                       "--out", str(tmp_path / "o"))
    assert code == 0
    warnings = [line for line in out.splitlines() if "warning:" in line]
    assert warnings == [f"{renamed}: warning: slot dm3 holds the same board as slot dm1 ({boards[0]}): the same grid "
                        "and settings"]


def test_seal_uses_slot_ids_in_order(tmp_path: Path, boards: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run(capsys, "seal", *map(str, boards), "--season", "s", "--out", str(tmp_path / "o"),
                     "--slot", "final", "--slot", "spare.1")
    assert code == 0
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["PRIVATE-slots.txt", "SHA256SUMS",
                                                                   "final.lits-sealed", "spare.1.lits-sealed"]
    text = (tmp_path / "o" / "final.lits-sealed").read_text()
    assert "\nslot final\n" in text and "\nsize 6\n" in text and "\nfirst X\n" in text


def test_seal_never_overwrites_without_force(sealed_dir: Path, boards: list[Path],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    before = (sealed_dir / "match-1.lits-sealed").read_bytes()
    code, out, err = run(capsys, "seal", str(boards[0]), "--season", "s2026", "--out", str(sealed_dir),
                         "--slot", "match-1")
    assert code == 1 and out == ""
    assert "match-1.lits-sealed: already exists" in err and "--force" in err
    assert (sealed_dir / "match-1.lits-sealed").read_bytes() == before
    code, _, err = run(capsys, "seal", str(boards[0]), "--season", "s2026", "--out", str(sealed_dir), "--force",
                       "--slot", "match-1")
    assert code == 1 and "--append" in err, "replacing a slot changes the fingerprint: --force alone is refused"
    assert (sealed_dir / "match-1.lits-sealed").read_bytes() == before
    code, out, _ = run(capsys, "seal", str(boards[0]), "--season", "s2026", "--out", str(sealed_dir), "--force",
                       "--append", "--slot", "match-1")
    assert code == 0 and (sealed_dir / "match-1.lits-sealed").read_bytes() != before
    assert "no longer" in out and "fingerprint" in out


def test_seal_reports_bad_input_by_name(tmp_path: Path, boards: list[Path],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    broken = Board(size=4)
    broken.set_raw(0, Symbol.O)
    save_board(broken, tmp_path / "broken.yaml")
    out_dir = str(tmp_path / "o")
    code, _, err = run(capsys, "seal", str(tmp_path / "broken.yaml"), "--season", "s", "--out", out_dir)
    assert code == 1 and "broken.yaml" in err and "A1 holds O but its partner D4 is empty" in err
    code, _, err = run(capsys, "seal", str(tmp_path / "nope.yaml"), "--season", "s", "--out", out_dir)
    assert code == 2 and "nope.yaml" in err and "no such file" in err
    code, _, err = run(capsys, "seal", str(boards[0]), "--season", "bad season", "--out", out_dir)
    assert code == 2 and "season id 'bad season'" in err
    code, _, err = run(capsys, "seal", *map(str, boards), "--season", "s", "--out", out_dir, "--slot", "one")
    assert code == 2 and "2 board(s) but 1 --slot" in err
    save_board(Board.random(4, 2, seed=1), tmp_path / "my board.yaml")
    code, _, err = run(capsys, "seal", str(tmp_path / "my board.yaml"), "--season", "s", "--out", out_dir,
                       "--slot", "my board")
    assert code == 2 and "slot id 'my board' is not allowed" in err
    assert not (tmp_path / "o").exists()
    assert "Traceback" not in err


def test_verify_ok_prints_the_grid_with_coordinates(sealed_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sealed = sealed_dir / "match-1.lits-sealed"
    code, out, _ = run(capsys, "verify", str(sealed), "--sums", str(sealed_dir / "SHA256SUMS"))
    assert code == 0
    assert "OK, matches the published digest" in out
    rows = load_board(sealed_dir.parent / "match-1.yaml").rows()
    assert "     A B C D E F\n" in out
    for number, row in enumerate(rows, start=1):
        assert f"\n  {number}  {' '.join(row)}\n" in out
    digest = hashlib.sha256(sealed.read_bytes()).hexdigest()
    code, _, _ = run(capsys, "verify", str(sealed), "--digest", digest.upper())
    assert code == 0


def test_verify_exit_codes(sealed_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sums = str(sealed_dir / "SHA256SUMS")
    good = sealed_dir / "match-1.lits-sealed"
    damaged = tmp_path / "match-1.lits-sealed"
    damaged.write_bytes(good.read_bytes().replace(b"\n", b"\r\n"))
    code, out, _ = run(capsys, "verify", str(damaged), "--sums", sums)
    assert code == 1 and "CRLF" in out
    swapped = tmp_path / "swap" / "match-1.lits-sealed"
    swapped.parent.mkdir()
    swapped.write_bytes((sealed_dir / "match-2.lits-sealed").read_bytes())
    code, out, _ = run(capsys, "verify", str(swapped), "--sums", sums)
    assert code == 1 and "FAILED: digest mismatch" in out
    code, _, err = run(capsys, "verify", str(good), str(tmp_path / "missing.lits-sealed"), "--sums", sums)
    assert code == 2 and "missing.lits-sealed: cannot be read" in err
    code, _, err = run(capsys, "verify", str(good), "--digest", "abcd " * 8)
    assert code == 2 and "--digest" in err and "check code" in err
    code, _, err = run(capsys, "verify", str(good), "--sums", str(tmp_path / "nosums"))
    assert code == 2 and "nosums" in err
    (tmp_path / "badsums").write_text("hello\n")
    code, _, err = run(capsys, "verify", str(good), "--sums", str(tmp_path / "badsums"))
    assert code == 2 and "badsums: line 1" in err
    code, _, err = run(capsys, "verify", str(sealed_dir))
    assert code == 2 and "is a folder" in err
    with pytest.raises(SystemExit) as info:
        main(["verify", str(good), "--sums", sums, "--digest", "0" * 64])
    assert info.value.code == 2


def test_verify_json(sealed_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "match-2.lits-sealed"
    bad.write_bytes(b"\xef\xbb\xbf" + (sealed_dir / "match-2.lits-sealed").read_bytes())
    code, out, _ = run(capsys, "verify", str(sealed_dir / "match-1.lits-sealed"), str(bad), "--json",
                       "--sums", str(sealed_dir / "SHA256SUMS"))
    report = json.loads(out)
    assert code == 1 and report["ok"] is False
    first, second = report["files"]
    assert first["ok"] and first["matched"] and first["board"]["slot"] == "match-1"
    assert first["board"]["first"] == "X" and len(first["board"]["grid"]) == 6
    assert not second["ok"] and [p["code"] for p in second["problems"]] == ["bom"]
    assert HEX64.fullmatch(second["digest"])


def test_verify_names_a_renamed_file(sealed_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    renamed = tmp_path / "copy.lits-sealed"
    renamed.write_bytes((sealed_dir / "match-2.lits-sealed").read_bytes())
    code, out, _ = run(capsys, "verify", str(renamed), "--sums", str(sealed_dir / "SHA256SUMS"))
    assert code == 1 and "rename it back to match-2.lits-sealed" in out


def test_verify_finds_entries_listed_with_a_folder(sealed_dir: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    sums = tmp_path / "SHA256SUMS.paths"
    sums.write_text((sealed_dir / "SHA256SUMS").read_text().replace("  match-", "  out/match-"))
    code, out, _ = run(capsys, "verify", str(sealed_dir / "match-1.lits-sealed"), "--sums", str(sums))
    assert code == 0 and "OK, matches" in out


def test_reveal_bundle_then_verify_from_the_bundle(sealed_dir: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    bundle = tmp_path / "bundle"
    code, out, err = run(capsys, "reveal-bundle", str(sealed_dir / "match-2.lits-sealed"),
                         "--sums", str(sealed_dir / "SHA256SUMS"), "--out", str(bundle))
    assert code == 0, err
    assert sorted(p.name for p in bundle.iterdir()) == ["SHA256SUMS", "VERIFY.txt", "match-2.lits-sealed",
                                                        "verify_sealed.py"]
    assert "season fingerprint" in out
    code, _, _ = run(capsys, "verify", str(bundle / "match-2.lits-sealed"), "--sums", str(bundle / "SHA256SUMS"))
    assert code == 0
    (tmp_path / "other.lits-sealed").write_bytes(b"nonsense\n")
    code, _, err = run(capsys, "reveal-bundle", str(tmp_path / "other.lits-sealed"),
                       "--sums", str(sealed_dir / "SHA256SUMS"), "--out", str(tmp_path / "b2"))
    assert code == 1 and "not listed" in err and not (tmp_path / "b2").exists()


def test_unseal_writes_an_editable_board(sealed_dir: Path, boards: list[Path], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "back.yaml"
    sealed = str(sealed_dir / "match-2.lits-sealed")
    code, out, err = run(capsys, "unseal", sealed, "-o", str(target), "--sums", str(sealed_dir / "SHA256SUMS"))
    assert code == 0, err
    original, back = load_board(boards[1]), load_board(target)
    assert back.rows() == original.rows() and back.params == original.params
    assert "slot match-2" in out
    code, _, err = run(capsys, "unseal", sealed, "-o", str(target))
    assert code == 1 and "already exists" in err
    code, _, _ = run(capsys, "unseal", sealed, "-o", str(target), "--force")
    assert code == 0


def test_unseal_refuses_damaged_or_foreign_files(sealed_dir: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    data = (sealed_dir / "match-1.lits-sealed").read_bytes()
    cut = tmp_path / "match-1.lits-sealed"
    cut.write_bytes(data[: len(data) - 10])
    code, _, err = run(capsys, "unseal", str(cut), "-o", str(tmp_path / "x.yaml"))
    assert code == 1 and "truncated" in err and not (tmp_path / "x.yaml").exists()
    code, _, err = run(capsys, "unseal", str(sealed_dir / "match-1.lits-sealed"), "-o", str(tmp_path / "x.yaml"),
                       "--digest", "0" * 64)
    assert code == 1 and "digest mismatch" in err
    code, _, err = run(capsys, "unseal", str(tmp_path / "none.lits-sealed"), "-o", str(tmp_path / "x.yaml"))
    assert code == 2 and "cannot be read" in err
    code, _, err = run(capsys, "unseal", str(sealed_dir / "match-1.lits-sealed"), "-o", str(tmp_path / "x.yaml"),
                       "--digest", "zz")
    assert code == 2 and "--digest" in err
    assert not (tmp_path / "x.yaml").exists()


def test_unseal_checks_the_very_bytes_it_saves_against_the_sums(sealed_dir: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The file is read once for saving and once by the SHA256SUMS check; if it changes in between (or the
    two reads differ), the board saved must still be the one that matches the published digest."""
    import core.cli.seal as cli_seal
    from core.seal import sealcheck

    other = (sealed_dir / "match-1.lits-sealed").read_bytes()
    monkeypatch.setattr(cli_seal, "read_sealed", lambda _path: sealcheck.FileBytes(other, len(other),
                                                                                  sealcheck.digest_hex(other)))
    target = tmp_path / "back.yaml"
    code, _, err = run(capsys, "unseal", str(sealed_dir / "match-2.lits-sealed"), "-o", str(target),
                       "--sums", str(sealed_dir / "SHA256SUMS"))
    assert code == 1 and "digest mismatch" in err
    assert not target.exists()


def test_unseal_never_writes_over_a_sealed_file(sealed_dir: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The sealed file is the only proof of its board: --force must not turn it (or another one) into YAML."""
    sealed = sealed_dir / "match-1.lits-sealed"
    before = {p.name: p.read_bytes() for p in sealed_dir.iterdir()}
    (tmp_path / "hard.txt").hardlink_to(sealed)
    for target in (str(sealed), str(sealed_dir / ".." / "out" / "match-1.lits-sealed"), str(tmp_path / "hard.txt")):
        code, out, err = run(capsys, "unseal", str(sealed), "-o", target, "--force")
        assert code == 2 and out == ""
        example = str(Path(target).with_suffix(".yaml"))
        assert err == (f"lits unseal: {target}: refusing to write over the sealed file being read; give another "
                       f"name, e.g. {example}\n")
    for target in (sealed_dir / "match-2.lits-sealed", tmp_path / "new.LITS-SEALED"):
        code, _, err = run(capsys, "unseal", str(sealed), "-o", str(target), "--force")
        assert code == 2
        assert err == (f"lits unseal: {target}: an editable board file must not carry the sealed file's extension "
                       f".lits-sealed; give another name, e.g. {target.with_suffix('.yaml')}\n")
    assert {p.name: p.read_bytes() for p in sealed_dir.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hard.txt", "match-1.yaml", "match-2.yaml", "out"]
