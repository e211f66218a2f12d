"""``akita fleet SPEC.toml``: a fleet of hosts with VMs arriving and leaving, placed online
by Akita's first fit and by spreading."""

from __future__ import annotations

import json
import sys
import time
from fractions import Fraction
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from akita.fleet import FleetResult, load_spec, run_fleet
from akita.fleet.sample import decimal
from akita.model import format_duration

from .outputs import one_cluster, require_matplotlib, writable_folder, write_results
from .progress import stderr_bar

__all__ = ["fleet", "print_fleet"]

_HOUR = 3600 * 10**9


@click.command(short_help="Cores in use over time: first fit against spreading, on a fleet.")
@click.argument("spec_file", metavar="SPEC.toml", type=click.Path(dir_okay=False))
@click.option("--workers", type=click.IntRange(min=0), default=None,
              help="Worker processes of a local Dask cluster for the sampled hosts (default: "
                   "one per core); 0 runs them in this process, without Dask.")
@click.option("--scheduler", metavar="ADDRESS",
              help="Simulate the sampled hosts on the existing Dask cluster whose scheduler is "
                   "at ADDRESS (e.g. tcp://HOST:8786) instead of a local one.")
@click.option("--out", "out_dir", default="akita-results", show_default=True,
              type=click.Path(file_okay=False),
              help="Folder for NAME.csv (the series), NAME.json and the plot NAME.svg/.png "
                   "(NAME: the spec's file name).")
@click.option("--no-plot", is_flag=True, help="Draw no plot (matplotlib is then not needed).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the results of every placement as JSON on stdout.")
def fleet(spec_file: str, workers: int | None, scheduler: str | None, out_dir: str,
          no_plot: bool, as_json: bool) -> int:
    """Replay the VMs of SPEC.toml arriving at and leaving a fleet of hosts under each
    placement (Akita's first fit, spreading), and simulate a sample of each
    placement's hosts at their peak.

    It reports, per placement, the pCPUs and hosts in use (peak and time
    average), the rejections, and the sampled hosts' HI deadline misses, LO
    share and HI tail latency. The output depends on the spec alone: the same
    bytes for any number of workers. Exit status 0 when the fleet ran, 2 on bad
    input.
    """
    one_cluster(workers, scheduler)
    spec = load_spec(spec_file)
    if not no_plot:
        require_matplotlib("akita fleet draws its plot", escape="--no-plot")
    writable_folder("--out", out_dir)
    out, name = Path(out_dir), Path(spec_file).stem
    started = time.perf_counter()
    with stderr_bar("{task.description}", unit="", remaining=False,
                    description="placing") as update:
        report = None if update is None else (lambda stage, done, total: update(
            description=stage, completed=done, total=total))
        result = run_fleet(spec, workers=workers, scheduler=scheduler, progress=report)
    seconds = time.perf_counter() - started
    document = result.as_json()
    files = write_results(out, name, document, result.csv())
    if not no_plot:
        from akita.fleet.plot import plot_fleet

        files += plot_fleet(result, out, name)
    offered = result.placements[0].replay.offered
    click.echo(f"{offered} VMs under {len(spec.placements)} placements, "
               f"{sum(len(p.samples) for p in result.placements)} hosts simulated, "
               f"in {seconds:.1f} s; files in {out}: {', '.join(files)}", err=True)
    if as_json:
        click.echo(json.dumps(document))
    else:
        print_fleet(result)
    return 0


def _ns(value: int | None) -> str:
    """A latency in ms with three decimals, from its integer ns."""
    return "-" if value is None else f"{decimal(Fraction(value, 10**6), 3)}ms"


def _hours(ns: int) -> str:
    return f"{decimal(Fraction(ns, _HOUR), 2)}h"


def print_fleet(result: FleetResult, console: Console | None = None) -> None:
    """A fleet's results as two tables for people: the placements, then the sampled hosts."""
    console = console or Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    spec = result.spec
    table = Table(
        title=f"{spec.hosts} hosts x {spec.pcpus} pCPUs ({spec.test}) over "
              f"{_hours(spec.horizon)}: VMs arriving at {spec.rate}/s, seed {spec.seed}",
        caption="pCPUs, hosts in use: holding a vCPU, a VM (peak / time average; 4 decimals "
                "in the JSON); sampled: "
                "hosts simulated at their peak (HI misses summed; LO share: LO CPU time over "
                "their C_opt share; HI p99, p99.9: the worst HI VM's)")
    for column in ("placement", "VMs", "rejected (HI)", "pCPUs in use", "hosts in use",
                   "sampled", "HI misses", "LO share", "HI p99", "HI p99.9"):
        table.add_column(column, justify="left" if column == "placement" else "right")
    for placement in result.placements:
        s = placement.summary()
        sampled = s["sampled"]
        table.add_row(placement.name, str(s["offered"]), f"{s['rejected']} ({s['rejected_hi']})",
                      f"{s['peak_pcpus']} / {decimal(placement.replay.mean('pcpus'), 1)}",
                      f"{s['peak_hosts']} / {decimal(placement.replay.mean('hosts'), 1)}",
                      str(len(sampled["hosts"])),
                      str(sampled["hi_misses"]), sampled["lo_share"] or "-",
                      _ns(sampled["hi_p99_ns"]), _ns(sampled["hi_p999_ns"]))
    console.print(table)
    hosts = Table(title=f"Sampled hosts, each simulated for {format_duration(spec.duration)} "
                        f"as it stood at its peak")
    for column in ("placement", "host", "at", "policy", "VMs (HI)", "pCPUs", "HI misses",
                   "LO share", "HI p99", "HI p99.9", "migrations"):
        hosts.add_column(column, justify="left" if column in ("placement", "policy")
                         else "right")
    for placement in result.placements:
        for r in placement.samples:
            hosts.add_row(r.placement, str(r.host), _hours(r.time), r.policy,
                          f"{r.vms} ({r.hi_vms})", str(r.pcpus_in_use), str(r.hi_misses),
                          r.lo_share or "-", _ns(r.hi_p99_ns), _ns(r.hi_p999_ns),
                          str(r.migrations))
    if any(p.samples for p in result.placements):
        console.print(hosts)
