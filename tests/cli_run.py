"""Running the ``akita`` command line inside a test, for tests at any depth of ``tests/``."""

import signal
import subprocess
from typing import Any

from akita.cli import run


def run_cli(capsys, *args):
    """``akita ARGS...`` (each argument as a string): its exit status, stdout and stderr."""
    status = run([str(arg) for arg in args])
    out = capsys.readouterr()
    return status, out.out, out.err


def spec_file(tmp_path, text, name):
    """*text* written to ``tmp_path / name``; the path."""
    path = tmp_path / name
    path.write_text(text)
    return path


def interruptible(command, **options: Any) -> subprocess.Popen:
    """``subprocess.Popen(command, **options)`` with SIGINT as a terminal gives it (the
    default action).  A test run started in the background of a shell without job
    control (``nohup .ci/run &``) ignores SIGINT; a child inherits that, Python keeps an
    ignored SIGINT ignored, and a test's Ctrl-C would then be lost: the run ends
    normally whatever the test sends."""
    return subprocess.Popen(command, preexec_fn=_sigint_default, **options)


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
