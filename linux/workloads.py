"""A host file's workloads as real programs on this machine's Linux.

Each vCPU of each VM becomes one real task, pinned to the Linux CPU the
placement gives it, in the kernel's default class (``SCHED_OTHER``, EEVDF on
Linux 6.6 and later), with the same demand the simulator gives it
(:func:`akita.reference.workloads.arrivals`, same seed, same phases):

* every job-producing kind (``periodic``, ``sporadic``, ``duty`` -- lookbusy --,
  ``trace``, ``idle``) runs ``akita_vcpu`` (:mod:`akita.linux.programs`), which replays the
  vCPU's jobs, each burning its demand in the task's own CPU time from its
  arrival on, and writes each job's response time;
* ``cpu-bound`` runs ``akita_vcpu`` spinning from its phase to the end;
* ``poisson`` (a request-serving VM) runs a real ``memcached`` with one worker
  thread a vCPU (``-t vcpus``); the worker threads are the vCPU tasks.  Its
  other threads (the listener, which only accepts connections, and the logger
  and maintenance threads, mostly asleep) are pinned to the first vCPU's CPU:
  they are the guest's own housekeeping, which in a VM would run on its vCPUs
  too (decision 181).  ``akita_client`` on ``client_cpu`` sends the VM's request
  process -- the merged arrivals of its vCPUs, the simulator's own Poisson
  streams -- over loopback, open loop, and records each round trip in ns.

Each program is started in a session of its own (``setsid``).  By default all
of them are put in one cpu cgroup of their own (:class:`Group`), as a KVM host
puts its VMs in ``machine.slice``: inside it the host's tasks compete exactly as
tasks do, weighted by their ``nice``, and the machine's other processes, which
the host file does not describe, weigh little beside it.  With ``isolate=False``
each program is its own autogroup (``kernel.sched_autogroup_enabled``), as VMs
started one by one are, and a VM's ``nice`` is set on its task and on its
autogroup, since the kernel then weighs the group, not the task, against other
sessions (decision 184).

The programs wait for a common start ``t0`` (``CLOCK_MONOTONIC``, half a second
after :meth:`Workloads.start`) and stop at ``t0 + seconds``.  CPU time is read
from ``/proc/PID/task/TID/schedstat`` (its first field, the kernel's
``sum_exec_runtime`` in ns) at ``t0`` and at the end; the time other processes
took on the CPUs used is read from ``/proc/stat`` (ticks of ``USER_HZ``) and
reported as the machine's noise.
"""

from __future__ import annotations

import heapq
import os
import shutil
import signal
import socket
import struct
import subprocess
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import attrs

from akita.model import Host, ModelError, VM
from akita.model.phases import resolve_phases, with_phases
from akita.reference.histogram import LogHistogram
from akita.reference.metrics import summary
from akita.reference.workloads import arrivals

from .programs import Unavailable, program

__all__ = ["VcpuTask", "Workloads", "Unavailable", "require", "KEY", "VALUE_BYTES",
           "CONNECTIONS", "LEAD_NS", "CLIENT_NICE", "Group",
           "remove_stale"]

#: The one key the client asks for, and its value's size (decision 182).
KEY, VALUE_BYTES = "akita", 64
#: The client's connections: the paper's "50 concurrent connections".
CONNECTIONS = 50
#: The clients' nice (and their autogroups'): the load generator must not be what is
#: measured (decision 183); its lateness is recorded per request all the same.
CLIENT_NICE = -10
#: From the moment every program has started (and every client has connected) to t0.
LEAD_NS = 300_000_000
#: How long the vCPU programs stay after the end, so that their CPU time can be read.
LINGER_NS = 2_000_000_000
#: When the CPU times are read: this long before t0 (every program waits for t0) and
#: after the end (every program has stopped working, none has exited).
READ_MARGIN_NS = 50_000_000
#: How long the client waits for the last replies after the end.
GRACE_NS = 200_000_000
_NS = 1_000_000_000
_TICK_NS = _NS // os.sysconf("SC_CLK_TCK")
#: Kinds realised by ``akita_vcpu`` replaying the simulator's jobs.
_JOB_KINDS = ("periodic", "sporadic", "duty", "trace", "idle")


@attrs.frozen
class VcpuTask:
    """One vCPU as a Linux task: its VM, its index, its process and its thread."""

    vm: str
    vcpu: int
    pid: int
    tid: int


def require(host: Host) -> None:
    """Check that this machine can run *host*'s workloads for real.

    :raises Unavailable: not root, or ``memcached`` missing for a request-serving VM.
    :raises ModelError: a workload kind with no real program (``closed``, ``burn``).
    """
    if os.geteuid() != 0:
        raise Unavailable("root", "running workloads on the kernel needs root "
                          "(pinning, nice below 0, autogroups)")
    for vm in host.vms:
        w = vm.workload
        if w.kind == "closed" or w.burn:
            raise ModelError("workload.kind", w.kind, "a kind with a real program (closed "
                             "loops and burn need an I/O path; not realised on the kernel)",
                             vm=vm.name)
        if w.kind == "poisson" and shutil.which("memcached") is None:
            raise Unavailable("memcached", f"VM {vm.name} serves requests: memcached is not "
                              "installed")


class Workloads:
    """*host*'s workloads as real tasks; a context manager that kills what it started.

    :param host: the host file's host.
    :param placement: ``(vm name, vcpu index) -> Linux CPU`` for every vCPU.
    :param client_cpu: the CPU of the request clients.
    :param seed: the workloads' seed (as ``akita simulate --seed``).
    :param seconds: the run's length from ``t0``.
    :param out_dir: where the job files and the programs' records go.
    :param isolate: put every program in one cpu cgroup of its own (:class:`Group`), as a
        KVM host puts its VMs in ``machine.slice`` (``akita kernel-run`` does, by default);
        ``False`` (the default here): each program in its own autogroup, in the root
        group, where a controller may move its tasks to other classes (a cpu cgroup
        without real-time runtime refuses ``SCHED_FIFO``).  While isolated, the calling
        process itself is in the group and pinned to *client_cpu* from :meth:`start` to
        the end of :meth:`wait` (or the exit).

    Use: ``with Workloads(...) as load: tasks = load.start(); ...; load.wait();
    figures = load.results()``.  Without :meth:`wait`, :meth:`results` after the exit
    gives the latencies but no CPU times; an exit without an exception after the end
    waits for the clients' last replies first.  The tasks begin their work at :attr:`t0_ns`,
    :data:`LEAD_NS` after :meth:`start` returns, and end at :attr:`end_ns`.
    """

    def __init__(self, host: Host, *, placement: Mapping[tuple[str, int], int],
                 client_cpu: int, seed: int, seconds: float, out_dir: Path,
                 isolate: bool = False) -> None:
        self.host = with_phases(host, resolve_phases(host, seed))
        self.placement = dict(placement)
        self.client_cpu = client_cpu
        self.seed = seed
        self.duration_ns = int(round(seconds * _NS))
        self.out_dir = Path(out_dir)
        self.t0_ns = 0
        self.end_ns = 0
        self._procs: list[subprocess.Popen[bytes]] = []
        self._tasks: list[VcpuTask] = []
        self._vm_pids: dict[str, int] = {}
        self._clients: dict[str, subprocess.Popen[bytes]] = {}
        self._ports: dict[str, int] = {}
        self._outputs: dict[str, list[Path]] = {}
        self._cpu_start: dict[str, int] = {}
        self._cpu_end: dict[str, int] = {}
        self._window = (0, 0)
        self._stat: tuple[dict[int, int], dict[int, int]] = ({}, {})
        self._stopped = False
        self._read = (0, 0)
        self._affinity: set[int] = set()
        self._joined = False
        self._group: Group | None = Group() if isolate else None
        for vm in self.host.vms:
            for i in range(vm.vcpus):
                if (vm.name, i) not in self.placement:
                    raise ModelError("placement", f"{vm.name}/{i}", "a Linux CPU for every vCPU",
                                     vm=vm.name)

    # -- the context manager -------------------------------------------------------------

    def __enter__(self) -> Workloads:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        if kind is None and self.end_ns and time.monotonic_ns() >= self.end_ns:
            self._wait_clients()  # the run is over: let the clients write their records
        self.kill()

    def _wait_clients(self) -> None:
        for proc in self._clients.values():
            try:
                proc.wait(timeout=GRACE_NS / _NS + 5)
            except subprocess.TimeoutExpired:
                pass

    def kill(self) -> None:
        """Kill every process this object started (their own process groups only), and
        remove the group."""
        try:
            self._leave_group()
        except OSError:
            pass
        for proc in self._procs:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)  # its own session: pgid == pid
                except ProcessLookupError:
                    pass
        for proc in self._procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        if self._group is not None:
            self._group.remove()

    # -- starting ------------------------------------------------------------------------

    def start(self) -> list[VcpuTask]:
        """Start every vCPU's program, pinned, ``SCHED_OTHER``; return the vCPU tasks.

        The programs begin their work at :attr:`t0_ns` (``CLOCK_MONOTONIC``).
        """
        require(self.host)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        if self._group is not None:
            self._group.create()
        vcpu_bin = program("akita_vcpu")
        client_bin = program("akita_client") if any(
            vm.workload.kind == "poisson" for vm in self.host.vms) else None
        self._join_group()  # starting and reading are not slowed by the machine's load
        try:
            for vm in self.host.vms:
                if vm.workload.kind == "poisson":
                    assert client_bin is not None
                    self._start_server(vm, client_bin)
                else:
                    for i in range(vm.vcpus):
                        self._start_vcpu(vm, i, vcpu_bin)
            self._wait_connected()
            self.t0_ns = time.monotonic_ns() + LEAD_NS
            self.end_ns = self.t0_ns + self.duration_ns
            for proc in self._procs:
                if proc.stdin is not None:
                    proc.stdin.write(f"{self.t0_ns} {self.end_ns}\n".encode())
                    proc.stdin.close()
        except BaseException:
            self._leave_group()
            raise
        return list(self._tasks)

    def _wait_connected(self, timeout: float = 10.0) -> None:
        """Wait until each client has its connections open (memcached counts them)."""
        deadline = time.monotonic() + timeout
        for vm, port in self._ports.items():
            while _connections(port) < CONNECTIONS:
                if time.monotonic() > deadline or self._clients[vm].poll() is not None:
                    raise Unavailable("memcached", f"the client of {vm} did not connect")
                time.sleep(0.01)

    def _spawn(self, argv: list[str], cpu: int, nice: int,
               timed: bool = True) -> subprocess.Popen[bytes]:
        """*argv* in a session of its own, pinned to *cpu*, ``SCHED_OTHER`` at *nice*; a
        *timed* program reads ``T0 END`` from its stdin (:meth:`start` writes it)."""
        group = None if self._group is None else self._group.procs

        def prepare() -> None:  # runs in the child after setsid, before exec
            _die_with_parent()
            if group is not None:
                with open(group, "w") as procs:
                    procs.write(str(os.getpid()))  # this process and the threads it starts
            os.sched_setaffinity(0, {cpu})
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
            os.setpriority(os.PRIO_PROCESS, 0, nice)
            if group is not None:
                return  # outside the root group autogroups do not apply: nice weighs
            try:
                with open("/proc/self/autogroup", "w") as autogroup:
                    autogroup.write(str(nice))
            except OSError:
                pass  # no autogroups: the task's nice is its weight

        try:
            proc = subprocess.Popen(argv, start_new_session=True, preexec_fn=prepare,
                                    stdin=subprocess.PIPE if timed else subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError) as error:
            raise Unavailable(Path(argv[0]).name, f"could not start {Path(argv[0]).name} "
                              f"pinned to CPU {cpu} at nice {nice}: {error}") from None
        self._procs.append(proc)
        return proc

    def _start_vcpu(self, vm: VM, index: int, binary: Path) -> None:
        jobs = arrivals(vm, index, self.seed, self.duration_ns)
        out = self.out_dir / f"{vm.name}.{index}.resp"
        if jobs is None:  # cpu-bound: runnable from its phase on
            spec = "-"
        else:
            path = self.out_dir / f"{vm.name}.{index}.jobs"
            _write_pairs(path, jobs)
            spec = str(path)
        argv = [str(binary), spec, str(out), str(vm.phase or 0), str(LINGER_NS)]
        proc = self._spawn(argv, self.placement[(vm.name, index)], vm.share.nice)
        self._tasks.append(VcpuTask(vm.name, index, proc.pid, proc.pid))
        self._vm_pids[f"{vm.name}/{index}"] = proc.pid
        self._outputs.setdefault(vm.name, []).append(out)

    def _start_server(self, vm: VM, client: Path) -> None:
        port = _free_port()
        self._ports[vm.name] = port
        first = self.placement[(vm.name, 0)]
        argv = ["memcached", "-u", "root", "-l", "127.0.0.1", "-p", str(port), "-U", "0",
                "-t", str(vm.vcpus), "-m", "64", "-c", "4096",
                "-o", "no_lru_crawler,no_lru_maintainer"]
        proc = self._spawn(argv, first, vm.share.nice, timed=False)
        _store(port, proc)
        workers = _threads(proc.pid, "mc-worker")
        if len(workers) != vm.vcpus:
            raise Unavailable("memcached", f"memcached started {len(workers)} worker threads, "
                              f"not {vm.vcpus}")
        for i, tid in enumerate(workers):
            os.sched_setaffinity(tid, {self.placement[(vm.name, i)]})
            self._tasks.append(VcpuTask(vm.name, i, proc.pid, tid))
        self._vm_pids[vm.name] = proc.pid
        streams = [arrivals(vm, i, self.seed, self.duration_ns) for i in range(vm.vcpus)]
        path = self.out_dir / f"{vm.name}.arrivals"
        with open(path, "wb") as out:
            for arrival, _demand in heapq.merge(*(s for s in streams if s is not None)):
                out.write(struct.pack("<q", arrival))
        record = self.out_dir / f"{vm.name}.rtt"
        argv = [str(client), str(port), str(path), str(record), str(CONNECTIONS), KEY,
                str(GRACE_NS)]
        self._clients[vm.name] = self._spawn(argv, self.client_cpu, CLIENT_NICE)
        self._outputs[vm.name] = [record]

    # -- running and measuring -----------------------------------------------------------

    def wait(self) -> None:
        """Read the CPU times just before ``t0`` and just after the end, then wait for the
        clients' last replies and stop the vCPU programs.

        The controller (this process) is in the group, on the clients' CPU, from
        :meth:`start` to the end of this call, so that its two readings are not delayed by
        the machine's load (it sleeps in between)."""
        try:
            _sleep_until(self.t0_ns - READ_MARGIN_NS)
            self._cpu_start, stat0, read0 = self._cpu_times(), _cpu_busy(), time.monotonic_ns()
            _sleep_until(self.end_ns + READ_MARGIN_NS)
            self._cpu_end, stat1, read1 = self._cpu_times(), _cpu_busy(), time.monotonic_ns()
        finally:
            self._leave_group()
        self._window, self._stat = (self.t0_ns, self.end_ns), (stat0, stat1)
        self._read = (read0, read1)
        if read0 > self.t0_ns or read1 < self.end_ns:
            raise RuntimeError(f"the CPU times were read {max(0, read0 - self.t0_ns)} ns after "
                               f"t0 and {max(0, self.end_ns - read1)} ns before the end: the "
                               "run's CPU shares would be wrong")
        self._wait_clients()
        self._stopped = True

    def _join_group(self) -> None:
        """Join the group, on the clients' CPU (the measured CPUs are left alone)."""
        if self._group is None or self._joined:
            return
        self._affinity = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {self.client_cpu})
        self._group.join(os.getpid())
        self._joined = True

    def _leave_group(self) -> None:
        """Back to the root group and the affinity this process had."""
        if not self._joined:
            return
        (CPU_CGROUP / "cgroup.procs").write_text(str(os.getpid()))
        os.sched_setaffinity(0, self._affinity)
        self._joined = False

    def _cpu_times(self) -> dict[str, int]:
        """Each VM's CPU time so far (ns), the sum over its processes' threads; its time
        waiting runnable and its dispatches are kept under ``VM/wait`` and ``VM/runs``."""
        per_vm: dict[str, int] = {}
        for key, pid in self._vm_pids.items():
            vm = key.split("/")[0]
            cpu, wait, runs = _schedstat(pid)
            for name, value in ((vm, cpu), (f"{vm}/wait", wait), (f"{vm}/runs", runs)):
                per_vm[name] = per_vm.get(name, 0) + value
        return per_vm

    def results(self) -> Mapping[str, object]:
        """Per VM: CPU time and share over the run (``None`` unless :meth:`wait` ran), and
        its latencies.

        ``cpu_share`` is the VM's CPU time over the run's length; ``cpu_share_of_host``
        over the CPU time all the host's VMs got, which leaves out what other processes
        of the machine took (:meth:`noise`); ``run_delay_ns`` the time its threads waited
        runnable, ``dispatches`` how often they were given the CPU, ``mean_wait_ns`` the
        one over the other (schedstat's ``run_delay`` and ``pcount``).

        ``rtt_ns`` for a request-serving VM (round trip from the scheduled arrival),
        ``response_ns`` for a job-replaying one (completion - arrival); both summarised
        as the simulator summarises its own (:func:`akita.reference.metrics.summary`).
        """
        window = max(1, self._window[1] - self._window[0])  # 0 without wait(): no CPU times
        used = {vm.name: self._cpu_end.get(vm.name, 0) - self._cpu_start.get(vm.name, 0)
                for vm in self.host.vms}
        total = sum(used.values())
        figures: dict[str, object] = {}
        for vm in self.host.vms:
            cpu = used[vm.name]
            waited, runs = (self._cpu_end.get(f"{vm.name}/{k}", 0)
                            - self._cpu_start.get(f"{vm.name}/{k}", 0) for k in ("wait", "runs"))
            entry: dict[str, Any] = {"cpu_ns": None, "cpu_share": None,
                                     "cpu_share_of_host": None, "run_delay_ns": None,
                                     "dispatches": None, "mean_wait_ns": None}
            if self._stopped:  # the CPU times were read at t0 and at the end
                entry.update({"cpu_ns": cpu, "cpu_share": round(cpu / window, 6),
                              "cpu_share_of_host": round(cpu / total, 6) if total else None,
                              "run_delay_ns": waited, "dispatches": runs,
                              "mean_wait_ns": waited // runs if runs else None})
            if vm.workload.kind == "poisson":
                entry.update(_rtt_figures(self._outputs[vm.name][0]))
            elif vm.workload.kind in _JOB_KINDS:
                entry.update(_response_figures(self._outputs[vm.name]))
            figures[vm.name] = entry
        return figures

    def noise(self) -> Mapping[str, object]:
        """The CPUs' time taken by processes this run did not start (ns, from /proc/stat,
        in ticks of 1/USER_HZ), per CPU used, between the two readings (``window_ns``)."""
        window = self._read[1] - self._read[0]
        cpus = sorted({*self.placement.values()} | ({self.client_cpu} if self._clients else set()))
        ours = {cpu: 0 for cpu in cpus}
        for vm in self.host.vms:
            cpu = self.placement[(vm.name, 0)]
            ours[cpu] += self._cpu_end.get(vm.name, 0) - self._cpu_start.get(vm.name, 0)
        busy = {cpu: self._stat[1].get(cpu, 0) - self._stat[0].get(cpu, 0) for cpu in cpus}
        return {"window_ns": window,
                "busy_ns": {str(c): busy[c] for c in cpus},
                "foreign_ns": {str(c): max(0, busy[c] - ours[c]) for c in cpus
                               if c in self.placement.values()}}


#: The cpu controller (cgroup v1) and the weight of :class:`Group`: the most ``cpu.shares``
#: allows, against 1,024 for each of the machine's other sessions.
CPU_CGROUP = Path("/sys/fs/cgroup/cpu")
GROUP_SHARES = 262144
_PREFIX = "akita-kernel-"


class Group:
    """A cpu cgroup of this process's own (``akita-kernel-PID-N``) at :data:`GROUP_SHARES`.

    Inside it the host's tasks compete with each other exactly as in the root group (the
    same EEVDF run queue discipline, weights from their nice values); as one group they
    weigh 256 times a session of the machine's other processes, so the other processes'
    load -- which the host file does not describe -- takes little of the CPUs while the
    host's tasks are runnable (decision 184).  Removed when its tasks are gone; a group
    left behind by a controller that was killed is removed by the next one
    (:func:`remove_stale`).
    """

    _count = 0

    def __init__(self) -> None:
        Group._count += 1
        self.path = CPU_CGROUP / f"{_PREFIX}{os.getpid()}-{Group._count}"
        self.procs = str(self.path / "cgroup.procs")

    def create(self) -> None:
        if not (CPU_CGROUP / "cpu.shares").exists():
            raise Unavailable("cpu cgroup", f"no cgroup v1 cpu controller at {CPU_CGROUP} "
                              "(run with isolation off: --no-isolate)")
        remove_stale()
        self.path.mkdir()
        (self.path / "cpu.shares").write_text(str(GROUP_SHARES))

    def join(self, pid: int) -> None:
        """Move process *pid* (all its threads) into the group."""
        Path(self.procs).write_text(str(pid))

    def remove(self) -> None:
        """Remove the group; its tasks, killed and waited for, may take a moment to leave."""
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.02)


def remove_stale() -> list[str]:
    """Remove the empty groups of controllers that are no longer running; their names."""
    removed = []
    for path in CPU_CGROUP.glob(f"{_PREFIX}*"):
        pid = path.name[len(_PREFIX):].split("-")[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}") and \
                not (path / "cgroup.procs").read_text().strip():
            path.rmdir()
            removed.append(path.name)
    return removed


def _die_with_parent() -> None:
    """Ask the kernel to kill this (child) process when its parent dies (``PR_SET_PDEATHSIG``),
    so that nothing outlives a controller that is killed outright."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1


def _write_pairs(path: Path, jobs: Iterator[tuple[int, int]]) -> None:
    with open(path, "wb") as out:
        for arrival, demand in jobs:
            out.write(struct.pack("<qq", arrival, demand))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _store(port: int, proc: subprocess.Popen[bytes], timeout: float = 5.0) -> None:
    """Store the client's key in the memcached on *port*, once it accepts connections."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise Unavailable("memcached", f"memcached exited with status {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(f"set {KEY} 0 0 {VALUE_BYTES}\r\n".encode() + b"x" * VALUE_BYTES
                          + b"\r\n")
                if s.recv(64).startswith(b"STORED"):
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise Unavailable("memcached", f"memcached did not answer on port {port}")
        time.sleep(0.02)


def _connections(port: int) -> int:
    """The connections memcached on *port* has open (its ``stats``: ``curr_connections``,
    which counts this one too)."""
    with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
        s.sendall(b"stats\r\n")
        data = b""
        while not data.endswith(b"END\r\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    for line in data.decode().splitlines():
        if line.startswith("STAT curr_connections "):
            return int(line.split()[2]) - 1
    return 0


def _threads(pid: int, comm: str) -> list[int]:
    """The thread ids of *pid* named *comm*, in id order."""
    found = []
    for tid in sorted(int(t) for t in os.listdir(f"/proc/{pid}/task")):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if f.read().strip() == comm:
                    found.append(tid)
        except OSError:
            pass
    return found


def _schedstat(pid: int) -> tuple[int, int, int]:
    """Summed over the threads of *pid*, the three fields of ``schedstat``: time on the
    CPU (``sum_exec_runtime``), time runnable but waiting (``run_delay``), both in ns, and
    the number of times it was given the CPU (``pcount``)."""
    total = [0, 0, 0]
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return (0, 0, 0)
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                fields = [int(x) for x in f.read().split()[:3]]
        except (OSError, ValueError):
            continue
        for i, value in enumerate(fields):
            total[i] += value
    return (total[0], total[1], total[2])


def _cpu_busy() -> dict[int, int]:
    """Each CPU's non-idle time (ns) from /proc/stat: user, nice, system, irq, softirq, steal."""
    busy = {}
    with open("/proc/stat") as f:
        for line in f:
            name, *fields = line.split()
            if name.startswith("cpu") and name != "cpu":
                v = [int(x) for x in fields]
                busy[int(name[3:])] = (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * _TICK_NS
    return busy


def _sleep_until(t: int) -> None:
    while (left := t - time.monotonic_ns()) > 0:
        time.sleep(left / _NS)


def _histogram(values: Iterator[int]) -> LogHistogram:
    h = LogHistogram()
    for v in values:
        h.add(v)
    return h


def _rtt_figures(path: Path) -> dict[str, Any]:
    rows = list(struct.iter_unpack("<qqq", path.read_bytes())) if path.exists() else []
    answered = [r for r in rows if r[0] >= 0]
    return {"requests": len(rows), "unanswered": len(rows) - len(answered),
            "rtt_ns": summary(_histogram(r[0] for r in answered)),
            "rtt_from_send_ns": summary(_histogram(r[2] for r in answered)),
            "send_late_ns": summary(_histogram(max(0, r[1]) for r in rows))}


def _response_figures(paths: list[Path]) -> dict[str, Any]:
    values = [v for p in paths if p.exists() for (v,) in struct.iter_unpack("<q", p.read_bytes())]
    return {"jobs": len(values), "response_ns": summary(_histogram(iter(values)))}
