"""The run's capture: the kernel's trace, renumbered to the host's pCPUs, and a host file.

``OUT/trace.raw.txt`` is the tracing instance's ``trace`` file as the kernel
printed it.  ``OUT/trace.txt`` is the same text with three changes, so that
``akita conform OUT/host.toml OUT/trace.txt`` needs no flag:

* a first line that says what recorded it and what the oracle should judge
  it by (:func:`akita.oracle.capture_claims`): ``# akita-linux capture:
  policy=akita-linux reports=dispatch,idle,mode,temperature tick=4000000``;
* the scheduler events before the controller's ``akita: origin`` marker
  are left out (the oracle's ``t = 0`` is that marker, the origin of every
  vCPU's period grid);
* CPU numbers are the host's pCPUs: Linux CPU ``cpus[i]`` is written ``i``
  (the CPU column, a wakeup's ``target_cpu``, a migration's CPUs), and
  events of the other CPUs (the controller's, the load generators') are
  left out, except the controller's markers.

``OUT/host.toml`` is the host with every VM's phase declared (the phases the
run used, from the marker) and a ``[trace_map]`` from each vCPU thread's id
to its vCPU.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Mapping, Sequence

import attrs

from akita.model import Host
from akita.model.host_file import dumps_host
from akita.model.phases import with_phases

__all__ = ["write", "renumber", "HEADER"]

HEADER = "# akita-linux capture: policy={policy} reports=dispatch,idle,mode,temperature tick={tick}"

_CPU = re.compile(r"^(\s*.+?-[0-9]+\s+(?:\(\s*[-0-9]+\)\s+)?)\[([0-9]+)\]")
_FIELD = re.compile(r"\b(target_cpu|orig_cpu|dest_cpu)=([0-9]+)")


def renumber(text: str, cpus: Sequence[int]) -> str:
    """*text* from the origin marker on, CPUs renumbered to pCPUs (see the module)."""
    index = {cpu: i for i, cpu in enumerate(cpus)}
    out = []
    started = False
    for line in text.splitlines():
        if line.startswith("#"):
            out.append(line)
            continue
        if "tracing_mark_write: akita: " in line:
            started = started or line.rstrip().endswith("akita: origin")
            if started:
                out.append(_CPU.sub(lambda m: f"{m.group(1)}[{0:03d}]", line, count=1))
            continue
        if not started:
            continue
        m = _CPU.match(line)
        if m is None or int(m.group(2)) not in index:
            if not ("sched_wakeup" in line and _targets(line, index)):
                continue
        fields = dict((k, int(v)) for k, v in _FIELD.findall(line))
        if any(v not in index for v in fields.values()):
            continue
        line = _FIELD.sub(lambda f: f"{f.group(1)}={index[int(f.group(2))]:03d}", line)
        target = fields.get("target_cpu")
        cpu = index[target] if target is not None else index[int(m.group(2))] if m else 0
        out.append(_CPU.sub(lambda c: f"{c.group(1)}[{cpu:03d}]", line, count=1))
    return "\n".join(out) + "\n"


def _targets(line: str, index: Mapping[int, int]) -> bool:
    found = re.search(r"target_cpu=([0-9]+)", line)
    return found is not None and int(found.group(1)) in index


def write(out_dir: Path, host: Host, phases: Mapping[str, int], text: str,
          cpus: Sequence[int], tids: Mapping[str, int], *, tick_ns: int | None,
          variant: str) -> tuple[Path, Path]:
    """Write ``trace.raw.txt``, ``trace.txt`` and ``host.toml`` into *out_dir*."""
    (out_dir / "trace.raw.txt").write_text(text)
    header = HEADER.format(policy="akita-linux", tick=tick_ns if tick_ns else "unknown")
    if variant != "correct":
        header += f" variant={variant}"
    trace = out_dir / "trace.txt"
    trace.write_text(header + "\n" + renumber(text, cpus))
    mapped = attrs.evolve(with_phases(host, dict(phases)),
                          trace_map={str(tid): name for name, tid in sorted(tids.items())})
    host_file = out_dir / "host.toml"
    host_file.write_text("# written by akita linux: the host as run, phases declared, its "
                         "threads mapped\n" + dumps_host(mapped))
    return host_file, trace
