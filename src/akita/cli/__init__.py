"""The ``akita`` command line.

Every command prints a table for people by default and, with ``--json``,
one JSON document on stdout for machines.  Exit status: 0 success, 1 a
negative answer (e.g. a VM rejected), 2 bad input -- reported as one line on
stderr naming the file, the VM and the field, never as a traceback.
"""

from __future__ import annotations

import gc
import importlib
import sys

import click

from akita.model import ModelError

__all__ = ["cli", "main", "run"]

#: Command name -> the module of :mod:`akita.cli` that defines it (a ``click`` command of
#: the same name).  A command's module is imported when the command runs, so ``akita
#: simulate`` loads neither Z3 nor the oracle nor Dask (decision 50).
COMMANDS: dict[str, str] = {
    "admit": "admit",
    "check": "check",
    "simulate": "simulate",
    "verify": "verify",
    "prove": "prove",
    "conform": "conform",
    "reproduce": "reproduce",
    "sweep": "sweep",
    "fleet": "fleet",
    "disk": "disk",
    "kernel-run": "kernel_run",
    "analyze": "analyze",
}


class LazyGroup(click.Group):
    """A group whose commands are imported on first use (click's documented pattern for
    lazily loaded subcommands); ``akita --help`` loads them all to show their help."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is None:
            return None
        command = getattr(importlib.import_module(f"{__name__}.{module}"), module)
        assert isinstance(command, click.Command), cmd_name
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="akita-sched", prog_name="akita")
def cli() -> None:
    """akita: admission, simulation and proofs for the Akita scheduler."""


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
    status = run()
    # What the command made is still referenced at exit, and the interpreter's last
    # collection would walk it all for nothing (about 10 ms of a short ``akita simulate``,
    # bench/README.md): freeze it, so that the collector skips it (decision 102).
    gc.freeze()
    sys.exit(status)


def _fail(message: str) -> int:
    click.echo(f"akita: error: {' '.join(message.split())}", err=True)
    return 2
