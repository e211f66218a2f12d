"""One run of Akita on Linux: admit, partition, attach, control, record, clean up.

:func:`run_host` is what ``akita linux HOST.toml`` does:

1. admit the host with the project's own admission and first fit
   (:func:`akita.model.first_fit`, the host's ``test``): a VM rejected is
   bad input for a run;
2. start the watchdog (:mod:`.watchdog`), then make one exclusive cpuset per
   pCPU used (:mod:`.cpuset`; pCPU ``i`` on Linux CPU ``cpus[i]``) and a
   tracing instance (:mod:`.tracefs`), writing each into the ledger
   (:mod:`.cleanup`) as it is made;
3. take each vCPU's thread -- attached (``VM/i=TID``) or started by
   :mod:`akita.linux.workloads` -- into its pCPU's cpuset, as ``SCHED_OTHER``;
4. start recording, mark the origin of the period grids, and run the
   :class:`~.controller.Controller` for the given seconds;
5. on every exit path, undo what the ledger names; then write the capture
   (:mod:`.capture`).

The controller itself runs on the CPUs no pCPU uses, as ``SCHED_FIFO``
(priority :data:`CONTROLLER_PRIORITY`), so that its timers are not late
behind the load generators there (its R5 detection latency is measured,
:doc:`/linux`).
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

import attrs

from akita.model import Host, first_fit
from akita.model.edf_vd import virtual_deadline_factor
from akita.model.phases import resolve_phases

from . import capture, cpuset, idle_exits, requirements, sched, tracefs
from .cleanup import Ledger, undo
from .controller import VARIANTS, Controller, VcpuState
from .errors import KernelRefused, LinuxError, LinuxParameterError

__all__ = ["run_host", "parse_attach", "RunResult", "LinuxKernel",
           "CONTROLLER_PRIORITY"]

#: The controller's own SCHED_FIFO priority (below the HI vCPUs' FIFO_TOP range is irrelevant:
#: it never shares a CPU with them).
CONTROLLER_PRIORITY = 60
#: How long a refused sched_setattr is retried (ns): a root domain being rebuilt (EPERM) or
#: bandwidth still held until a task's 0-lag time (EBUSY).
RETRY_NS = 30_000_000
#: Seconds recorded besides the run's own (the stand-in guests' lead before their t0, the
#: threads taken), for sizing the ring buffer.
LEAD_S = 1.0


def _mono() -> int:
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


class LinuxKernel:
    """The controller's :class:`~.controller.Kernel`: ``sched_setattr``, ``/proc``, the marker."""

    def __init__(self, instance: tracefs.Instance) -> None:
        self.instance = instance
        #: refusals retried (EBUSY: bandwidth held until a 0-lag time; EPERM: a root domain
        #: being rebuilt), and the ns spent waiting on them.
        self.retries = 0
        self.retry_ns = 0
        #: /proc files kept open, read again from offset 0 (decision 348): opening
        #: ``/proc/<tid>/schedstat`` anew took 120-300 us at a period start.
        self._files: dict[str, int] = {}

    def _retry(self, v: VcpuState, attr: sched.SchedAttr) -> None:
        until = _mono() + RETRY_NS
        while True:
            try:
                sched.set_attr(v.tid, attr, what=f"vcpu {v.name} (thread {v.tid})")
                return
            except LinuxError as error:
                transient = isinstance(error, KernelRefused) or "EPERM" in str(error)
                if not transient or _mono() > until:
                    raise
                self.retries += 1
                began = _mono()
                time.sleep(0.0005)
                self.retry_ns += _mono() - began

    def deadline(self, v: VcpuState, runtime: int, deadline: int, period: int) -> None:
        self._retry(v, sched.SchedAttr(sched.SCHED_DEADLINE, 0, 0, 0, runtime, deadline, period))

    def fifo(self, v: VcpuState, priority: int) -> None:
        self._retry(v, sched.SchedAttr(sched.SCHED_FIFO, 0, 0, priority))

    def other(self, v: VcpuState) -> None:
        self._retry(v, sched.SchedAttr(sched.SCHED_OTHER))

    def open(self, vcpus: Sequence[VcpuState]) -> None:
        """Open each vCPU's /proc files before the run: a first open took 100-230 us,
        late in the period start that needed it (decision 348)."""
        for v in vcpus:
            self.consumed(v)
            self.runnable(v)

    def _read(self, v: VcpuState, name: str) -> str:
        path = f"/proc/{v.tid}/{name}"
        if path not in self._files:
            self._files[path] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        return os.pread(self._files[path], 4096, 0).decode()

    def consumed(self, v: VcpuState) -> int:
        return int(self._read(v, "schedstat").split()[0])

    def runnable(self, v: VcpuState) -> bool:
        text = self._read(v, "stat")
        return text[text.rfind(")") + 2] == "R"

    def close(self) -> None:
        """Close the /proc files kept open."""
        for fd in self._files.values():
            os.close(fd)
        self._files = {}

    def mark(self, text: str) -> None:
        self.instance.mark(text)


@attrs.frozen
class RunResult:
    """What a run did: where its capture is and what the controller saw."""

    out_dir: Path
    host_file: Path
    trace_file: Path
    cpus: tuple[int, ...]
    tids: Mapping[str, int]
    origin_ns: int
    seconds: float
    variant: str
    switches: int
    returns: int
    tick_ns: int | None
    join_lateness_ns: tuple[int, ...] = ()
    retries: int = 0
    retry_ns: int = 0
    workloads: Mapping[str, Any] | None = None
    #: the ring buffer's size per CPU (KiB) and its own loss counters after the run
    #: (:meth:`.tracefs.Instance.losses`): a capture is complete only if none is above 0.
    capture_losses: Mapping[str, int] = attrs.field(factory=dict)
    #: each pCPU's switches into idle and out of it in the capture itself, in pCPU order
    #: (:func:`.idle_exits.count`; the CPUs were chosen by a probe before the run).
    idle_exits: tuple[idle_exits.IdleExits, ...] = ()

    def unwritten_idle_exits(self) -> str | None:
        """One line naming the pCPUs' CPUs that do not write their idle exits (``None``: all do)."""
        lost = [seen for seen in self.idle_exits if seen.written == "unwritten"]
        if not lost:
            return None
        names = ", ".join(f"CPU {seen.cpu} (0 of {seen.entries} idle periods)" for seen in lost)
        return (f"{names} wrote no switch out of idle into the capture: each idle exit is a "
                f"hole in the capture, around which the oracle withholds findings "
                f"(docs/linux.rst, 'Idle exits')")

    @property
    def capture_complete(self) -> bool:
        """Whether the capture holds every record the kernel wrote (no counter above 0)."""
        return bool(self.capture_losses) and not any(
            self.capture_losses.get(name, 0) for name in tracefs.LOSS_COUNTERS)

    def capture_text(self) -> str:
        """One line on the capture's completeness, in the ring buffer's own words."""
        c = self.capture_losses
        counts = ", ".join(f"{name} {c.get(name, 0)}" for name in tracefs.LOSS_COUNTERS)
        if self.capture_complete:
            return (f"capture complete: {c.get('entries', 0)} records, none lost ({counts}; "
                    f"buffer {c.get('buffer_kb', 0)} KiB per CPU)")
        return (f"capture INCOMPLETE: the ring buffer lost records ({counts}; buffer "
                f"{c.get('buffer_kb', 0)} KiB per CPU): the oracle would begin mid-run")

    def as_json(self) -> dict[str, Any]:
        return {"out_dir": str(self.out_dir), "host_file": str(self.host_file),
                "trace_file": str(self.trace_file), "cpus": list(self.cpus),
                "tids": dict(self.tids), "origin_ns": self.origin_ns, "seconds": self.seconds,
                "variant": self.variant, "switches_to_hi": self.switches,
                "returns_to_lo": self.returns, "tick_ns": self.tick_ns,
                "join_lateness_ns": list(self.join_lateness_ns), "retries": self.retries,
                "retry_ns": self.retry_ns,
                "capture": {**dict(self.capture_losses), "complete": self.capture_complete},
                "idle_exits": [seen.as_json() for seen in self.idle_exits],
                "workloads": None if self.workloads is None else dict(self.workloads)}


def parse_attach(attach: Sequence[str], host: Host) -> dict[str, int]:
    """``VM/i=TID`` pairs, checked against *host* and ``/proc``: vCPU name -> TID.

    :raises LinuxParameterError: naming the parameter ``attach``.
    """
    names = {v.name for vm in host.vms for v in vm.all_vcpus()}
    found: dict[str, int] = {}
    for item in attach:
        name, sep, tid_text = item.partition("=")
        if not sep or name not in names:
            raise LinuxParameterError("attach", item,
                                      f"VM/i=TID with VM/i one of {', '.join(sorted(names))}")
        if not tid_text.isdigit() or not Path(f"/proc/{tid_text}/stat").exists():
            raise LinuxParameterError("attach", item, "the id of a live thread after '='")
        if name in found:
            raise LinuxParameterError("attach", item,
                                      f"one thread per vCPU ({name} given twice)")
        found[name] = int(tid_text)
    if found and set(found) != names:
        missing = ", ".join(sorted(names - set(found)))
        raise LinuxParameterError("attach", " ".join(attach),
                                  f"a thread for every vCPU (missing {missing})")
    return found


def _choose(pcpus: int) -> list[int]:
    """The pCPUs' CPUs when ``--cpus`` is not given: probed, then ranked
    (:func:`.idle_exits.choose_cpus`); what the probe told is kept for the boot."""
    seen = idle_exits.probe(sorted(cpuset._online()))
    idle_exits.remember(seen)
    return idle_exits.choose_cpus(pcpus, idle_exits.recall(seen))


def _vcpu_states(host: Host, phases: Mapping[str, int], tids: Mapping[str, int]
                 ) -> list[VcpuState]:
    placement = first_fit(host)
    rejected = [a for a in placement.vms if not a.admitted]
    if rejected:
        raise LinuxError("vm", rejected[0].vm.name, f"a VM the host's admission ({host.test}) "
                         f"admits ({rejected[0].reason})", vm=rejected[0].vm.name)
    states: list[VcpuState] = []
    for answer in placement.vms:
        vm = answer.vm
        for i, vcpu in enumerate(vm.all_vcpus()):
            c = answer.pcpus[i]
            x = virtual_deadline_factor(placement.pcpus[c].verdict, host.options.x_rule)
            states.append(VcpuState(vcpu.name, c, len(states), vm.is_hi, tids[vcpu.name],
                                    vm.period, phases[vm.name], vm.c_opt, x))
    return states


def _start_watchdog(ledger: Ledger) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "akita.linux.watchdog", str(ledger.path),
                             str(os.getpid())], stdin=subprocess.DEVNULL,
                            start_new_session=True)


def _take(ledger: Ledger, sets: cpuset.Cpusets, states: Sequence[VcpuState],
          attached: bool) -> None:
    """Each vCPU's thread into its pCPU's cpuset, as SCHED_OTHER; the before state saved."""
    for v in states:
        if attached:
            before = sched.get_attr(v.tid)
            with open(f"/proc/{v.tid}/cpuset") as f:
                where = f.read().strip()
            ledger.attached.append({"tid": v.tid, "attr": list(attrs.astuple(before)),
                                    "cpuset": where})
            ledger.save()
        sets.enter(v.pcpu, v.tid)
        sched.set_attr(v.tid, sched.SchedAttr(sched.SCHED_OTHER), what=f"vcpu {v.name}")


def _own_scheduling() -> tuple[set[int], int, int]:
    """This process's affinity, policy and priority, restored when :func:`run_host` returns
    (a caller that goes on -- :mod:`.predictions` -- must not stay SCHED_FIFO and pinned:
    a cpu cgroup without real-time runtime refuses a SCHED_FIFO task)."""
    return (os.sched_getaffinity(0), os.sched_getscheduler(0),
            os.sched_getparam(0).sched_priority)


def _restore_scheduling(before: tuple[set[int], int, int]) -> None:
    affinity, policy, priority = before
    try:
        os.sched_setscheduler(0, policy, os.sched_param(priority))
    except OSError:
        pass
    os.sched_setaffinity(0, affinity)


def _controller_to_spare(cpus: Sequence[int]) -> None:
    spare = sorted(cpuset._online() - set(cpus))
    os.sched_setaffinity(0, spare)
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(CONTROLLER_PRIORITY))
    except OSError:
        pass


def run_host(host: Host, *, attach: Mapping[str, int], cpus: Sequence[int] | None,
             seconds: float, seed: int, out_dir: Path, variant: str = "correct",
             wait: float = 30.0, align: int | None = None) -> RunResult:
    """Run *host*'s vCPUs under Akita on this machine for *seconds*; return the capture.

    :param align: a CLOCK_MONOTONIC instant (ns) the period grids are aligned to:
        the origin is the first ``align + k H`` (``H`` the hyperperiod, the
        least common multiple of the periods) after the run is ready, so that
        guests whose work is periodic on a known clock wake on R2's grid.
    """
    if variant not in VARIANTS:
        raise LinuxParameterError("variant", variant, f"one of {', '.join(VARIANTS)}")
    if not 0 < seconds <= 3600:
        raise LinuxParameterError("seconds", seconds, "a duration in (0, 3600] seconds")
    missing = requirements.problems()
    if missing:
        raise LinuxError("machine", missing[0], "a machine akita linux can run on")
    phases = resolve_phases(host, seed)
    first_fit_ok = first_fit(host)
    if not first_fit_ok.admitted:
        _vcpu_states(host, phases, {})  # raises, naming the VM
    if cpus is not None and (len(cpus) != host.pcpus or len(set(cpus)) != len(cpus)):
        raise LinuxParameterError("cpus", ",".join(map(str, cpus)),
                                  f"{host.pcpus} distinct Linux CPUs, one per pCPU")
    out_dir.mkdir(parents=True, exist_ok=True)
    cpuset.remove_stale()
    tracefs.remove_stale()
    chosen = list(cpus) if cpus is not None else _choose(host.pcpus)
    ledger = Ledger(out_dir / ".akita-linux-ledger.json")
    ledger.save()
    watchdog = _start_watchdog(ledger)
    previous = signal.signal(signal.SIGTERM, _terminate)
    workloads = None
    instance: tracefs.Instance | None = None
    own = _own_scheduling()
    text: str | None = None
    controller_kernel: LinuxKernel | None = None
    try:
        sets = cpuset.Cpusets([chosen[i] for i in range(host.pcpus)], wait=wait)
        ledger.cpusets = [str(sets.path(i)) for i in range(host.pcpus)] + [
            str(sets.root / f"{cpuset.PREFIX}{sets.owner}-rest")]
        ledger.save()
        sets.create()
        ledger.balance_was = sets.balance_was
        ledger.save()
        instance = tracefs.Instance(buffer_kb=tracefs.buffer_kb_for(seconds + LEAD_S))
        ledger.instance = str(instance.path)
        ledger.save()
        instance.create()
        tids = dict(attach)
        if not tids:
            workloads = _workloads(host, chosen, seed, seconds, out_dir)
            tasks = workloads.__enter__().start()
            tids = {f"{t.vm}/{t.vcpu}": t.tid for t in tasks}
            ledger.started = sorted({t.pid for t in tasks})
            ledger.save()
        states = _vcpu_states(host, phases, tids)
        _take(ledger, sets, states, attached=bool(attach))
        _controller_to_spare(chosen)
        controller_kernel = LinuxKernel(instance)
        controller_kernel.open(states)
        instance.start()
        time.sleep(0.05)
        _until_guests_work(workloads)
        origin = _origin(host, align)
        instance.mark("akita: origin")
        controller = Controller(states, controller_kernel, origin=origin,
                                initial_temperature=host.options.initial_temperature,
                                variant=variant)
        controller.run(max(origin + int(seconds * 1e9), _end_of(workloads)))
        instance.stop()
        losses = {**instance.losses(), "buffer_kb": instance.buffer_kb}
        text = instance.read()
    finally:
        _restore_scheduling(own)
        signal.signal(signal.SIGTERM, previous)
        if controller_kernel is not None:
            controller_kernel.close()
        if instance is not None:
            instance.close()
        results = None
        if workloads is not None:
            workloads.__exit__(None, None, None)
            if text is not None:  # the run ended: the guests' records are there to read
                results = workloads.results()
        problems = undo(ledger)
        ledger.path.unlink(missing_ok=True)
        watchdog.wait(timeout=5)
        for problem in problems:
            print(f"akita linux: {problem}", file=sys.stderr)
    tick = requirements.tick_ns()
    if text is None:  # not reached: every path that leaves text unread has raised
        raise LinuxError("tracefs", "trace", "the instance's buffer read after the run")
    idle = idle_exits.count(text, chosen)
    idle_exits.remember(idle)
    host_file, trace_file = capture.write(out_dir, host, phases, text, chosen, tids,
                                          tick_ns=tick, variant=variant)
    return RunResult(out_dir, host_file, trace_file, tuple(chosen), tids, origin, seconds,
                     variant, len(controller.switches), controller.returns, tick,
                     tuple(controller.join_lateness), controller_kernel.retries,
                     controller_kernel.retry_ns, results, losses,
                     tuple(idle[cpu] for cpu in chosen))


def _until_guests_work(workloads: Any) -> None:
    """Wait for the stand-in guests' ``t0`` (decision 223): a deadline task that wakes after a
    whole period asleep gets a new CBS period from its wake-up (kernel/sched/deadline.c,
    ``update_dl_entity``), off R2's grid, so every vCPU must be at work before it joins the
    deadline class at its first period start."""
    t0 = int(getattr(workloads, "t0_ns", 0) or 0) if workloads is not None else 0
    while _mono() < t0:
        time.sleep(min(0.01, (t0 - _mono()) / 1e9 + 1e-6))


def _end_of(workloads: Any) -> int:
    """When the stand-in guests' run ends (``0`` if attached): the controller runs until then,
    so that the client's last requests are served under it and its record is written."""
    return int(getattr(workloads, "end_ns", 0) or 0) if workloads is not None else 0


def _origin(host: Host, align: int | None) -> int:
    """Now, or the first instant ``align + k H`` from now on, waited for (see :func:`run_host`)."""
    now = _mono()
    if align is None:
        return now
    hyper = math.lcm(*(vm.period for vm in host.vms))
    origin = align + max(0, -((align - now) // hyper)) * hyper
    while origin - _mono() > 1_000_000:
        time.sleep((origin - _mono() - 1_000_000) / 1e9)
    while _mono() < origin:  # the last millisecond spun: the origin mark lands on it
        pass
    return origin


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _workloads_class() -> Any:
    """:class:`akita.linux.workloads.Workloads` (imported when first needed: it compiles)."""
    from akita.linux.workloads import Workloads
    return Workloads


def _workloads(host: Host, cpus: Sequence[int], seed: int, seconds: float, out_dir: Path) -> Any:
    """The stand-in guests of :mod:`akita.linux.workloads` (imported only when needed)."""
    Workloads = _workloads_class()
    placement = first_fit(host)
    where = {(a.vm.name, i): cpus[c] for a in placement.vms for i, c in enumerate(a.pcpus)}
    spare = sorted(cpuset._online() - set(cpus))
    return Workloads(host, placement=where, client_cpu=spare[0], seed=seed, seconds=seconds,
                     out_dir=out_dir)
