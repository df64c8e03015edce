"""Board files: versioned YAML that a host edits by hand and the designer saves.

Board files come from other people (a co-host, a forum post), so loading treats
them as hostile: the size is capped before parsing, YAML aliases, duplicate keys
and deep nesting are refused, and the content is validated strictly.  Two kinds
of failure are kept apart because the command line reports them with different
exit codes: :class:`BoardReadError` (the file is not a readable YAML document)
and :class:`BoardContentError` (it is YAML, but not a valid board).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path
from typing import Any, ClassVar, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from core.board.fileio import ReadError, atomic_write_text, read_limited_text
from core.board.geometry import COLUMN_LETTERS, MAX_SIZE, MIN_SIZE
from core.board.model import DEFAULT_SUPPLY, MAX_CLOCK_SECONDS, MAX_SUPPLY, Board, GameParams, Symbol

FORMAT_VERSION = 1
MAX_FILE_BYTES = 256 * 1024
MAX_DEPTH = 8
MAX_NODES = 256
"""Values (scalars, lists, mappings) one file may hold; the largest board has about 60."""
MAX_TEXT = 10_000


class BoardFileError(ValueError):
    """A board file that could not be loaded; ``details`` lists every problem found."""

    def __init__(self, path: str, details: list[str]) -> None:
        self.path = path
        self.details = details
        super().__init__("\n".join(f"{path}: {d}" for d in details))


class BoardReadError(BoardFileError):
    """Not a readable YAML document (I/O, size, binary, syntax, aliases, duplicate keys, nesting)."""


class BoardContentError(BoardFileError):
    """A YAML document that is not a valid board (unknown keys, wrong types, grid shape)."""


class _Refused(yaml.YAMLError):
    def __init__(self, message: str, mark: Any) -> None:
        super().__init__(message)
        self.message = message
        self.mark = mark


PLAIN_TAGS: dict[str, str] = {
    "tag:yaml.org,2002:str": "text",
    "tag:yaml.org,2002:int": "a whole number",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:bool": "true or false",
    "tag:yaml.org,2002:null": "null",
    "tag:yaml.org,2002:seq": "a list",
    "tag:yaml.org,2002:map": "a mapping",
}
"""The only kinds of value a board file builds; any other tag (``!!set``, ``!!timestamp``, ``!foo``) is refused."""


class PlainResolver(yaml.resolver.BaseResolver):
    """YAML 1.1's implicit types minus dates, merge keys and ``=``: ``notes: 2026-02-30`` is text."""


for _first, _resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items():
    for _tag, _regexp in _resolvers:
        if _tag in PLAIN_TAGS:
            PlainResolver.add_implicit_resolver(_tag, _regexp, [_first])  # type: ignore[no-untyped-call]


def _short_tag(tag: str | None) -> str:
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag and tag.startswith("tag:yaml.org,2002:") else str(tag)


class StrictLoader(
    yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer,
    yaml.constructor.SafeConstructor, PlainResolver,
):
    """A YAML loader that builds only text, numbers, booleans, nulls, lists and mappings.

    Anchors, aliases, duplicate keys, deep nesting, more values than any board has, tags other than the
    plain ones and values a tag cannot hold are all refused with the line they are on, so nothing but a
    :class:`_Refused` or a ``MarkedYAMLError`` ever leaves it.
    """

    yaml_constructors: ClassVar[dict[Any, Any]] = {  # PyYAML's class-level registry
        tag: yaml.constructor.SafeConstructor.yaml_constructors[tag] for tag in PLAIN_TAGS
    }
    yaml_multi_constructors: ClassVar[dict[Any, Any]] = {}

    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        PlainResolver.__init__(self)
        self._depth = 0
        self._nodes = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            raise _Refused("YAML aliases (*name) are not allowed in board files", event.start_mark)
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise _Refused("YAML anchors (&name) are not allowed in board files", event.start_mark)
        self._nodes += 1
        if self._nodes > MAX_NODES:  # keeps parsing time small however large the file
            raise _Refused(f"more than {MAX_NODES} values; a board file has fewer than 100", event.start_mark)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _Refused(f"nested deeper than {MAX_DEPTH} levels; a board file is flat", event.start_mark)
        try:
            return super().compose_node(parent, index)  # type: ignore[no-any-return]
        finally:
            self._depth -= 1

    def construct_undefined(self, node: yaml.Node) -> Any:
        raise _Refused(f"the YAML tag {_short_tag(node.tag)} is not allowed in a board file; write plain text, "
                       "numbers, true/false, lists and mappings", node.start_mark)

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if node.tag not in PLAIN_TAGS:
            self.construct_undefined(node)
        try:
            value = super().construct_object(node, deep=deep)  # type: ignore[no-untyped-call]
        except (yaml.YAMLError, RecursionError):
            raise
        except Exception:
            # PyYAML's own conversions fail with whatever the text provokes: `!!int .` (ValueError),
            # `!!int ''` (IndexError), `!!bool maybe` (KeyError), a 4,301-digit integer (ValueError)
            shown = node.value if isinstance(node.value, str) else ""
            shown = repr(shown) if len(shown) <= 40 else f"{shown[:40]!r}... ({len(shown)} characters)"
            hint = "; put it in quotes if it is text" if node.tag != "tag:yaml.org,2002:str" else ""
            raise _Refused(f"{shown} cannot be read as {PLAIN_TAGS[node.tag]}{hint}", node.start_mark) from None
        if isinstance(value, str) and any("\ud800" <= ch <= "\udfff" for ch in value):
            raise _Refused("the text holds a \\u escape for half of a UTF-16 pair, which is not a character",
                           node.start_mark)
        return value

    def construct_mapping(self, node: yaml.Node, deep: bool = False) -> dict[Any, Any]:
        if not isinstance(node, yaml.MappingNode):  # e.g. `!!map text`: let PyYAML name the mismatch
            return super().construct_mapping(node, deep=deep)  # type: ignore[arg-type]
        seen: dict[Any, yaml.Node] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                hash(key)
            except TypeError:
                raise _Refused("a mapping key must be a plain value", key_node.start_mark) from None
            if key in seen:
                first = seen[key].start_mark.line + 1
                raise _Refused(f"duplicate key {key!r} (first given on line {first})", key_node.start_mark)
            seen[key] = key_node
        return super().construct_mapping(node, deep=deep)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SupplyModel(_Strict):
    L: int = Field(DEFAULT_SUPPLY[0], ge=0, le=MAX_SUPPLY)
    I: int = Field(DEFAULT_SUPPLY[1], ge=0, le=MAX_SUPPLY)  # noqa: E741 - piece name
    T: int = Field(DEFAULT_SUPPLY[2], ge=0, le=MAX_SUPPLY)
    S: int = Field(DEFAULT_SUPPLY[3], ge=0, le=MAX_SUPPLY)


class ClockModel(_Strict):
    turn: int = Field(60, ge=0, le=MAX_CLOCK_SECONDS)
    bank: int = Field(300, ge=0, le=MAX_CLOCK_SECONDS)


class BoardFileModel(_Strict):
    """The schema of a board file; only ``grid`` is required."""

    version: int = FORMAT_VERSION
    name: str = Field("", max_length=200)
    author: str = Field("", max_length=200)
    notes: str = Field("", max_length=MAX_TEXT)
    first: Literal["O", "X"] = "O"
    pie: bool = True
    supply: SupplyModel = Field(default_factory=lambda: SupplyModel())
    clock: ClockModel = Field(default_factory=lambda: ClockModel())
    grid: list[str] = Field(max_length=MAX_SIZE + 10)

    @field_validator("version")
    @classmethod
    def _known_version(cls, value: int) -> int:
        # strict int: `true`, `yes`, `on` and `1.0` are refused like every other wrong type
        if value != FORMAT_VERSION:
            raise ValueError(f"version {value} is not known; this program reads board files of version "
                             f"{FORMAT_VERSION}")
        return value


_SECTIONS: dict[str, type[BaseModel]] = {"supply": SupplyModel, "clock": ClockModel}
"""The nested sections of a board file, for naming the keys allowed inside them."""


def _rows_missing_hint(rows: int, width: int) -> str:
    """A guess at the one slip that makes a grid of equal rows not square: rows missing or rows too many."""
    gap = abs(width - rows)
    if rows < width:
        return "is a row missing?" if gap == 1 else f"are {gap} rows missing?"
    return "is there one row too many?" if gap == 1 else f"are there {gap} rows too many?"


def _valid_size(n: int) -> bool:
    return MIN_SIZE <= n <= MAX_SIZE and n % 2 == 0


def grid_problems(rows: list[str], lines: list[int] | None = None) -> list[str]:
    """Every shape problem of a grid at once: size, row lengths, characters.

    Rows of one length that differ from the number of rows are one problem (a row missing or one too
    many), said once, not once per row.
    """
    problems: list[str] = []
    n = len(rows)
    widths = Counter(len(row) for row in rows)
    # The length most rows share is what the grid means to be; on a tie, the square one.
    width = max(widths, key=lambda w: (widths[w], w == n)) if rows else n

    def where(i: int) -> str:
        line = f" (line {lines[i]})" if lines and i < len(lines) else ""
        return f"grid row {i + 1}{line}"

    if width != n:
        problems.append(f"grid: {n} row{'' if n == 1 else 's'} of {width} cells: the grid must be square "
                        f"({_rows_missing_hint(n, width)})")
    if width == n or not _valid_size(width):
        if n < MIN_SIZE or n > MAX_SIZE:
            problems.append(f"grid: {n} row{'' if n == 1 else 's'}; a board has {MIN_SIZE} to {MAX_SIZE} rows")
        elif n % 2:
            problems.append(f"grid: {n} rows, an odd size; boards need an even size so every cell has a distinct "
                            "partner")
    for i, row in enumerate(rows):
        if len(row) != width:
            off = len(row) - width
            extra = f"{'one cell' if abs(off) == 1 else f'{abs(off)} cells'} too {'many' if off > 0 else 'few'}"
            if width == n:
                problems.append(f"{where(i)}: {len(row)} cells, but the grid has {n} rows and must be square "
                                f"({extra})")
            else:
                problems.append(f"{where(i)}: {len(row)} cells, but the other rows have {width} ({extra})")
        for j, ch in enumerate(row):
            if ch not in ".OX":
                col = COLUMN_LETTERS[j] if j < len(COLUMN_LETTERS) else f"#{j + 1}"
                shown = repr(ch)
                problems.append(f"{where(i)}, cell {col}{i + 1}: {shown} is not one of '.', 'O', 'X'")
                break
    return problems


def _grid_lines(root: yaml.Node | None) -> list[int]:
    if not isinstance(root, yaml.MappingNode):
        return []
    for key_node, value_node in root.value:
        is_grid = isinstance(key_node, yaml.ScalarNode) and key_node.value == "grid"
        if is_grid and isinstance(value_node, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value_node.value]
    return []


def _pydantic_details(exc: ValidationError) -> list[str]:
    out = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        if err["type"] == "extra_forbidden":
            model = _SECTIONS.get(str(err["loc"][0]), BoardFileModel) if len(err["loc"]) > 1 else BoardFileModel
            out.append(f"key {loc!r}: unknown key (allowed: {', '.join(model.model_fields)})")
        elif err["type"] == "missing":
            out.append(f"key {loc!r}: required but missing")
        else:
            out.append(f"key {loc!r}: {err['msg']} (got {err.get('input')!r})"[:300])
    return out


def _describe_tab(mark: yaml.Mark | None) -> str | None:
    """A tab where YAML wants a space, in words: editors hide tabs, so the parser's wording helps no one."""
    buffer, pointer = getattr(mark, "buffer", None), getattr(mark, "pointer", None)
    if mark is None or not isinstance(buffer, str) or not isinstance(pointer, int):
        return None
    if buffer[pointer:pointer + 1] != "\t":
        return None
    before = buffer[pointer - mark.column:pointer]
    if not before:
        return f"line {mark.line + 1}: starts with a tab; indent with spaces"
    if not before.strip(" \t"):
        return f"line {mark.line + 1}: has a tab in its indentation; indent with spaces"
    return f"line {mark.line + 1}, column {mark.column + 1}: a tab where only spaces are allowed; write a space instead"


def _describe_yaml_error(exc: yaml.MarkedYAMLError) -> str:
    def at(mark: yaml.Mark) -> str:
        return f"line {mark.line + 1}, column {mark.column + 1}"

    tab = _describe_tab(exc.problem_mark)
    if tab is not None:
        return tab
    mark = exc.problem_mark or exc.context_mark
    text = f"{at(mark)}: " if mark else ""
    text += f"not valid YAML: {exc.problem or exc.context or 'malformed document'}"
    if exc.context and exc.context_mark and exc.problem_mark and exc.context_mark.line != exc.problem_mark.line:
        text += f" ({exc.context} that starts on {at(exc.context_mark)})"
    if exc.problem and "end of stream" in exc.problem:
        text += "; is the file truncated?"
    return text


def _describe_reader_error(exc: yaml.reader.ReaderError, text: str) -> str:
    """A character YAML refuses outright (control characters and the like), with its line and column."""
    position = max(0, min(int(exc.position), len(text)))
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    char = exc.character if isinstance(exc.character, str) else chr(int(exc.character))
    return (f"line {line}, column {column}: character U+{ord(char):04X} is not allowed in a YAML file "
            "(a control character; was the file damaged or is it not a board file?)")


def _not_a_board(empty: bool, data: Any) -> str:
    """What a file holds instead of the keys of a board, in the host's words (never a Python type name)."""
    if empty:
        return ("this is not a board file: it is empty (or holds only comments); a board file holds at least the "
                "key grid: with the rows of the board")
    if isinstance(data, str):
        kind = "plain text"
    elif isinstance(data, list):
        kind = "a list"
    elif isinstance(data, bool):
        kind = "a lone true or false"
    elif isinstance(data, (int, float)):
        kind = "a lone number"
    else:
        kind = "nothing but null"
    return f"this is not a board file: it holds {kind}, not the keys of a board (such as grid:)"


def parse_board_text(text: str, path: str = "<text>") -> Board:
    """Parse board-file text into a Board; raises BoardReadError or BoardContentError."""
    try:
        # the reader checks every character when it is created, so creating it can fail too
        loader = StrictLoader(text)
    except yaml.reader.ReaderError as exc:
        raise BoardReadError(path, [_describe_reader_error(exc, text)]) from None
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except _Refused as exc:
        line = f"line {exc.mark.line + 1}: " if exc.mark else ""
        raise BoardReadError(path, [f"{line}{exc.message}"]) from None
    except yaml.MarkedYAMLError as exc:
        raise BoardReadError(path, [_describe_yaml_error(exc)]) from None
    except yaml.YAMLError as exc:
        raise BoardReadError(path, [f"not valid YAML: {exc}"]) from None
    except RecursionError:
        raise BoardReadError(path, ["nested too deeply to be a board file"]) from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):  # not a board file at all (like a binary file), not a board with a problem
        raise BoardReadError(path, [_not_a_board(root is None, data)])
    bad_keys = [k for k in data if not isinstance(k, str)]
    if bad_keys:
        raise BoardContentError(path, [f"key {k!r}: keys must be text" for k in bad_keys])
    try:
        model = BoardFileModel.model_validate(data)
    except ValidationError as exc:
        raise BoardContentError(path, _pydantic_details(exc)) from None
    problems = grid_problems(model.grid, _grid_lines(root))
    if problems:
        raise BoardContentError(path, problems)
    params = GameParams(
        supply=(model.supply.L, model.supply.I, model.supply.T, model.supply.S),
        first=Symbol(model.first),
        pie=model.pie,
        turn_time=model.clock.turn,
        bank=model.clock.bank,
    )
    return Board.from_rows(model.grid, params=params, name=model.name, author=model.author, notes=model.notes)


_GRID_KEY_RE = re.compile(r"(?m)^grid[ \t]*:")


def looks_like_board_file(text: str) -> bool:
    """Whether text is meant as a board file, valid or not, so a tool given one in place of another file says so.

    A line ``grid:`` or a YAML document whose keys include ``grid`` is a board file, even a damaged one.
    """
    if _GRID_KEY_RE.search(text.removeprefix("\ufeff")):
        return True
    try:
        loader = StrictLoader(text)
    except yaml.YAMLError:
        return False
    try:
        data = loader.get_single_data()
    except (yaml.YAMLError, RecursionError):
        return False
    finally:
        loader.dispose()
    return isinstance(data, dict) and "grid" in data


def load_board(path: str | os.PathLike[str]) -> Board:
    """Load a board file; every error names the file and what is wrong."""
    name = os.fspath(path)
    try:
        text = read_limited_text(name, MAX_FILE_BYTES, what="board file")
    except ReadError as exc:
        raise BoardReadError(name, [str(exc).removeprefix(f"{name}: ")]) from None
    return parse_board_text(text, name)


def board_to_text(board: Board) -> str:
    """The board file text: stable key order, defaults written out so the file documents itself."""
    head: dict[str, Any] = {"version": FORMAT_VERSION}
    for key in ("name", "author", "notes"):
        value = getattr(board, key)
        if value:
            head[key] = value
    p = board.params
    head["first"] = p.first.value
    head["pie"] = p.pie
    head["supply"] = dict(zip(("L", "I", "T", "S"), p.supply, strict=True))
    head["clock"] = {"turn": p.turn_time, "bank": p.bank}
    text = yaml.safe_dump(head, sort_keys=False, allow_unicode=True, default_flow_style=None, width=100)
    rows = "".join(f'  - "{row}"\n' for row in board.rows())
    return f"# LITS board file: rows top to bottom, '.' empty, O and X symbols.\n{text}grid:\n{rows}"


def bundled_boards_dir() -> Path | None:
    """The boards shipped with the tool: ``core/boards`` in an installed wheel, else the checkout's ``boards/``."""
    core_dir = Path(__file__).resolve().parent.parent
    for candidate in (core_dir / "boards", core_dir.parent / "boards"):
        if candidate.is_dir():
            return candidate
    return None


def default_board_path() -> Path | None:
    """The board the designer opens and benchmarks use when none is named."""
    boards = bundled_boards_dir()
    path = boards / "default.yaml" if boards else None
    return path if path is not None and path.is_file() else None


def save_board(board: Board, path: str | os.PathLike[str]) -> None:
    """Save through a temporary file and a rename, so a failed save never damages the old file."""
    atomic_write_text(path, board_to_text(board))
