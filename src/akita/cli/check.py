"""``akita check HOST.toml``: prove the HI guarantee on every pCPU with Z3.

The limits hold: ``--rlimit`` is each pCPU's budget of Z3's resource count,
the limit that decides (deterministic: the same verdict on a quiet or a
loaded machine); ``--timeout`` is a wall-clock guard over the whole command
(building the encodings included); ``--max-memory`` caps Z3's memory; a limit
reached is ``unknown`` with the reason.  Nothing is omitted: a VM that first
fit rejected is named (it is in no proof), and a pCPU without a HI vCPU
answers ``nothing to prove``, which is not counted as a proof.  The check
covers the phases the host can have (every phase on the tick grid for a VM
whose phase is ``"seeded"``); a counterexample names the phases it needs,
in the text and under ``"phases"`` in ``--json``, and ``--save`` declares
them on the VMs of the host file it writes, so ``akita simulate`` replays it.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence, TypeVar

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from akita.model import ModelError, Placement, first_fit, format_duration, load_host
from akita.model.smt.pcpu import POLICIES
from akita.proofs.host_check import (
    DEFAULT_RLIMIT,
    DEFAULT_TIMEOUT,
    EXIT_NOTHING,
    HostProgress,
    PCPUCheck,
    check_host,
    check_limits,
    rejected_vms,
    status_of,
)
from akita.proofs.limits import DEFAULT_MEMORY_MB
from akita.proofs.verdict import NOTHING, PROVED, REFUTED, UNKNOWN

from .outputs import writable_folder

__all__ = ["check", "counted", "print_checks", "summary", "checks_json", "progress_bar",
           "timeout_option", "horizon_options"]

F = TypeVar("F", bound=Callable[..., Any])


def timeout_option(function: F) -> F:
    """``--timeout`` and ``--rlimit``, shared by ``check`` and ``verify``."""
    function = click.option(
        "--rlimit", default=DEFAULT_RLIMIT, show_default=True, type=click.IntRange(min=0),
        help="Each pCPU's budget of Z3's resource count (0: none), the limit that decides: "
             "the same budget gives the same verdict on a quiet or a loaded machine.",
    )(function)
    return click.option(
        "--timeout", default=DEFAULT_TIMEOUT, show_default=True, type=float,
        help="Wall-clock guard, in seconds, over the whole command (every pCPU, building "
             "the encodings included); an outer bound only.",
    )(function)


def horizon_options(function: F) -> F:
    """``--hyperperiods``, ``--max-ticks`` and ``--max-memory``, shared by ``check`` and
    ``verify``."""
    for option in reversed((
        click.option("--hyperperiods", default=2, show_default=True, type=int,
                     help="Horizon, in hyperperiods of each pCPU."),
        click.option("--max-ticks", default=480, show_default=True, type=int,
                     help="Largest horizon, in ticks, to attempt."),
        click.option("--max-memory", default=DEFAULT_MEMORY_MB, show_default=True, type=int,
                     help="Memory ceiling for Z3, in megabytes."),
    )):
        function = option(function)
    return function


@click.command(short_help="Z3: no HI job misses on any pCPU, within scope.")
@click.argument("host_file", metavar="HOST.toml", type=click.Path(dir_okay=False))
@click.option("--policy", default="akita", show_default=True, help=" or ".join(POLICIES) + ".")
@horizon_options
@timeout_option
@click.option("--save", "save_to", type=click.Path(file_okay=False),
              help="Write each counterexample as a host file and traces under this folder.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON.")
def check(host_file: str, policy: str, hyperperiods: int, max_ticks: int, max_memory: int,
          timeout: float, rlimit: int, save_to: str | None, as_json: bool) -> int:
    """Check, for every behaviour in scope, that no HI job misses on any pCPU of HOST.toml.

    Exit status 0 every pCPU with a HI vCPU proved; 1 a pCPU refuted or a VM rejected
    (it is in no proof); 3 a pCPU unknown (a limit reached), none refuted; 4 nothing to
    prove (no HI vCPU on any pCPU); 2 bad input.
    """
    if policy not in POLICIES:
        raise ModelError("--policy", policy, " or ".join(POLICIES))
    check_limits(timeout=timeout, max_ticks=max_ticks, hyperperiods=hyperperiods,
                 memory_mb=max_memory)
    host = load_host(host_file)
    if save_to is not None:
        writable_folder("--save", save_to)
    placement = first_fit(host)
    with progress_bar() as report:
        answers = check_host(host, policy, hyperperiods=hyperperiods, timeout=timeout,
                             rlimit=rlimit,
                             max_ticks=max_ticks, save_to=save_to, placement=placement,
                             memory_mb=max_memory, progress=report)
    status = status_of(answers, rejected_vms(placement))
    if as_json:
        click.echo(json.dumps(checks_json(answers, placement, status)))
    else:
        print_checks(answers, policy, placement=placement)
    return status


def checks_json(answers: Sequence[PCPUCheck], placement: Placement,
                status: int) -> dict[str, object]:
    """The documented JSON document: the pCPUs' answers, the rejected VMs, the exit status."""
    return {
        "pcpus": [a.as_json() for a in answers],
        "rejected": [{"name": name, "reason": reason}
                     for name, reason in rejected_vms(placement)],
        "status": status,
    }


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``"1 pCPU"``, ``"2 pCPUs"`` (*plural*: the plural when it is not *noun* + ``s``)."""
    return f"{n} {noun}" if n == 1 else f"{n} {plural or noun + 's'}"


def summary(answers: Sequence[PCPUCheck], policy: str,
            placement: Placement | None = None) -> str:
    """One sentence: what was proved, refuted, unknown or had nothing to prove, and which
    VMs are in no proof."""
    total = len(answers)
    words = []
    for verdict in (PROVED, REFUTED, UNKNOWN, NOTHING):
        n = sum(a.verdict.verdict == verdict for a in answers)
        if n:
            words.append(f"{verdict} on {n} of {counted(total, 'pCPU')}")
    text = f"HI guarantee under {policy}: " + ("; ".join(words) or "no pCPU holds a vCPU") + "."
    if words and status_of(answers) == EXIT_NOTHING:
        text += " Nothing proved: no pCPU holds a HI vCPU."
    rejected = rejected_vms(placement) if placement is not None else []
    if rejected:
        names = ", ".join(name for name, _ in rejected)
        text += (f" {counted(len(rejected), 'VM')} rejected by first fit, in no proof: "
                 f"{names}.")
    return text


def print_checks(answers: Sequence[PCPUCheck], policy: str, console: Console | None = None,
                 *, placement: Placement | None = None) -> None:
    """The table, the reason of every pCPU not proved, the rejected VMs and the summary."""
    console = console or Console(highlight=False)
    table = Table(title=f"HI guarantee under {policy}")
    for column in ("pCPU", "verdict", "seconds", "scope"):
        table.add_column(column, justify="right" if column in ("pCPU", "seconds") else "left")
    for a in answers:
        table.add_row(str(a.index), a.verdict.verdict, f"{a.seconds:.2f}", escape(a.scope))
    console.print(table)
    for a in answers:
        if a.verdict.verdict != PROVED:
            console.print(f"pCPU {a.index}: {escape(a.verdict.reason or a.verdict.verdict)}")
            example = a.verdict.counterexample or {}
            if example.get("phases"):
                console.print("  phases: " + escape(", ".join(
                    f"{name} {format_duration(ns)}" for name, ns in example["phases"].items())))
            if "replay" in example:
                console.print(f"  replay: akita simulate {escape(example['replay'])} "
                              f"--policy {policy} --duration {example['horizon_ns'] + 1}ns")
    if placement is not None:
        for name, reason in rejected_vms(placement):
            console.print(f"VM {escape(name)}: rejected by first fit, in no proof: "
                          f"{escape(reason)}")
    console.print(summary(answers, policy, placement))


@contextmanager
def progress_bar() -> Iterator[HostProgress | None]:
    """A progress bar on stderr while pCPUs are checked, if stderr is a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    columns = (TextColumn("{task.description}"), BarColumn(),
               TextColumn("{task.completed}/{task.total} ticks"), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("checking", total=None)

        def report(index: int, stage: str, done: int, total: int) -> None:
            if stage == "solving":
                progress.update(task, description=f"pCPU {index}: Z3 is searching",
                                completed=progress.tasks[0].total or 0)
            else:
                progress.update(task, description=f"pCPU {index}: building the encoding",
                                completed=done, total=total)

        yield report
