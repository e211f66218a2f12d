"""``akita disk DISK.toml``: VMs sharing one disk, under the hypervisor's disk schedulers."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from akita.disk.diskfile import load_disk_file
from akita.disk.schedulers import SCHEDULERS
from akita.disk.simulation import simulate
from akita.model import ModelError, parse_duration

__all__ = ["disk"]


@click.command(short_help="Simulate VMs sharing one disk under a disk scheduler.")
@click.argument("disk_file", metavar="DISK.toml", type=click.Path(dir_okay=False))
@click.option("--scheduler", default="pregather", show_default=True,
              help=f"Disk scheduler: {', '.join(SCHEDULERS)}, or all.")
@click.option("--duration", "duration_text", default=None,
              help="Simulated time, with a unit (default: the file's, else 10s).")
@click.option("--seed", default=None, type=int, help="Seed of the random processes "
              "(default: the file's, else 1).")
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as JSON on stdout.")
def disk(disk_file: str, scheduler: str, duration_text: str | None, seed: int | None,
         as_json: bool) -> int:
    """Run the VMs of DISK.toml on one drive and report throughput, utilisation (the drive's
    busy time: seeking, rotating and transferring), seeks, latency up to p99.9 per VM and
    per process, waits and the scheduler's memory.

    Same file and seed give the same JSON, byte for byte. Exit status 2 on
    bad input, with one line naming the file, the VM and the field.
    """
    names = list(SCHEDULERS) if scheduler == "all" else [scheduler]
    if any(name not in SCHEDULERS for name in names):
        raise ModelError("--scheduler", scheduler, f"one of {', '.join(SCHEDULERS)} or all")
    run = load_disk_file(disk_file)
    duration = run.duration_ns if duration_text is None else parse_duration(
        duration_text, field="--duration")
    runs = [simulate(run.vms, name, duration_ns=duration, drive=run.drive,
                     seed=run.seed if seed is None else seed).as_json() for name in names]
    if as_json:
        click.echo(json.dumps({"file": disk_file, "drive": run.drive.name, "runs": runs}))
    else:
        _print(runs)
    return 0


def _print(runs: list[dict[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="akita disk")
    for column in ("scheduler", "VM", "process", "MB/s", "latency p50", "p99", "p99.9",
                   "waits (successes)"):
        table.add_column(column)
    for run in runs:
        for vm, m in run["vms"].items():
            table.add_row(run["scheduler"], vm, "all", *_counts(m),
                          f"{m['waits']} ({m['wait_successes']})")
            for name, p in m["processes"].items():
                table.add_row("", "", name, *_counts(p), "")
        table.add_row(run["scheduler"], "all", "", f"{run['bytes_per_s'] / 1e6:.2f}", "", "", "",
                      f"busy {run['utilisation_permille'] / 10:.1f}% "
                      f"(transferring {run['transfer_permille'] / 10:.1f}%), seek "
                      f"{run['mean_seek_sectors']} sectors, memory {run['peak_memory_bytes']} B",
                      end_section=True)
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 140)
    console.print(table)
    console.print("utilisation: the drive's busy time (seeking, rotating, transferring) over "
                  "the run; transferring: transfer time alone.")


def _counts(m: dict[str, Any]) -> tuple[str, str, str, str]:
    lat = m["latency_ns"]
    return (f"{m['bytes_per_s'] / 1e6:.2f}", _ms(lat["p50"]), _ms(lat["p99"]),
            _ms(lat["p999"]))


def _ms(value: int | None) -> str:
    return "-" if value is None else f"{value / 1e6:.3f} ms"
