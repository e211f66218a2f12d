"""Output paths, checked before any long work starts.

A command that will write a file (``--trace``, ``--timeline``, ``--save``,
``--out``) checks first that it can, so that a path that cannot be written
fails at once as bad input -- one line, exit status 2 -- instead of as a
traceback after the work is done and its results are lost.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from akita.model import ModelError

__all__ = ["writable_file", "writable_folder"]


def writable_file(option: str, path: str | os.PathLike[str] | None) -> None:
    """Raise :class:`~akita.model.ModelError` naming *option* unless *path* can be written.

    A file that does not exist yet is created to find out, then removed.
    """
    if path is None:
        return
    target = Path(path)
    existed = target.exists()
    try:
        if target.is_dir():
            raise IsADirectoryError(21, "Is a directory")
        with open(target, "a", encoding="utf-8"):
            pass
    except OSError as error:
        raise ModelError(option, str(path), f"a file that can be written ({error.strerror})") \
            from None
    if not existed:
        target.unlink(missing_ok=True)


def writable_folder(option: str, path: str | os.PathLike[str]) -> None:
    """Create folder *path* if needed; raise :class:`~akita.model.ModelError` naming *option*
    unless a file can be written in it."""
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as error:
        raise ModelError(option, str(path), f"a folder that can be written ({error.strerror})") \
            from None
