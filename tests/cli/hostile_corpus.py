"""A seeded, reproducible corpus of hostile board files: mutations of the bundled boards and of the issue's
triggers with tags, dates, numbers PyYAML cannot convert, nesting, aliases, encodings and plain damage."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.paths import BOARDS, DATA

SCALARS = [
    # dates and times, valid and not
    "2026-02-30", "2020-13-45", "2026-03-01", "2001-12-14t21:59:43.10-05:00", "2002-12-14", "1999-99-99 99:99:99",
    # explicit tags, good and bad values
    "!!timestamp 2020-01-01", "!!timestamp nope", "!!bool .", "!!bool maybe", "!!float .", "!!float 1e999",
    "!!int .", "!!int 0x", "!!int ''", "!!str 12", "!!null x", "!!binary '@@@'", "!!binary AAAA", "!!set O",
    "!!set [.]", "!!set {a, b}", "!!omap [{a: 1}]", "!!pairs [{a: 1}]", "!!python/object:os.system ls",
    "!!python/name:os.system", "!foo bar", "!<tag:example.com,2000:x> 1", "!!merge x", "!!value x", "!!map O",
    "!!seq O", "!!str [1]", "!!int [1]",
    # numbers PyYAML cannot convert or that are huge
    "0x_", "0b_", "0o_", "0_", "1:_", "9" * 4301, "-" + "1" * 5000, "1" + "0" * 400 + ".5", "1e99999", ".nan",
    "-.inf", "0x" + "f" * 200, "190:20:30", "1_000", "+12", "-0", "0.", "._",
    # YAML 1.1 booleans and nulls
    "yes", "no", "on", "off", "y", "n", "True", "FALSE", "~", "null", "", "''", '""',
    # odd text
    '"\\ud800"', '"\\udfff x"', '"\\0"', '"\\x85"', '"\\U0010FFFF"', "'it''s'", "=", "<<", "|-\n  block",
    ">\n  folded", '"' + "a" * 20000 + '"', "a" * 300,
    # structures where a scalar belongs
    "[1, 2]", "{L: 1}", "[[[[[[[[[[1]]]]]]]]]]", "{a: {b: {c: {d: {e: {f: {g: {h: {i: 1}}}}}}}}}", "[]", "{}",
    "&a 1", "*a", "&a [1, *a]", "{? [1]: 2}", "{[1]: 2}",
]
KEYS = ["version", "name", "author", "notes", "first", "pie", "supply", "clock", "grid", "L", "turn", "bank",
        "<<", "? x", "1", "~", "!!set k", "!!timestamp 2020-01-01", "grid", "colour"]
LINES = ["%YAML 1.1", "%TAG ! tag:example.com,2000:", "---", "...", "--- !!set", "- x", "? a", ": b", "\t- x",
         "&anchor", "*alias", "#", "key: value: other", '"unterminated', "[", "{", "]", "}", ">", "|", "@", "`",
         "grid: !!set", "grid: 2026-02-30", "grid: [" + ", ".join(['"....."'] * 5) + "]"]
ENCODINGS = ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1", "cp1252", "utf-8-sig", "shift_jis"]


def seeds() -> dict[str, bytes]:
    """The files every mutation starts from: the bundled boards, the issue's triggers and sealed files."""
    out = {p.name: p.read_bytes() for p in sorted(BOARDS.glob("*.yaml"))}
    out.update({p.name: p.read_bytes() for p in sorted((DATA / "hostile").glob("*.yaml"))})
    out.update({p.name: p.read_bytes() for p in sorted((DATA / "seal").iterdir()) if p.suffix != ".json"})
    return out


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def replace_value(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    candidates = [i for i, line in enumerate(lines) if b":" in line and not line.lstrip().startswith(b"#")]
    if not candidates:
        return data + b"\nnotes: " + rng.choice(SCALARS).encode()
    i = rng.choice(candidates)
    head = lines[i].split(b":", 1)[0]
    lines[i] = head + b": " + rng.choice(SCALARS).encode()
    return b"\n".join(lines)


def replace_in_flow(rng: random.Random, data: bytes) -> bytes:
    """Put a hostile scalar inside ``supply: {...}``, ``clock: {...}`` or a grid row."""
    lines = _lines(data)
    for i, line in enumerate(lines):
        if line.startswith((b"supply:", b"clock:")) and rng.random() < 0.5:
            key = rng.choice([b"L", b"I", b"T", b"S", b"turn", b"bank", b"Q"])
            lines[i] = line.split(b"{")[0] + b"{" + key + b": " + rng.choice(SCALARS).encode() + b"}"
            return b"\n".join(lines)
        if line.startswith(b"  - ") and rng.random() < 0.1:
            lines[i] = b"  - " + rng.choice(SCALARS).encode()
            return b"\n".join(lines)
    return replace_value(rng, data)


def add_key(rng: random.Random, data: bytes) -> bytes:
    line = f"{rng.choice(KEYS)}: {rng.choice(SCALARS)}".encode()
    lines = _lines(data)
    lines.insert(rng.randrange(len(lines) + 1), line)
    return b"\n".join(lines)


def insert_line(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    lines.insert(rng.randrange(len(lines) + 1), rng.choice(LINES).encode())
    return b"\n".join(lines)


def shuffle_lines(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    action = rng.randrange(4)
    i = rng.randrange(len(lines))
    if action == 0:
        del lines[i]
    elif action == 1:
        lines.insert(i, lines[rng.randrange(len(lines))])
    elif action == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:
        lines[i] = b" " * rng.randrange(1, 9) + lines[i]
    return b"\n".join(lines)


def flip_bytes(rng: random.Random, data: bytes) -> bytes:
    buf = bytearray(data or b"x")
    for _ in range(rng.randrange(1, 6)):
        i = rng.randrange(len(buf))
        choice = rng.randrange(4)
        if choice == 0:
            buf[i] = rng.randrange(256)
        elif choice == 1:
            buf.insert(i, rng.choice(b":-[]{}&*!|>'\"#%@`,?\t\r\n\x00\x85\xc3\xff"))
        elif choice == 2 and len(buf) > 1:
            del buf[i]
        else:
            buf[i] = rng.choice(b".OXox ")
    return bytes(buf)


def truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def nest(rng: random.Random, data: bytes) -> bytes:
    depth = rng.randrange(1, 60)
    opener, closer = rng.choice([(b"[", b"]"), (b"{a: ", b"}"), (b"[{a: ", b"}]")])
    inner = rng.choice([b"1", b"2026-02-30", b"!!set O", b"0x_"])
    body = opener * depth + inner + closer * rng.choice([depth, depth - 1, 0])
    key = rng.choice([b"notes", b"grid", b"supply", b"version", b"x"])
    return key + b": " + body + b"\n" + data


def block_nest(rng: random.Random, data: bytes) -> bytes:
    depth = rng.randrange(1, 40)
    lines = [b"  " * d + (b"- " if rng.random() < .5 else b"k%d:" % d) for d in range(depth)]
    return b"notes:\n" + b"\n".join(lines) + b" 1\n" + data


def many_values(rng: random.Random, data: bytes) -> bytes:
    count = rng.choice([500, 999, 1001, 3000, 30000])
    unit = rng.choice([b"1", b"a", b"2026-02-30", b"~", b"[]"])
    return b"notes: [" + b",".join([unit] * count) + b"]\n" + data


def aliases(rng: random.Random, data: bytes) -> bytes:
    bomb = b"a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\n"
    return rng.choice([bomb, b"notes: &n x\nname: *n\n", b"<<: *base\n", b"x: &y {<<: *y}\n"]) + data


def reencode(rng: random.Random, data: bytes) -> bytes:
    text = data.decode("utf-8", "replace")
    if rng.random() < 0.3:
        text = text.replace("Crossroads", "Carrefour \u00e9\u00e8 \u2603 \U0001f3b2")
    return text.encode(rng.choice(ENCODINGS), "replace")


def line_endings(rng: random.Random, data: bytes) -> bytes:
    return data.replace(b"\n", rng.choice([b"\r\n", b"\r", b"\x85", b"\xe2\x80\xa8", b"\n\n", b"\x0c\n"]))


def control_chars(rng: random.Random, data: bytes) -> bytes:
    buf = bytearray(data)
    buf.insert(rng.randrange(len(buf) + 1), rng.choice([0x00, 0x01, 0x07, 0x0B, 0x1B, 0x7F]))
    return bytes(buf)


def garbage(rng: random.Random, data: bytes) -> bytes:
    return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 400)))


MUTATIONS: list[Callable[[random.Random, bytes], bytes]] = [
    replace_value, replace_value, replace_in_flow, replace_in_flow, add_key, insert_line, shuffle_lines,
    flip_bytes, flip_bytes, truncate, nest, block_nest, many_values, aliases, reencode, line_endings,
    control_chars, garbage,
]


def corpus(count: int, seed: int = 20261130) -> Iterator[tuple[str, bytes]]:
    """``count`` hostile files as (name, bytes); the same seed gives the same files on every machine."""
    rng = random.Random(seed)
    base = seeds()
    names = sorted(base)
    for name in names:  # every seed file as it is, first
        yield f"seed-{name}", base[name]
    for index in range(count - len(names)):
        source = rng.choice(names)
        data = base[source]
        steps = []
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            mutate = rng.choice(MUTATIONS)
            data = mutate(rng, data)
            steps.append(mutate.__name__)
        yield f"{index:05d}-{Path(source).stem}-{'+'.join(steps)}.yaml", data[: 300 * 1024]
