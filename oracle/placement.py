"""Where the oracle takes each vCPU's pCPU from: first fit (R12), or the trace itself.

``--placement first-fit`` (the default) judges R12 with the rest: each
admitted vCPU belongs on the pCPU :func:`akita.model.first_fit` gives it,
and a vCPU that runs elsewhere is an R12 finding (its events there are not
judged further).  On a real kernel the placement is rarely first fit's --
Linux places a new thread where its load balancer finds room -- so every
trace would open with R12 findings and the vCPUs involved would be judged
no further.  ``--placement trace`` judges the scheduling on each pCPU and
leaves placement out: each vCPU's pCPU is the one of the first event that
names it (a wake's target, a dispatch's or block's pCPU), read from a
look-ahead of at most :data:`LOOKAHEAD` events (bounded memory; the events
are then judged in order).  A vCPU not named within the look-ahead keeps
its first-fit pCPU.  Every VM the trace shows running is taken as placed
-- admission is the implementation's decision here (a VM first fit rejects
counts as placed if the look-ahead names all its vCPUs) -- and each pCPU's EDF-VD
verdict, hence its ``x`` (R2), is that of the vCPUs the trace puts on it;
a pCPU whose set the host's admission test rejects is an R11 finding at the
first event.  A vCPU that later runs on another pCPU has *migrated*: an
R12 finding, as in first-fit mode ("HI vCPUs never migrate"; the paper's
Akita migrates no vCPU of its own accord).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from akita.model import Host, Placement, first_fit
from akita.model.admission_tests import ADMISSION_TESTS
from akita.model.first_fit import PCPULoad, VMPlacement
from akita.model.utilization import UtilizationSums

__all__ = ["PLACEMENTS", "PlacementMode", "LOOKAHEAD", "look_ahead", "trace_placement"]

PlacementMode = Literal["first-fit", "trace"]
#: The placement modes of :func:`akita.oracle.report.conform`.
PLACEMENTS: tuple[PlacementMode, ...] = ("first-fit", "trace")
#: The most events read ahead to find each vCPU's first pCPU.
LOOKAHEAD = 65_536


def look_ahead(events: Iterator[dict[str, Any]], names: frozenset[str]
               ) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Read *events* until every vCPU of *names* has been named, or :data:`LOOKAHEAD` of them.

    Returns the events read (to be judged first) and each named vCPU's first pCPU.
    """
    head: list[dict[str, Any]] = []
    first: dict[str, int] = {}
    for event in events:
        head.append(event)
        name, cpu = event.get("vcpu"), event.get("cpu")
        if isinstance(name, str) and name in names and name not in first and type(cpu) is int:
            first[name] = cpu
            if len(first) == len(names):
                break
        if len(head) >= LOOKAHEAD:
            break
    return head, first


def trace_placement(host: Host, first: dict[str, int]) -> Placement:
    """The placement a trace shows: *first* pCPU of each named vCPU, first fit's elsewhere.

    A VM is placed if first fit admits it or the trace names all its vCPUs;
    each pCPU's verdict is the host's test on the vCPUs placed there.
    """
    fitted = first_fit(host)
    test = ADMISSION_TESTS[host.test]
    loads: list[list[Any]] = [[] for _ in range(host.pcpus)]
    answers = []
    for answer in fitted.vms:
        vcpus = answer.vm.all_vcpus()
        if not answer.admitted and not all(v.name in first for v in vcpus):
            answers.append(answer)  # rejected, and not wholly shown placed by the trace
            continue
        cpus = tuple(_within(first.get(v.name, answer.pcpus[i] if answer.pcpus else 0), host)
                     for i, v in enumerate(vcpus))
        for vcpu, c in zip(vcpus, cpus):
            loads[c].append(vcpu)
        answers.append(VMPlacement(answer.vm, cpus, None))
    pcpus = tuple(PCPULoad(i, tuple(vs), test(UtilizationSums.of(vs)))
                  for i, vs in enumerate(loads))
    return Placement(fitted.test, tuple(answers), pcpus)


def _within(cpu: int, host: Host) -> int:
    """*cpu* if it is a pCPU of *host*, else 0 (the event itself is refused when judged)."""
    return cpu if 0 <= cpu < host.pcpus else 0
