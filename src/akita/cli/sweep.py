"""``akita sweep SPEC.toml``: acceptance ratios of the admission tests over random task sets."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from akita.model import format_duration
from akita.sweep import SweepResult, load_spec, run_sweep

from .outputs import (one_cluster, on_interrupt, require_matplotlib, writable_folder,
                      write_results)
from .progress import stderr_bar

__all__ = ["sweep", "print_sweep"]


@click.command(short_help="Acceptance ratios of the admission tests over random task sets.")
@click.argument("spec_file", metavar="SPEC.toml", type=click.Path(dir_okay=False))
@click.option("--workers", type=click.IntRange(min=0), default=None,
              help="Worker processes of a local Dask cluster (default: one per core); "
                   "0 runs in this process, without Dask.")
@click.option("--scheduler", metavar="ADDRESS",
              help="Run on the existing Dask cluster whose scheduler is at ADDRESS "
                   "(e.g. tcp://HOST:8786) instead of a local one.")
@click.option("--out", "out_dir", default="akita-results", show_default=True,
              type=click.Path(file_okay=False),
              help="Folder for NAME.csv, NAME.json, the plot NAME.svg/.png and the finished "
                   "batches NAME-batches/ (NAME: the spec's file name); a rerun resumes "
                   "from them.")
@click.option("--no-plot", is_flag=True, help="Draw no plot (matplotlib is then not needed).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the accepted sets per point and test as JSON on stdout.")
def sweep(spec_file: str, workers: int | None, scheduler: str | None, out_dir: str,
          no_plot: bool, as_json: bool) -> int:
    """Draw the random task sets of SPEC.toml and count, per utilization point and
    admission test, the sets the test accepts on one pCPU.

    A set is accepted when the test passes the whole set on one pCPU (the
    uniprocessor acceptance ratio of the published curves). The numbers depend
    on the spec alone: the same for any number of workers, and the same when an
    interrupted sweep is run again, which computes only the batches missing from
    --out. Exit status 0 when the sweep completed, 2 on bad input.
    """
    one_cluster(workers, scheduler)
    spec = load_spec(spec_file)
    if not no_plot:
        require_matplotlib("akita sweep draws its plot", escape="--no-plot")
    writable_folder("--out", out_dir)
    out, name = Path(out_dir), Path(spec_file).stem
    on_interrupt(f"a rerun with the same spec and --out resumes from the finished batches "
                 f"kept in {out / (name + '-batches')}")
    started = time.perf_counter()
    with stderr_bar("sweeping", unit="sets") as update:
        report = None if update is None else \
            (lambda done, total: update(completed=done, total=total))
        result = run_sweep(spec, store=out / f"{name}-batches", workers=workers,
                           scheduler=scheduler, progress=report)
    seconds = time.perf_counter() - started
    document = result.as_json()
    files = write_results(out, name, document, result.csv())
    if not no_plot:
        from akita.sweep.plot import plot_sweep

        files += plot_sweep(result, out, name)
    sets = len(spec.utilizations) * spec.sets
    click.echo(f"{sets} sets in {seconds:.1f} s ({result.computed} batches computed, "
               f"{result.reused} reused from {out / (name + '-batches')}); "
               f"files in {out}: {', '.join(files)}", err=True)
    if as_json:
        click.echo(json.dumps(document))
    else:
        print_sweep(result)
    return 0


def print_sweep(result: SweepResult, console: Console | None = None) -> None:
    """A sweep's results as a table for people: one row per point, one column per test."""
    console = console or Console(highlight=False, width=None if sys.stdout.isatty() else 110)
    spec = result.spec
    g = spec.generator
    low, high = (format_duration(p) for p in g.periods)
    table = Table(
        title=f"Sets accepted on one pCPU: {g.vcpus} vCPUs, {g.kind}, periods {low}-{high} "
              f"{g.period_distribution} on a {format_duration(g.granularity)} grid, "
              f"C_pes = {g.criticality_factor} C_opt, P(HI) = {g.p_hi}, seed {spec.seed}",
        caption="U_LO: the point's LO-mode utilization; mean U_LO: the sets' after rounding "
                "budgets to the grid; each cell: sets accepted (ratio); 95% Wilson intervals "
                "in the CSV, the JSON and the plot")
    for column in ("U_LO", "sets", *spec.tests, "mean U_LO"):
        table.add_column(column, justify="right")
    for point in result.points:
        cells = [f"{point.accepted[t]} ({point.ratio(t):.1%})"
                 + (f", {point.unknown} unknown" if t == "exact" and point.unknown else "")
                 for t in spec.tests]
        table.add_row(f"{float(point.utilization):g}", str(point.sets), *cells,
                      f"{point.u_lo_stats()['mean']:.4f}")
    console.print(table)
    raised = sum(p.raised for p in result.points)
    clamped = sum(p.clamped for p in result.points)
    discarded = sum(p.discarded for p in result.points)
    if "exact" in spec.tests:
        unknown = sum(p.unknown for p in result.points)
        console.print(f"exact: {unknown} set(s) UNKNOWN (the state limit, "
                      f"{spec.exact_states:,} states per search), counted as not accepted.")
    if raised or clamped or discarded:
        console.print(f"Budgets raised to one tick: {raised}; C_pes clamped to the period: "
                      f"{clamped}; utilization vectors discarded: {discarded}.")
