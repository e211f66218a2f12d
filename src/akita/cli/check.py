"""``akita check HOST.toml``: prove the HI guarantee on every pCPU with Z3."""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table

from akita.model import ModelError, load_host
from akita.proofs.host_check import check_host, status_of

__all__ = ["check", "print_checks"]

POLICIES = ("akita", "edf")


@click.command(short_help="Z3: no HI job misses on any pCPU, within scope.")
@click.argument("host_file", metavar="HOST.toml", type=click.Path(dir_okay=False))
@click.option("--policy", default="akita", show_default=True, help="akita or edf.")
@click.option("--hyperperiods", default=2, show_default=True, type=int,
              help="Horizon, in hyperperiods of each pCPU.")
@click.option("--timeout", default=60.0, show_default=True, type=float,
              help="Seconds Z3 may spend per pCPU.")
@click.option("--max-ticks", default=480, show_default=True, type=int,
              help="Largest horizon, in ticks, to attempt.")
@click.option("--save", "save_to", type=click.Path(file_okay=False),
              help="Write each counterexample as a host file and traces under this folder.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON.")
def check(host_file, policy, hyperperiods, timeout, max_ticks, save_to, as_json) -> int:
    """Check, for every behaviour in scope, that no HI job misses on any pCPU of HOST.toml.

    Exit status 0 all proved, 1 any refuted, 3 any unknown, 2 bad input.
    """
    if policy not in POLICIES:
        raise ModelError("--policy", policy, "akita or edf")
    if hyperperiods < 1:
        raise ModelError("--hyperperiods", hyperperiods, "an integer >= 1")
    host = load_host(host_file)
    answers = check_host(host, policy, hyperperiods=hyperperiods, timeout=timeout,
                         max_ticks=max_ticks, save_to=save_to)
    if as_json:
        click.echo(json.dumps({"pcpus": [a.as_json() for a in answers]}))
    else:
        print_checks(answers, policy)
    return status_of(answers)


def print_checks(answers, policy: str, console: Console | None = None) -> None:
    console = console or Console(highlight=False)
    table = Table(title=f"HI guarantee under {policy}")
    for column in ("pCPU", "verdict", "seconds", "scope"):
        table.add_column(column, justify="right" if column in ("pCPU", "seconds") else "left")
    for a in answers:
        table.add_row(str(a.index), a.verdict.verdict, f"{a.seconds:.2f}", a.scope)
    console.print(table)
    for a in answers:
        if a.verdict.verdict != "proved":
            console.print(f"pCPU {a.index}: {a.verdict.reason}")
            example = a.verdict.counterexample or {}
            if "replay" in example:
                console.print(f"  replay: akita simulate {example['replay']} --policy {policy} "
                              f"--duration {example['horizon_ns'] + 1}ns")
