"""``akita verify [HOST.toml]``: admission, the formal check and a short simulation.

The report a cloud operator reads before placing VMs: which VMs are admitted
and where (R11, R12), whether Z3 proves the HI guarantee on every pCPU for
all behaviours in scope, and what a short simulation under Akita shows.
"""

from __future__ import annotations

import json
import sys
from importlib.resources import as_file, files

import click
from rich.console import Console

from akita.model import first_fit, load_host, parse_duration
from akita.proofs.host_check import check_host, status_of
from akita.reference.run import simulate

from .admit import placement_json, print_placement
from .check import print_checks
from .simulate import print_metrics

__all__ = ["verify"]


@click.command(short_help="Admission, Z3 check and a short simulation.")
@click.argument("host_file", metavar="[HOST.toml]", required=False, type=click.Path(dir_okay=False))
@click.option("--duration", "duration_text", default="2s", show_default=True,
              help="Simulated time of the short simulation.")
@click.option("--seed", default=1, show_default=True, type=int)
@click.option("--timeout", default=60.0, show_default=True, type=float,
              help="Seconds Z3 may spend per pCPU.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def verify(host_file, duration_text, seed, timeout, as_json) -> int:
    """Admit HOST.toml (default: the paper's Figure 5 host), prove the HI guarantee on each
    pCPU, and simulate it briefly under Akita.

    Exit status 0 if every VM is admitted and every pCPU proved; 1 if a VM is rejected or
    a pCPU refuted; 3 if a pCPU is unknown (and none refuted); 2 bad input.
    """
    duration = parse_duration(duration_text, field="--duration")
    if host_file is None:
        with as_file(files("akita.examples") / "fig5.toml") as path:
            host = load_host(path)
    else:
        host = load_host(host_file)
    placement = first_fit(host)
    checks = check_host(host, "akita", timeout=timeout, placement=placement)
    result = simulate(host, "akita", duration=duration, seed=seed)
    status = status_of(checks)
    if status == 0 and not placement.admitted:
        status = 1
    if as_json:
        click.echo(json.dumps({
            "admission": placement_json(placement),
            "check": {"pcpus": [c.as_json() for c in checks]},
            "simulation": result.as_json(),
            "status": status,
        }))
        return status
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 110)
    print_placement(placement, console)
    print_checks(checks, "akita", console)
    print_metrics(result.as_json(), console)
    verdicts = {c.verdict.verdict for c in checks}
    console.print(
        f"Admission: {sum(v.admitted for v in placement.vms)} of {len(placement.vms)} VMs. "
        f"HI guarantee: {'proved on every pCPU' if verdicts <= {'proved'} else 'NOT proved on every pCPU'}. "
        f"Simulated {duration_text}: {sum(m['hi_misses'] for m in result.as_json()['vms'].values())} HI misses."
    )
    return status
