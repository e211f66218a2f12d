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

from akita.model import first_fit, load_host, parse_duration
from akita.proofs.host_check import (
    EXIT_NOTHING,
    PCPUCheck,
    check_host,
    check_limits,
    rejected_vms,
    status_of,
)
from akita.proofs.verdict import NOTHING, PROVED
from akita.reference.promises import BROKEN, PromiseVerdict, overruns, promises
from akita.reference.run import check_simulation, simulate

from .admit import print_placement
from .check import checks_json, counted, horizon_options, print_checks, progress_bar, \
    timeout_option
from .reading import hi_mode_order_option, with_hi_mode_order
from .simulate import print_metrics

__all__ = ["verify", "EXIT_BROKEN"]

#: Exit status of a run whose simulation broke a promise of admission to an admitted VM
#: (a HI miss, or a VM kept from its budget by a vCPU past its own): the check may have
#: proved everything in its scope, and still a VM did not get what it was promised.
EXIT_BROKEN = 5


@click.command(short_help="Admission, Z3 check and a short simulation.")
@click.argument("host_file", metavar="[HOST.toml]", required=False, type=click.Path(dir_okay=False))
@click.option("--duration", "duration_text", default="2s", show_default=True,
              help="Simulated time of the short simulation.")
@click.option("--seed", default=1, show_default=True, type=int)
@horizon_options
@timeout_option
@hi_mode_order_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def verify(host_file: str | None, duration_text: str, seed: int, hyperperiods: int,
           max_ticks: int, max_memory: int, timeout: float, rlimit: int,
           hi_mode_order: str | None,
           as_json: bool) -> int:
    """Admit HOST.toml (default: the paper's Figure 5 host), prove the HI guarantee on each
    pCPU, and simulate it briefly under Akita.

    Exit status 0 if every VM is admitted, every pCPU with a HI vCPU proved and the
    simulation kept every promise; 1 if a VM is rejected or a pCPU refuted; 5 if the
    simulation broke a promise to an admitted VM (a HI miss, or a VM that held work and
    budget while a vCPU past its budget ran: under hi_mode_order = "hi-first" a LO VM
    beside an overrunning HI VM gets 0%); 3 if a pCPU is unknown (and none of the above);
    4 if there is nothing to prove (no HI vCPU on any pCPU); 2 bad input.
    """
    duration = parse_duration(duration_text, field="--duration")
    check_simulation("akita", duration)  # before the proof, which takes long
    check_limits(timeout=timeout, max_ticks=max_ticks, hyperperiods=hyperperiods,
                 memory_mb=max_memory)
    if host_file is None:
        with as_file(files("akita.examples") / "fig5.toml") as path:
            host = load_host(path)
    else:
        host = load_host(host_file)
    host = with_hi_mode_order(host, hi_mode_order)
    placement = first_fit(host)
    with progress_bar() as report:
        checks = check_host(host, "akita", hyperperiods=hyperperiods, timeout=timeout,
                            rlimit=rlimit,
                            max_ticks=max_ticks, placement=placement, memory_mb=max_memory,
                            progress=report)
    result = simulate(host, "akita", duration=duration, seed=seed)
    doc = result.as_json()
    kept = promises(doc, host)
    status = status_of(checks, rejected_vms(placement))
    check_status = status
    if kept.verdict == BROKEN and status != 1:
        status = EXIT_BROKEN
    if as_json:
        check = checks_json(checks, placement, check_status)
        del check["status"]
        click.echo(json.dumps({
            "admission": placement.as_json(host.options),
            "check": check,
            "simulation": doc,
            "promises": kept.as_json(),
            "overruns": overruns(doc, host),
            "status": status,
        }))
        return status
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 110)
    print_placement(placement, console, host=host)
    print_checks(checks, "akita", console)
    print_metrics(doc, console, host=host)
    admitted = sum(v.admitted for v in placement.vms)
    console.print(
        f"Admission: {admitted} of {counted(len(placement.vms), 'VM')}. "
        f"{_guarantee(checks, check_status)} "
        f"Simulated {duration_text} under hi_mode_order = \"{doc['hi_mode_order']}\": "
        f"{counted(sum(m['hi_misses'] for m in doc['vms'].values()), 'HI miss', 'HI misses')}, "
        f"promises {_promises(kept)}."
    )
    return status


def _promises(kept: PromiseVerdict) -> str:
    """The promises' verdict in a few words for the summary line."""
    if kept.verdict == BROKEN:
        return f"BROKEN for {counted(len(kept.broken), 'VM')} (see above)"
    return kept.verdict


def _guarantee(checks: Sequence[PCPUCheck], status: int) -> str:
    """The check in one sentence: proved on every pCPU that has a HI vCPU, or not."""
    verdicts = {c.verdict.verdict for c in checks}
    if status == EXIT_NOTHING or verdicts <= {NOTHING}:
        return "HI guarantee: nothing to prove (no HI vCPU on any pCPU)."
    if verdicts <= {PROVED, NOTHING}:
        return "HI guarantee: proved on every pCPU with a HI vCPU."
    return "HI guarantee: NOT proved on every pCPU with a HI vCPU."
