"""``akita admit HOST.toml``: decide admission of a host's VMs by first fit (R11, R12)."""

from __future__ import annotations

import functools
import json
import math
from typing import TYPE_CHECKING, Any, Callable, Sequence

import click
from rich.console import Console
from rich.table import Table

import attrs

from akita.model import VM, Host, ModelError, Placement, first_fit, format_duration, load_host
from akita.model.duration import parse_duration
from akita.model.overheads import admission_test_with_overheads, overhead_aware
from akita.model.edf_vd import virtual_deadline_factor
from akita.model.ioq import format_ns
from akita.model.exact.limits import DEFAULT_LIMITS, Limits

from .progress import Update, stderr_bar

if TYPE_CHECKING:  # the exact test loads Z3: imported when a host asks for it
    from akita.model.exact.admission import ExactTest, Trial

__all__ = ["admit", "cost_line", "counted", "phases_line", "print_placement"]


@click.command(short_help="First-fit admission of a host's VMs (EDF-VD, or the exact test).")
@click.argument("host_file", metavar="HOST.toml", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the placement as JSON on stdout.")
@click.option("--exact-states", default=DEFAULT_LIMITS.states, show_default=True, type=int,
              help="test = \"exact\": the most states one pCPU's search may keep (then "
                   "UNKNOWN): the deterministic limit that decides.")
@click.option("--exact-seconds", default=DEFAULT_LIMITS.seconds, show_default=True, type=float,
              help="test = \"exact\": a wall-clock guard on one pCPU's search, in seconds "
                   "(then UNKNOWN, said to be the guard); an outer bound only.")
@click.option("--switch-cost", "switch_cost_text", default=None,
              help="What a context switch (and the decision before it) costs, with a unit; "
                   "admission inflates each vCPU's budgets by the switches it pays for "
                   "(default: the host's context_switch_cost; bench/context_switch.py "
                   "measures this machine's, 2460ns).")
@click.option("--workers", type=click.IntRange(min=0), default=None,
              help="test = \"exact\": worker processes of the local Dask cluster that "
                   "re-checks a certificate of 20,000 states or more in two parts (default: "
                   "one per core; 0: both parts in this process). The answer is the same "
                   "for any number.")
def admit(host_file: str, as_json: bool, exact_states: int, exact_seconds: float,
          switch_cost_text: str | None, workers: int | None) -> int:
    """Place the VMs of HOST.toml by first fit and say which are admitted.

    With a context-switch cost (the host's ``context_switch_cost`` or
    ``--switch-cost``), each pCPU is decided on budgets inflated by the
    switches each of its vCPUs pays for (docs/admission.rst).  Exit status 0
    if every VM is admitted, 1 if some VM is rejected, 4 if the host declares
    no VM (nothing to admit, as ``check`` and ``verify`` answer it), 2 if the
    file is bad.
    """
    host = load_host(host_file)
    if switch_cost_text is not None:
        cost = parse_duration(switch_cost_text, field="--switch-cost")
        if cost < 0:
            raise ModelError("--switch-cost", switch_cost_text, "a duration >= 0")
        host = attrs.evolve(host, options=attrs.evolve(host.options, context_switch_cost=cost))
    exact = _exact_test(host, exact_states, exact_seconds, workers)
    cost = host.options.context_switch_cost
    test = (admission_test_with_overheads(host.test, host.options) if exact is None
            else overhead_aware(exact.admission_test(), cost))
    with stderr_bar("Placing {task.description}", total=len(host.vms), unit="VMs") as update:
        placement = first_fit(host, test=test, on_offer=_shown(update))
    trials = None if exact is None else exact.trials
    if as_json:
        click.echo(json.dumps(placement.as_json(host.options, trials=trials, counted_cost=cost)))
    else:
        print_placement(placement, host=host, trials=trials, counted_cost=cost)
    if not host.vms:  # "every VM admitted" would be vacuous: say there was nothing
        from akita.proofs.host_check import EXIT_NOTHING

        if not as_json:
            click.echo("Nothing to admit: the host declares no VM.")
        return EXIT_NOTHING
    return 0 if placement.admitted else 1


def _shown(update: Update | None) -> Callable[[int, VM], None] | None:
    """First fit's hook for the bar *update* draws (none off a terminal): the VM being
    placed and how many are done."""
    if update is None:
        return None
    return lambda index, vm: update(completed=index, description=vm.name)


def _exact_test(host: Host, states: int, seconds: float,
                workers: int | None = None) -> ExactTest | None:
    """The exact test for *host* with the limits given, if the host asks for it; its
    re-check of a large certificate runs on *workers* processes."""
    if states < 1:
        raise ModelError("--exact-states", states, "an integer >= 1")
    if not (math.isfinite(seconds) and seconds > 0):
        raise ModelError("--exact-seconds", seconds, "a number of seconds > 0")
    if host.test != "exact":
        return None
    from akita.model.exact.admission import ExactTest
    from akita.proofs.exact_certificate import recheck

    # the search decides the budget-level schedule: the switches are in the inflated budgets
    options = attrs.evolve(host.options, context_switch_cost=0)
    return ExactTest(options, Limits(states=states, seconds=seconds),
                     functools.partial(recheck, workers=workers))


def _ioq_table(placement: Placement) -> Table | None:
    """The VMs with an IO quality: the IOQ beside the CAL bound admission gave (R14)."""
    rows = []
    for answer in placement.vms:
        ioq = answer.vm.ioq
        if ioq is None:
            continue
        bound = answer.cal_bound
        shown = "-" if bound is None or bound.lo_mode is None else format_ns(bound.lo_mode)
        rows.append([answer.vm.name, format_duration(ioq), shown,
                     "-" if bound is None else bound.rule,
                     "yes" if answer.admitted else "rejected"])
    if not rows:
        return None
    table = Table(title="IO quality (R14)",
                  caption="CAL bound: the longest wait for the pCPU while it stays in LO mode")
    for column in ("VM", "ioq", "CAL bound", "from", "met"):
        table.add_column(column, justify="left" if column in ("VM", "from") else "right")
    for row in rows:
        table.add_row(*row)
    return table


def print_placement(placement: Placement, console: Console | None = None, *,
                    host: Host, trials: Sequence[Trial] | None = None,
                    counted_cost: int = 0) -> None:
    """The placement as tables for people (and, under the exact test, its searches)."""
    console = console or Console(highlight=False)
    rule = host.options.x_rule
    pcpus = Table(
        title=f"pCPUs (admission test: {placement.test})",
        caption="U1 = LO load at C_opt, U2 = HI load at C_opt, U3 = HI load at C_pes; "
        f"x scales HI virtual deadlines (x_rule {rule!r})",
    )
    columns = ["pCPU", "vCPUs", "U1", "U2", "U3", "x", "ok"] + (["decided"] if trials is not None
                                                                 else [])
    for column in columns:
        pcpus.add_column(column, justify="left" if column in ("vCPUs", "decided") else "right")
    for pcpu in placement.pcpus:
        verdict = pcpu.verdict
        row = [
            str(pcpu.index),
            ", ".join(vcpu.name for vcpu in pcpu.vcpus) or "-",
            str(verdict.sums.lo_lo),
            str(verdict.sums.hi_lo),
            str(verdict.sums.hi_hi),
            "-" if verdict.x is None else str(virtual_deadline_factor(verdict, rule)),
            "yes" if verdict.schedulable else "NO",
        ]
        if trials is not None:
            row.append(_decided(verdict.test, verdict.detail))
        pcpus.add_row(*row)
    console.print(pcpus)
    ioq = _ioq_table(placement)
    if ioq is not None:
        console.print(ioq)
    if trials:
        searched = Table(title="Exact searches (each pCPU first fit asked the exact branch about)")
        for column in ("vCPUs", "x", "answer", "states", "transitions", "certificate"):
            searched.add_column(column, justify="left" if column == "vCPUs" else "right")
        for trial in trials:
            o = trial.outcome
            searched.add_row(", ".join(trial.vcpus), str(trial.x), o.status, f"{o.states:,}",
                             f"{o.transitions:,}", _certificate(trial.certificate))
        console.print(searched)
        for trial in trials:
            if trial.outcome.status == "UNKNOWN":
                console.print(f"UNKNOWN (rejected) for {', '.join(trial.vcpus)}: "
                              f"{trial.outcome.reason}")
            if trial.certificate is not None and not trial.certificate[0]:
                console.print(f"SAFE but the certificate was not accepted (rejected) for "
                              f"{', '.join(trial.vcpus)}: {trial.certificate[1]}")
    rejected = [vm for vm in placement.vms if not vm.admitted]
    if rejected:
        table = Table(title="Rejected VMs")
        table.add_column("VM")
        table.add_column("reason")
        for vm in rejected:
            table.add_row(vm.vm.name, vm.reason)
        console.print(table)
    console.print(phases_line(host))
    console.print(cost_line(counted_cost))
    admitted = len(placement.vms) - len(rejected)
    console.print(f"{admitted} of {counted(len(placement.vms), 'VM')} admitted "
                  f"on {counted(len(placement.pcpus), 'pCPU')}.")


def _decided(test: str, detail: dict[str, Any] | None) -> str:
    """Which test decided a pCPU, in a few words."""
    if detail is None:
        return test
    certificate = detail.get("certificate")
    rechecked = "" if certificate is None else \
        f", {'re-checked' if certificate['accepted'] else 'NOT re-checked'}"
    return f"exact: {detail['answer']}, {detail['states']:,} states{rechecked}"


def _certificate(certificate: tuple[bool, str] | None) -> str:
    """A re-check's answer in a word (``-``: none, for an answer that is not SAFE)."""
    return "-" if certificate is None else ("accepted" if certificate[0] else "NOT accepted")


def phases_line(host: Host) -> str:
    """Where the VMs' periods start (R2), in one line."""
    declared = [f"{vm.name} at {format_duration(vm.phase)}" for vm in host.vms
                if vm.phase is not None]
    rest = ("at 0 (synchronous)" if host.options.synchronous
            else "at phases drawn from each run's seed")
    if not declared:
        return f"Periods start {rest}."
    if len(declared) == len(host.vms):
        return f"Periods start: {', '.join(declared)}."
    return f"Periods start: {', '.join(declared)}; the others {rest}."


def cost_line(cost: int) -> str:
    """What admission counted for a context switch (*cost* ns), in one line."""
    if not cost:
        return "Context switches counted as free by admission."
    return (f"Each context switch counted as {format_duration(cost)}: U1, U2, U3 are of the "
            "budgets inflated by the switches each vCPU pays for (C + n_i x cost).")


def counted(number: int, noun: str) -> str:
    """*number* and *noun*, plural unless it is one: ``1 pCPU``, ``2 pCPUs``, ``0 VMs``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
