"""A disk as a scheduled resource: the drive, virtual disks, workloads, schedulers.

The hypervisor's disk scheduling of Pregather (Ling et al.): VMs whose
images share one SATA disk, guest processes that issue synchronous
requests, and the schedulers that order them -- Linux's noop, deadline,
CFQ and anticipatory, and Pregather.  :func:`simulate` runs VMs under one
of them and returns what :class:`DiskMetrics` counts.
"""

from .drive import WD_CAVIAR_BLACK_1TB, Drive
from .metrics import DiskMetrics
from .schedulers import SCHEDULERS
from .simulation import simulate
from .workload import PATTERNS, ProcessSpec, VMSpec

__all__ = ["Drive", "WD_CAVIAR_BLACK_1TB", "DiskMetrics", "SCHEDULERS", "simulate", "PATTERNS",
           "ProcessSpec", "VMSpec"]
