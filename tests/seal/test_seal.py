"""Sealed boards: the v1 format, its verifier, sealing, SHA256SUMS and reveal bundles."""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.board import geometry
from core.board import model as board_module
from core.board.boardfile import load_board, save_board
from core.board.model import Board, GameParams, Symbol
from core.seal import sealcheck
from core.seal.sealcheck import SealedFields, render
from core.seal.sealing import (
    SealError,
    board_from_fields,
    parse,
    seal_board,
    verify_bytes,
    write_bundle,
    write_sealed,
)
from tests.paths import DATA as TEST_DATA
from tests.paths import REPO

DATA = TEST_DATA / "seal"
ROOT = REPO
HEX = re.compile(r"\b[0-9a-f]{64}\b")

# The published known-answer digests of format v1. They pin the format forever:
# if a change makes these fail, it is a new format version, not a fix.
KAT_DIGESTS = {
    "match-01": "248250e70c998ceda8661f565a32f1a2f7fd7a93531a63daacecf852c730dfdb",
    "spare-1": "fa62b37ab0dbaa149ccae8a2d1bdbaede25cfe7b800bff59eb4789cb7ec41543",
}
KAT_FINGERPRINT = "e4b12218fea989171238a2b2e90e0f66c0c42eae5fa4fbb66f7375d92e4d485d"


def small_board(seed: int = 3, size: int = 6, pairs: int = 6) -> Board:
    return Board.random(size, pairs, seed=seed)


def sealed_bytes(seed: int = 3) -> tuple[bytes, str]:
    sealed = seal_board(small_board(seed), "s2026", "m01")
    return sealed.data, sealed.digest


def codes(data: bytes, expected: str | None = None) -> list[str]:
    return [p.code for p in verify_bytes(data, expected).problems]


# -- known-answer vectors -------------------------------------------------------------

def test_kat_vectors_reproduce_exact_bytes_and_digests() -> None:
    kat = json.loads((DATA / "kat.json").read_text())
    assert {v["slot"] for v in kat["vectors"]} == set(KAT_DIGESTS)
    for vector in kat["vectors"]:
        board = load_board(DATA / vector["board"])
        sealed = seal_board(board, kat["season"], vector["slot"], nonce=bytes.fromhex(vector["nonce"]))
        committed = (DATA / vector["sealed"]).read_bytes()
        assert sealed.data == committed, vector["sealed"]
        assert sealed.digest == KAT_DIGESTS[vector["slot"]] == vector["sha256"]
        assert hashlib.sha256(committed).hexdigest() == KAT_DIGESTS[vector["slot"]]
        assert verify_bytes(committed, KAT_DIGESTS[vector["slot"]]).ok


def test_kat_files_survived_git_byte_for_byte() -> None:
    """A checkout that converted line endings would break every published digest."""
    for path in DATA.glob("*.lits-sealed"):
        data = path.read_bytes()
        assert b"\r" not in data and data.endswith(b"\n") and not data.endswith(b"\n\n")
        assert data.startswith(b"lits-sealed-board v1\ngame battle-of-lits\nsize ")
    sums = (DATA / "SHA256SUMS").read_bytes()
    assert hashlib.sha256(sums).hexdigest() == KAT_FINGERPRINT
    assert sealcheck.parse_sums(sums.decode()) == {f"{slot}.lits-sealed": d for slot, d in KAT_DIGESTS.items()}


def test_kat_parses_to_the_board_file_contents() -> None:
    fields = parse((DATA / "match-01.lits-sealed").read_bytes())
    board = load_board(DATA / "match-01.yaml")
    assert fields.rows == tuple(board.rows())
    assert (fields.size, fields.supply, fields.first, fields.pie) == (12, (4, 5, 6, 3), "X", False)
    assert (fields.turn_seconds, fields.bank_seconds, fields.season, fields.slot) == (45, 600, "kat-2026", "match-01")
    assert fields.nonce == bytes(range(32)).hex()


def test_gitattributes_keep_sealed_files_binary_clean() -> None:
    text = (ROOT / ".gitattributes").read_text()
    assert "*.lits-sealed -text" in text and "tests/data/seal/* -text" in text
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    out = subprocess.run(["git", "check-attr", "text", "--", "x/y.lits-sealed", "tests/data/seal/SHA256SUMS"],
                         cwd=ROOT, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    assert out.stdout.count(": text: unset") == 2, out.stdout


def test_verifier_limits_agree_with_the_board_model() -> None:
    assert sealcheck.MIN_SIZE == geometry.MIN_SIZE and sealcheck.MAX_SIZE == geometry.MAX_SIZE
    assert sealcheck.MAX_SUPPLY == board_module.MAX_SUPPLY
    assert sealcheck.MAX_CLOCK_SECONDS == board_module.MAX_CLOCK_SECONDS
    assert sealcheck.PIECE_TYPES == board_module.PIECE_TYPES


# -- round trip and hiding ------------------------------------------------------------

def test_seal_verify_round_trip_restores_board_and_params() -> None:
    params = GameParams(supply=(1, 0, 99, 7), first=Symbol.X, pie=False, turn_time=0, bank=86400)
    board = Board.random(10, 15, seed=11, params=params)
    sealed = seal_board(board, "season.1", "final_A-2")
    assert sealed.text.encode("ascii") == sealed.data
    result = verify_bytes(sealed.data, sealed.digest)
    assert result.ok and result.matched and result.problems == []
    assert result.fields is not None
    back = board_from_fields(result.fields)
    assert back.rows() == board.rows() and back.params == params
    assert sealed.check_code == " ".join(sealed.digest[i:i + 4] for i in range(0, 32, 4))
    assert len(sealed.check_code) == 39


def test_unsealed_board_file_round_trips(tmp_path: Path) -> None:
    board = small_board(5)
    sealed = seal_board(board, "s", "m")
    path = tmp_path / "b.yaml"
    save_board(board_from_fields(parse(sealed.data)), path)
    loaded = load_board(path)
    assert loaded.rows() == board.rows() and loaded.params == board.params


def test_same_board_sealed_twice_gives_different_digests() -> None:
    board = small_board()
    first, second = seal_board(board, "s", "m"), seal_board(board, "s", "m")
    assert first.fields.nonce != second.fields.nonce
    assert first.digest != second.digest
    assert first.fields.rows == second.fields.rows


fields_strategy = st.integers(2, 13).flatmap(lambda half: st.builds(
    lambda cells, supply, first, pie, turn, bank, season, slot, nonce: _fields(
        2 * half, cells, supply, first, pie, turn, bank, season, slot, nonce),
    st.lists(st.sampled_from(".OX"), min_size=2 * half * half, max_size=2 * half * half),
    st.tuples(*[st.integers(0, 99)] * 4),
    st.sampled_from("OX"), st.booleans(), st.integers(0, 86400), st.integers(0, 86400),
    st.from_regex(sealcheck.ID_RE, fullmatch=True), st.from_regex(sealcheck.ID_RE, fullmatch=True),
    st.binary(min_size=32, max_size=32),
))


def _fields(size: int, half_cells: list[str], supply: tuple[int, int, int, int], first: str, pie: bool, turn: int,
            bank: int, season: str, slot: str, nonce: bytes) -> SealedFields:
    mirror = {".": ".", "O": "X", "X": "O"}
    cells = half_cells + [mirror[c] for c in reversed(half_cells)]
    rows = tuple("".join(cells[r * size:(r + 1) * size]) for r in range(size))
    return SealedFields(size, supply, first, pie, turn, bank, season, slot, nonce.hex(), rows)


@settings(max_examples=60, deadline=None)
@given(fields_strategy)
def test_any_valid_fields_render_and_parse_back_exactly(fields: SealedFields) -> None:
    data = render(fields)
    assert parse(data) == fields
    assert data.isascii() and data.endswith(b"\n") and b" \n" not in data and b"\r" not in data
    assert len(data) <= sealcheck.MAX_SEALED_BYTES


# -- binding: every change fails against the published digest --------------------------

def test_flipping_any_single_grid_cell_fails() -> None:
    data, digest = sealed_bytes()
    lines = data.split(b"\n")
    first_row = sealcheck.HEADER_LINES
    checked = 0
    for r in range(6):
        for c in range(6):
            for symbol in b".OX":
                row = bytearray(lines[first_row + r])
                if row[c] == symbol:
                    continue
                row[c] = symbol
                changed = b"\n".join([*lines[:first_row + r], bytes(row), *lines[first_row + r + 1:]])
                result = verify_bytes(changed, digest)
                assert not result.ok and [p.code for p in result.problems] == ["antisymmetry"]
                checked += 1
    assert checked == 6 * 6 * 2


def test_a_consistently_edited_grid_is_well_formed_but_not_the_committed_one() -> None:
    board = small_board()
    sealed = seal_board(board, "s2026", "m01", nonce=bytes(32))
    cell = next(i for i, s in enumerate(board.cells) if s is Symbol.EMPTY)
    edited = board.copy()
    edited.paint(cell, Symbol.O)
    forged = seal_board(edited, "s2026", "m01", nonce=bytes(32)).data
    result = verify_bytes(forged, sealed.digest)
    assert result.well_formed and not result.ok
    assert [p.code for p in result.problems] == ["digest-mismatch"]
    assert "NOT the committed one" in result.problems[0].message


def test_changing_the_nonce_parameters_season_or_slot_fails() -> None:
    sealed = seal_board(small_board(), "s2026", "m01")
    f = sealed.fields
    variants = [
        replace(f, supply=(f.supply[0] + 1, *f.supply[1:])), replace(f, supply=(*f.supply[:3], f.supply[3] + 1)),
        replace(f, first="X" if f.first == "O" else "O"), replace(f, pie=not f.pie),
        replace(f, turn_seconds=f.turn_seconds + 1), replace(f, bank_seconds=f.bank_seconds - 1),
        replace(f, season="s2027"), replace(f, slot="m02"), replace(f, slot="m1"),
    ]
    for position in range(64):
        digit = "1" if f.nonce[position] != "1" else "2"
        variants.append(replace(f, nonce=f.nonce[:position] + digit + f.nonce[position + 1:]))
    for variant in variants:
        result = verify_bytes(render(variant), sealed.digest)
        assert result.well_formed and not result.ok, variant
        assert result.problems[0].code == "digest-mismatch"
    assert verify_bytes(render(f), sealed.digest).ok


# -- damage gets its own explanation ---------------------------------------------------

def test_crlf_is_explained_and_the_repair_hint_checks_the_digest() -> None:
    data, digest = sealed_bytes()
    result = verify_bytes(data.replace(b"\n", b"\r\n"), digest)
    assert [p.code for p in result.problems] == ["crlf"]
    assert "CRLF" in result.problems[0].message and result.problems[0].line == 1
    assert any("MATCHES" in n for n in result.notes)
    other = verify_bytes(data.replace(b"\n", b"\r\n"), "0" * 64)
    assert any("does not match" in n for n in other.notes)


def test_bom_is_explained() -> None:
    data, digest = sealed_bytes()
    result = verify_bytes(b"\xef\xbb\xbf" + data, digest)
    assert [p.code for p in result.problems] == ["bom"] and "byte-order mark" in result.problems[0].message
    assert codes(b"\xff\xfe" + data.decode().encode("utf-16-le")) == ["utf16"]


def test_trailing_space_is_explained_with_its_line() -> None:
    data, digest = sealed_bytes()
    lines = data.split(b"\n")
    lines[4] += b" "
    result = verify_bytes(b"\n".join(lines), digest)
    assert [(p.code, p.line) for p in result.problems] == [("trailing-space", 5)]
    assert "trailing spaces" in result.problems[0].text()
    assert codes(data.replace(b"slot m01", b"slot m01\t")) == ["trailing-space"]


def test_truncated_files_are_called_truncated() -> None:
    data, digest = sealed_bytes()
    lines = data.split(b"\n")
    cuts = [len(data) - 3, len(data) // 2, 30, len(b"\n".join(lines[:5])) + 1,
            len(b"\n".join(lines[:sealcheck.HEADER_LINES + 2])) + 1]
    for cut in cuts:
        result = verify_bytes(data[:cut], digest)
        assert [p.code for p in result.problems] == ["truncated"], cut
        assert "truncated" in result.problems[0].message
    assert codes(data[:-1]) == ["no-final-newline"]


def test_other_malformed_files_are_named() -> None:
    data, _ = sealed_bytes()
    assert codes(data.replace(b" v1\n", b" v2\n", 1)) == ["unknown-version"]
    assert codes(b"# LITS board file\ngrid:\n") == ["not-sealed"]
    assert "YAML" in verify_bytes(b"# LITS board file\ngrid:\n").problems[0].message
    assert codes(b"") == ["empty"]
    assert codes(data * 20) == ["too-large"]
    assert codes(data.replace(b"first O", b"first \xc3\x96").replace(b"first X", b"first \xc3\x96")) == ["not-ascii"]
    assert codes(data + b"\n") == ["blank-line"]
    assert codes(data + b"extra\n") == ["extra-lines"]
    assert codes(data.replace(b"size 6", b"size 8")) == ["bad-row"]
    assert codes(data.replace(b"size 6", b"size 7")) == ["bad-value"]
    assert codes(data.replace(b"size 6", b"size 06")) == ["bad-line"]
    assert codes(data.replace(b"turn-seconds 60", b"turn-seconds 90000")) == ["bad-value"]
    bad_pie = verify_bytes(data.replace(b"pie yes", b"pie maybe").replace(b"pie no", b"pie maybe"))
    assert [(p.code, p.line) for p in bad_pie.problems] == [("bad-line", 6)]
    swapped = data.replace(b"season s2026\nslot m01", b"slot m01\nseason s2026")
    assert "expected the 'season' line" in verify_bytes(swapped).problems[0].message
    row = data.split(b"\n")[sealcheck.HEADER_LINES]
    assert codes(data.replace(row, row[:2] + b"o" + row[3:], 1)) == ["bad-row"]


@pytest.mark.parametrize("text, expected", [
    ("AB" * 32, "ab" * 32),
    (" " + "ab" * 32 + "\n", "ab" * 32),
    (" ".join(["ab"] * 32), "ab" * 32),
])
def test_digest_input_accepts_windows_styles(text: str, expected: str) -> None:
    assert sealcheck.normalize_digest(text) == expected


def test_digest_input_refuses_check_codes_and_garbage() -> None:
    with pytest.raises(ValueError, match="check code"):
        sealcheck.normalize_digest("abcd " * 8)
    with pytest.raises(ValueError, match="not a SHA-256 digest"):
        sealcheck.normalize_digest("xyz")


def test_verify_with_upper_case_digest() -> None:
    data, digest = sealed_bytes()
    assert verify_bytes(data, digest.upper()).ok
    assert verify_bytes(data).ok and verify_bytes(data).matched is None


# -- sealing refuses what it must -------------------------------------------------------

def test_seal_refuses_a_board_that_is_not_antisymmetric() -> None:
    board = Board(size=4)
    board.set_raw(geometry.parse_cell("B1", 4), Symbol.O)
    with pytest.raises(SealError, match=r"slot m1: .*anti-symmetric.*B1 holds O but its partner C4 is empty"):
        seal_board(board, "s", "m1")


@pytest.mark.parametrize("season, slot", [("", "m"), ("s", "-m"), ("s p", "m"), ("s", "m/1"), ("s", "x" * 65),
                                          ("s", "m\n1"), ("s", "ü")])
def test_seal_refuses_unsafe_ids(season: str, slot: str) -> None:
    with pytest.raises(SealError, match="id"):
        seal_board(small_board(), season, slot)


def test_seal_refuses_a_short_nonce() -> None:
    with pytest.raises(SealError, match="32 random bytes"):
        seal_board(small_board(), "s", "m", nonce=b"\x01" * 16)


def test_fields_refuse_values_a_file_cannot_hold() -> None:
    f = seal_board(small_board(), "s", "m").fields
    changes: list[dict[str, object]] = [{"nonce": f.nonce.upper()}, {"rows": f.rows[:-1]},
                                        {"supply": (100, 1, 1, 1)}, {"first": "."}, {"size": 5}]
    for change in changes:
        with pytest.raises(sealcheck.FieldError):
            replace(f, **change)


# -- writing sealed files and SHA256SUMS -----------------------------------------------

def test_write_sealed_writes_files_sums_and_fingerprint(tmp_path: Path) -> None:
    sealed = [seal_board(small_board(i), "s2026", f"m{i}") for i in range(3)]
    paths, sums_path, fingerprint = write_sealed(tmp_path / "out", sealed)
    assert [p.name for p in paths] == ["m0.lits-sealed", "m1.lits-sealed", "m2.lits-sealed"]
    assert [p.read_bytes() for p in paths] == [s.data for s in sealed]
    if os.name == "posix":
        assert all(p.stat().st_mode & 0o077 == 0 for p in paths)
    sums = sums_path.read_bytes()
    assert sums == b"".join(f"{s.digest}  {s.file_name}\n".encode() for s in sealed)
    assert fingerprint == hashlib.sha256(sums).hexdigest()


def test_write_sealed_never_overwrites_a_commitment_without_force(tmp_path: Path) -> None:
    first = seal_board(small_board(1), "s", "m1")
    write_sealed(tmp_path, [first])
    again = seal_board(small_board(1), "s", "m1")
    with pytest.raises(SealError, match="already exists") as info:
        write_sealed(tmp_path, [again])
    assert "already listed with digest" in str(info.value)
    assert (tmp_path / "m1.lits-sealed").read_bytes() == first.data
    (tmp_path / "m1.lits-sealed").unlink()
    with pytest.raises(SealError, match="already listed"):
        write_sealed(tmp_path, [again])
    with pytest.raises(SealError, match="--append"):
        write_sealed(tmp_path, [again], force=True)  # replacing changes the published fingerprint too
    write_sealed(tmp_path, [again], force=True, append=True)
    assert (tmp_path / "m1.lits-sealed").read_bytes() == again.data
    assert sealcheck.parse_sums((tmp_path / "SHA256SUMS").read_text()) == {"m1.lits-sealed": again.digest}


def test_write_sealed_merges_sums_keeping_existing_lines_byte_for_byte(tmp_path: Path) -> None:
    existing = b"AB" * 32 + b" *old-slot.lits-sealed\n" + b"cd" * 32 + b"  other.lits-sealed"
    (tmp_path / "SHA256SUMS").write_bytes(existing)
    new = seal_board(small_board(), "s", "m9")
    _, sums_path, fingerprint = write_sealed(tmp_path, [new], append=True)
    merged = sums_path.read_bytes()
    assert merged == existing + b"\n" + f"{new.digest}  m9.lits-sealed\n".encode()
    assert fingerprint == hashlib.sha256(merged).hexdigest()


def test_write_sealed_refuses_bad_batches_without_writing(tmp_path: Path) -> None:
    a, b = seal_board(small_board(1), "s", "m1"), seal_board(small_board(2), "s", "m1")
    with pytest.raises(SealError, match="unique"):
        write_sealed(tmp_path, [a, b])
    c = seal_board(small_board(2), "s", "m2", nonce=bytes.fromhex(a.fields.nonce))
    with pytest.raises(SealError, match="nonce"):
        write_sealed(tmp_path, [a, c])
    with pytest.raises(SealError, match="one season"):
        write_sealed(tmp_path, [a, seal_board(small_board(2), "t", "m2")])
    assert list(tmp_path.iterdir()) == []
    write_sealed(tmp_path, [a])
    with pytest.raises(SealError, match="nonce is already used"):
        write_sealed(tmp_path, [c])
    with pytest.raises(SealError, match="belongs to season s"):
        write_sealed(tmp_path, [seal_board(small_board(2), "t", "m2")])
    (tmp_path / "SHA256SUMS").write_text("not a sums line\n")
    with pytest.raises(SealError, match="SHA256SUMS: line 1"):
        write_sealed(tmp_path, [seal_board(small_board(2), "s", "m3")])


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="coreutils sha256sum not installed")
def test_real_sha256sum_accepts_the_written_sums(tmp_path: Path) -> None:
    sealed = [seal_board(small_board(i), "s2026", f"m{i}") for i in range(2)]
    write_sealed(tmp_path, sealed)
    done = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == ["m0.lits-sealed: OK", "m1.lits-sealed: OK"]
    (tmp_path / "m0.lits-sealed").unlink()
    done = subprocess.run(["sha256sum", "-c", "--ignore-missing", "SHA256SUMS"], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.splitlines() == ["m1.lits-sealed: OK"]
    (tmp_path / "m1.lits-sealed").write_bytes(sealed[1].data.replace(b"\n", b"\r\n"))
    done = subprocess.run(["sha256sum", "-c", "--ignore-missing", "SHA256SUMS"], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "FAILED" in done.stdout


@pytest.mark.skipif(shutil.which("shasum") is None, reason="shasum (macOS tool) not installed")
def test_real_shasum_accepts_a_bundle(tmp_path: Path) -> None:
    sealed = [seal_board(small_board(i), "s2026", f"m{i}") for i in range(2)]
    paths, sums, _ = write_sealed(tmp_path / "season", sealed)
    write_bundle([paths[1]], sums, tmp_path / "b")
    done = subprocess.run(["shasum", "-a", "256", "-c", "SHA256SUMS"], cwd=tmp_path / "b", capture_output=True,
                          text=True, check=False)
    assert "m1.lits-sealed: OK" in done.stdout.splitlines()
    assert "m0.lits-sealed: FAILED open or read" in done.stdout.splitlines()


# -- reveal bundle and the standalone verifier -----------------------------------------

@pytest.fixture()
def season(tmp_path: Path) -> tuple[Path, list[Path]]:
    sealed = [seal_board(small_board(i), "s2026", f"m{i}") for i in range(3)]
    paths, _, _ = write_sealed(tmp_path / "season", sealed)
    return tmp_path / "season", paths


def test_bundle_holds_byte_identical_copies_and_instructions(tmp_path: Path, season: tuple[Path, list[Path]]) -> None:
    folder, paths = season
    result = write_bundle([paths[1]], folder / "SHA256SUMS", tmp_path / "bundle")
    bundle = tmp_path / "bundle"
    assert sorted(p.name for p in bundle.iterdir()) == ["SHA256SUMS", "VERIFY.txt", "m1.lits-sealed",
                                                        "verify_sealed.py"]
    assert (bundle / "m1.lits-sealed").read_bytes() == paths[1].read_bytes()
    assert (bundle / "SHA256SUMS").read_bytes() == (folder / "SHA256SUMS").read_bytes()
    assert (bundle / "verify_sealed.py").read_bytes() == (ROOT / "core" / "seal" / "sealcheck.py").read_bytes()
    verify = (bundle / "VERIFY.txt").read_text()
    digest = hashlib.sha256(paths[1].read_bytes()).hexdigest()
    for needle in ("sha256sum -c --ignore-missing SHA256SUMS", "shasum -a 256 -c --ignore-missing SHA256SUMS",
                   "certutil -hashfile m1.lits-sealed SHA256", "Get-FileHash m1.lits-sealed -Algorithm SHA256",
                   "python3 verify_sealed.py m1.lits-sealed --sums SHA256SUMS", digest, result.fingerprint):
        assert needle in verify
    assert result.fingerprint == hashlib.sha256((folder / "SHA256SUMS").read_bytes()).hexdigest()


def test_bundle_refuses_files_that_do_not_verify_or_would_be_replaced(tmp_path: Path,
                                                                        season: tuple[Path, list[Path]]) -> None:
    folder, paths = season
    forged = tmp_path / "m2.lits-sealed"
    forged.write_bytes(paths[2].read_bytes().replace(b"\n", b"\r\n"))
    with pytest.raises(SealError, match="CRLF"):
        write_bundle([forged], folder / "SHA256SUMS", tmp_path / "b")
    stray = tmp_path / "zz.lits-sealed"
    stray.write_bytes(paths[0].read_bytes())
    with pytest.raises(SealError, match="not listed"):
        write_bundle([stray], folder / "SHA256SUMS", tmp_path / "b")
    assert not (tmp_path / "b").exists()
    write_bundle([paths[0]], folder / "SHA256SUMS", tmp_path / "b")
    write_bundle([paths[0]], folder / "SHA256SUMS", tmp_path / "b")  # same content again is fine
    with pytest.raises(SealError, match=r"VERIFY\.txt"):
        write_bundle([paths[1]], folder / "SHA256SUMS", tmp_path / "b")
    write_bundle([paths[1]], folder / "SHA256SUMS", tmp_path / "b", force=True)
    assert "m1.lits-sealed" in (tmp_path / "b" / "VERIFY.txt").read_text()


def test_verify_script_imports_only_the_standard_library() -> None:
    tree = ast.parse((ROOT / "core" / "seal" / "sealcheck.py").read_text())
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0
            modules.add((node.module or "").split(".")[0])
    assert modules and modules <= set(sys.stdlib_module_names) | {"__future__"}


def _run_isolated(bundle: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the bundled script as a player would: isolated mode, no site-packages, no project on the path."""
    env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"}
    return subprocess.run([sys.executable, "-I", "-S", "verify_sealed.py", *args], cwd=bundle, env=env,
                          capture_output=True, text=True, check=False, timeout=60)


def _old_pythons() -> list[str]:
    """Interpreters older than 3.10 on this machine (pyenv or PATH): players' machines often have one."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    found = [str(p) for p in sorted(root.glob("versions/3.[789].*/bin/python3"))]
    found += [p for p in (shutil.which(f"python3.{minor}") for minor in (7, 8, 9)) if p]
    working = []
    for exe in found:
        try:
            done = subprocess.run([exe, "-I", "-c", "import sys; print(sys.version_info[1])"],
                                  capture_output=True, text=True, timeout=30, check=False)
        except OSError:
            continue
        if done.returncode == 0 and done.stdout.strip() in ("7", "8", "9"):
            working.append(exe)
    return working


def test_bundled_script_runs_on_older_pythons(tmp_path: Path, season: tuple[Path, list[Path]]) -> None:
    olds = _old_pythons()
    if not olds:
        pytest.skip("no Python 3.7-3.9 interpreter on this machine")
    folder, paths = season
    bundle = tmp_path / "bundle"
    write_bundle([paths[0]], folder / "SHA256SUMS", bundle)
    (bundle / "damaged.lits-sealed").write_bytes(b"\xef\xbb\xbf" + paths[0].read_bytes())
    for exe in olds[:2]:
        ok = subprocess.run([exe, "-I", "-S", "verify_sealed.py", "m0.lits-sealed", "--sums", "SHA256SUMS"],
                            cwd=bundle, capture_output=True, text=True, timeout=60, check=False)
        assert ok.returncode == 0 and "OK, matches" in ok.stdout, (exe, ok.stderr)
        bad = subprocess.run([exe, "-I", "-S", "verify_sealed.py", "damaged.lits-sealed", "--json"],
                             cwd=bundle, capture_output=True, text=True, timeout=60, check=False)
        assert bad.returncode == 1, (exe, bad.stderr)
        assert [p["code"] for p in json.loads(bad.stdout)["files"][0]["problems"]] == ["bom"]


def test_bundled_script_verifies_standalone(tmp_path: Path, season: tuple[Path, list[Path]]) -> None:
    folder, paths = season
    bundle = tmp_path / "bundle"
    write_bundle([paths[0]], folder / "SHA256SUMS", bundle)
    done = _run_isolated(bundle, "m0.lits-sealed", "--sums", "SHA256SUMS")
    assert done.returncode == 0, done.stderr
    assert "m0.lits-sealed: OK, matches the published digest" in done.stdout
    assert "A B C D E F" in done.stdout and "\n  6  " in done.stdout
    digest = hashlib.sha256(paths[0].read_bytes()).hexdigest()
    assert _run_isolated(bundle, "m0.lits-sealed", "--digest", digest.upper()).returncode == 0

    (bundle / "m0.lits-sealed").write_bytes(paths[0].read_bytes().replace(b"\n", b"\r\n"))
    done = _run_isolated(bundle, "m0.lits-sealed", "--sums", "SHA256SUMS")
    assert done.returncode == 1 and "CRLF" in done.stdout and "MATCHES" in done.stdout
    (bundle / "m0.lits-sealed").write_bytes(paths[1].read_bytes())
    done = _run_isolated(bundle, "m0.lits-sealed", "--sums", "SHA256SUMS")
    assert done.returncode == 1 and "digest mismatch" in done.stdout
    assert _run_isolated(bundle, "missing.lits-sealed").returncode == 2
    assert _run_isolated(bundle, "m0.lits-sealed", "--digest", "123").returncode == 2
    assert "Traceback" not in done.stderr


def test_write_sealed_refuses_slots_that_differ_only_in_case(tmp_path: Path) -> None:
    """Windows and macOS file systems ignore case: M03 and m03 would be one file there, so the second
    sealed file would silently replace the first commitment."""
    a, b = seal_board(small_board(1), "s", "M03"), seal_board(small_board(2), "s", "m03")
    with pytest.raises(SealError, match="unique"):
        write_sealed(tmp_path, [a, b])
    assert list(tmp_path.iterdir()) == []
    write_sealed(tmp_path, [a])
    with pytest.raises(SealError, match=r"M03\.lits-sealed"):
        write_sealed(tmp_path, [b])
    assert sealcheck.parse_sums((tmp_path / "SHA256SUMS").read_text()) == {"M03.lits-sealed": a.digest}


@pytest.mark.parametrize("size", [4097, 5000, 3 * (1 << 20) + 17])
def test_an_oversize_file_gets_its_true_size_and_whole_digest(tmp_path: Path, season: tuple[Path, list[Path]],
                                                              size: int) -> None:
    """lits verify, lits unseal and the bundled verify_sealed.py agree with sha256sum on a file too big to be a
    sealed board: the size is the file's, the digest is of every byte (a digest of the first 4097 bytes was shown)."""
    from core.cli import main

    folder, paths = season
    data = paths[0].read_bytes()
    data = (data * (size // len(data) + 1))[:size]
    big = tmp_path / "big.lits-sealed"
    big.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    sums = tmp_path / "SHA256SUMS"
    sums.write_text(f"{digest}  big.lits-sealed\n")

    reports, code = sealcheck.check_files([str(big)], sums_path=str(sums))
    assert code == 1
    (report,) = reports
    assert report["digest"] == digest and report["size"] == size and report["matched"] is True
    assert f"{size} bytes; a sealed board is at most 4096 bytes" in str(report["text"])
    assert f"SHA-256:    {digest}" in str(report["text"])
    assert set(HEX.findall(str(report["text"]))) == {digest}  # no other (partial) digest anywhere

    bundle = tmp_path / "bundle"
    write_bundle([paths[0]], folder / "SHA256SUMS", bundle)
    shutil.copy(big, bundle / "big.lits-sealed")
    done = _run_isolated(bundle, "big.lits-sealed", "--digest", digest)
    assert done.returncode == 1 and f"{size} bytes" in done.stdout and f"SHA-256:    {digest}" in done.stdout
    assert set(HEX.findall(done.stdout)) == {digest}

    for argv in (["verify", str(big), "--sums", str(sums)], ["unseal", str(big), "-o", str(tmp_path / "b.yaml")]):
        out = subprocess.run([sys.executable, "-m", "core.cli", *argv], capture_output=True, text=True, check=False,
                             timeout=60, cwd=ROOT)
        text = out.stdout + out.stderr
        assert out.returncode == 1 and f"{size} bytes" in text and f"SHA-256:    {digest}" in text, text
        assert set(HEX.findall(text)) == {digest}
    assert main(["verify", str(big), "--json"]) == 1


def test_a_stream_longer_than_a_sealed_board_gets_no_digest(tmp_path: Path) -> None:
    """A stream is not hashed to its end (it may have none), and no partial digest is shown in its place."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    stream = tmp_path / "stream.lits-sealed"
    os.mkfifo(stream)

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError), open(stream, "wb") as writer:
            writer.write(b"lits-sealed-board v1\n" + b"game battle-of-lits\n" * 400)

    feeder = threading.Thread(target=feed)
    feeder.start()
    reports, code = sealcheck.check_files([str(stream)], digest="0" * 64)
    feeder.join(timeout=30)
    (report,) = reports
    assert code == 1 and report["digest"] is None and report["size"] is None and report["matched"] is False
    assert "more than 4096 bytes" in str(report["text"]) and "SHA-256:    not computed" in str(report["text"])
    assert HEX.findall(str(report["text"])) == ["0" * 64]  # only the published digest it was given
    if Path("/dev/zero").exists():  # an endless binary stream is named as what it is after its first bytes
        reports, code = sealcheck.check_files(["/dev/zero"], digest="0" * 64)
        assert code == 2 and reports[0]["text"] == "/dev/zero is a binary file, not a sealed board file"


def test_the_bundled_script_on_a_full_disk_says_so(tmp_path: Path, season: tuple[Path, list[Path]]) -> None:
    """``python3 verify_sealed.py ... > report.txt`` on a full disk: one line and exit 5 (as ``lits verify``),
    not a traceback and exit 120."""
    if not Path("/dev/full").exists():
        pytest.skip("needs /dev/full")
    folder, paths = season
    bundle = tmp_path / "bundle"
    write_bundle([paths[0]], folder / "SHA256SUMS", bundle)
    env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"}
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-I", "-S", "verify_sealed.py", "m0.lits-sealed", "--sums",
                               "SHA256SUMS"], cwd=bundle, env=env, stdout=full, stderr=subprocess.PIPE, text=True,
                              check=False, timeout=60)
    assert done.returncode == 5 and "the disk is full" in done.stderr and "Traceback" not in done.stderr
