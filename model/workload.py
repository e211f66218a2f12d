"""Workloads: what a VM's vCPUs ask of the CPU.

A workload describes *demand*, not scheduling: when work arrives at a vCPU
and how much CPU time it needs.  Each vCPU of a VM runs its own instance of
the VM's workload.  Demand may exceed the vCPU's budget -- that is how a HI
vCPU asks for its pessimistic budget and a pCPU switches to HI mode.

The kinds (host file ``[vm.workload]``, ``kind = ...``):

``cpu-bound``
    Always runnable (a CPU hog such as sysbench).  The default.
``periodic``
    A job of ``demand`` at each period start plus ``offset``.
``sporadic``
    Jobs at period starts, at least one period apart: after each job the
    next comes ``k`` periods later, ``k >= 1`` geometric with success
    probability ``probability``; each job's demand is uniform in
    ``[min_demand, demand]`` (seeded).
``poisson``
    An RPC or memcached server: requests arrive as a Poisson process of
    ``rate`` requests per second (split evenly across the VM's vCPUs), each
    needing ``service`` of CPU, fixed or exponentially distributed.
``duty``
    lookbusy: busy for ``utilization`` of every ``window``, windows starting
    at ``offset`` (default 0), so that several lookbusy VMs need not burst
    in lock-step.
``trace``
    Arrival and demand pairs read from a file.
``closed``
    A closed loop of ``connections`` clients on another machine, each
    sending its next request when the reply to its last one has come back
    (after ``think``, default 0), each request needing ``service`` of CPU
    (fixed).  Only through an I/O path (:mod:`akita.model.io_path`): it is
    the reply's return that sends the next request.  A TCP stream is one
    with as many connections as its window has packets in flight.
``idle``
    No work of its own: the vCPU runs only what an I/O path brings it (a
    driver domain's backends, :mod:`akita.model.io_path`).

``burn = true`` (with ``poisson``, ``trace`` or ``closed``): the guest also
runs a CPU-bound process at user level -- the Xen thread's "ping+burn"
guest -- so its vCPU is always runnable, and each request is
interrupt-level work (the guest kernel's softirq, as ICMP echo is) that
runs ahead of that process as soon as the vCPU runs: requests in arrival
order, then the process.  Its requests never wake the vCPU: a scheduler that
favours waking vCPUs (credit's BOOST) does not favour them.

Times are integer nanoseconds; ``probability``, ``rate`` and
``utilization`` are exact fractions.
"""

from __future__ import annotations

from fractions import Fraction

import attrs

from .errors import ModelError

__all__ = ["Workload", "DISTRIBUTIONS", "KINDS"]

KINDS = ("cpu-bound", "periodic", "sporadic", "poisson", "duty", "trace", "closed", "idle")
DISTRIBUTIONS = ("fixed", "exponential")

_MS = 1_000_000


@attrs.frozen
class Workload:
    """One VM's workload (see the module docstring for the kinds).

    Only the fields of its kind may be set; the others stay ``None``.
    ``demand`` and ``period`` default, at simulation time, to the VM's
    ``c_opt`` and ``period``.

    :raises ModelError: naming the field that does not fit the kind.
    """

    kind: str = "cpu-bound"
    demand: int | None = None
    min_demand: int | None = None
    offset: int | None = None
    period: int | None = None
    probability: Fraction | None = None
    rate: Fraction | None = None
    service: int | None = None
    distribution: str | None = None
    utilization: Fraction | None = None
    window: int | None = None
    path: str | None = None
    connections: int | None = None
    think: int | None = None
    burn: bool | None = None

    #: The fields each kind accepts.
    FIELDS = {
        "cpu-bound": (),
        "periodic": ("demand", "offset", "period"),
        "sporadic": ("demand", "min_demand", "period", "probability"),
        "poisson": ("rate", "service", "distribution", "burn"),
        "duty": ("utilization", "window", "offset"),
        "trace": ("path", "burn"),
        "closed": ("connections", "service", "think", "burn"),
        "idle": (),
    }

    def __attrs_post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ModelError("workload.kind", self.kind, f"one of {', '.join(KINDS)}")
        allowed = self.FIELDS[self.kind]
        for field in attrs.fields(Workload):
            if field.name != "kind" and getattr(self, field.name) is not None and field.name not in allowed:
                raise ModelError(
                    f"workload.{field.name}", getattr(self, field.name),
                    f"no {field.name!r} for a {self.kind} workload (it takes: "
                    f"{', '.join(allowed) or 'nothing'})",
                )
        for name in ("demand", "min_demand", "period", "service", "window"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value <= 0):
                raise ModelError(f"workload.{name}", value, "a duration > 0")
        if self.offset is not None and (not isinstance(self.offset, int) or self.offset < 0):
            raise ModelError("workload.offset", self.offset, "a duration >= 0")
        if self.probability is not None and not 0 < self.probability <= 1:
            raise ModelError("workload.probability", str(self.probability), "a fraction in (0, 1]")
        if self.utilization is not None and not 0 <= self.utilization <= 1:
            raise ModelError("workload.utilization", str(self.utilization), "a fraction in [0, 1]")
        if self.rate is not None and not self.rate > 0:
            raise ModelError("workload.rate", str(self.rate), "a rate > 0 (requests per second)")
        if self.kind == "poisson":
            if self.rate is None or self.service is None:
                missing = "rate" if self.rate is None else "service"
                raise ModelError(f"workload.{missing}", None, f"a {missing} for a poisson workload")
            if self.distribution is not None and self.distribution not in DISTRIBUTIONS:
                raise ModelError(
                    "workload.distribution", self.distribution, "'fixed' or 'exponential'"
                )
        if self.kind == "duty" and self.utilization is None:
            raise ModelError("workload.utilization", None, "a utilization for a duty workload")
        if self.kind == "closed":
            if self.connections is None or self.service is None:
                missing = "connections" if self.connections is None else "service"
                raise ModelError(f"workload.{missing}", None, f"a {missing} for a closed workload")
            if (not isinstance(self.connections, int) or isinstance(self.connections, bool)
                    or not 1 <= self.connections <= 65536):
                raise ModelError("workload.connections", self.connections,
                                 "an integer from 1 to 65536")
        if self.burn is not None and not isinstance(self.burn, bool):
            raise ModelError("workload.burn", self.burn, "true or false")
        if self.think is not None and (not isinstance(self.think, int) or self.think < 0):
            raise ModelError("workload.think", self.think, "a duration >= 0")
        if self.kind == "trace" and self.path is None:
            raise ModelError("workload.path", None, "a trace file path")
        if (
            self.min_demand is not None
            and self.demand is not None
            and self.min_demand > self.demand
        ):
            raise ModelError("workload.min_demand", self.min_demand, "min_demand <= demand")

    @property
    def window_or_default(self) -> int:
        """A duty workload's window (default 10 ms)."""
        return self.window if self.window is not None else 10 * _MS
