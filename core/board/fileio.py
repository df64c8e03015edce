"""Reading and writing files so that bad input is reported and no work is ever half-written."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path


class ReadError(ValueError):
    """A file that cannot be read as the text the caller expects; the message names the file."""


def stage_bytes(path: str | os.PathLike[str], data: bytes, mode: int | None = None) -> Path:
    """Write ``data`` completely (flushed to disk) to a new temporary file beside ``path``; returns its path.

    Renaming it over ``path`` is the caller's commit; on any failure the temporary file is removed.
    ``mode`` defaults to the target's current permissions, or the umask's for a new file.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp_name, mode)
        elif target.exists():
            with contextlib.suppress(OSError):
                os.chmod(tmp_name, target.stat().st_mode & 0o777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp_name, 0o666 & ~umask)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    return Path(tmp_name)


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """Make renames in a folder durable (POSIX); a no-op where folders cannot be opened."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write to a temporary file beside ``path`` and rename it over the target.

    A crash or a full disk leaves either the old file or the new one, never a mix.
    """
    tmp = stage_bytes(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """UTF-8, LF line endings, whatever the platform."""
    atomic_write_bytes(path, text.encode("utf-8"))


def read_limited_text(path: str | os.PathLike[str], limit: int, what: str = "file") -> str:
    """Read a UTF-8 text file of at most ``limit`` bytes, refusing binary data with a clear reason."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise ReadError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise ReadError(f"{name}: is a folder, not a {what}") from None
    except PermissionError:
        raise ReadError(f"{name}: permission denied") from None
    except OSError as exc:
        raise ReadError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise ReadError(f"{name}: larger than {limit // 1024} KiB; a {what} is far smaller, so this is not one")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ReadError(f"{name}: saved as UTF-16 text; a {what} is UTF-8 (save it again as UTF-8)")
    if b"\x00" in data:
        raise ReadError(f"{name}: contains NUL bytes; this is a binary file, not a {what}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        byte = data[exc.start]
        raise ReadError(f"{name}: line {line}: not UTF-8 text (byte 0x{byte:02x}); is this a {what}?") from None


def write_failure(path: str, exc: OSError, kept: str = "Nothing else was changed.") -> str:
    """Why ``path`` was not written and what to do, naming the file the host chose: the error itself names the
    temporary file written beside it first (:func:`stage_bytes`), a name the host never saw.  ``kept`` says
    what is still safe."""
    folder = os.path.dirname(os.path.abspath(path))
    if exc.errno == errno.ENOENT:
        advice = f"the folder {folder} does not exist; choose another folder"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        advice = f"this account may not write in {folder}; choose another folder"
    elif exc.errno == errno.EISDIR:
        advice = "that name is a folder; choose a file name"
    elif exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        advice = "the disk is full; free some space and try again"
    else:
        advice = "choose another folder or try again"
    return f"{path} was not written ({exc.strerror or exc}): {advice}. {kept}"


def file_stamp(path: str | os.PathLike[str] | None) -> tuple[int, int] | None:
    """A file's modification time (ns) and size, None when there is none: what tells that another program wrote
    it since (an edit in place may keep the size, a fast rewrite the time)."""
    if not path:
        return None
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size
