"""``akita kernel-run HOST.toml``: a host's workloads on this machine's kernel, beside the
simulator's prediction (docs/kernel.rst)."""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

import click

from akita.model import ModelError, load_host

__all__ = ["kernel_run"]


def _cpus(text: str, option: str) -> tuple[int, ...]:
    try:
        cpus = tuple(int(c) for c in text.split(","))
    except ValueError:
        raise ModelError(option, text, "Linux CPU numbers separated by commas, e.g. 1") from None
    allowed = os.sched_getaffinity(0)
    bad = [c for c in cpus if c not in allowed]
    if bad:
        raise ModelError(option, text, f"CPUs this process may use ({sorted(allowed)})")
    return cpus


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # SIGTERM cleans up as Ctrl-C does


@click.command("kernel-run", short_help="Run a host's workloads on this machine's kernel.")
@click.argument("host_file", metavar="HOST.toml", type=click.Path(dir_okay=False))
@click.option("--seconds", default=10.0, show_default=True, type=click.FloatRange(0.1, 600),
              help="Length of each run.")
@click.option("--runs", default=5, show_default=True, type=click.IntRange(1, 100),
              help="Runs on the kernel (and simulations), seeds SEED .. SEED+RUNS-1.")
@click.option("--seed", default=1, show_default=True, type=int, help="Seed of the first run.")
@click.option("--cpus", "cpus_text", default="1", show_default=True,
              help="Linux CPU of each host pCPU, in order (e.g. 1 or 1,2).")
@click.option("--client-cpu", default=0, show_default=True, type=int,
              help="Linux CPU of the request clients.")
@click.option("--policy", default=None,
              help="Simulator policy for the prediction (default: eevdf if built, else cfs).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False),
              help="Keep the programs' records here (default: a temporary folder).")
@click.option("--isolate/--no-isolate", default=True, show_default=True,
              help="Put the host's tasks in a cpu cgroup of their own (docs/kernel.rst).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout.")
def kernel_run(host_file: str, seconds: float, runs: int, seed: int, cpus_text: str,
               client_cpu: int, policy: str | None, out_dir: str | None, isolate: bool,
               as_json: bool) -> int:
    """Run HOST.toml's workloads as real tasks under the kernel's default scheduler.

    Each vCPU is a task pinned to its CPU (SCHED_OTHER); a request-serving VM
    is a real memcached with a client on --client-cpu.  Reports each VM's CPU
    share and latencies, median of the runs [least, greatest], beside the
    simulator's for the same seeds, and the ratio simulator / kernel.  Needs
    root (and memcached for a request-serving VM): otherwise one line, exit 2.
    """
    from akita.linux.kernel_run import check_predict, compare, default_policy, predict, run_kernel
    from akita.linux.programs import Unavailable

    policy = policy or default_policy()
    check_predict(policy, seconds)  # before the kernel's runs, which take minutes
    cpus = _cpus(cpus_text, "--cpus")
    _cpus(str(client_cpu), "--client-cpu")
    host = load_host(host_file)
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        with tempfile.TemporaryDirectory(prefix="akita-kernel-") as scratch:
            where = Path(out_dir) if out_dir else Path(scratch)
            kernel = run_kernel(host, runs=runs, seconds=seconds, seed=seed, cpus=cpus,
                                client_cpu=client_cpu, out_dir=where, isolate=isolate,
                                progress=None if as_json else _progress)
    except Unavailable as error:
        click.echo(f"akita: error: {host_file}: {error}", err=True)
        return 2
    except KeyboardInterrupt:
        click.echo("akita: interrupted; every task this run started was killed", err=True)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    model = predict(host, policy=policy, runs=runs, seconds=seconds, seed=seed)
    doc: dict[str, Any] = {"host": host_file, "seconds": seconds, "runs": runs, "seed": seed,
                           "isolate": isolate,
                           "cpus": list(cpus), "client_cpu": client_cpu, "policy": policy,
                           "kernel": kernel, "model": model, "rows": compare(kernel, model)}
    if as_json:
        click.echo(json.dumps(doc))
    else:
        _table(doc)
    return 0


def _progress(k: int, one: dict[str, Any]) -> None:
    foreign = one["noise"].get("foreign_ns", {})
    window = one["noise"]["window_ns"]
    noise = ", ".join(f"CPU {c}: {ns / window:.1%}" for c, ns in foreign.items())
    click.echo(f"run {k + 1} (seed {one['seed']}) done; other processes' time: {noise}",
               err=True)


def _fmt(name: str, value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.1%}" if name.startswith("cpu_share") else f"{value / 1e6:.3f}"


def _table(doc: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{doc['host']}: kernel (median \\[least, greatest] of {doc['runs']} "
                  f"runs of {doc['seconds']} s) and simulator ({doc['policy']})",
                  caption="latencies in ms; ratio = simulator / kernel")
    for column in ("VM", "figure", "kernel", "spread", "simulator", "ratio"):
        table.add_column(column, justify="left" if column in ("VM", "figure") else "right")
    for row in doc["rows"]:
        k, m, name = row["kernel"], row["model"], row["figure"]
        table.add_row(row["vm"], name, _fmt(name, k["median"]),
                      f"\\[{_fmt(name, k['min'])}, {_fmt(name, k['max'])}]",
                      _fmt(name, m["median"] if m else None), row["ratio"] or "-")
    Console(highlight=False, width=None if sys.stdout.isatty() else 110).print(table)
