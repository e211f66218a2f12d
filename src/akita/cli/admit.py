"""``akita admit HOST.toml``: decide admission of a host's VMs by first fit (R11, R12)."""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table

from akita.model import Placement, first_fit, load_host

__all__ = ["admit", "counted", "placement_json", "print_placement"]


@click.command(short_help="First-fit admission of a host's VMs (exact EDF-VD).")
@click.argument("host_file", metavar="HOST.toml", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the placement as JSON on stdout.")
def admit(host_file: str, as_json: bool) -> int:
    """Place the VMs of HOST.toml by first fit and say which are admitted.

    Exit status 0 if every VM is admitted, 1 if some VM is rejected, 2 if the
    file is bad.
    """
    placement = first_fit(load_host(host_file))
    if as_json:
        click.echo(json.dumps(placement_json(placement)))
    else:
        print_placement(placement)
    return 0 if placement.admitted else 1


def placement_json(placement: Placement) -> dict:
    """The placement as the documented JSON document (exact values as strings)."""
    return {
        "admitted": placement.admitted,
        "test": placement.test,
        "vms": [
            {
                "name": vm.vm.name,
                "admitted": vm.admitted,
                "placement": list(vm.pcpus),
                "reason": vm.reason,
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
                "schedulable": pcpu.verdict.schedulable,
            }
            for pcpu in placement.pcpus
        ],
    }


def print_placement(placement: Placement, console: Console | None = None) -> None:
    """The placement as tables for people."""
    console = console or Console(highlight=False)
    pcpus = Table(
        title=f"pCPUs (admission test: {placement.test})",
        caption="U1 = LO load at C_opt, U2 = HI load at C_opt, U3 = HI load at C_pes; "
        "x scales HI virtual deadlines",
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
            "-" if verdict.x is None else str(verdict.x),
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
    admitted = len(placement.vms) - len(rejected)
    console.print(f"{admitted} of {counted(len(placement.vms), 'VM')} admitted "
                  f"on {counted(len(placement.pcpus), 'pCPU')}.")


def counted(number: int, noun: str) -> str:
    """*number* and *noun*, plural unless it is one: ``1 pCPU``, ``2 pCPUs``, ``0 VMs``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
