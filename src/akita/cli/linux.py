"""``akita linux HOST.toml``: run the host's vCPU threads under Akita on this Linux machine.

The controller of :mod:`akita.linux` (SCHED_DEADLINE, exclusive cpusets, a
tracing instance of its own); the capture it writes is judged by ``akita
conform OUT/host.toml OUT/trace.txt`` with no flag (:doc:`/linux`).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from akita.linux.controller import VARIANTS
from akita.model import ModelError, load_host

__all__ = ["linux"]


def _cpus(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        cpus = [int(part) for part in text.split(",")]
    except ValueError:
        raise ModelError("--cpus", text, "Linux CPU numbers separated by commas") from None
    if any(c < 0 for c in cpus):
        raise ModelError("--cpus", text, "CPU numbers >= 0")
    return cpus


@click.command(short_help="Run a host's vCPU threads under Akita on Linux (SCHED_DEADLINE).")
@click.argument("host_file", metavar="HOST.toml", type=click.Path(dir_okay=False))
@click.option("--attach", "attach", multiple=True, metavar="VM/i=TID",
              help="Run vCPU VM/i as the existing thread TID (e.g. a QEMU/KVM vCPU thread); "
                   "give one per vCPU.  Without it the stand-in guests of "
                   "akita.linux.workloads are started.")
@click.option("--cpus", "cpus_text", default=None, metavar="C0,C1,...",
              help="The Linux CPU of each pCPU (default: CPUs that write their idle exits "
                   "into the trace, then not CPU 0, then the last; one is left for the "
                   "controller).")
@click.option("--seconds", default=10.0, show_default=True, type=float,
              help="How long to run and record.")
@click.option("--seed", default=0, show_default=True, type=int,
              help="The seed of seeded phases and of the stand-in workloads.")
@click.option("--out", "out_dir", default="akita-linux-run", show_default=True,
              type=click.Path(file_okay=False), help="Where the capture and host file go.")
@click.option("--variant", default="correct", show_default=True,
              type=click.Choice(VARIANTS),
              help="A deliberately wrong controller, for checking the oracle.")
@click.option("--wait", default=30.0, show_default=True, type=float,
              help="Seconds to wait for a CPU another exclusive cpuset holds.")
@click.option("--align", default=None, type=int, metavar="MONO_NS",
              help="Align the period grids to this CLOCK_MONOTONIC instant (ns): the origin is "
                   "the first such instant plus whole hyperperiods after the run is ready "
                   "(for guests periodic on a known clock).")
@click.option("--json", "as_json", is_flag=True, help="Print the run's summary as JSON.")
def linux(host_file: str, attach: tuple[str, ...], cpus_text: str | None, seconds: float,
          seed: int, out_dir: str, variant: str, wait: float, align: int | None,
          as_json: bool) -> int:
    """Admit HOST.toml, run its vCPUs under Akita over SCHED_DEADLINE, record the run.

    Needs root, tracefs, the deadline class and a cgroup-v1 cpuset
    hierarchy; without them, one line and exit status 2.  Check the capture
    with: akita conform OUT/host.toml OUT/trace.txt.  Exit status 1 when the
    tracing ring buffer lost records (its own counters, printed): the capture
    is then incomplete.
    """
    from akita.linux.run import parse_attach, run_host

    host = load_host(host_file)
    result = run_host(host, attach=parse_attach(attach, host), cpus=_cpus(cpus_text),
                      seconds=seconds, seed=seed, out_dir=Path(out_dir), variant=variant,
                      wait=wait, align=align)
    unwritten = result.unwritten_idle_exits()
    if unwritten is not None:
        click.echo(f"akita linux: {unwritten}", err=True)
    if as_json:
        click.echo(json.dumps(result.as_json()))
    else:
        click.echo(f"ran {seconds:g} s on Linux CPUs {','.join(map(str, result.cpus))} "
                   f"({variant}): {result.switches} switches to HI mode, {result.returns} "
                   f"returns to LO mode")
        click.echo(result.capture_text())
        click.echo(f"check: akita conform {result.host_file} {result.trace_file}")
    return 0 if result.capture_complete else 1
