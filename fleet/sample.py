"""The sampled hosts: a few hosts of each placement, simulated at their peak.

Placing a fleet says how many pCPUs each placement keeps busy; whether the
VMs then get what they were promised is the simulator's to say
(:mod:`akita.reference`).  Simulating every host would cost as much as the
fleet is large, so for each placement ``sample`` hosts are drawn, without
replacement, among the hosts that placement ever used, by a generator
seeded from ``(seed, placement)`` (:func:`sample_hosts`).  Each is
simulated as it stood at its peak (:class:`~.replay.Peak`): its VMs, with
the workloads of their types, each vCPU **on the pCPU the placement gave
it**, for ``duration``:

* with the spec's ``policy``, every host under that one policy, so that the
  placements differ in nothing else (decision 216);
* otherwise a first-fit host under the ``akita`` policy, the scheduler first
  fit belongs to: its x and virtual deadlines from that placement's verdicts;
  and a spread host under ``credit`` (or ``cfs``, ``spread_policy``), the
  load-balancing scheduler spreading stands for: its vCPUs start where
  spreading put them, and the policy's balancer may move them.

Each host's VMs' phases are drawn from the run's seed (``phases =
"seeded"``: VMs created at unrelated instants), and the run's seed is
derived from ``(seed, placement, host)`` (:func:`host_seed`), so a host's
result depends on nothing else.  :func:`simulate_sample` is a pure function
of its :class:`SampleJob`: it is what a worker of the cluster runs.
"""

from __future__ import annotations

import hashlib
import random
from fractions import Fraction
from typing import Sequence

import attrs

from akita.model import (ADMISSION_TESTS, Host, PCPULoad, Placement, SchedulerOptions,
                         VCPU, UtilizationSums, VMPlacement)
from akita.model.exact_random import uniform_below

from .replay import Peak

__all__ = ["SampleJob", "SampleResult", "sample_hosts", "host_seed", "sample_host",
           "simulate_sample", "decimal", "POLICY_OF"]

#: The policy a sampled first-fit host is simulated under (a spread host: ``spread_policy``).
POLICY_OF = {"first-fit": "akita"}


def _random(key: str) -> random.Random:
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest(), "big"))


def sample_hosts(seed: int, placement: str, used: Sequence[int], count: int) -> tuple[int, ...]:
    """*count* of the hosts *used* (all of them if fewer), drawn without replacement
    by a partial Fisher-Yates shuffle; increasing."""
    pool = sorted(used)
    rng = _random(f"akita-fleet/1/{seed}/sample/{placement}")
    for i in range(min(count, len(pool))):
        j = i + uniform_below(rng, len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
    return tuple(sorted(pool[:min(count, len(pool))]))


def host_seed(seed: int, placement: str, host: int) -> int:
    """The simulator's seed for host *host* of *placement* (63 bits)."""
    key = f"akita-fleet/1/{seed}/simulate/{placement}/{host}"
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") >> 1


@attrs.frozen
class SampleJob:
    """One sampled host: what a worker needs to simulate it."""

    placement: str
    policy: str
    peak: Peak
    pcpus: int
    test: str
    duration: int
    seed: int


@attrs.frozen
class SampleResult:
    """What the simulation of one sampled host measured.

    :param hi_misses: HI deadline misses, over the host's HI VMs.
    :param lo_cpu_ns: CPU time the LO VMs received.
    :param lo_entitled_ns: what their optimistic budgets entitle them to,
        ``sum vcpus x C_opt/T x duration`` (rounded down to whole ns).
    :param hi_p99_ns: the largest p99 response time among the HI VMs that
        served requests; ``None`` if none did (so for ``hi_p999_ns``).
    :param hi_vms: HI VMs on the host; ``lo_vms`` LO ones.
    """

    placement: str
    host: int
    time: int
    policy: str
    vms: int
    hi_vms: int
    lo_vms: int
    pcpus_in_use: int
    hi_misses: int
    lo_cpu_ns: int
    lo_entitled_ns: int
    hi_p99_ns: int | None
    hi_p999_ns: int | None
    migrations: int

    @property
    def lo_share(self) -> str | None:
        """``lo_cpu_ns / lo_entitled_ns`` to four decimals, exactly rounded; ``None`` without
        LO VMs."""
        if not self.lo_entitled_ns:
            return None
        return decimal(Fraction(self.lo_cpu_ns, self.lo_entitled_ns))

    def as_json(self) -> dict[str, object]:
        """The result for machines."""
        return {"placement": self.placement, "host": self.host, "time_ns": self.time,
                "policy": self.policy, "vms": self.vms, "hi_vms": self.hi_vms,
                "lo_vms": self.lo_vms, "pcpus_in_use": self.pcpus_in_use,
                "hi_misses": self.hi_misses, "lo_cpu_ns": self.lo_cpu_ns,
                "lo_entitled_ns": self.lo_entitled_ns, "lo_share": self.lo_share,
                "hi_p99_ns": self.hi_p99_ns, "hi_p999_ns": self.hi_p999_ns,
                "migrations": self.migrations}


def decimal(value: Fraction, places: int = 4) -> str:
    """*value* ``>= 0`` with *places* decimals, rounded half up, exactly (no float)."""
    scale = 10**places
    n = (2 * value.numerator * scale + value.denominator) // (2 * value.denominator)
    return f"{n // scale}.{n % scale:0{places}d}"


def sample_host(job: SampleJob) -> tuple[Host, Placement]:
    """The host and placement *job* simulates: the peak's VMs where the fleet put them."""
    vms = tuple(vm for vm, _ in job.peak.vms)
    host = Host(pcpus=job.pcpus, vms=vms, test=job.test,
                options=SchedulerOptions(phases="seeded"))
    test = ADMISSION_TESTS[job.test]
    loads: list[list[VCPU]] = [[] for _ in range(job.pcpus)]
    for vm, pcpus in job.peak.vms:
        for vcpu, c in zip(vm.all_vcpus(), pcpus):
            loads[c].append(vcpu)
    placement = Placement(test.name, tuple(VMPlacement(vm, pcpus, None)
                                           for vm, pcpus in job.peak.vms),
                          tuple(PCPULoad(c, tuple(load), test(UtilizationSums.of(load)))
                                for c, load in enumerate(loads)))
    return host, placement


def simulate_sample(job: SampleJob) -> SampleResult:
    """Simulate one sampled host (a task of the cluster; pure)."""
    from akita.reference.policies import POLICIES
    from akita.reference.simulator import Simulator

    host, placement = sample_host(job)
    result = Simulator(host, placement, POLICIES[job.policy](), duration=job.duration,
                       seed=job.seed).run()
    metrics = result.metrics
    hi = [vm for vm, _ in job.peak.vms if vm.is_hi]
    lo = [vm for vm, _ in job.peak.vms if not vm.is_hi]
    p99 = [metrics.vms[vm.name].rtt.summary()["p99"] for vm in hi
           if metrics.vms[vm.name].rtt.count]
    p999 = [metrics.vms[vm.name].rtt.summary()["p999"] for vm in hi
            if metrics.vms[vm.name].rtt.count]
    entitled = sum(vm.vcpus * vm.c_opt * job.duration // vm.period for vm in lo)
    return SampleResult(
        placement=job.placement, host=job.peak.host, time=job.peak.time, policy=job.policy,
        vms=len(job.peak.vms), hi_vms=len(hi), lo_vms=len(lo),
        pcpus_in_use=sum(1 for load in placement.pcpus if load.vcpus),
        hi_misses=sum(metrics.vms[vm.name].hi_misses for vm in hi),
        lo_cpu_ns=sum(metrics.vms[vm.name].ran_ns for vm in lo), lo_entitled_ns=entitled,
        hi_p99_ns=max(p99) if p99 else None, hi_p999_ns=max(p999) if p999 else None,
        migrations=sum(c.migrations for c in metrics.cpus))
