"""The project's two small C programs, compiled with ``cc`` at first use.

``akita_vcpu`` replays one vCPU's jobs as CPU time on a real task and
``akita_client`` sends a request-serving VM's request process to a real
memcached (each documented at the top of its source, ``linux/csrc/``).  They are
compiled once into a cache directory keyed by the SHA-256 of the source, so a
changed source is recompiled and two processes never race on one binary: each
compiles into a temporary name and renames it into place (decision 180).

The cache is ``$AKITA_CACHE`` if set, else ``$XDG_CACHE_HOME/akita`` or
``~/.cache/akita``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path

__all__ = ["Unavailable", "program", "PROGRAMS"]

#: The programs, by name; each is ``csrc/NAME.c``.
PROGRAMS = ("akita_vcpu", "akita_client")


class Unavailable(RuntimeError):
    """What this machine lacks to run a host on its kernel (root, a program, a CPU).

    ``what`` names the missing thing; the message is one line, for the command line.
    """

    def __init__(self, what: str, message: str) -> None:
        super().__init__(message)
        self.what = what


def cache_dir() -> Path:
    """Where compiled programs are kept."""
    if "AKITA_CACHE" in os.environ:
        return Path(os.environ["AKITA_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "akita"


def program(name: str) -> Path:
    """The path of the compiled program *name*, compiling it first if needed.

    :raises Unavailable: no C compiler, or the compile failed.
    """
    if name not in PROGRAMS:
        raise ValueError(f"no program {name!r}; one of {', '.join(PROGRAMS)}")
    source = resources.files("akita.linux").joinpath("csrc", f"{name}.c").read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    target = cache_dir() / "linux" / f"{name}-{digest}"
    if target.exists():
        return target
    compiler = shutil.which(os.environ.get("CC", "cc"))
    if compiler is None:
        raise Unavailable("cc", "no C compiler (cc) to build the workload programs")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        src = Path(work) / f"{name}.c"
        src.write_bytes(source)
        built = Path(work) / name
        done = subprocess.run([compiler, "-O2", "-o", str(built), str(src)],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            first = (done.stderr.strip().splitlines() or ["no message"])[0]
            raise Unavailable("cc", f"compiling {name}.c failed: {first}")
        os.replace(built, target)
    return target
