"""What a simulation measures, in bounded memory whatever the horizon.

Per VM: CPU time and share, requests (jobs) completed, response-time and
CPU-access-latency distributions, and HI misses.  Per pCPU: mode switches,
time in HI mode, idle time and context switches.  Distributions are
:class:`~.histogram.LogHistogram` sketches (their precision is stated
there); every count and time is an exact integer.

*Response time* (``rtt_ns``) of a job: completion minus arrival.
*CPU access latency* (``cal_ns``): from the instant a vCPU becomes runnable
(it was blocked, and work arrived) to the instant it is next dispatched.
A *HI miss*: a period ``[s, s + T)`` of a HI vCPU in which it was served less
than ``min(C_pes, work it held at s)`` -- so a job of at most ``C_pes``
released at a period start and not done by the period's end, or a HI vCPU
with work enough for the whole period that got less than ``C_pes``, each
count as one miss.  The core counts them for every policy alike, on each HI
vCPU's own period grid (:mod:`.misses`); a LO VM has none by definition.

*HI time* (``hi_time_ns``) of a pCPU: the time it spent in HI mode -- not a
CPU share of HI VMs.  A policy without modes never enters HI mode.

*IOQ* (R14, :mod:`akita.model.ioq`): for a VM that declares one, the
count of its CPU access latencies above it (``over_ioq``) beside the
number of latencies measured, and the CAL bound the admission gave it
(``cal_bound``, exact ``"p/q"`` ns; under the ``akita`` policy only, the
one the bound is proved for).  A VM without an IOQ has no ``ioq`` key.

*Switching* (``switching``, seed 004): the context switches of all pCPUs
(a pCPU starting a vCPU other than the one it ran last), per second of the
run, and the time they cost at the host's ``context_switch_cost`` --
``ns``, exact, and ``share`` of the host's CPU time; each pCPU's own is its
``switch_ns``.  At cost 0 (the default) the time is 0: the count is still
what a real host would pay for.

*I/O path* (:mod:`.iopath`): for a VM whose requests travel through a
backend, ``io_path`` gives the backend VM, the network's round trip and
each hop's time distribution; its ``rtt_ns`` is then the round trip end to
end, and its ``cal_ns`` its own vCPU's access latency.

A distribution with no sample -- the response times of a VM that completed
no request, the access latencies of a vCPU never dispatched after waiting --
is reported with every percentile ``None`` (JSON ``null``), never ``0``.
"""

from __future__ import annotations

from typing import Any

from akita.model.ioq import CalBound

from .budgets import BudgetAccount
from .histogram import LogHistogram

__all__ = ["VMMetrics", "CPUMetrics", "Metrics", "summary", "NO_IOQ"]


def summary(histogram: LogHistogram) -> dict[str, int | None]:
    """The percentiles of *histogram* (:meth:`.LogHistogram.summary`), each ``None`` if it is
    empty: no sample is not a latency of 0."""
    if histogram.count == 0:
        return {name: None for name in ("p50", "p90", "p99", "p999", "max")}
    return dict(histogram.summary())


#: The IOQ limit of a VM without an IOQ: no latency exceeds it.
NO_IOQ = 1 << 62


class VMMetrics:
    __slots__ = ("ran_ns", "requests", "rtt", "cal", "hi_misses", "ioq", "over_ioq",
                 "cal_bound", "hops", "budget")

    def __init__(self) -> None:
        self.ran_ns = 0
        self.requests = 0
        self.rtt = LogHistogram()
        self.cal = LogHistogram()
        self.hi_misses = 0
        #: the VM's IOQ in ns (:data:`NO_IOQ` for none) and how many CALs exceeded it
        self.ioq = NO_IOQ
        self.over_ioq = 0
        #: the CAL bound of its vCPUs (the largest), when the policy has one
        self.cal_bound: CalBound | None = None
        #: the hops of its requests, when they travel an I/O path (:mod:`.iopath`)
        self.hops: Any = None
        #: its budget account, under a periodic-server policy (:mod:`.budgets`)
        self.budget: BudgetAccount | None = None

    def ioq_json(self) -> dict[str, Any]:
        """The IOQ beside what was measured (:mod:`akita.model.ioq`)."""
        return {"ioq_ns": self.ioq, "over_ioq": self.over_ioq, "cal_samples": self.cal.count,
                "cal_bound": None if self.cal_bound is None else self.cal_bound.as_json()}


class CPUMetrics:
    __slots__ = ("mode_switches", "hi_time_ns", "hi_since", "idle_ns", "context_switches",
                 "migrations", "overrun_hi_ns", "overrun_now", "held_by")

    def __init__(self) -> None:
        self.mode_switches = 0
        self.hi_time_ns = 0
        self.hi_since: int | None = None
        self.idle_ns = 0
        self.context_switches = 0
        self.migrations = 0
        #: HI-mode time of the episodes in which a HI vCPU overran C_pes (:mod:`.budgets`)
        self.overrun_hi_ns = 0
        #: the HI vCPUs that overran C_pes in the current episode, and in any
        self.overrun_now: set[str] = set()
        self.held_by: set[str] = set()


class Metrics:
    """All counters of one simulation run."""

    def __init__(self, vm_names: list[str], pcpus: int, switch_cost: int = 0) -> None:
        self.vms = {name: VMMetrics() for name in vm_names}
        self.cpus = [CPUMetrics() for _ in range(pcpus)]
        #: the host's ``context_switch_cost``: ns a pCPU spends on each context switch
        self.switch_cost = switch_cost

    def mode(self, cpu: int, t: int, hi: bool) -> None:
        """pCPU *cpu* entered HI (``hi``) or LO mode at *t*."""
        stats = self.cpus[cpu]
        if hi and stats.hi_since is None:
            stats.mode_switches += 1
            stats.hi_since = t
        elif not hi and stats.hi_since is not None:
            self._end_episode(stats, t)
            stats.hi_since = None

    @staticmethod
    def _end_episode(stats: CPUMetrics, t: int) -> None:
        assert stats.hi_since is not None
        stats.hi_time_ns += t - stats.hi_since
        if stats.overrun_now:
            stats.overrun_hi_ns += t - stats.hi_since
            stats.held_by |= stats.overrun_now
            stats.overrun_now = set()

    def overran(self, cpu: int, vcpu: str) -> None:
        """HI vCPU *vcpu* used its whole ``C_pes`` on pCPU *cpu* in HI mode and still holds
        work: the episode is held by an overrun."""
        self.cpus[cpu].overrun_now.add(vcpu)

    def close(self, t: int) -> None:
        """End of the run at *t*: close the open HI intervals."""
        for stats in self.cpus:
            if stats.hi_since is not None:
                self._end_episode(stats, t)
                stats.hi_since = t

    def as_json(self, duration: int) -> dict[str, Any]:
        vms = {}
        for name, m in self.vms.items():
            vms[name] = {
                "cpu_share": round(m.ran_ns / duration, 6) if duration else 0.0,
                "cpu_ns": m.ran_ns,
                "requests": m.requests,
                "hi_misses": m.hi_misses,
                "rtt_ns": summary(m.rtt),
                "cal_ns": summary(m.cal),
            }
            if m.ioq != NO_IOQ:
                vms[name]["ioq"] = m.ioq_json()
            if m.hops is not None:
                vms[name]["io_path"] = m.hops.as_json(m.rtt)
            if m.budget is not None:
                vms[name]["budget"] = m.budget.as_json()
        cpus = [
            {
                "index": i,
                "mode_switches": c.mode_switches,
                "hi_time_ns": c.hi_time_ns,
                "idle_ns": c.idle_ns,
                "context_switches": c.context_switches,
                "switch_ns": c.context_switches * self.switch_cost,
                "migrations": c.migrations,
                "hi_time_overrun_ns": c.overrun_hi_ns,
                "held_in_hi_by": sorted(c.held_by),
            }
            for i, c in enumerate(self.cpus)
        ]
        return {"vms": vms, "pcpus": cpus, "switching": self.switching(duration)}

    def switching(self, duration: int) -> dict[str, Any]:
        """What scheduling itself cost the run: the context switches of all pCPUs, per
        second of the run, and the time they took (``cost_ns`` each) as a share of the
        host's CPU time (``duration`` x pCPUs).  ``ns`` is exact; the rates are rounded."""
        switches = sum(c.context_switches for c in self.cpus)
        spent = switches * self.switch_cost
        capacity = duration * len(self.cpus)
        return {"cost_ns": self.switch_cost, "switches": switches,
                "per_s": round(switches * 1_000_000_000 / duration, 3) if duration else 0.0,
                "ns": spent, "share": round(spent / capacity, 6) if capacity else 0.0}
