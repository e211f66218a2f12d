"""Mutants: deliberately wrong variants of the ``akita`` policy.

A conformance oracle is only as good as the wrong schedules it rejects.  An
oracle that accepts every trace of the reference policy shows only that it
is not too strict; to show that it is strict *enough*, we give it traces of
schedulers that are wrong in one known way and ask it to name the rule
they break.  Following mutation testing, each such scheduler is a
*mutant*: the reference policy (:mod:`.policies.akita`) with one rule of
R2-R12 changed, by the smallest override that changes it, or, for the
placement rule R12, a wrong CPU picker in place of first fit.

A mutant must be *killable*: on ordinary hosts its schedule must differ
from the reference one, or no oracle could tell them apart
(``tests/reference/test_mutants.py`` checks that each trace differs).  A mutant keeps
the reference policy's name, ``akita``, in its trace header: it claims to be
Akita, and the oracle must find out otherwise from the decisions alone.

Each mutant's name, rule and description are its wrong variant's in the
one catalogue of wrong variants (:data:`akita.model.variants.WRONG_VARIANTS`),
which the Z3 model's variants read too; this module adds only the simulator's
way of being wrong, looked up by name.

Mutants are not in :data:`.policies.POLICIES`; ``akita simulate --policy``
cannot run them.  :func:`simulate_mutant` does.

The baselines ``eevdf`` and ``credit2``, which the oracle does not check,
have their wrong variants too (:data:`BASELINE_MUTANTS`), each one caught by
a test of its policy.
"""

from __future__ import annotations

from typing import Callable, TextIO

import attrs

from akita.model import Host, ParameterError, Placement, first_fit, scan_fit
from akita.model.variants import SIMULATOR, WRONG_VARIANTS

from .policies.akita import AkitaPolicy
from .policies.credit2 import Credit2Policy
from .policies.eevdf import EEVDFPolicy
from .policies.eevdf import RunQueue as EEVDFRunQueue
from .policies.modal import ModeCPU
from .policies.server import ServerState
from .policy import Policy
from .runqueue import Key, Tie
from .simulator import Result, Simulator

__all__ = ["Mutant", "MUTANTS", "mutant_named", "simulate_mutant", "last_fit",
           "BaselineMutant", "BASELINE_MUTANTS", "EEVDFWithoutEligibility",
           "EEVDFWithoutPreemptShort", "Credit2WithoutReset"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R2": ("NoVirtualDeadline",),
    "R3": ("BudgetOverrun",),
    "R4": ("WrongTieBreak",),
    "R5": ("NoModeSwitch", "LateModeSwitch", "EagerModeSwitch"),
    "R6": ("LoFirstInHiMode",),
    "R7": ("IdleWhileRunnable",),
    "R8": ("NoCooling",),
    "R9": ("PrematureHiToLo",),
    "R10": ("NoWakePreempt",),
    "R12": ("last_fit",),
}


_MS = 1_000_000


# -- R4 ------------------------------------------------------------------------------------


class WrongTieBreak(AkitaPolicy):
    """Breaks R4: equal keys go in the reverse of the queue order (last inserted first;
    with ``queue_order = "host"``, LO before HI, then in reverse host order)."""

    def tie_of(self, state: ServerState) -> Tie:
        tie = super().tie_of(state)
        assert isinstance(tie, tuple)  # the server policies' ties are pairs
        return (-tie[0], -tie[1])


# -- R2 ------------------------------------------------------------------------------------


class NoVirtualDeadline(AkitaPolicy):
    """Breaks R2: a HI vCPU's LO-mode key is its actual deadline, not ``s + x T``."""

    def key_of(self, state: ServerState, release: int) -> Key:
        return release + state.vm.period


# -- R5 ------------------------------------------------------------------------------------


class NoModeSwitch(AkitaPolicy):
    """Breaks R5: a HI vCPU that consumes ``C_opt`` is heated, but the pCPU stays in LO mode."""

    def switch(self, c: int, hi: bool, t: int, trigger: ServerState | None = None) -> None:
        pass  # LO -> HI is the only switch asked for: the pCPU is never in HI mode


class LateModeSwitch(AkitaPolicy):
    """Breaks R5: the pCPU switches to HI only at ``C_opt + 1 ms`` (at most ``C_pes``)."""

    def switch_point(self, state: ServerState) -> int:
        return min(state.vm.c_opt + _MS, state.vm.c_max)


class EagerModeSwitch(AkitaPolicy):
    """Breaks R5: the pCPU switches to HI when a HI vCPU has consumed half of ``C_opt``."""

    def switch_point(self, state: ServerState) -> int:
        return (state.vm.c_opt + 1) // 2


# -- R9, R8 --------------------------------------------------------------------------------


class PrematureHiToLo(AkitaPolicy):
    """Breaks R9: a pCPU in HI mode returns to LO at the next HI period start, warm or not."""

    def on_release(self, state: ServerState, t: int) -> None:
        super().on_release(state, t)
        if state.is_hi and self.cpus[state.cpu].hi:
            self.switch(state.cpu, False, t)


class NoCooling(AkitaPolicy):
    """Breaks R8: temperatures never drop, so (by R9) a pCPU never leaves HI mode."""

    def on_release(self, state: ServerState, t: int) -> None:
        if state.is_hi:
            state.sched.asked = False


# -- R6, R3, R7, R10 -----------------------------------------------------------------------


class LoFirstInHiMode(AkitaPolicy):
    """Breaks R6: in HI mode the active runnable LO vCPUs run before the HI ones."""

    def pick(self, c: int, t: int) -> tuple[ServerState | None, int | None]:
        cpu = self.cpus[c]
        state = cpu.lo_active.peek() if cpu.hi else None
        if state is not None:
            return state, self.slice_end(state, t)
        return super().pick(c, t)


class BudgetOverrun(AkitaPolicy):
    """Breaks R3: a slice that ends with the budget ends 1 ms later, past the budget."""

    def slice_end(self, state: ServerState, t: int) -> int:
        end = super().slice_end(state, t)
        return end + _MS if end == t + state.sched.budget else end


class IdleWhileRunnable(AkitaPolicy):
    """Breaks R7: no work conservation; the pCPU idles rather than run an inactive vCPU."""

    def background(self, cpu: ModeCPU) -> ServerState | None:
        return None


class NoWakePreempt(AkitaPolicy):
    """Breaks R10: a wake never makes the pCPU decide again (``wake_preempts`` ignored)."""

    def setup(self, sim: Simulator) -> None:
        super().setup(sim)
        self.wake_preempts = False


# -- R12 -----------------------------------------------------------------------------------


def last_fit(host: Host) -> Placement:
    """Breaks R12: each vCPU goes to the *last* pCPU that passes the test (all or none per VM)."""
    return scan_fit(host, "last")


# -- the catalogue -------------------------------------------------------------------------


@attrs.frozen
class Mutant:
    """A wrong variant of ``akita`` and the rule an oracle must report for it.

    :param name: e.g. ``"no-virtual-deadline"``.
    :param rule: the rule id the oracle must report, e.g. ``"R2"``.
    :param text: one sentence: what it does wrong.
    :param policy: the policy class it runs.
    :param place: the placement it uses (first fit unless R12 is the rule broken).
    """

    name: str
    rule: str
    text: str
    policy: type[AkitaPolicy]
    place: Callable[[Host], Placement] = first_fit


#: How the simulator is wrong in each wrong variant (:data:`akita.model.variants.WRONG_VARIANTS`):
#: the policy class and the placement, looked up by the variant's name.
_SIMULATED: dict[str, tuple[type[AkitaPolicy], Callable[[Host], Placement]]] = {
    "wrong-tie-break": (WrongTieBreak, first_fit),
    "no-virtual-deadline": (NoVirtualDeadline, first_fit),
    "no-mode-switch": (NoModeSwitch, first_fit),
    "late-mode-switch": (LateModeSwitch, first_fit),
    "premature-hi-to-lo": (PrematureHiToLo, first_fit),
    "no-cooling": (NoCooling, first_fit),
    "lo-first-in-hi-mode": (LoFirstInHiMode, first_fit),
    "budget-overrun": (BudgetOverrun, first_fit),
    "idle-while-runnable": (IdleWhileRunnable, first_fit),
    "no-wake-preempt": (NoWakePreempt, first_fit),
    "last-fit": (AkitaPolicy, last_fit),
    "eager-mode-switch": (EagerModeSwitch, first_fit),
}

#: Every mutant, one per wrong rule (three for R5: never, late, early): the wrong variants
#: of the catalogue that the simulator carries, with their names, rules and texts.
MUTANTS: tuple[Mutant, ...] = tuple(
    Mutant(variant.name, variant.rule, variant.text, *_SIMULATED[variant.name])
    for variant in WRONG_VARIANTS if SIMULATOR in variant.sides)


def mutant_named(name: str) -> Mutant:
    """The mutant called *name*; :class:`~akita.model.ParameterError` if there is none."""
    for mutant in MUTANTS:
        if mutant.name == name:
            return mutant
    raise ParameterError("name", name, f"one of {', '.join(m.name for m in MUTANTS)}")


def simulate_mutant(host: Host, mutant: Mutant, *, duration: int, seed: int = 1,
                    trace: TextIO) -> Result:
    """Run *mutant* on *host* for *duration* ns, writing its JSON Lines trace to *trace*."""
    return Simulator(host, mutant.place(host), mutant.policy(), duration=duration, seed=seed,
                     trace=trace).run()


# -- wrong variants of the baseline policies -----------------------------------------------
#
# The oracle checks Akita's rules only; the baselines are checked by their own tests
# (``tests/reference/test_eevdf.py``, ``tests/reference/test_credit2.py``), and each of
# these variants breaks one rule that a test there must catch.


class EEVDFWithoutEligibility(EEVDFPolicy):
    """EEVDF without the eligibility check: earliest virtual deadline first over every
    queued task, whatever its lag (``pick_eevdf`` with ``entity_eligible`` always true)."""

    def eligible(self, rq: EEVDFRunQueue, vruntime: int) -> bool:
        return True


class EEVDFWithoutPreemptShort(EEVDFPolicy):
    """EEVDF with ``PREEMPT_SHORT`` off: a woken task of shorter request does not override
    the running task's slice protection."""

    PREEMPT_SHORT = False


class Credit2WithoutReset(Credit2Policy):
    """credit2 that never resets credits: they sink to ``CSCHED2_CREDIT_MIN`` and stay."""

    RESETS = False


@attrs.frozen
class BaselineMutant:
    """A wrong variant of a baseline policy, and the test that must catch it.

    :param name: e.g. ``"eevdf-no-eligibility"``.
    :param policy: the ``--policy`` name of the policy it corrupts.
    :param text: one sentence: what it does wrong.
    :param cls: the wrong policy class.
    :param caught_by: the test (``file::function``) that fails on it.
    """

    name: str
    policy: str
    text: str
    cls: type[Policy]
    caught_by: str


#: The wrong variants of the baselines (not Akita's rules, so not for the oracle).
BASELINE_MUTANTS: tuple[BaselineMutant, ...] = (
    BaselineMutant("eevdf-no-eligibility", "eevdf",
                   "Picks the earliest virtual deadline among all queued tasks, eligible or not.",
                   EEVDFWithoutEligibility,
                   "tests/reference/test_eevdf.py::test_eevdf_lag_stays_within_the_request_and_a_tick"),
    BaselineMutant("eevdf-no-preempt-short", "eevdf",
                   "A woken task with a shorter request waits for the running task's protected "
                   "slice to end.", EEVDFWithoutPreemptShort,
                   "tests/reference/test_eevdf.py::test_eevdf_a_waking_short_slice_task_preempts"),
    BaselineMutant("credit2-no-reset", "credit2",
                   "Credits are never reset, so they sink to CSCHED2_CREDIT_MIN and weights stop "
                   "mattering.", Credit2WithoutReset,
                   "tests/reference/test_credit2.py::"
                   "test_credit2_weights_share_the_cpu_and_the_reset_is_what_makes_them"),
)
