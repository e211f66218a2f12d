"""How late a real implementation may be: the oracle's default tolerance, by trace source.

The rules are instantaneous: when a vCPU with an earlier deadline wakes, the
rules run it *now*.  A discrete-event implementation (the reference, or any
simulator writing JSON Lines) can do exactly that, so its traces are judged
with no tolerance.  A real kernel cannot: between a wakeup and the context
switch that answers it lie the interrupt, the wakeup path, the IPI to the
target CPU and the switch itself -- the *scheduling latency* that
``cyclictest`` (rt-tests) measures.  Judged at 0 ns, every real wake-to-run
latency is an R7 or R4 violation (a 6 us kernel latency reported as the
rules being broken), and the verdict says nothing about the policy.

The default for kernel and hypervisor traces is therefore a measured
scheduling latency, :data:`KERNEL_TOLERANCE_NS` = 500 us:

* On this project's machine (a 2-vCPU Firecracker (KVM) guest, Linux 6.18, loaded),
  ``cyclictest -m -q -D 20 -i 1000 -t 2 -p 80 -h 5000`` (SCHED_FIFO,
  priority 80) measured wake-up latencies of p50 45-49 us, p99 90-93 us and
  p99.9 204-581 us per thread, with a maximum of 3.5-9.0 ms (steal time of
  the host); as SCHED_OTHER threads (no ``-p``), p99 303-318 us and p99.9
  3.9-4.0 ms (docs/conform.rst, "Tolerance").
* OSADL's long-term measurements of PREEMPT_RT systems put worst cases in
  the tens of microseconds on bare metal, and stock kernels' in the
  milliseconds (LWN, "Preemption latency of real-time Linux systems",
  https://lwn.net/Articles/704870/).

500 us covers the p99.9 of a real-time-priority thread on a loaded virtual
machine, so a trace of a correct implementation on a stock kernel is not
buried under latency findings; a deviation that lasts longer is reported.
Every deviation the tolerance accepts is still counted, by rule, with the
largest (:attr:`akita.oracle.report.ConformanceReport.tolerated`), and the
verdict states the tolerance and where it came from.  ``--tolerance`` sets
another.

A capture of Akita on Linux (the ``akita-linux`` rule set, :mod:`akita.linux`)
is judged against :data:`AKITA_LINUX_TOLERANCE_NS` = 1 ms instead: its
deviations are the kernel's scheduling latency *plus* the controller's
reaction, which a scheduler inside the kernel would not have.  The
controller is a user-space process on another CPU: it sees ``C_opt`` reached
by reading the kernel's account (a timer, then ``/proc/<tid>/schedstat``),
and carries out a mode switch by one ``sched_setattr`` per vCPU of the pCPU,
25-130 us each on this machine (nested virtualisation: each may cost an IPI
to the pCPU); a HI vCPU runs in HI mode only after every LO vCPU has left
the deadline class.  Measured on this machine (docs/linux.rst, "Tolerance";
decision 349), the smallest tolerance of the ladder 500, 600, 700, 800 us, 1 ms
at which each of 20 correct captures was conformant was 500 us for 11 of them,
600 us for 4, 700 us for 2 and 800 us for 3, and of 20 more 38 of the 40 were
conformant at 1 ms (bench/README.md).  Every wrong controller is still named
at 1 ms, by violations that last tens of milliseconds.
"""

from __future__ import annotations

__all__ = ["KERNEL_TOLERANCE_NS", "EXACT_TOLERANCE_NS", "AKITA_LINUX_TOLERANCE_NS",
           "default_tolerance"]

#: The default for kernel and hypervisor traces (ftrace, trace-cmd, systrace, xentrace).
KERNEL_TOLERANCE_NS = 500_000
#: The default for JSON Lines traces (discrete-event implementations): exact.
EXACT_TOLERANCE_NS = 0
#: The default for the ``akita-linux`` rule set: the kernel's latency plus the controller's.
AKITA_LINUX_TOLERANCE_NS = 1_000_000


def default_tolerance(kernel: bool, policy: str = "akita") -> tuple[int, str]:
    """The default tolerance (ns) for a kernel trace or a JSON Lines one judged by the rule
    set *policy*, and its source."""
    if kernel and policy == "akita-linux":
        return AKITA_LINUX_TOLERANCE_NS, ("default for akita-linux: measured scheduling "
                                          "latency plus the controller's reaction")
    if kernel:
        return KERNEL_TOLERANCE_NS, "default for kernel traces: measured scheduling latency"
    return EXACT_TOLERANCE_NS, "default for JSON Lines: exact"
