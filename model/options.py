"""Scheduler options: the choices the paper leaves open, per host.

Each option is a decision where the Akita paper is silent or contested
(``docs/decisions.rst`` gives the reasons); the defaults are the decisions
we take, and a host file may choose otherwise under ``[host]``.  The
host file's keys are the fields of :class:`SchedulerOptions`, in their
order; a field marked :data:`DURATION` is written with a unit there
(:mod:`akita.model.host_file`).  The options that are words (``phases``,
``queue_order``, ``hi_mode_deadline``, ``hi_mode_order``) are read by the
rules as yes-or-no questions, each decoded once here (``synchronous``,
``fifo``, ``virtual_in_hi``, ``capped``, ``hi_first``, ``budget_first``).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import attrs

from .errors import ModelError

__all__ = ["SchedulerOptions", "HI_MODE_DEADLINES", "PHASES", "QUEUE_ORDERS", "HI_MODE_ORDERS",
           "X_RULES", "TUNABLE_SCALINGS", "CFS_GROUPS", "DURATION", "is_duration", "fixed_x", "x_rule_of"]

HI_MODE_DEADLINES = ("actual", "virtual")
#: Where a VM's first period starts when it declares no ``phase`` (R2).
PHASES = ("synchronous", "seeded")
#: How equal keys are ordered in a run queue (R4, R6, R7).
QUEUE_ORDERS = ("fifo", "host")
#: What HI mode runs after the HI vCPUs with budget (R3, R7): ``"capped"`` (the
#: default, budgets enforced), ``"hi-first"`` (a HI vCPU past its budget before LO
#: vCPUs with budget) and ``"budget-first"`` (every vCPU past its budget by deadline).
HI_MODE_ORDERS = ("hi-first", "budget-first", "capped")
#: How ``x`` of a pCPU's virtual deadlines is computed (R2); besides these named
#: rules, ``x_rule`` may fix ``x`` as a fraction ``"p/q"`` (:func:`fixed_x`).
X_RULES = ("eq4", "baruah")
#: How Linux scales CFS's latency and granularities by the CPUs online
#: (``sysctl_sched_tunable_scaling``: SCHED_TUNABLESCALING_NONE, _LOG, _LINEAR).
TUNABLE_SCALINGS = ("none", "log", "linear")
#: How ``cfs`` groups its tasks: ``"none"`` (flat, one task per vCPU) or ``"vm"`` (a
#: cgroup per VM, as libvirt gives each KVM guest; decision 290).
CFS_GROUPS = ("none", "vm")
_FIXED_X = re.compile(r"[1-9][0-9]{0,8}/[1-9][0-9]{0,8}")


def fixed_x(rule: str) -> Fraction | None:
    """The ``x`` that the rule *rule* fixes (``"2/5"``), or ``None`` for a named rule."""
    if rule in X_RULES or not _FIXED_X.fullmatch(rule):
        return None
    p, q = rule.split("/")
    return Fraction(int(p), int(q))


def x_rule_of(x: Fraction) -> str:
    """The ``x_rule`` that fixes *x* (``0 < x <= 1``), written ``"p/q"`` in lowest terms."""
    return f"{x.numerator}/{x.denominator}"

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
    :param phases: where the first period of a VM that declares no
        ``phase`` starts (R2): ``"synchronous"``, at 0 for every vCPU (the
        default: EDF's critical instant, and a host file means what it
        meant before phases existed); or ``"seeded"``, drawn from the run's
        seed (:mod:`akita.model.phases`), as the timers of vCPUs created at unrelated
        instants are.
    :param queue_order: how equal keys are ordered: ``"fifo"``, in the
        order the vCPUs were inserted in the run queue, a descheduled
        runnable vCPU re-inserted behind its equals (the paper's scheduling
        function); or ``"host"``, HI before LO, then host order, a
        preempted vCPU keeping its place.
    :param hi_mode_order: what HI mode runs when no HI vCPU with budget is
        runnable (R3, R7): ``"capped"`` (the default), the LO vCPUs with
        budget in queue order, then the LO vCPUs without budget, and a HI
        vCPU past its budget only when no LO vCPU is runnable -- budgets are
        enforced, so a HI VM's share is at most ``C_pes / T`` while a LO VM
        wants the pCPU ("enforces fairness by allocating VMs CPU shares
        corresponding to VMs' budgets", Section 2.2); ``"hi-first"``, the HI
        vCPUs without budget before any LO vCPU ("in the high critical mode,
        Akita ignores low-criticality vCPUs"); or ``"budget-first"``, the LO
        vCPUs with budget by deadline, then every vCPU without budget by
        deadline.
    :param x_rule: ``x`` of the virtual deadlines (R2): ``"eq4"``, the
        paper's Eq. (4) ``x = U2 / (1 - U1)`` always; or ``"baruah"``,
        ``x = 1`` when ``U1 + U3 <= 1`` (Baruah et al., ECRTS 2012); or a
        fixed fraction ``"p/q"`` in lowest terms with ``0 < p/q <= 1``, the
        same ``x`` on every pCPU whatever its verdict (the replay of an exact
        counterexample uses it, :mod:`akita.proofs.replay`; the admission
        test's guarantee is then the exact test's for that ``x``, not EDF-VD's).
    :param cfs_tunable_scaling: how the ``cfs`` baseline scales its latency
        (6 ms), minimum granularity (0.75 ms) and wakeup granularity (1 ms)
        by the CPUs online, as Linux does at boot (``kernel/sched/fair.c``,
        ``get_update_sysctl_factor``): ``"log"``, Linux's default, by
        ``1 + ilog2(min(cpus, 8))``; ``"linear"``, by ``min(cpus, 8)``;
        ``"none"``, not at all.
    :param online_cpus: the CPUs the host kernel has online, which that
        scaling counts; ``0`` (the default): the host's ``pcpus``.  A host
        that models a few pCPUs of a larger machine gives the machine's.
    :param cfs_groups: ``"none"`` (the default): ``cfs`` shares the host per
        vCPU; ``"vm"``: each VM is a cgroup of ``cpu.shares`` 1024 whose
        vCPUs share its weight (``calc_group_shares``; decision 290).
    :param wake_cost: ns a pCPU spends, doing no vCPU's work, when it
        dispatches a vCPU that blocked (halted) since it last ran: the HLT
        exit and the wake-up IPI's round trip through the host (decision 291).
    :param migration_cost: ns a pCPU spends, doing no vCPU's work, when it
        dispatches a vCPU that last ran on another pCPU: refilling the
        private caches the vCPU left behind (decision 292).
    :param ple_window: pause-loop exiting: ns a guest vCPU may spin in a
        PAUSE loop before it exits to the host, which yields its pCPU to a
        preempted sibling vCPU (``kvm_vcpu_on_spin``); the window doubles at
        each exit of one spin (``ple_window_grow``).  ``0`` (the default):
        no pause-loop exiting (decision 294).
    """

    initial_temperature: int = 2
    hi_mode_deadline: str = "actual"
    wake_preempts: bool = True
    lo_in_hi_mode: bool = True
    context_switch_cost: int = attrs.field(default=0, metadata={DURATION: True})
    phases: str = "synchronous"
    queue_order: str = "fifo"
    hi_mode_order: str = "capped"
    x_rule: str = "eq4"
    cfs_tunable_scaling: str = "log"
    online_cpus: int = 0
    cfs_groups: str = "none"
    wake_cost: int = attrs.field(default=0, metadata={DURATION: True})
    migration_cost: int = attrs.field(default=0, metadata={DURATION: True})
    ple_window: int = attrs.field(default=0, metadata={DURATION: True})

    def __attrs_post_init__(self) -> None:
        t = self.initial_temperature
        if not isinstance(t, int) or isinstance(t, bool) or t < 1:
            raise ModelError("host.initial_temperature", t, "an integer >= 1")
        if self.hi_mode_deadline not in HI_MODE_DEADLINES:
            raise ModelError("host.hi_mode_deadline", self.hi_mode_deadline, "'actual' or 'virtual'")
        for name in ("wake_preempts", "lo_in_hi_mode"):
            if not isinstance(getattr(self, name), bool):
                raise ModelError(f"host.{name}", getattr(self, name), "true or false")
        for name, allowed in (("phases", PHASES), ("queue_order", QUEUE_ORDERS),
                              ("hi_mode_order", HI_MODE_ORDERS),
                              ("cfs_tunable_scaling", TUNABLE_SCALINGS),
                              ("cfs_groups", CFS_GROUPS)):
            value = getattr(self, name)
            if not isinstance(value, str) or value not in allowed:
                raise ModelError(f"host.{name}", value, " or ".join(map(repr, allowed)))
        rule = self.x_rule
        if not isinstance(rule, str) or rule not in X_RULES and not _fixed_ok(rule):
            raise ModelError("host.x_rule", rule, "'eq4' or 'baruah' or a fraction 'p/q' in "
                                                  "lowest terms with 0 < p/q <= 1")
        for name in ("context_switch_cost", "wake_cost", "migration_cost", "ple_window"):
            cost = getattr(self, name)
            if not isinstance(cost, int) or isinstance(cost, bool) or cost < 0:
                raise ModelError(f"host.{name}", cost, "a duration >= 0")
        cpus = self.online_cpus
        if not isinstance(cpus, int) or isinstance(cpus, bool) or not 0 <= cpus <= 4096:
            raise ModelError("host.online_cpus", cpus, "an integer from 0 (the host's pcpus) "
                                                       "to 4096")

    # -- the options as the rules read them: each string decoded here, once ----------------

    @property
    def synchronous(self) -> bool:
        """Whether an undeclared phase is 0 (``phases = "synchronous"``, R2)."""
        return self.phases == "synchronous"

    @property
    def fifo(self) -> bool:
        """Whether equal keys go in run-queue insertion order (``queue_order = "fifo"``, R4)."""
        return self.queue_order == "fifo"

    @property
    def virtual_in_hi(self) -> bool:
        """Whether HI mode orders HI vCPUs by virtual deadline (``hi_mode_deadline =
        "virtual"``, R6)."""
        return self.hi_mode_deadline == "virtual"

    @property
    def capped(self) -> bool:
        """Whether budgets are enforced in HI mode (``hi_mode_order = "capped"``, R3, R7)."""
        return self.hi_mode_order == "capped"

    @property
    def hi_first(self) -> bool:
        """Whether HI mode runs a HI vCPU past its budget before any LO vCPU
        (``hi_mode_order = "hi-first"``, R7)."""
        return self.hi_mode_order == "hi-first"

    @property
    def budget_first(self) -> bool:
        """Whether HI mode runs the LO vCPUs with budget by deadline, then every vCPU past
        its budget by deadline (``hi_mode_order = "budget-first"``, R7)."""
        return self.hi_mode_order == "budget-first"


def _fixed_ok(rule: str) -> bool:
    """Whether *rule* fixes an ``x`` in ``(0, 1]``, written in lowest terms."""
    x = fixed_x(rule)
    return x is not None and x <= 1 and x_rule_of(x) == rule


def is_duration(option: attrs.Attribute[Any]) -> bool:
    """Whether *option*, a field of :class:`SchedulerOptions`, is a duration (:data:`DURATION`)."""
    return bool(option.metadata.get(DURATION, False))
