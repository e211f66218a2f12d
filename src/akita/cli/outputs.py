"""What a command checks before its long work starts, and the result files it writes.

A command that will write a file (``--trace``, ``--timeline``, ``--save``,
``--out``) checks first that it can, so that a path that cannot be written
fails at once as bad input -- one line, exit status 2 -- instead of as a
traceback after the work is done and its results are lost.
"""

from __future__ import annotations

import importlib.util
import json
import os
from typing import TYPE_CHECKING, Any

import click

from akita.model import ModelError

if TYPE_CHECKING:  # pathlib and tempfile are loaded when a folder is checked, not for a file
    from pathlib import Path

__all__ = ["writable_file", "writable_folder", "require_matplotlib", "write_results",
           "one_cluster", "on_interrupt", "resume_hint"]

#: How the running command goes on after Ctrl-C, said by the command (:func:`on_interrupt`).
_RESUME: list[str] = []


def writable_file(option: str, path: str | os.PathLike[str] | None) -> None:
    """Raise :class:`~akita.model.ModelError` naming *option* unless *path* can be written.

    A file that does not exist yet is created to find out, then removed.
    """
    if path is None:
        return
    existed = os.path.exists(path)
    try:
        if os.path.isdir(path):
            raise IsADirectoryError(21, "Is a directory")
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as error:
        raise ModelError(option, str(path), f"a file that can be written ({error.strerror})") \
            from None
    if not existed:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def writable_folder(option: str, path: str | os.PathLike[str]) -> None:
    """Create folder *path* if needed; raise :class:`~akita.model.ModelError` naming *option*
    unless a file can be written in it."""
    import tempfile
    from pathlib import Path

    try:
        Path(path).mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as error:
        raise ModelError(option, str(path), f"a folder that can be written ({error.strerror})") \
            from None


def require_matplotlib(what: str, escape: str | None = None) -> None:
    """Bad input (one line) unless matplotlib, which draws *what* (e.g. ``"akita sweep
    draws its plot"``), can be imported; *escape* names the option that does without."""
    if importlib.util.find_spec("matplotlib") is None:
        also = f" (or pass {escape})" if escape else ""
        raise click.UsageError(f"{what} with matplotlib, which is not installed; install it "
                               f"with: pip install matplotlib{also}")


def write_results(out: Path, name: str, document: dict[str, Any], csv: str) -> list[str]:
    """Write *document* as ``NAME.json`` (indented) and *csv* as ``NAME.csv`` in folder
    *out* (checked beforehand by :func:`writable_folder`); the names written."""
    from akita.atomic import write_atomic

    write_atomic(out / f"{name}.json", json.dumps(document, indent=1) + "\n")
    write_atomic(out / f"{name}.csv", csv)
    return [f"{name}.csv", f"{name}.json"]


def one_cluster(workers: int | None, scheduler: str | None) -> None:
    """Bad input unless at most one of ``--workers`` and ``--scheduler`` is given (checked
    before any work: the cluster is where the results will come from)."""
    if workers is not None and scheduler is not None:
        raise click.UsageError("--workers and --scheduler exclude each other: --scheduler runs "
                               "on the workers of the cluster it names")


def on_interrupt(how: str) -> None:
    """Say how the running command goes on if it is interrupted (e.g. ``"a rerun with the
    same --out resumes from the finished batches"``)."""
    _RESUME[:] = [how]


def resume_hint() -> str:
    """How the interrupted command goes on: what it said (:func:`on_interrupt`), or a
    rerun."""
    return _RESUME[0] if _RESUME else "rerun the command to start again"
