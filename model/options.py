"""Scheduler options: the choices the paper leaves open, per host.

Each option is a decision where the Akita paper is silent or contested
(``docs/decisions.rst`` gives the reasons); the defaults are the decisions
we take, and a host file may choose otherwise under ``[host]``.  The
host file's keys are the fields of :class:`SchedulerOptions`, in their
order; a field marked :data:`DURATION` is written with a unit there
(:mod:`akita.model.host_file`).
"""

from __future__ import annotations

from typing import Any

import attrs

from .errors import ModelError

__all__ = ["SchedulerOptions", "HI_MODE_DEADLINES", "DURATION", "is_duration"]

HI_MODE_DEADLINES = ("actual", "virtual")

#: The field metadata key that marks an option as a duration: integer ns in
#: the model and in JSON, a duration with a unit (``"5us"``) in a host file.
DURATION = "duration"


@attrs.frozen
class SchedulerOptions:
    """How the reference scheduler resolves the paper's open points.

    :param initial_temperature: the temperature a HI vCPU gets when it asks
        for its pessimistic budget (R5); ``>= 1``.  Default 2: a pCPU returns
        to LO mode after the hot vCPUs have each gone two whole periods
        without asking for more than ``C_opt``.
    :param hi_mode_deadline: the key of HI vCPUs in HI mode (R6):
        ``"actual"`` deadlines (EDF-VD's proof) or the LO-mode ``"virtual"``
        ones.
    :param wake_preempts: whether a vCPU that wakes (I/O) preempts the
        running one when it now comes first (R10).
    :param lo_in_hi_mode: whether LO vCPUs may run in HI mode when no HI
        vCPU is runnable (R7, work conservation).
    :param context_switch_cost: ns the pCPU spends, doing no vCPU's work,
        each time it switches to a different vCPU; charged to the incoming
        vCPU's budget.
    """

    initial_temperature: int = 2
    hi_mode_deadline: str = "actual"
    wake_preempts: bool = True
    lo_in_hi_mode: bool = True
    context_switch_cost: int = attrs.field(default=0, metadata={DURATION: True})

    def __attrs_post_init__(self) -> None:
        t = self.initial_temperature
        if not isinstance(t, int) or isinstance(t, bool) or t < 1:
            raise ModelError("host.initial_temperature", t, "an integer >= 1")
        if self.hi_mode_deadline not in HI_MODE_DEADLINES:
            raise ModelError("host.hi_mode_deadline", self.hi_mode_deadline, "'actual' or 'virtual'")
        for name in ("wake_preempts", "lo_in_hi_mode"):
            if not isinstance(getattr(self, name), bool):
                raise ModelError(f"host.{name}", getattr(self, name), "true or false")
        cost = self.context_switch_cost
        if not isinstance(cost, int) or isinstance(cost, bool) or cost < 0:
            raise ModelError("host.context_switch_cost", cost, "a duration >= 0")


def is_duration(option: attrs.Attribute[Any]) -> bool:
    """Whether *option*, a field of :class:`SchedulerOptions`, is a duration (:data:`DURATION`)."""
    return bool(option.metadata.get(DURATION, False))
