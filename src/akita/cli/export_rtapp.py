"""``akita export-rtapp HOST.toml``: a host's workloads as an rt-app use case (docs/kernel.rst)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from akita.model import ModelError, load_host

__all__ = ["export_rtapp"]


@click.command("export-rtapp", short_help="Write a host's workloads as an rt-app use case.")
@click.argument("host_file", metavar="HOST.toml", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write the use case here (default: stdout).")
@click.option("--cpus", "cpus_text", default="1", show_default=True,
              help="Linux CPU of each host pCPU, in order (e.g. 1 or 1,2).")
@click.option("--seed", default=1, show_default=True, type=int,
              help="Seed of the drawn phases (as akita simulate --seed).")
@click.option("--seconds", default=10, show_default=True, type=click.IntRange(1, 86400),
              help="rt-app's duration.")
@click.option("--policy", default="other", show_default=True,
              type=click.Choice(["other", "deadline"]),
              help="SCHED_OTHER at the VMs' nice, or every vCPU a SCHED_DEADLINE server.")
@click.option("--json", "as_json", is_flag=True,
              help="Print {use_case, notes} as one JSON document on stdout.")
def export_rtapp(host_file: str, output: str | None, cpus_text: str, seed: int, seconds: int,
                 policy: str, as_json: bool) -> int:
    """Write HOST.toml's VMs as an rt-app JSON use case: one pinned thread a vCPU.

    What rt-app cannot express exactly is written approximately and noted on
    stderr (one line a note; under --json, in "notes"); what it cannot express
    at all is refused with the VM named (exit status 2).
    """
    from akita.linux.rtapp import export

    try:
        cpus = tuple(int(c) for c in cpus_text.split(","))
    except ValueError:
        raise ModelError("--cpus", cpus_text, "Linux CPU numbers separated by commas") from None
    host = load_host(host_file)
    try:
        made = export(host, cpus=cpus, seed=seed, seconds=seconds, policy=policy)
    except ModelError as error:
        raise error.located(path=host_file) from None
    text = json.dumps(made.document, indent=1) + "\n"
    if output is not None:
        Path(output).write_text(text)
    if as_json:
        click.echo(json.dumps({"file": host_file, "output": output, "policy": policy,
                               "use_case": made.document,
                               "notes": [n.as_json() for n in made.notes]}))
    else:
        for note in made.notes:
            click.echo(f"akita: note: {host_file}: {note}", err=True)
        if output is None:
            click.echo(text, nl=False)
    return 0
