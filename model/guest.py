"""An SMP guest: the parallel program a VM runs on its vCPUs, and who sizes them.

A VM without a guest runs its :class:`~.workload.Workload` on each vCPU,
independently.  A VM with a guest runs threads of one parallel program,
under the guest's own scheduler (:mod:`akita.guest`); the host schedules
its vCPUs as before, so that two schedulers decide -- *double scheduling*
(FlexCore, ``../shared/seeds/002``).  Host file ``[vm.guest]``:

``program``
    one of :data:`PROGRAMS`, the PARSEC shapes of :mod:`akita.guest.parsec`.
``threads``
    worker threads, ``>= 1``; default: the VM's vCPUs.
``work``
    the CPU time the whole program needs, summed over its threads (a
    duration; default 1 s).
``control``
    who sets the number of online vCPUs: ``"none"`` (all stay online, the
    default), ``"balloon"`` (vCPU ballooning, :mod:`akita.guest.balloon`)
    or ``"relaxed-co"`` (relaxed co-scheduling, :mod:`akita.guest.costop`).
``locks``
    the kind of the program's locks (:data:`LOCK_KINDS`, :mod:`akita.guest.sync`):
    ``"spin"`` (spin until granted, the default), ``"pv"`` (the guest kernel's
    paravirtual spin lock: spin, then halt until kicked) or ``"futex"`` (a
    pthread mutex: sleep at once).
``period``, ``hysteresis``, ``estimator``
    the controller's period (default 20 ms for ballooning, 1 ms for relaxed
    co-scheduling's skew check), the number of periods in a row
    a ballooning change must be asked for before it is made (default 2),
    and how it estimates the VM's CPU: ``"steal"`` (default) or ``"ran"``.

A HI VM does not balloon: its vCPUs are the periodic servers first fit
admitted, on the pCPUs it chose (decision 91).
"""

from __future__ import annotations

import attrs

from .errors import ModelError

__all__ = ["Guest", "PROGRAMS", "CONTROLS", "ESTIMATORS", "LOCK_KINDS"]

#: The PARSEC shapes (akita.guest.parsec names the program each stands for).
PROGRAMS = ("blackscholes", "streamcluster", "fluidanimate", "dedup")
#: Who sizes the VM's online vCPUs.
CONTROLS = ("none", "balloon", "relaxed-co")
#: How the ballooning controller estimates the VM's CPU.
ESTIMATORS = ("steal", "ran")
#: The kinds of a program's locks (akita.guest.sync says what each does).
LOCK_KINDS = ("spin", "pv", "futex")

_MS = 1_000_000


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


@attrs.frozen
class Guest:
    """A VM's SMP guest (see the module docstring).

    :raises ModelError: naming the field ``guest.KEY`` that is out of range.
    """

    program: str
    threads: int | None = None
    work: int = 1_000 * _MS
    control: str = "none"
    period: int | None = None
    hysteresis: int = 2
    estimator: str = "steal"
    locks: str = "spin"

    def __attrs_post_init__(self) -> None:
        if self.program not in PROGRAMS:
            raise ModelError("guest.program", self.program, f"one of {', '.join(PROGRAMS)}")
        if self.threads is not None and not _count(self.threads):
            raise ModelError("guest.threads", self.threads, "an integer >= 1")
        for name in ("work", "period"):
            value = getattr(self, name)
            if (value is not None or name == "work") and not _count(value):
                raise ModelError(f"guest.{name}", value, "a duration > 0")
        if self.control not in CONTROLS:
            raise ModelError("guest.control", self.control, f"one of {', '.join(CONTROLS)}")
        if not _count(self.hysteresis):
            raise ModelError("guest.hysteresis", self.hysteresis, "an integer >= 1 (periods)")
        if self.estimator not in ESTIMATORS:
            raise ModelError("guest.estimator", self.estimator, f"one of {', '.join(ESTIMATORS)}")
        if self.locks not in LOCK_KINDS:
            raise ModelError("guest.locks", self.locks, f"one of {', '.join(LOCK_KINDS)}")

    @property
    def control_period(self) -> int:
        """The controller's period in ns: :attr:`period`, or the control's default."""
        if self.period is not None:
            return self.period
        return _MS if self.control == "relaxed-co" else 20 * _MS

    def thread_count(self, vcpus: int) -> int:
        """The worker threads of a VM of *vcpus* vCPUs."""
        return self.threads if self.threads is not None else vcpus
