"""``akita reproduce NAME``: rerun the source documents' experiments."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from akita.experiments import EXPERIMENTS
from akita.experiments import reproduce as run_experiments
from akita.experiments.experiment import TODAY_COLUMN
from akita.experiments.registry import experiment_named
from akita.experiments.switch_cost import MEASURED_NS
from akita.model import ModelError, parse_duration

from .outputs import on_interrupt, require_matplotlib, writable_folder

__all__ = ["reproduce"]

#: The experiments, one line each, for ``--help`` (from the registry).
_LIST = "\n".join(f"  {name:<11} {e.title}" for name, e in EXPERIMENTS.items())


@click.command(short_help="Rerun the paper's and the Xen thread's experiments.",
               epilog="\b\nExperiments (NAME):\n" + _LIST + "\n  all         every one of them, "
                      "in this order")
@click.argument("name", metavar="NAME|all")
@click.option("--out", "out_dir", default="akita-results", show_default=True,
              type=click.Path(file_okay=False), help="Folder for the tables, plots and JSON.")
@click.option("--quick", is_flag=True,
              help="Shorter runs (as the tests use them); the figures move, the claims should not.")
@click.option("--switch-cost", "switch_cost_text", default=None,
              help="What a context switch costs in these runs, with a unit (default: the "
                   "measured 2460ns, bench/README.md; 0ns: none).")
@click.option("--json", "as_json", is_flag=True, help="Print every outcome as JSON on stdout.")
def reproduce(name: str, out_dir: str, quick: bool, switch_cost_text: str | None,
              as_json: bool) -> int:
    """Run experiment NAME (or all of them) and write its table, plots and JSON to --out.

    Each claim of the source is printed with the source's figure beside
    ours and a verdict. Exit status 0 when the runs completed (a claim the
    model does not reproduce is a finding, not an error), 2 on bad input.
    The experiments are listed below.
    """
    if name != "all":
        experiment_named(name)  # an unknown name is bad input before anything is written
    cost = None if switch_cost_text is None else parse_duration(switch_cost_text,
                                                                field="--switch-cost")
    if cost is not None and cost < 0:
        raise ModelError("--switch-cost", switch_cost_text, "a duration >= 0")
    require_matplotlib("akita reproduce draws its plots")
    writable_folder("--out", out_dir)
    out = Path(out_dir)
    on_interrupt("each experiment's files are written when it ends; rerun the command to run "
                 "them again")
    console = Console(stderr=True) if sys.stderr.isatty() else None
    announce = None if console is None else (
        lambda e: console.print(f"running {e.name}: {e.title}"))
    outcomes = run_experiments(name, out, quick=quick, on_start=announce, switch_cost=cost)
    if as_json:
        click.echo(json.dumps({"out": str(out), "quick": quick,
                               "switch_cost_ns": MEASURED_NS if cost is None else cost,
                               "experiments": [o.as_json() for o in outcomes]}))
    else:
        for outcome in outcomes:
            _print(outcome)
    return 0


def _print(outcome: Any) -> None:
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    table = Table(title=outcome.title, caption=outcome.source)
    for column in outcome.columns:
        table.add_column(column)
    for row in outcome.rows:
        table.add_row(*row)
    console.print(table)
    claims = Table(title="Claims")
    header = outcome.claim_header()
    for column in header:
        claims.add_column(column, overflow="fold")
    today = TODAY_COLUMN in header
    for claim in outcome.claims:
        claims.add_row(*claim.cells(today))
    console.print(claims)
    console.print(f"Plots: {', '.join(outcome.plots)}")
