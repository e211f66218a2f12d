"""The ``akita`` command line.

Every command prints a table for people by default and, with ``--json``,
one JSON document on stdout for machines.  Exit status: 0 success, 1 a
negative answer (e.g. a VM rejected), 2 bad input -- reported as one line on
stderr naming the file, the VM and the field, never as a traceback.
"""

from __future__ import annotations

import sys

import click

from akita.model import ModelError

from .admit import admit

__all__ = ["main", "cli"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="akita-sched", prog_name="akita")
def cli() -> None:
    """akita: admission, simulation and proofs for the Akita scheduler."""


cli.add_command(admit)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return (and, as a script, exit with) its status."""
    try:
        status = cli.main(args=argv, prog_name="akita", standalone_mode=False)
    except ModelError as error:
        _fail(str(error))
    except click.UsageError as error:
        _fail(error.format_message())
    except click.exceptions.Abort:
        _fail("aborted")
    except BrokenPipeError:
        sys.stderr.close()
        status = 1
    status = 0 if status is None else status
    if __name__ != "__main__" and argv is not None:
        return status
    sys.exit(status)


def _fail(message: str) -> None:
    click.echo(f"akita: error: {' '.join(message.split())}", err=True)
    sys.exit(2)
