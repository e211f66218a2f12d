"""``akita admit HOST.toml``: decide admission of a host's VMs by first fit (R11, R12)."""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table

from akita.model import Host, Placement, first_fit, format_duration, load_host
from akita.model.edf_vd import virtual_deadline_factor

__all__ = ["admit", "counted", "phases_line", "placement_json", "print_placement"]


@click.command(short_help="First-fit admission of a host's VMs (exact EDF-VD).")
@click.argument("host_file", metavar="HOST.toml", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the placement as JSON on stdout.")
def admit(host_file: str, as_json: bool) -> int:
    """Place the VMs of HOST.toml by first fit and say which are admitted.

    Exit status 0 if every VM is admitted, 1 if some VM is rejected, 2 if the
    file is bad.
    """
    host = load_host(host_file)
    placement = first_fit(host)
    if as_json:
        click.echo(json.dumps(placement_json(placement, host)))
    else:
        print_placement(placement, host=host)
    return 0 if placement.admitted else 1


def placement_json(placement: Placement, host: Host) -> dict:
    """The placement as the documented JSON document (exact values as strings).

    Each VM carries its declared ``phase_ns`` (``null``: the host's ``phases``,
    given at the top); each pCPU its verdict's ``x`` and the ``x_used`` by the
    scheduler's virtual deadlines under the host's ``x_rule`` (R2).
    """
    rule = host.options.x_rule
    return {
        "admitted": placement.admitted,
        "test": placement.test,
        "phases": host.options.phases,
        "x_rule": rule,
        "vms": [
            {
                "name": vm.vm.name,
                "admitted": vm.admitted,
                "placement": list(vm.pcpus),
                "reason": vm.reason,
                "phase_ns": vm.vm.phase,
            }
            for vm in placement.vms
        ],
        "pcpus": [
            {
                "index": pcpu.index,
                "vcpus": [vcpu.name for vcpu in pcpu.vcpus],
                "u_lo_lo": str(pcpu.verdict.sums.lo_lo),
                "u_hi_lo": str(pcpu.verdict.sums.hi_lo),
                "u_hi_hi": str(pcpu.verdict.sums.hi_hi),
                "x": None if pcpu.verdict.x is None else str(pcpu.verdict.x),
                "x_used": None if pcpu.verdict.x is None
                else str(virtual_deadline_factor(pcpu.verdict, rule)),
                "schedulable": pcpu.verdict.schedulable,
            }
            for pcpu in placement.pcpus
        ],
    }


def print_placement(placement: Placement, console: Console | None = None, *,
                    host: Host) -> None:
    """The placement as tables for people."""
    console = console or Console(highlight=False)
    rule = host.options.x_rule
    pcpus = Table(
        title=f"pCPUs (admission test: {placement.test})",
        caption="U1 = LO load at C_opt, U2 = HI load at C_opt, U3 = HI load at C_pes; "
        f"x scales HI virtual deadlines (x_rule {rule!r})",
    )
    for column in ("pCPU", "vCPUs", "U1", "U2", "U3", "x", "ok"):
        pcpus.add_column(column, justify="left" if column == "vCPUs" else "right")
    for pcpu in placement.pcpus:
        verdict = pcpu.verdict
        pcpus.add_row(
            str(pcpu.index),
            ", ".join(vcpu.name for vcpu in pcpu.vcpus) or "-",
            str(verdict.sums.lo_lo),
            str(verdict.sums.hi_lo),
            str(verdict.sums.hi_hi),
            "-" if verdict.x is None else str(virtual_deadline_factor(verdict, rule)),
            "yes" if verdict.schedulable else "NO",
        )
    console.print(pcpus)
    rejected = [vm for vm in placement.vms if not vm.admitted]
    if rejected:
        table = Table(title="Rejected VMs")
        table.add_column("VM")
        table.add_column("reason")
        for vm in rejected:
            table.add_row(vm.vm.name, vm.reason)
        console.print(table)
    console.print(phases_line(host))
    admitted = len(placement.vms) - len(rejected)
    console.print(f"{admitted} of {counted(len(placement.vms), 'VM')} admitted "
                  f"on {counted(len(placement.pcpus), 'pCPU')}.")


def phases_line(host: Host) -> str:
    """Where the VMs' periods start (R2), in one line."""
    declared = [f"{vm.name} at {format_duration(vm.phase)}" for vm in host.vms
                if vm.phase is not None]
    rest = ("at 0 (synchronous)" if host.options.phases == "synchronous"
            else "at phases drawn from each run's seed")
    if not declared:
        return f"Periods start {rest}."
    if len(declared) == len(host.vms):
        return f"Periods start: {', '.join(declared)}."
    return f"Periods start: {', '.join(declared)}; the others {rest}."


def counted(number: int, noun: str) -> str:
    """*number* and *noun*, plural unless it is one: ``1 pCPU``, ``2 pCPUs``, ``0 VMs``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
