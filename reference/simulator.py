"""The discrete-event core of the reference scheduler.

Time is an integer number of nanoseconds.  The core keeps three kinds of
events in one heap, ordered by time, then kind, then the order they were
armed in:

0. *pCPU events*: the running vCPU's slice ends (the time the policy asked
   to decide again) or its current job completes;
1. *arrivals* of work from the workloads;
2. *timers* armed by the policy (a vCPU's period start, R2) -- after the
   arrivals, so that a period start sees the work that arrives with it;
3. *HI period starts* of the HI-miss account (:mod:`.misses`), on each HI
   vCPU's own period grid whatever the policy -- so that they see the
   instant's work and service, and touch no decision;
4. *hops* of requests on an I/O path (:mod:`.iopath`): a request a backend
   or a guest finished, delivered to its next vCPU at the instant it was
   finished -- after everything that instant brought;
5. *guest timers*, armed by the guests of a host that has them
   (:mod:`.guest_hook`).

All events of one instant are applied first, in that order; then every
pCPU they touched asks the policy what to run (:meth:`Policy.pick`), once.
Before an event touches a pCPU, the vCPU running there is brought up to
date: its jobs progress by the time it ran, the policy is charged that time
(:meth:`Policy.charge`), and a vCPU left without work blocks.

A context switch -- a pCPU starting a vCPU other than the one it ran last --
costs ``context_switch_cost`` ns in which the pCPU does no vCPU's work; the
policy is charged that time as the incoming vCPU's.  So, added to it, are
``wake_cost`` when the incoming vCPU blocked (halted) since it last ran --
the halt's exit and the wake-up IPI -- and ``migration_cost`` when it last
ran on another pCPU -- the refill of the caches it left (decisions 291, 292).

Nothing here is random: the same host, workloads and seed give the same
events in the same order, and so the same trace, byte for byte.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any, Callable, Iterator, TextIO

from akita.model import Host, Placement
from akita.model.phases import resolve_phases, with_phases

from .ioq import note_ioq
from .metrics import Metrics
from .iopath import IOPaths
from .misses import MissAccount
from .guest_hook import GuestHook
from .policy import Policy
from akita.trace.jsonl import TraceWriter
from .vcpu_state import ENDLESS, VCPUState
from .workloads import arrivals as workload_arrivals

__all__ = ["Simulator", "Result"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R10": ("Simulator.run",),
}

_CPU, _ARRIVAL, _TIMER, _ACCOUNT, _HOP, _GUEST = 0, 1, 2, 3, 4, 5


class Result:
    """What a run produced: the metrics and the VMs that were not run."""

    def __init__(self, sim: "Simulator") -> None:
        self.policy = sim.policy.name
        self.duration = sim.duration
        self.seed = sim.seed
        self.rejected = list(sim.rejected)
        self.metrics = sim.metrics
        #: each simulated VM's phase: the instant it was created, its first period start (R2)
        self.phases = {vm.name: vm.phase or 0 for vm in sim.host.vms
                       if vm.name not in self.rejected}
        #: what the guests measured (:mod:`.guest_hook`); ``None`` without guests
        self.guests = None if sim.guest is None else sim.guest.as_json()
        #: the reading of HI mode the run took (R3, R7); only ``akita`` has a choice
        self.hi_mode_order = sim.host.options.hi_mode_order if self.policy == "akita" else None

    def as_json(self) -> dict[str, Any]:
        doc = {"policy": self.policy, "duration_ns": self.duration, "seed": self.seed,
               "rejected": self.rejected, "phases_ns": self.phases}
        if self.hi_mode_order is not None:
            doc["hi_mode_order"] = self.hi_mode_order
        doc.update(self.metrics.as_json(self.duration))
        if self.guests is not None:
            doc["guests"] = self.guests
        return doc


def _created_at(state: VCPUState[Any], phase: int,
                then: Iterator[tuple[int, int]] | None = None) -> Iterator[tuple[int, int]]:
    """A cpu-bound vCPU whose VM is created at *phase*: idle until then, then endless work
    (and, for a ``burn`` guest, the requests of *then*, which come from *phase* on)."""
    state.jobs.clear()
    state.runnable = False
    state.waiting_since = None
    return itertools.chain(((phase, ENDLESS),), then or ())


class Simulator:
    """One run of *policy* on *host* for *duration* ns.

    :param placement: where each admitted vCPU runs (from first fit, R12);
        VMs it rejected are not simulated.
    :param seed: the seed of the workloads and of the phases the host draws
        (:mod:`akita.model.phases`).  :attr:`host` is *host* with every VM's
        phase resolved (the host the trace header carries), and each vCPU's
        ``vm`` is its VM in that host.  A VM is created at its phase: its
        jobs arrive from then on, and a cpu-bound vCPU wakes then.
    :param trace: a text stream that receives the trace as JSON Lines.
    :param progress: called now and then with the simulated time reached.
    :param guest: the guests that drive the vCPUs of their VMs
        (:class:`.guest_hook.GuestHook`); ``None``: every vCPU runs its workload.
    """

    def __init__(
        self,
        host: Host,
        placement: Placement,
        policy: Policy,
        *,
        duration: int,
        seed: int = 1,
        trace: TextIO | None = None,
        progress: Callable[[int], None] | None = None,
        guest: GuestHook | None = None,
    ) -> None:
        self.host = host = with_phases(host, resolve_phases(host, seed))
        resolved = {vm.name: vm for vm in host.vms}
        self.placement = placement
        self.policy = policy
        self.duration = duration
        self.seed = seed
        self.switch_cost = host.options.context_switch_cost
        self.wake_cost = host.options.wake_cost
        self.migration_cost = host.options.migration_cost
        #: vCPUs that woke since they last ran (only counted when waking costs)
        self._woke: set[VCPUState[Any]] = set()
        self._trace = None if trace is None else TraceWriter(trace)
        self.tracing = trace is not None
        self._progress = progress
        self.guest = guest
        self.rejected = [vm.vm.name for vm in placement.vms if not vm.admitted]
        self.metrics = Metrics([vm.name for vm in host.vms if vm.name not in self.rejected],
                               host.pcpus, self.switch_cost)
        note_ioq(self.metrics, host, placement, policy.name)
        self.vcpus: list[VCPUState[Any]] = []
        self.on_cpu: list[list[VCPUState[Any]]] = [[] for _ in range(host.pcpus)]
        self._sources: dict[VCPUState[Any], Iterator[tuple[int, Any]]] = {}
        order = 0
        for vm_index, answer in enumerate(placement.vms):
            if not answer.admitted:
                continue
            vm = resolved[answer.vm.name]
            driven = guest is not None and guest.drives(vm)
            for vcpu, cpu in zip(vm.all_vcpus(), answer.pcpus):
                # no horizon: the run stops at its duration, so the one arrival armed past
                # it is never applied (and no per-job horizon test is paid)
                source = None if driven else workload_arrivals(vm, vcpu.index, seed)
                burns = bool(vm.workload.burn)  # requests ahead of a CPU-bound process
                state: VCPUState[Any] = VCPUState(vcpu, vm_index, order, cpu,
                                                  endless=(source is None or burns)
                                                  and not driven,
                                                  stats=self.metrics.vms[answer.vm.name])
                if driven:
                    state.guest = guest
                order += 1
                self.vcpus.append(state)
                self.on_cpu[cpu].append(state)
                if (source is None or burns) and vm.phase and not driven:
                    source = _created_at(state, vm.phase, source)
                if source is not None:
                    self._sources[state] = source
        #: the I/O paths of the host's requests, if any VM has one (:mod:`.iopath`)
        self._io = IOPaths(self) if any(vm.io.via for vm in host.vms) else None
        pcpus = host.pcpus
        self.running: list[VCPUState[Any] | None] = [None] * pcpus
        # the last vCPU that ran, for switch cost
        self._last: list[VCPUState[Any] | None] = [None] * pcpus
        self._synced = [0] * pcpus
        self._work_from = [0] * pcpus  # when the running vCPU's work (after a switch) starts
        self._until: list[int | None] = [None] * pcpus
        self._token = [0] * pcpus
        self._idle_traced = [False] * pcpus
        #: ``(instant, kind, sequence, a, b)``, *a* and *b* as the kind says (:meth:`run`)
        self._events: list[tuple[int, int, int, Any, Any]] = []
        self._seq = 0
        self._dirty: set[int] = set()
        self._accounts: dict[VCPUState[Any], MissAccount] = {
            state: MissAccount(state.vm.c_max, state.endless) for state in self.vcpus if state.is_hi}
        #: ``resched(cpu)``: ask the policy what pCPU *cpu* runs, once this instant's
        #: events are applied (the pCPU joins the set of those to decide again).
        self.resched = self._dirty.add

    # -- services for policies -------------------------------------------------

    def set_timer(self, t: int, cpu: int, payload: Any) -> None:
        """Call the policy's ``on_timer(t, payload)`` at *t* (on behalf of pCPU *cpu*)."""
        self._seq += 1
        heapq.heappush(self._events, (t, _TIMER, self._seq, cpu, payload))

    # -- services for the I/O path (iopath.py), before the run starts ---------------------

    def take_arrivals(self, state: VCPUState[Any]) -> Iterator[tuple[int, Any]] | None:
        """Take *state*'s arrivals away from it, to route them (``None``: it has none)."""
        return self._sources.pop(state, None)

    def give_arrivals(self, state: VCPUState[Any], arrivals: Iterator[tuple[int, Any]]) -> None:
        """*state* receives *arrivals*, ``(instant, demand)`` pairs in time order."""
        self._sources[state] = arrivals

    def forward(self, state: VCPUState[Any], job: list[Any], t: int) -> None:
        """Give *state* the request-carrying *job* at *t*, once this instant's other events
        are applied (a hop of an I/O path, :mod:`.iopath`)."""
        self._seq += 1
        heapq.heappush(self._events, (t, _HOP, self._seq, state, job))

    # -- services for guests (guest_hook.py) -----------------------------------------

    def set_guest_timer(self, t: int, payload: Any) -> None:
        """Call the guest's ``on_timer(t, payload)`` at *t*."""
        self._seq += 1
        heapq.heappush(self._events, (t, _GUEST, self._seq, None, payload))

    def sync_vcpu(self, state: VCPUState[Any], t: int) -> None:
        """Bring the pCPU that runs *state* up to *t* (nothing if *state* is not running)."""
        cpu = state.cpu
        if self.running[cpu] is state and t > self._synced[cpu]:
            self._sync(cpu, t)

    def set_work(self, state: VCPUState[Any], demand: int | None, t: int) -> int:
        """Replace what guest-driven vCPU *state* holds, at *t*, by one piece of *demand*;
        return what remained of the piece it held (0 if none, ``ENDLESS`` for a spin).

        The vCPU's pCPU is first brought up to *t*, so that the piece it
        drops had its due.  *demand* ``None`` empties it: a vCPU that runs
        blocks, one that waits for its pCPU must keep a piece (a policy
        blocks only the vCPU it runs), so ``None`` is refused for it.
        """
        cpu = state.cpu
        running = self.running[cpu] is state
        if running and t > self._synced[cpu]:
            self._sync(cpu, t)
        jobs = state.jobs
        dropped = jobs[0][1] if jobs else 0
        jobs.clear()
        state.backlog = 0
        if demand is None:
            if not state.runnable:
                return dropped
            if not running:
                raise ValueError(f"{state.name} waits for pCPU {cpu}: it cannot block at {t}")
            state.runnable = False
            if self.tracing:
                self.emit(t, cpu, "block", vcpu=state.name)
            self.policy.on_block(state, t)
            self._dirty.add(cpu)
            return dropped
        jobs.append([t, demand])
        if demand != ENDLESS:
            state.backlog = demand
        if not state.runnable:
            state.runnable = True
            state.waiting_since = t
            if self.wake_cost:
                self._woke.add(state)
            if self.tracing:
                self.emit(t, cpu, "wake", vcpu=state.name)
            self.policy.on_wake(state, t)
        elif running:
            self._arm(cpu, state, t)
        return dropped

    def yield_to(self, state: VCPUState[Any], target: VCPUState[Any], t: int) -> None:
        """The running guest-driven *state* gives way to the preempted *target* at *t*
        (a pause-loop exit's directed yield; the policy decides, :meth:`.Policy.yield_to`)."""
        cpu = state.cpu
        if self.running[cpu] is state and t > self._synced[cpu]:
            self._sync(cpu, t)
        self.policy.yield_to(state, target, t)

    def emit(self, t: int, cpu: int, event: str, **fields: Any) -> None:
        """Write one trace event (a no-op when not tracing)."""
        if self._trace is not None:
            self._trace.event(t, cpu, event, **fields)

    # -- the run -----------------------------------------------------------------

    def run(self) -> Result:
        if self._trace is not None:
            self._trace.header(self.host, self.policy.name, self.seed, self.duration)
        for state in self.vcpus:
            if state.runnable:
                self.emit(0, state.cpu, "wake", vcpu=state.name)
        for state, source in self._sources.items():
            self._next_arrival(state, source)
        if self._io is not None:
            self._io.start()
        self.policy.setup(self)
        if self.guest is not None:
            self.guest.setup(self)
        for state in self._accounts:
            assert state.vm.phase is not None  # resolved (resolve_phases): every VM has one
            self._seq += 1
            heapq.heappush(self._events, (state.vm.phase, _ACCOUNT, self._seq, state, None))
        for cpu in range(self.host.pcpus):
            self._dirty.add(cpu)
        events, duration, synced = self._events, self.duration, self._synced
        # the loop's callees, looked up once (the hot path)
        pop, on_timer, sync = heapq.heappop, self.policy.on_timer, self._sync
        on_cpu_event, on_arrival, decide_all = self._on_cpu_event, self._on_arrival, self._decide_all
        dirty = self._dirty
        progress, next_report = self._progress, duration // 100
        if not events or events[0][0] > 0:  # nothing happens at 0: start the pCPUs anyway
            decide_all(0)
        while events and events[0][0] < duration:
            t = events[0][0]
            while events and events[0][0] == t:
                _, kind, _, a, b = pop(events)
                if kind == _CPU:
                    on_cpu_event(a, b, t)
                elif kind == _TIMER:
                    if t > synced[a]:
                        sync(a, t)
                    on_timer(t, b)
                elif kind == _ARRIVAL:
                    on_arrival(a, b, t)
                elif kind == _ACCOUNT:
                    self._period_start(a, t)
                elif kind == _HOP:
                    self._on_hop(a, b, t)
                else:
                    self._on_guest_timer(t, b)
            if dirty:
                decide_all(t)
            if progress is not None and t >= next_report:
                progress(t)
                next_report = t + duration // 100
        for cpu in range(self.host.pcpus):
            self._sync(cpu, duration)
        for state in self.vcpus:
            state.stats.ran_ns += state.ran_ns
        self.metrics.close(duration)
        return Result(self)

    def _decide_all(self, t: int) -> None:
        """Ask the policy about every pCPU marked for a decision at *t*, until none is."""
        dirty = self._dirty
        while dirty:
            if len(dirty) == 1:  # the common case: one pCPU, no sort
                self._dispatch(dirty.pop(), t)
                continue
            cpus = sorted(dirty)
            dirty.clear()  # the same set object: resched is its add()
            for cpu in cpus:
                self._dispatch(cpu, t)

    # -- events --------------------------------------------------------------------

    def _next_arrival(self, state: VCPUState[Any], source: Iterator[tuple[int, int]]) -> None:
        following = next(source, None)
        if following is not None:
            self._seq += 1
            heapq.heappush(self._events, (following[0], _ARRIVAL, self._seq, state, following[1]))

    def _on_arrival(self, state: VCPUState[Any], demand: Any, t: int) -> None:
        if t > self._synced[state.cpu]:
            self._sync(state.cpu, t)
        if demand.__class__ is list:  # a backend's packet, carrying its request (iopath.py)
            job: list[Any] = demand
        else:
            job = [t, demand]
        self._take(state, job, t)
        self._next_arrival(state, self._sources[state])
        self._wake(state, t)

    def _on_hop(self, state: VCPUState[Any], job: list[Any], t: int) -> None:
        """A request reaches its next vCPU (:meth:`forward`)."""
        if t > self._synced[state.cpu]:
            self._sync(state.cpu, t)
        self._take(state, job, t)
        self._wake(state, t)

    def _take(self, state: VCPUState[Any], job: list[Any], t: int) -> None:
        """*state* holds *job* from *t* on: behind its other jobs, but ahead of an endless one
        -- a ``burn`` guest's request is interrupt-level work that runs before its CPU-bound
        process (:mod:`akita.model.workload`), so a running vCPU's next event moves."""
        jobs = state.jobs
        if jobs and jobs[-1][1] == ENDLESS and job[1] != ENDLESS:
            jobs.insert(len(jobs) - 1, job)
            if jobs[0] is job and self.running[state.cpu] is state:
                self._arm(state.cpu, state, t)
        else:
            jobs.append(job)
        if job[1] != ENDLESS:
            state.backlog += job[1]

    def _wake(self, state: VCPUState[Any], t: int) -> None:
        """Work arrived at *state*: a blocked vCPU becomes runnable and the policy is told."""
        if not state.runnable:
            state.runnable = True
            state.waiting_since = t
            if self.wake_cost:
                self._woke.add(state)
            if self.tracing:
                self.emit(t, state.cpu, "wake", vcpu=state.name)
            self.policy.on_wake(state, t)

    def _on_guest_timer(self, t: int, payload: Any) -> None:
        assert self.guest is not None  # only guests arm guest timers
        self.guest.on_timer(t, payload)

    def _period_start(self, state: VCPUState[Any], t: int) -> None:
        """A period of HI vCPU *state* starts at *t*: judge the last one, note what is owed.

        The time served and the work held are read as of *t* without syncing
        the pCPU (a sync would split the policy's charge, which some policies
        round): the running vCPU's service since the last sync is added here.
        """
        served = state.ran_ns
        held = state.backlog if state.guest is None else state.guest.held(state)
        cpu = state.cpu
        since = self._synced[cpu]
        if self.running[cpu] is state and t > since:
            served += t - since
            work = t - max(since, self._work_from[cpu])
            if work > 0:
                held = max(0, held - work)
        if self._accounts[state].period_start(t, served, held):
            state.stats.hi_misses += 1
        self._seq += 1
        heapq.heappush(self._events, (t + state.vm.period, _ACCOUNT, self._seq, state, None))

    def _on_cpu_event(self, cpu: int, token: int, t: int) -> None:
        if token != self._token[cpu]:
            return  # superseded by a later dispatch
        self._sync(cpu, t)
        state = self.running[cpu]
        if state is None or not state.runnable:
            return
        until = self._until[cpu]
        if until is not None and until <= t:
            self._dirty.add(cpu)
        else:
            self._arm(cpu, state, t)

    def _sync(self, cpu: int, t: int) -> None:
        """Bring pCPU *cpu* up to *t*: progress work, charge the policy, block."""
        since = self._synced[cpu]
        if t <= since:
            return
        self._synced[cpu] = t
        state = self.running[cpu]
        if state is None:
            self.metrics.cpus[cpu].idle_ns += t - since
            return
        ran = t - since
        start = self._work_from[cpu]
        work = t - (start if start > since else since)
        state.ran_ns += ran  # its VM's total is summed at the end of the run
        jobs = state.jobs
        clock = t - work if work > 0 else t
        while work > 0 and jobs:
            job = jobs[0]
            left = job[1]
            if left == ENDLESS:
                break
            step = left if left < work else work
            job[1] = left - step
            state.backlog -= step
            work -= step
            clock += step
            if left == step:
                jobs.popleft()
                self._complete(state, job, clock)
        if not jobs:
            state.runnable = False
        self.policy.charge(state, ran, t)
        if not state.runnable:
            if self.tracing:
                self.emit(t, cpu, "block", vcpu=state.name)
            self.policy.on_block(state, t)
            self._dirty.add(cpu)

    def _complete(self, state: VCPUState[Any], job: list[Any], t: int) -> None:
        if state.guest is not None:  # a guest's piece of work: the guest says what comes next
            demand = state.guest.on_done(state, t)
            if demand is not None:
                state.jobs.append([t, demand])
                if demand != ENDLESS:
                    state.backlog += demand
            return
        if self.tracing:
            self.emit(t, state.cpu, "complete", vcpu=state.name, arrival=job[0])
        if len(job) > 2:  # a hop of a request on an I/O path: it moves on
            assert self._io is not None
            self._io.completed(job, t)
            return
        stats = state.stats
        stats.requests += 1
        stats.rtt.add(t - job[0])

    def _dispatch(self, cpu: int, t: int) -> None:
        if t > self._synced[cpu]:
            self._sync(cpu, t)
        state, until = self.policy.pick(cpu, t)
        migrated = state is not None and state.cpu != cpu
        if migrated:
            assert state is not None
            self._migrate(state, cpu, t)
        previous = self.running[cpu]
        self._until[cpu] = until
        if state is previous:
            if state is not None:
                self._record_access(state, t)
                self._arm(cpu, state, t)
            return
        self._token[cpu] += 1
        self.running[cpu] = state
        if self.guest is not None:
            self.guest.on_switch(cpu, previous, state, t)
        if previous is not None and previous.runnable and previous.cpu == cpu:
            self.policy.on_deschedule(previous, t)
        if state is None:
            if not self._idle_traced[cpu]:
                self._idle_traced[cpu] = True
                self.emit(t, cpu, "idle")
            return
        self._idle_traced[cpu] = False
        extra = self.migration_cost if migrated else 0
        if state in self._woke:
            self._woke.discard(state)
            extra += self.wake_cost
        if self._last[cpu] is not state:
            self.metrics.cpus[cpu].context_switches += 1
            self._work_from[cpu] = t + self.switch_cost + extra
        else:
            self._work_from[cpu] = t + extra
        self._last[cpu] = state
        self._record_access(state, t)
        if self.tracing:
            deadline, key, budget = self.policy.describe(state)
            self.emit(t, cpu, "dispatch", vcpu=state.name, deadline=deadline, key=key, budget=budget)
        self._arm(cpu, state, t)

    def _migrate(self, state: VCPUState[Any], cpu: int, t: int) -> None:
        """Move a vCPU to pCPU *cpu* at *t* (a policy's choice, see policy.py).

        If its old pCPU still shows it running -- it blocked and woke at *t*,
        before that pCPU decided again -- it leaves that pCPU now: the old
        pCPU is brought up to *t*, shown idle, and asked to decide again.
        """
        old = state.cpu
        if self.running[old] is state:
            if t > self._synced[old]:
                self._sync(old, t)
            self.running[old] = None
            if self.guest is not None:
                self.guest.on_switch(old, state, None, t)
            self._token[old] += 1  # cancel its pending slice end or completion
            if not self._idle_traced[old]:
                self._idle_traced[old] = True
                self.emit(t, old, "idle")
            self._dirty.add(old)
        state.cpu = cpu  # the trace shows it as a dispatch on the new pCPU
        self.metrics.cpus[cpu].migrations += 1

    def _record_access(self, state: VCPUState[Any], t: int) -> None:
        if state.waiting_since is not None:
            cal = t - state.waiting_since
            stats = state.stats
            stats.cal.add(cal)
            if cal > stats.ioq:
                stats.over_ioq += 1
            state.waiting_since = None

    def _arm(self, cpu: int, state: VCPUState[Any], t: int) -> None:
        """Arm the pCPU event of *state*, running on *cpu*: its slice end or its job's end."""
        when = self._until[cpu]
        jobs = state.jobs
        if jobs:
            left = jobs[0][1]
            if left != ENDLESS:
                start = self._work_from[cpu]
                done = (start if start > t else t) + left
                if when is None or done < when:
                    when = done
        token = self._token[cpu] + 1
        self._token[cpu] = token
        if when is not None:
            self._seq += 1
            heapq.heappush(self._events, (when, _CPU, self._seq, cpu, token))
