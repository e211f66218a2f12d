"""Akita on Linux: real tasks for a host's vCPUs, and a controller that runs them over ``SCHED_DEADLINE``.

In KVM a vCPU *is* a host thread, so an Akita for KVM hosts is a controller
that gives each vCPU thread the periodic-server parameters of the rules
(:doc:`/rules`, R2) and switches the modes (R5, R8, R9) itself.  This package
is that controller (:mod:`.controller`), the kernel interfaces it uses
(:mod:`.sched`: ``sched_setattr``; :mod:`.cpuset`: cgroup-v1 exclusive cpusets;
:mod:`.tracefs`: a tracing instance of its own), the run that ties them
together and cleans up on every exit path (:mod:`.run`), and the capture it
leaves for ``akita conform`` (:mod:`.capture`).  :doc:`/linux` states what
it guarantees and what the kernel does differently.  The host file's
workloads become real programs (:mod:`.workloads`), which also run under the
kernel's own default scheduler beside the simulator's prediction
(:mod:`.predictions`, :doc:`/kernel`).
"""

from __future__ import annotations

__all__: list[str] = []
