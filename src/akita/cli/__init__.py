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
from .check import check
from .conform import conform
from .fleet import fleet
from .prove import prove
from .reproduce import reproduce
from .simulate import simulate
from .sweep import sweep
from .verify import verify

__all__ = ["cli", "main", "run"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="akita-sched", prog_name="akita")
def cli() -> None:
    """akita: admission, simulation and proofs for the Akita scheduler."""


cli.add_command(admit)
cli.add_command(check)
cli.add_command(simulate)
cli.add_command(verify)
cli.add_command(prove)
cli.add_command(conform)
cli.add_command(reproduce)
cli.add_command(sweep)
cli.add_command(fleet)


def run(argv: list[str] | None = None) -> int:
    """Run the command line on *argv* and return its exit status.

    Bad input (a :class:`~akita.model.ModelError` or a usage error) is
    reported as one line on stderr and gives status 2.
    """
    try:
        status = cli.main(args=argv, prog_name="akita", standalone_mode=False)
    except ModelError as error:
        return _fail(str(error))
    except click.UsageError as error:
        return _fail(error.format_message())
    except click.exceptions.Abort:
        return _fail("aborted")
    except OSError as error:  # a file that cannot be read or written, found late
        where = f"{error.filename}: " if error.filename else ""
        return _fail(f"{where}{error.strerror or error}")
    return 0 if status is None else status


def main() -> None:
    """The ``akita`` console script."""
    sys.exit(run())


def _fail(message: str) -> int:
    click.echo(f"akita: error: {' '.join(message.split())}", err=True)
    return 2
