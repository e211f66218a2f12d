"""``akita verify [HOST.toml]``: admission, the formal check and a short simulation.

The report a cloud operator reads before placing VMs: which VMs are admitted
and where (R11, R12), whether Z3 proves the HI guarantee on every pCPU for
all behaviours in scope, and what a short simulation under Akita shows.
The check takes the same limits as ``akita check`` (``--timeout``,
``--hyperperiods``, ``--max-ticks``, ``--max-memory``), so a host whose
horizon is beyond the default can be proved here too.
"""

from __future__ import annotations

import json
import sys
from importlib.resources import as_file, files
from typing import Sequence

import click
from rich.console import Console

from akita.model import ModelError, first_fit, load_host, parse_duration
from akita.proofs.host_check import (
    EXIT_NOTHING,
    PCPUCheck,
    check_host,
    check_limits,
    rejected_vms,
    status_of,
)
from akita.proofs.verdict import NOTHING, PROVED
from akita.reference.run import simulate

from .admit import placement_json, print_placement
from .check import checks_json, counted, horizon_options, print_checks, progress_bar, \
    timeout_option
from .simulate import print_metrics

__all__ = ["verify"]


@click.command(short_help="Admission, Z3 check and a short simulation.")
@click.argument("host_file", metavar="[HOST.toml]", required=False, type=click.Path(dir_okay=False))
@click.option("--duration", "duration_text", default="2s", show_default=True,
              help="Simulated time of the short simulation.")
@click.option("--seed", default=1, show_default=True, type=int)
@horizon_options
@timeout_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def verify(host_file: str | None, duration_text: str, seed: int, hyperperiods: int,
           max_ticks: int, max_memory: int, timeout: float, rlimit: int,
           as_json: bool) -> int:
    """Admit HOST.toml (default: the paper's Figure 5 host), prove the HI guarantee on each
    pCPU, and simulate it briefly under Akita.

    Exit status 0 if every VM is admitted and every pCPU with a HI vCPU proved; 1 if a VM
    is rejected or a pCPU refuted; 3 if a pCPU is unknown (and none refuted, no VM
    rejected); 4 if there is nothing to prove (no HI vCPU on any pCPU); 2 bad input.
    """
    duration = parse_duration(duration_text, field="--duration")
    if duration <= 0:
        raise ModelError("--duration", duration_text, "a duration > 0")
    check_limits(timeout=timeout, max_ticks=max_ticks, hyperperiods=hyperperiods,
                 memory_mb=max_memory)
    if host_file is None:
        with as_file(files("akita.examples") / "fig5.toml") as path:
            host = load_host(path)
    else:
        host = load_host(host_file)
    placement = first_fit(host)
    with progress_bar() as report:
        checks = check_host(host, "akita", hyperperiods=hyperperiods, timeout=timeout,
                            rlimit=rlimit,
                            max_ticks=max_ticks, placement=placement, memory_mb=max_memory,
                            progress=report)
    result = simulate(host, "akita", duration=duration, seed=seed)
    status = status_of(checks, rejected_vms(placement))
    if as_json:
        check = checks_json(checks, placement, status)
        del check["status"]
        click.echo(json.dumps({
            "admission": placement_json(placement, host),
            "check": check,
            "simulation": result.as_json(),
            "status": status,
        }))
        return status
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 110)
    print_placement(placement, console, host=host)
    print_checks(checks, "akita", console)
    print_metrics(result.as_json(), console)
    admitted = sum(v.admitted for v in placement.vms)
    console.print(
        f"Admission: {admitted} of {counted(len(placement.vms), 'VM')}. "
        f"{_guarantee(checks, status)} "
        f"Simulated {duration_text}: "
        f"{counted(sum(m['hi_misses'] for m in result.as_json()['vms'].values()), 'HI miss', 'HI misses')}."
    )
    return status


def _guarantee(checks: Sequence[PCPUCheck], status: int) -> str:
    """The check in one sentence: proved on every pCPU that has a HI vCPU, or not."""
    verdicts = {c.verdict.verdict for c in checks}
    if status == EXIT_NOTHING or verdicts <= {NOTHING}:
        return "HI guarantee: nothing to prove (no HI vCPU on any pCPU)."
    if verdicts <= {PROVED, NOTHING}:
        return "HI guarantee: proved on every pCPU with a HI vCPU."
    return "HI guarantee: NOT proved on every pCPU with a HI vCPU."
