"""Sealing a season as a host does it: a published fingerprint never changes silently, every commitment
stays revealable whatever fails, slot ids leak nothing, and players' tools accept what they paste."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

import core.seal.sealing as sealing
from core.board.model import Board
from core.cli import EXIT_NOT_COMPARED, main
from core.seal import PRIVATE_MAP_NAME, sealcheck
from tests.paths import BOARDS, DATA, REPO

BOARD_FILES = [str(BOARDS / name) for name in ("default.yaml", "dense.yaml", "sparse.yaml")]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def listed(folder: Path) -> dict[str, str]:
    return sealcheck.parse_sums((folder / "SHA256SUMS").read_text())


def assert_every_commitment_revealable(folder: Path) -> None:
    """Each digest in SHA256SUMS belongs to a complete file in the folder (under its name or a temporary one)."""
    digests = {hashlib.sha256(p.read_bytes()).hexdigest(): p.name for p in folder.iterdir() if p.is_file()}
    for name, digest in listed(folder).items():
        assert digest in digests, f"{name} is listed but no file in {folder} has its digest"


@pytest.fixture()
def season(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    code, _, err = run(capsys, "seal", *BOARD_FILES[:2], "--season", "s1", "--out", str(tmp_path / "season"))
    assert code == 0, err
    return tmp_path / "season"


# -- neutral slot ids and the private map ---------------------------------------------------------

def test_default_slots_are_neutral_and_the_map_is_private(season: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert listed(season).keys() == {"dm1.lits-sealed", "dm2.lits-sealed"}
    sums = (season / "SHA256SUMS").read_text()
    assert "default" not in sums and "dense" not in sums and PRIVATE_MAP_NAME not in sums
    rows = [line.split("\t") for line in (season / PRIVATE_MAP_NAME).read_text().splitlines()
            if not line.startswith("#")]
    assert [(r[0], r[2], r[3]) for r in rows] == [("dm1", BOARD_FILES[0], "Crossroads"),
                                                  ("dm2", BOARD_FILES[1], "Thicket")]
    if os.name == "posix":
        assert (season / PRIVATE_MAP_NAME).stat().st_mode & 0o077 == 0
    # --append numbers on after the season's last slot and adds to the map
    code, out, _ = run(capsys, "seal", BOARD_FILES[2], "--season", "s1", "--out", str(season), "--append")
    assert code == 0
    assert "slot dm3:" in out and "BACK THEM UP: a lost sealed file can never be proven" in out
    assert "never publish it" in out
    assert listed(season).keys() == {"dm1.lits-sealed", "dm2.lits-sealed", "dm3.lits-sealed"}
    assert (season / PRIVATE_MAP_NAME).read_text().count("\tOpen Field\n") == 1


def test_default_slot_numbers_continue_after_the_highest(tmp_path: Path) -> None:
    (tmp_path / "dm7.lits-sealed").write_text("x")
    (tmp_path / "SHA256SUMS").write_text("ab" * 32 + " DM12.lits-sealed\n" + "cd" * 32 + "  spare.lits-sealed\n")
    assert sealing.default_slots(tmp_path, 2) == ["dm13", "dm14"]
    assert sealing.default_slots(tmp_path / "new", 3) == ["dm1", "dm2", "dm3"]


# -- a published SHA256SUMS never changes silently ------------------------------------------------------

def test_sealing_into_a_published_season_needs_append(season: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot(season)
    old_fingerprint = hashlib.sha256(before["SHA256SUMS"]).hexdigest()
    code, out, err = run(capsys, "seal", BOARD_FILES[2], "--season", "s1", "--out", str(season))
    assert code == 1 and out == ""
    assert "SHA256SUMS: already exists" in err and "--append" in err and "fingerprint" in err
    assert snapshot(season) == before
    code, out, err = run(capsys, "seal", BOARD_FILES[2], "--season", "s1", "--out", str(season), "--append")
    assert code == 0, err
    new_fingerprint = hashlib.sha256((season / "SHA256SUMS").read_bytes()).hexdigest()
    assert f"the season fingerprint published before ({old_fingerprint}) no longer matches" in out
    assert f"season fingerprint (SHA-256 of SHA256SUMS): {new_fingerprint}" in out
    assert (season / "SHA256SUMS").read_bytes().startswith(before["SHA256SUMS"])


def test_a_new_season_folder_says_nothing_about_a_changed_fingerprint(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "seal", BOARD_FILES[0], "--season", "s1", "--out", str(tmp_path / "new"))
    assert code == 0 and "no longer matches" not in out


# -- a failure at any moment keeps every commitment revealable ----------------------------------------

def _failing_after(calls: int, real: object) -> object:
    count = {"n": 0}

    def fail(*args: object, **kwargs: object) -> object:
        count["n"] += 1
        if count["n"] > calls:
            raise OSError(28, "No space left on device")
        return real(*args, **kwargs)  # type: ignore[operator]

    return fail


@pytest.mark.parametrize("writes_before_failure", [0, 1, 2])
def test_a_failed_write_leaves_the_season_untouched(season: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str],
                                                    writes_before_failure: int) -> None:
    """Re-seal dm1 with --force plus a new slot; the disk fills up after N complete temporary files."""
    before = snapshot(season)
    monkeypatch.setattr(sealing, "stage_bytes", _failing_after(writes_before_failure, sealing.stage_bytes))
    code, _, err = run(capsys, "seal", BOARD_FILES[2], BOARD_FILES[0], "--season", "s1", "--out", str(season),
                       "--slot", "dm1", "--slot", "dm9", "--force", "--append")
    assert code == 5 and "the disk is full" in err and "nothing was changed" in err  # Exit.DISK_FULL
    assert snapshot(season) == before  # no temporary file left, the committed dm1 untouched


@pytest.mark.parametrize("renames_before_failure", [0, 1, 2])
def test_a_failed_rename_never_loses_a_listed_file(season: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str],
                                                   renames_before_failure: int) -> None:
    before = snapshot(season)
    monkeypatch.setattr(sealing.os, "replace", _failing_after(renames_before_failure, os.replace))
    code, _, err = run(capsys, "seal", BOARD_FILES[2], BOARD_FILES[0], "--season", "s1", "--out", str(season),
                       "--slot", "dm1", "--slot", "dm9", "--force", "--append")
    assert code in (1, 2, 5) and "Traceback" not in err
    assert_every_commitment_revealable(season)
    if renames_before_failure == 0:  # SHA256SUMS is renamed first: nothing committed yet, nothing changed
        assert snapshot(season) == before
    else:
        assert "rename them by hand" in err
        assert hashlib.sha256(before["dm1.lits-sealed"]).hexdigest() != listed(season)["dm1.lits-sealed"]


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_FSIZE"), reason="needs RLIMIT_FSIZE")
def test_a_real_file_size_limit_in_the_middle(season: Path, tmp_path: Path) -> None:
    """The kernel refuses the write of the grown SHA256SUMS after the sealed files were written."""
    sums = season / "SHA256SUMS"
    sums.write_bytes(sums.read_bytes() + b"".join(b"%064x  spare-%04d.lits-sealed\n" % (i, i) for i in range(40)))
    before = snapshot(season)
    limit = len(sums.read_bytes()) + 20  # the sealed files (about 420 bytes) fit, the new SHA256SUMS does not

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = subprocess.run([sys.executable, "-m", "core.cli", "seal", BOARD_FILES[2], "--season", "s1",
                           "--out", str(season), "--append"], preexec_fn=cap, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "cannot write" in proc.stderr and "Traceback" not in proc.stderr
    assert snapshot(season) == before


# -- a reveal bundle is posted whole -------------------------------------------------------------------

def test_a_bundle_never_goes_into_the_season_folder(season: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Posting that folder would publish the slot map and the boards of the matches still to come."""
    run(capsys, "seal", BOARD_FILES[2], "--season", "s1", "--out", str(season), "--append")
    before = snapshot(season)
    sealed, sums = str(season / "dm1.lits-sealed"), str(season / "SHA256SUMS")
    example = os.path.join(str(tmp_path), "reveal-dm1") + os.sep
    for force in ([], ["--force"]):
        code, out, err = run(capsys, "reveal-bundle", sealed, "--sums", sums, "--out", str(season), *force)
        assert (code, out) == (2, "")
        assert err == (f"lits reveal-bundle: {season}: this folder holds PRIVATE-slots.txt and the unrevealed "
                       f"sealed files dm2.lits-sealed, dm3.lits-sealed; choose a new folder for the bundle, e.g. "
                       f"{example}\n")
    private = (season / PRIVATE_MAP_NAME).read_bytes()
    (season / PRIVATE_MAP_NAME).unlink()
    code, _, err = run(capsys, "reveal-bundle", sealed, str(season / "dm2.lits-sealed"), "--sums", sums,
                       "--out", str(season))
    assert code == 2 and err == (f"lits reveal-bundle: {season}: this folder holds the unrevealed sealed file "
                                 "dm3.lits-sealed; choose a new folder for the bundle, e.g. "
                                 f"{os.path.join(str(tmp_path), 'reveal-dm1-dm2')}{os.sep}\n")
    (season / PRIVATE_MAP_NAME).write_bytes(private)
    assert snapshot(season) == before
    # any other folder: files it already holds stay as they are
    bundle = tmp_path / "reveal-dm1"
    bundle.mkdir()
    (bundle / "notes.txt").write_text("for the game room\n")
    code, _, err = run(capsys, "reveal-bundle", sealed, "--sums", sums, "--out", str(bundle))
    assert code == 0, err
    assert sorted(p.name for p in bundle.iterdir()) == ["SHA256SUMS", "VERIFY.txt", "dm1.lits-sealed", "notes.txt",
                                                        "verify_sealed.py"]


# -- what players paste and run -----------------------------------------------------------------------

def test_one_space_between_digest_and_name_is_accepted(season: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    pasted = tmp_path / "SHA256SUMS"
    pasted.write_text("".join(f"  {digest} {name}\n" for name, digest in listed(season).items()))
    sealed = str(season / "dm2.lits-sealed")
    code, out, _ = run(capsys, "verify", sealed, "--sums", str(pasted))
    assert code == 0 and "OK, matches the published digest" in out
    proc = subprocess.run([sys.executable, str(REPO / "core" / "seal" / "sealcheck.py"), sealed, "--sums",
                           str(pasted)], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0 and "OK, matches" in proc.stdout
    # and sealing into such a folder replaces the right line
    (season / "SHA256SUMS").write_bytes(pasted.read_bytes())
    code, _, err = run(capsys, "seal", BOARD_FILES[2], "--season", "s1", "--out", str(season), "--slot", "dm2",
                       "--force", "--append")
    assert code == 0, err
    lines = (season / "SHA256SUMS").read_text().splitlines()
    assert lines[0].startswith("  ") and lines[1].endswith("  dm2.lits-sealed") and len(lines) == 2


def test_verify_without_a_digest_says_nothing_was_compared(season: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "verify", str(season / "dm1.lits-sealed"))
    assert code == EXIT_NOT_COMPARED == 4
    assert err.count("\n") == 1 and "nothing was compared" in err and "--sums" in err
    assert "well-formed (no published digest given)" in out
    code, out, err = run(capsys, "verify", str(season / "dm1.lits-sealed"), "--json")
    assert code == 4 and json.loads(out)["compared"] is False and "nothing was compared" in err
    proc = subprocess.run([sys.executable, str(REPO / "core" / "seal" / "sealcheck.py"),
                           str(season / "dm1.lits-sealed")], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 4 and "nothing was compared" in proc.stderr
    # a malformed file is still a problem, compared or not
    (season / "bad.lits-sealed").write_bytes(b"nonsense\n")
    code, _, _ = run(capsys, "verify", str(season / "dm1.lits-sealed"), str(season / "bad.lits-sealed"))
    assert code == 1


def test_exit_codes_of_the_standalone_verifier_match_the_command_line() -> None:
    import core.cli as cli

    assert (sealcheck.EXIT_OK, sealcheck.EXIT_PROBLEMS, sealcheck.EXIT_UNREADABLE, sealcheck.EXIT_NOT_COMPARED) == (
        cli.EXIT_OK, cli.EXIT_PROBLEMS, cli.EXIT_UNREADABLE, cli.EXIT_NOT_COMPARED)


@pytest.mark.skipif(sys.platform != "linux", reason="Linux file names are bytes")
def test_verify_a_file_name_that_is_not_utf8(season: Path, tmp_path: Path) -> None:
    odd = os.path.join(os.fsencode(tmp_path), b"m\xff.lits-sealed")
    with open(odd, "wb") as handle:
        handle.write((season / "dm1.lits-sealed").read_bytes())
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "PYTHONPATH": str(REPO)}
    commands = {"m\\xff.lits-sealed": [sys.executable, "-m", "core.cli", "verify"],
                "m\\udcff.lits-sealed": [sys.executable, str(REPO / "core/seal/sealcheck.py")]}  # stdlib-only
    for shown, command in commands.items():
        proc = subprocess.run([*command, odd, "--sums", str(season / "SHA256SUMS")], env=env,
                              capture_output=True, timeout=60, check=False)
        out, err = proc.stdout.decode(), proc.stderr.decode()
        assert proc.returncode == 1, out + err  # not listed under that name
        assert "Traceback" not in err and f"{shown}: FAILED: not listed in SHA256SUMS" in out


# -- the wrong kind of file -----------------------------------------------------------------------------

def test_a_board_file_given_to_verify_or_unseal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = str(BOARDS / "default.yaml")
    code, out, _ = run(capsys, "verify", board, "--digest", "0" * 64)
    assert code == 2
    assert "FAILED: an editable board file, not a sealed board" in out
    assert "check it with `lits validate`, or seal it with `lits seal`" in out
    code, _, err = run(capsys, "unseal", board, "-o", str(tmp_path / "x.yaml"))
    assert code == 2 and "`lits validate`" in err and not (tmp_path / "x.yaml").exists()


PNG = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("data", [PNG + bytes(200), PNG + bytes(range(256)) * 240], ids=["small", "large"])
def test_a_picture_given_to_verify_unseal_or_reveal_bundle(season: Path, tmp_path: Path, data: bytes,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Its bytes were explained as CRLF damage (a small one) or as an oversize sealed file (a large one)."""
    picture = str(tmp_path / "r.png")
    Path(picture).write_bytes(data)
    said = f"{picture} is a binary file (a PNG picture), not a sealed board file\n"
    sums = str(season / "SHA256SUMS")
    for argv in (["verify", picture, "--sums", sums], ["unseal", picture, "-o", str(tmp_path / "r.yaml")],
                 ["unseal", picture, "-o", str(tmp_path / "r.yaml"), "--sums", sums],
                 ["reveal-bundle", picture, "--sums", sums, "--out", str(tmp_path / "bundle")]):
        code, out, err = run(capsys, *argv)
        assert (code, out, err) == (2, "", f"lits {argv[0]}: {said}"), argv
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.png", "season"]
    proc = subprocess.run([sys.executable, str(REPO / "core" / "seal" / "sealcheck.py"), picture, "--sums", sums],
                          capture_output=True, text=True, timeout=60, check=False)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", said)


def test_other_binary_files_are_named_and_damaged_sealed_files_keep_their_diagnosis(
        season: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kinds = {"p.jpg": (b"\xff\xd8\xff\xe0\x00\x10JFIF", " (a JPEG picture)"),
             "p.gif": (b"GIF89a\x01\x00", " (a GIF picture)"),
             "p.pdf": (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", " (a PDF document)"),
             "p.zip": (b"PK\x03\x04\x14\x00", " (a ZIP archive)"), "nul.txt": (b"dm1\x00\x00", ""),
             "latin1.txt": (b"caf\xe9 au lait\n", "")}
    for name, (data, kind) in kinds.items():
        (tmp_path / name).write_bytes(data)
        code, out, _ = run(capsys, "verify", str(tmp_path / name), "--digest", "0" * 64, "--json")
        assert code == 2 and json.loads(out)["files"][0]["problems"] == [
            {"code": "binary", "line": None, "message": f"{tmp_path / name} is a binary file{kind}, not a sealed "
                                                        "board file"}]
    data = (season / "dm1.lits-sealed").read_bytes()
    damaged = tmp_path / "dm1.lits-sealed"
    for bad, problem in ((data.replace(b"\n", b"\r\n"), "Windows line endings (CRLF)"),
                         (b"\xff\xfe" + data.decode().encode("utf-16-le"), "saved as UTF-16 text"),
                         (data.decode().encode("utf-16-be"), "byte 0x00 is not printable ASCII"),
                         (data.replace(b"lits-sealed-board", b"lits-s\xe9aled-board"), "byte 0xe9 is not printable")):
        damaged.write_bytes(bad)
        code, out, _ = run(capsys, "verify", str(damaged), "--sums", str(season / "SHA256SUMS"))
        assert code == 1 and "FAILED: not a valid sealed board" in out and problem in out, out


def test_a_board_file_given_to_reveal_bundle(season: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Named as the editable board it is (exit 2), not as a sealed file of another season ("not listed")."""
    board = BOARD_FILES[0]
    code, out, err = run(capsys, "reveal-bundle", board, "--sums", str(season / "SHA256SUMS"),
                         "--out", str(tmp_path / "bundle"))
    assert (code, out) == (2, "")
    assert err == (f"lits reveal-bundle: {board} is an editable board file, not a sealed one: seal it with "
                   "`lits seal`\n")
    assert not (tmp_path / "bundle").exists()


def test_a_sealed_file_given_to_seal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sealed = str(DATA / "seal" / "match-01.lits-sealed")
    code, _, err = run(capsys, "seal", sealed, "--season", "s", "--out", str(tmp_path / "o"))
    assert code == 2 and "this is a sealed board file" in err and "`lits unseal" in err
    assert not (tmp_path / "o").exists()


def test_a_folder_given_to_unseal_o(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sealed = str(DATA / "seal" / "match-01.lits-sealed")
    for extra in ([], ["--force"]):
        code, _, err = run(capsys, "unseal", sealed, "-o", str(tmp_path), *extra)
        assert code == 2
        assert f"{tmp_path}: is a folder; -o takes the name of the file to write, e.g. " in err
        assert os.path.join(str(tmp_path), "match-01.yaml") in err
    assert list(tmp_path.iterdir()) == []


def test_seal_refuses_an_unplayable_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from core.board.boardfile import save_board
    from core.board.model import GameParams

    path = tmp_path / "empty-supply.yaml"
    save_board(Board.random(6, 4, seed=1, params=GameParams(supply=(0, 0, 0, 0))), path)
    code, _, err = run(capsys, "seal", str(path), "--season", "s", "--out", str(tmp_path / "o"))
    assert code == 1 and "supply is empty" in err and not (tmp_path / "o").exists()
