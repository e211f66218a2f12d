"""What the baseline schedulers need of a VM beyond R1: weight, cap, nice, slice, pinning.

Akita does not read these: its vCPUs are periodic servers placed by first
fit (R12).  The proportional-share baselines do (:doc:`/policies`):

* ``weight`` -- Xen credit's share, relative to the other VMs'
  (``xen/common/sched/credit.c``: ``CSCHED_DEFAULT_WEIGHT`` 256);
* ``cap`` -- Xen credit's ceiling on the whole VM, in percent of one pCPU
  (``200`` is two pCPUs' worth), 0 for none;
* ``nice`` -- CFS's niceness, -20 to 19, mapped to a load weight by the
  kernel's ``sched_prio_to_weight`` table;
* ``slice`` -- the slice a task asks of Linux EEVDF with
  ``sched_attr.sched_runtime`` (``sched_setattr``), in ns; 0 for the kernel's
  base slice.  Read by ``eevdf`` only, which clamps it to [0.1 ms, 100 ms]
  as ``__setparam_fair`` does;
* ``pin`` -- the pCPUs the VM's vCPUs may run on (hard affinity); empty for
  any.  Policies that place by first fit ignore it.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from .errors import ModelError

__all__ = ["Share", "DEFAULT_WEIGHT"]

#: Xen's default credit weight.
DEFAULT_WEIGHT = 256


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _pins(value: Iterable[int]) -> tuple[int, ...]:
    """The pCPUs of ``pin`` as a tuple (a typed converter: ``tuple`` itself types badly)."""
    return tuple(value)


@attrs.frozen
class Share:
    """A VM's parameters for the proportional-share baselines (see the module docstring)."""

    weight: int = DEFAULT_WEIGHT
    cap: int = 0
    nice: int = 0
    pin: tuple[int, ...] = attrs.field(default=(), converter=_pins)
    slice: int = 0

    def __attrs_post_init__(self) -> None:
        if not _int(self.weight) or not 1 <= self.weight <= 65535:
            raise ModelError("weight", self.weight, "an integer from 1 to 65535")
        if not _int(self.cap) or self.cap < 0:
            raise ModelError("cap", self.cap, "an integer percentage >= 0 (0: no cap)")
        if not _int(self.nice) or not -20 <= self.nice <= 19:
            raise ModelError("nice", self.nice, "an integer from -20 to 19")
        if not _int(self.slice) or self.slice < 0:
            raise ModelError("slice", self.slice, "a duration >= 0 (0: the base slice)")
        if not all(_int(c) and c >= 0 for c in self.pin) or len(set(self.pin)) != len(self.pin):
            raise ModelError("pin", list(self.pin), "a list of distinct pCPU indices >= 0")

    @property
    def is_default(self) -> bool:
        return self == Share()
