"""Running the ``akita`` command line inside a test, for tests at any depth of ``tests/``."""

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
