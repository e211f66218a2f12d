"""Files written whole or not at all: the one way every command writes a file.

A file is written to a temporary name in its own folder (``.NAME.XXXX.tmp``),
flushed and synced to disk, then renamed over its final name with
:func:`os.replace` -- an atomic step on POSIX file systems (the rename either
happens or does not; readers see the old file or the new one, never a
prefix).  If the writing stops for any reason -- an exception, a full disk,
Ctrl-C -- the temporary is removed and the final name is untouched: an
interrupted run leaves the previous file or nothing.  (A process killed
outright, ``SIGKILL``, may leave its hidden temporary behind, never a partial
file under the final name.)  A name that is not a regular file (``/dev/null``, a
pipe) is written in place: there is nothing to rename over it.

The names this process has finished are remembered (:func:`kept`), so that an
interrupted command can say what it kept.
"""

from __future__ import annotations

import os
from contextlib import AbstractContextManager, contextmanager
from typing import IO, Any, BinaryIO, Iterator, Literal, TextIO, overload

__all__ = ["atomic_file", "write_atomic", "kept"]

_KEPT: list[str] = []


def _mode() -> int:
    """The permissions a plain ``open(path, "w")`` would give (``0666`` less the umask);
    :func:`tempfile.mkstemp` makes its files ``0600``."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@overload
def atomic_file(path: str | os.PathLike[str], mode: Literal["w"] = "w",
                encoding: str | None = "utf-8") -> AbstractContextManager[TextIO]: ...


@overload
def atomic_file(path: str | os.PathLike[str], mode: Literal["wb"],
                encoding: str | None = "utf-8") -> AbstractContextManager[BinaryIO]: ...


def atomic_file(path: str | os.PathLike[str], mode: str = "w",
                encoding: str | None = "utf-8") -> AbstractContextManager[IO[Any]]:
    """A stream whose content becomes the file *path* only when the body ends normally.

    *mode* is ``"w"`` (text, in *encoding*) or ``"wb"`` (bytes).  Errors opening,
    writing, syncing or renaming are raised as :class:`OSError` naming *path*.
    """
    return _atomic(path, mode, encoding)


@contextmanager
def _atomic(path: str | os.PathLike[str], mode: str,
            encoding: str | None) -> Iterator[IO[Any]]:
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_file writes with mode 'w' or 'wb', not {mode!r}")
    target = os.fspath(path)
    if _special(target):
        with _direct(target, mode, encoding) as stream:
            yield stream
        return
    import tempfile  # where a file is written, not at start-up (decision 102)

    folder, name = os.path.split(os.path.abspath(target))
    handle, scratch = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    try:
        os.fchmod(handle, _mode())
        with os.fdopen(handle, mode, encoding=None if mode == "wb" else encoding) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(scratch, target)
    except OSError as error:
        if error.filename is None:  # a write error names the file meant, not the temporary
            error.filename = target
        raise
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)
    _sync_folder(folder)
    _KEPT.append(target)


def _special(path: str) -> bool:
    """Whether *path* exists and is not a regular file (``/dev/null``, ``/dev/stdout``, a
    pipe): such a file is written in place, since renaming over it would replace it."""
    import stat

    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


@contextmanager
def _direct(path: str, mode: str, encoding: str | None) -> Iterator[IO[Any]]:
    """*path* opened for writing in place, its errors naming it."""
    try:
        with open(path, mode, encoding=None if mode == "wb" else encoding) as stream:
            yield stream
            stream.flush()
    except OSError as error:
        if error.filename is None:
            error.filename = path
        raise


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write *data* (text in UTF-8, or bytes) as the whole file *path* (see
    :func:`atomic_file`)."""
    if isinstance(data, bytes):
        with atomic_file(path, "wb") as binary:
            binary.write(data)
    else:
        with atomic_file(path) as text:
            text.write(data)


def kept() -> list[str]:
    """The files this process has written whole, in order."""
    return list(_KEPT)


def _sync_folder(folder: str) -> None:
    """Sync *folder*'s entry for the renamed file to disk (best effort: not every file
    system lets a folder be opened)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)
