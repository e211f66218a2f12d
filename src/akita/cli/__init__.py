"""The ``akita`` command line.

Every command prints a table for people by default and, with ``--json``,
one JSON document on stdout for machines.  Exit status: 0 success, 1 a
negative answer (e.g. a VM rejected), 2 bad input -- reported as one line on
stderr naming the file, the VM and the field, never as a traceback -- or a file
that could not be written, 130 interrupted (Ctrl-C), with one line saying what
was kept and how to go on.  Bare ``akita`` prints the help (status 0).
"""

from __future__ import annotations

import gc
import importlib
import os
import sys

import click

from akita.model import ModelError, ParameterError

__all__ = ["cli", "main", "run", "EXIT_INTERRUPTED", "FLAGS"]

#: The exit status of a command stopped by Ctrl-C (``SIGINT``): 128 + 2, as shells report it.
EXIT_INTERRUPTED = 130

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
    "linux": "linux",
    "export-rtapp": "export_rtapp",
    "import-rtapp": "import_rtapp",
    "analyze": "analyze",
}


#: Library parameter -> the flag of the commands that set it from the command line.  The
#: library names its parameters (:class:`~akita.model.ParameterError`: ``max_ticks``, not
#: ``--max-ticks``); the command line reports such an error under the flag, here, once.
FLAGS: dict[str, str] = {
    "policy": "--policy",
    "duration": "--duration",
    "timeout": "--timeout",
    "max_ticks": "--max-ticks",
    "hyperperiods": "--hyperperiods",
    "memory_mb": "--max-memory",
    "scheduler": "--scheduler",
    "window": "--window",
    "cpus": "--cpus",
    "seconds": "--seconds",
    "attach": "--attach",
    "variant": "--variant",
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

    Bad input (a :class:`~akita.model.ModelError` or a usage error), or a
    file that cannot be written, is reported as one line on stderr and gives
    status 2; Ctrl-C, as one line saying what was kept, status 130.
    """
    from akita.atomic import kept

    args = sys.argv[1:] if argv is None else list(argv)
    before = len(kept())
    try:
        status = _invoke(args or ["--help"])  # bare ``akita``: the help, status 0
    except KeyboardInterrupt:
        return _interrupted(kept()[before:])
    except ParameterError as error:
        return _fail(str(_as_flag(error, args)))
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


def _invoke(args: list[str]) -> int | None:
    """Run the command *args* the way ``cli.main(standalone_mode=False)`` does, but let
    Ctrl-C through as :class:`KeyboardInterrupt` (``click`` would print an empty line
    and turn it into an ``Abort``)."""
    try:
        with cli.make_context("akita", args) as ctx:
            status = cli.invoke(ctx)
    except click.exceptions.Exit as leave:  # --help, --version
        return leave.exit_code
    return status if isinstance(status, int) else None


def _as_flag(error: ParameterError, args: list[str]) -> ModelError:
    """*error* as the command line says it: under the flag that set the parameter
    (:data:`FLAGS`), with the value as typed there (:func:`_typed`)."""
    flag = FLAGS.get(error.field)
    if flag is None:
        return error
    return ModelError(flag, _typed(flag, args, error.value), error.expected, vm=error.vm,
                      path=error.path)


def _typed(flag: str, args: list[str], value: object) -> object:
    """What *args* gave *flag* when the command takes it as text and passes on what it made
    of it (``--duration 0s``: ``'0s'``, where the library got 0 ns); *value* otherwise
    (a number ``click`` converted is what the library got; a flag given many times, whose
    one item the library names: ``--attach``).  ``click`` parses *args* again, without
    callbacks (``resilient_parsing``), so the text is read as the command read it."""
    where = next((i for i, arg in enumerate(args) if arg in COMMANDS), None)
    if where is None:
        return value
    command = cli.get_command(click.Context(cli), args[where])
    if command is None:
        return value
    for param in command.params:
        if flag in param.opts and isinstance(param.type, click.types.StringParamType):
            try:
                with command.make_context(args[where], args[where + 1:],
                                          resilient_parsing=True) as ctx:
                    typed = ctx.params.get(param.name or "")
            except click.ClickException:
                return value
            return typed if isinstance(typed, str) else value
    return value


def _interrupted(files: list[str]) -> int:
    """Say, on one line, that the command was interrupted, which finished *files* it kept
    (every file is written whole or not at all, :mod:`akita.atomic`) and how to go on."""
    from .outputs import resume_hint

    shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    what = (f"kept {len(files)} finished file{'s' if len(files) != 1 else ''} ({shown})"
            if files else "no file written")
    click.echo(f"akita: interrupted: {what}, no partial file; {resume_hint()}", err=True)
    return EXIT_INTERRUPTED


def main() -> None:
    """The ``akita`` console script."""
    status = run()
    if status == EXIT_INTERRUPTED:
        # Leave at once: the interpreter's shutdown would run Z3's finalizers on
        # half-torn-down modules (a ``__del__`` traceback seen after Ctrl-C); every file
        # was already closed and renamed, or removed, while the interrupt unwound.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    # What the command made is still referenced at exit, and the interpreter's last
    # collection would walk it all for nothing (about 10 ms of a short ``akita simulate``,
    # bench/README.md): freeze it, so that the collector skips it (decision 102).
    gc.freeze()
    sys.exit(status)


def _fail(message: str) -> int:
    click.echo(f"akita: error: {' '.join(message.split())}", err=True)
    return 2
