"""The ``lits`` command line: everything that does not need a window.

Start-up stays light: this module imports only the standard library's smallest
parts, and a sub-command's module is imported only when that command runs (the
listing in ``lits --help`` comes from :data:`BUILTIN_COMMANDS`), so ``lits verify``
never pays for the engine, numba, scipy, matplotlib or Qt.  Other packages add
commands through the ``lits.commands`` entry-point group (the designer adds
``lits render``), because ``core`` never imports the designer.

One exit-code table for every command (:mod:`core.cli.exitcodes`): 0 ok, 1 the
check failed, 2 an argument is wrong or a file cannot be read, 3 internal error,
4 ``lits verify`` compared nothing, 5 the disk is full, 130 interrupted.
Handlers return the exit code; :class:`CliError` carries a message and code for
the user, and nothing prints a traceback unless ``LITS_DEBUG=1``.
"""

from __future__ import annotations

import os
import signal
import sys

EXIT_INTERRUPTED = 130  # Exit.INTERRUPTED, before any import (see below)


def _interrupted_at_start(signum: int, frame: object) -> NoReturn:
    """Ctrl-C while nothing is being written: one line and exit 130, no traceback from an import."""
    try:
        os.write(2, b"lits: interrupted\n")
    finally:
        os._exit(EXIT_INTERRUPTED)


def _started_as_lits() -> bool:
    """Whether this process is the ``lits`` console script or ``python -m core.cli`` (not a test importing us)."""
    argv = list(getattr(sys, "orig_argv", ()))
    if "-m" in argv:
        return argv[argv.index("-m") + 1:][:1] == [__name__]
    return os.path.basename(sys.argv[0]).lower() in ("lits", "lits.exe", "lits-script.py")


if _started_as_lits():  # before any other import: Ctrl-C during start-up prints one line, never a traceback
    signal.signal(signal.SIGINT, _interrupted_at_start)


from collections.abc import Callable, Sequence  # noqa: E402 - after the interrupt handler, on purpose
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn  # noqa: E402

from core import __version__  # noqa: E402
from core.cli.exitcodes import Exit, disk_full_message, is_disk_full  # noqa: E402

if TYPE_CHECKING:
    import argparse

    from core.board.model import Board

EXIT_OK = int(Exit.OK)
EXIT_PROBLEMS = int(Exit.PROBLEMS)
EXIT_USAGE = int(Exit.USAGE)
EXIT_UNREADABLE = int(Exit.UNREADABLE)
EXIT_INTERNAL = int(Exit.INTERNAL)
EXIT_NOT_COMPARED = int(Exit.NOT_COMPARED)
"""``lits verify`` without --sums or --digest: the files are well-formed, but no digest was compared."""
EXIT_DISK_FULL = int(Exit.DISK_FULL)

COMMAND_GROUP = "lits.commands"
"""Entry-point group through which other packages add sub-commands: ``name = "module:register"``."""


class CliError(Exception):
    """A failure to report to the user in one message, with the exit code to use."""

    def __init__(self, message: str, code: int = EXIT_UNREADABLE) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class Command(NamedTuple):
    """A sub-command: its one-line summary for ``lits --help`` and the function that registers it."""

    name: str
    summary: str
    target: str
    """``module:function``; the function takes the sub-parsers and adds this command (and maybe siblings)."""


BUILTIN_COMMANDS: tuple[Command, ...] = (
    Command("validate", "check board files: shape, anti-symmetry, playability, warnings",
            "core.cli.validate:register"),
    Command("analyze", "is this board lopsided? self-play statistics and a pie-rule verdict",
            "core.cli.analyze:register"),
    Command("openings", "S1's win rate after chosen first placements, no swap: a swap map with intervals",
            "core.cli.openings:register"),
    Command("boards", "list the boards that come with the tool, or copy them into a folder to edit",
            "core.cli.boards:register"),
    Command("duel", "how much stronger is agent A than agent B? paired games, score, Elo", "core.cli.duel:register"),
    Command("card", "does this board reward the better player, and what game does it give? a board card",
            "core.cli.card:register"),
    Command("generate", "search new boards that the analysis calls balanced and write the best",
            "core.cli.generate:register"),
    Command("moves", "list every legal placement of a position", "core.cli.play:register"),
    Command("replay", "replay a game record and report the result", "core.cli.play:register"),
    Command("bench", "measure random playouts per second and legal-move latency", "core.cli.play:register"),
    Command("seal", "seal board files for a season: sealed files, SHA256SUMS and the season fingerprint",
            "core.cli.seal:register"),
    Command("verify", "check sealed files against the published digest and show the revealed boards",
            "core.cli.seal:register"),
    Command("reveal-bundle", "assemble what to post at a match: sealed file, SHA256SUMS, VERIFY.txt, "
                             "verify_sealed.py", "core.cli.seal:register"),
    Command("unseal", "turn a revealed sealed file back into an editable board file", "core.cli.seal:register"),
    Command("learn", "the learned opening predictor: training games, training, held-out figures",
            "core.cli.learn:register"),
    Command("match", "run a live death match: judge posted moves, keep the clocks, write posts and the record",
            "core.cli.match:register"),
)
"""The commands of this package, in the order ``lits --help`` lists them; the one source of their summaries."""

EXTRA_COMMANDS: dict[str, str] = {}
"""Commands added without installed package metadata (``name: "module:function"``), e.g. by tests."""


def summary(name: str) -> str:
    """The one-line summary of a built-in command, for its module's ``add_parser(help=...)``."""
    return next(c.summary for c in BUILTIN_COMMANDS if c.name == name)


_installed: dict[str, str] | None = None


def plugin_commands() -> dict[str, str]:
    """Commands other installed packages register through :data:`COMMAND_GROUP`, plus :data:`EXTRA_COMMANDS`."""
    global _installed
    if _installed is None:  # reading every installed package's metadata takes milliseconds: once per process
        from importlib.metadata import entry_points

        _installed = {ep.name: ep.value for ep in entry_points(group=COMMAND_GROUP)}
    found = {**_installed, **EXTRA_COMMANDS}
    return {name: target for name, target in found.items() if name not in {c.name for c in BUILTIN_COMMANDS}}


def _load(target: str) -> Callable[[Any], None]:
    import importlib

    module_name, _, attr = target.partition(":")
    register: Callable[[Any], None] = getattr(importlib.import_module(module_name), attr or "register")
    return register


def _unavailable(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], name: str, target: str,
                 exc: BaseException) -> None:
    """A plugin that cannot be loaded still appears, and says why when it is used."""
    import argparse

    package = target.split(".", 1)[0]
    message = (f"this command comes from the {package!r} package, which cannot be loaded here "
               f"({type(exc).__name__}: {exc}); reinstall LITS Board Studio with: python3 -m pip install -e .")

    def fail(_args: argparse.Namespace) -> int:
        raise CliError(message, EXIT_UNREADABLE)

    p = subparsers.add_parser(name, help=f"(unavailable: the {package} package cannot be loaded)")
    p.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    p.set_defaults(func=fail)


def _first_word(argv: Sequence[str]) -> str | None:
    return next((a for a in argv if not a.startswith("-")), None)


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser for ``argv``: only the module of the command it names is imported.

    The other built-in commands are listed from :data:`BUILTIN_COMMANDS` without importing anything;
    plugins are loaded when the command is not a built-in one (``lits --help``, ``lits render``, a typo).
    """
    import argparse

    parser = argparse.ArgumentParser(
        prog="lits",
        description="LITS Board Studio: design, check, analyse and seal Battle of LITS boards. Exit codes for "
                    "every command: 0 ok, 1 the check failed, 2 an argument is wrong or a file cannot be read (or "
                    "is another kind of file), 3 internal error, 5 the disk is full, 130 interrupted; lits verify "
                    "also uses 4: well-formed, but no digest was given to compare.",
    )
    parser.add_argument("--version", action="version", version=f"lits {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    wanted = _first_word(argv)
    builtin = {c.name: c for c in BUILTIN_COMMANDS}
    if wanted in builtin:  # its module may add sibling commands too (seal, verify, ...)
        _load(builtin[wanted].target)(subparsers)
    for command in BUILTIN_COMMANDS:
        if command.name not in subparsers.choices:
            subparsers.add_parser(command.name, help=command.summary)
    if wanted not in builtin:
        for name, target in plugin_commands().items():
            try:
                _load(target)(subparsers)
            except Exception as exc:  # a broken plugin must not break the built-in commands
                _unavailable(subparsers, name, target, exc)
    return parser


def read_board(path: str) -> tuple[Board | None, int, list[str]]:
    """Load a board named on the command line: (board, 0, []) or (None, exit code, messages without the path).

    Unreadable is exit 2, readable but not a board is exit 1; another kind of file (a sealed board) is
    exit 2 with the command that takes it.
    """
    from core.board.boardfile import BoardContentError, BoardFileError, load_board

    try:
        return load_board(path), EXIT_OK, []
    except BoardFileError as exc:
        hint = wrong_kind_hint(path)
        if hint is not None:
            return None, EXIT_UNREADABLE, [hint]
        return None, (EXIT_PROBLEMS if isinstance(exc, BoardContentError) else EXIT_UNREADABLE), exc.details


def wrong_kind_hint(path: str) -> str | None:
    """What a file that is not a board file is, and which command takes it; None when it is no known kind."""
    from core.seal import sealcheck

    try:
        head = sealcheck.read_capped(path, 64)
    except OSError:
        return None
    if sealcheck.looks_sealed(head):
        return ("this is a sealed board file (made by `lits seal`), not an editable board file: check it with "
                f"`lits verify {path} --sums SHA256SUMS`, or turn it into a board file with "
                f"`lits unseal {path} -o BOARD.yaml`")
    return None


def load_board_arg(path: str) -> Board:
    """Load a board named on the command line, or raise CliError with the file's messages and exit code."""
    board, code, details = read_board(path)
    if board is None:
        raise CliError("\n".join(f"{path}: {d}" for d in details), code)
    return board


def cannot_write(path: str, exc: OSError) -> CliError:
    """A file the command could not write: a full disk has its own code, any other failure is exit 2."""
    if is_disk_full(exc):
        return CliError(disk_full_message(path), EXIT_DISK_FULL)
    return CliError(f"{path}: cannot write ({exc.strerror or exc})", EXIT_UNREADABLE)


def output_folder_problem(path: str, example: str) -> str | None:
    """A folder given where a file name is wanted (``-o``), said plainly; None when ``path`` is no folder."""
    if os.path.isdir(path):
        return f"{path}: is a folder; -o takes the name of the file to write, e.g. {os.path.join(path, example)}"
    return None


# -- running ----------------------------------------------------------------------------------------

_entry = False
"""True once :func:`run` (the console script) owns the process, so interrupts may end it at once."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command in this process and return its exit code (also what tests call)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    command = _first_word(args_list) or ""
    try:
        parser = build_parser(args_list)
        if not args_list:  # a bare `lits`, what a newcomer types first: the commands, not "COMMAND is required"
            parser.print_help(sys.stderr)
            return EXIT_UNREADABLE
        unknown = _unknown_command(parser, command)
        if unknown:
            print(f"lits: {unknown}", file=sys.stderr)
            return EXIT_UNREADABLE
        actions = _actions_parser(parser, command)
        if actions is not None and args_list == [command]:  # `lits match` alone: its actions, as `lits` alone
            actions.print_help(sys.stderr)
            return EXIT_UNREADABLE
        args = parser.parse_args(args_list)
        command = args.command
        if _entry:
            # from here on an interrupt unwinds normally, so temporary files are removed on the way out
            signal.signal(signal.SIGINT, _interrupt)
        code: int = args.func(args)
        return code
    except CliError as exc:
        print(f"lits {command}: {exc.message}", file=sys.stderr)
        return exc.code
    except OSError as exc:
        if not is_disk_full(exc):
            return _internal(command, exc)
        print(f"lits {command}: {disk_full_message(exc.filename or '')}", file=sys.stderr)
        return EXIT_DISK_FULL
    except KeyboardInterrupt:
        if _entry:
            signal.signal(signal.SIGINT, _interrupted_at_start)  # a second Ctrl-C must not print a traceback
        print(f"lits{' ' + command if command else ''}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # last line of defence: a bug, never a traceback for users
        if is_disk_full(exc):
            print(f"lits {command}: {disk_full_message()}", file=sys.stderr)
            return EXIT_DISK_FULL
        value = sys.modules.get("core.agents.value")  # loaded when an agent needed the opening predictor
        if value is not None and isinstance(exc, value.ModelError):  # a model file it cannot use: named, not a bug
            print(f"lits {command}: {exc}", file=sys.stderr)
            return EXIT_UNREADABLE
        return _internal(command, exc)
    finally:
        if _entry:  # the command is done: nothing left to clean up, so an interrupt ends the process at once
            signal.signal(signal.SIGINT, _interrupted_at_start)


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The commands (or actions) ``parser`` dispatches to, by name; empty when it has none."""
    import argparse

    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    return dict(sub.choices) if sub is not None else {}


def _unknown_command(parser: argparse.ArgumentParser, word: str) -> str | None:
    """What is wrong when ``word`` names no command (with the nearest command's name), else None.  Why: argparse
    answers a typo with all fourteen names in one line, which hides the one the host meant."""
    import difflib

    names = list(_commands(parser))
    if not word or word in names:
        return None
    near = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    hint = f"did you mean `lits {near[0]}`? " if near else ""
    return f"{word!r} is not a command; {hint}`lits --help` lists them"


def _actions_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser | None:
    """The parser of ``command`` when it has actions of its own (``lits match start``), else None."""
    target = _commands(parser).get(command)
    return target if target is not None and _commands(target) else None


def _interrupt(signum: int, frame: Any) -> None:
    """Ctrl-C while a command runs: unwind with KeyboardInterrupt, except inside a callback from the compiler (numba's
    LLVM engine calls back into Python while it loads or compiles the engine), where Python would print "Exception
    ignored on calling ctypes callback function ... KeyboardInterrupt" and carry on as if nothing was pressed: there
    the interrupt comes again a moment later, once the callback has returned."""
    f = frame
    while f is not None:
        if "llvmlite" in f.f_code.co_filename:
            import _thread
            import threading

            threading.Timer(INTERRUPT_AGAIN_SECONDS, _thread.interrupt_main).start()
            return
        f = f.f_back
    raise KeyboardInterrupt


INTERRUPT_AGAIN_SECONDS = 0.02


def _internal(command: str, exc: BaseException) -> int:
    if os.environ.get("LITS_DEBUG"):
        import traceback

        traceback.print_exception(exc)
    print(f"lits {command}: internal error: {type(exc).__name__}: {exc} "
          "(set LITS_DEBUG=1 for details and please report it)", file=sys.stderr)
    return EXIT_INTERNAL


_full_streams: set[int] = set()
"""File descriptors (1, 2) whose disk filled up: their output is dropped and the run ends with EXIT_DISK_FULL."""


def finish_output(command: str, code: int) -> int:
    """Write out what the command printed; a full disk under stdout (``lits ... > file``) is said in one line and
    gives its own code instead of Python's traceback and exit 120 at shutdown."""
    import contextlib

    with contextlib.suppress(OSError, ValueError):  # a stream the guard does not cover: Python reports it at exit
        sys.stdout.flush()
    if 1 not in _full_streams:
        return code
    print(f"lits{' ' + command if command else ''}: standard output: {disk_full_message()}; the output is "
          "incomplete", file=sys.stderr)
    return EXIT_DISK_FULL


def _display_errors(exc: UnicodeError) -> tuple[str, int]:
    r"""Show what the output encoding cannot: a file-name byte that is not UTF-8 as ``\xff``, others escaped."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for ch in exc.object[exc.start:exc.end]:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # a byte os.fsdecode could not decode (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "".join(out), exc.end


def _pipe_safe_raw(fd: int) -> Any:
    """A raw writer on ``fd`` that drops output once the reader has gone (``lits verify ... | head``) or the disk
    under it is full (``lits ... > file``).

    The command then finishes and exits with its own code instead of dying of a broken pipe (a full disk: with
    EXIT_DISK_FULL, see :func:`finish_output`).
    """
    import io

    class PipeSafeRaw(io.RawIOBase):
        broken = False

        def writable(self) -> bool:
            return True

        def isatty(self) -> bool:
            return os.isatty(fd)

        def fileno(self) -> int:
            return fd

        def write(self, data: Any) -> int:
            view = memoryview(data).cast("B")
            size = len(view)
            while view and not self.broken:
                try:
                    view = view[os.write(fd, view):]
                except BrokenPipeError:
                    self.broken = True
                except OSError as exc:
                    if not is_disk_full(exc):
                        raise
                    self.broken = True  # the rest is dropped; finish_output says so once the command is done
                    _full_streams.add(fd)
            return size

    return PipeSafeRaw()


def _guard_streams() -> None:
    """stdout and stderr that never raise for a closed pipe or for a character the encoding lacks."""
    import codecs
    import io

    try:
        codecs.lookup_error("lits-display")
    except LookupError:
        codecs.register_error("lits-display", _display_errors)
    for name, fd in (("stdout", 1), ("stderr", 2)):
        stream = getattr(sys, name)
        try:
            if stream is None or stream.fileno() != fd:
                continue
            stream.flush()
            if stream.isatty():  # a terminal has no broken pipe; keep Python's console handling
                stream.reconfigure(errors="lits-display")
                continue
        except (OSError, ValueError, AttributeError):
            continue
        guarded = io.TextIOWrapper(io.BufferedWriter(_pipe_safe_raw(fd)), encoding=stream.encoding or "utf-8",
                                   errors="lits-display", line_buffering=fd == 2)
        setattr(sys, name, guarded)


def run() -> None:
    """Console-script entry point: Ctrl-C, broken pipes and unencodable names never give a traceback."""
    global _entry
    signal.signal(signal.SIGINT, _interrupted_at_start)  # before any further import
    _entry = True
    # On Ctrl-C a command leaves at once (os._exit) while its process pool may still hold semaphores; the pool's
    # resource tracker (a separate process, started later with this environment) then frees them itself and
    # would print a leak warning under the one "interrupted" line. Silence only that warning.
    quiet = "ignore::UserWarning:multiprocessing.resource_tracker"
    if quiet not in os.environ.get("PYTHONWARNINGS", ""):
        os.environ["PYTHONWARNINGS"] = ",".join(filter(None, (os.environ.get("PYTHONWARNINGS"), quiet)))
    try:
        _guard_streams()
        code = finish_output(_first_word(sys.argv[1:]) or "", main())
    except KeyboardInterrupt:  # between two statements of main's own error handling
        signal.signal(signal.SIGINT, _interrupted_at_start)
        _interrupted_at_start(signal.SIGINT, None)
    # The work is done; a Ctrl-C from here on would only kill the interpreter's shutdown (exit -2, nothing said).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    if code == EXIT_INTERRUPTED:
        # An interrupt that passed through some C code can leave Python's "unhandled KeyboardInterrupt" flag
        # set, and Python then ends itself with SIGINT at exit (seen in about 1 of 10 interrupted validate
        # runs); the one line is printed, so leave with 130 right away.
        os._exit(EXIT_INTERRUPTED)
    sys.exit(code)
