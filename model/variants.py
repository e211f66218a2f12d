"""The catalogue of wrong variants: each deliberately wrong rule once, with the rule it breaks.

A claim is shown to have teeth by a variant of the rules that is wrong in one
known way and that the check must reject.  Two implementations carry such
variants: the simulator, as *mutants* of the ``akita`` policy
(:data:`akita.reference.mutants.MUTANTS`, which the oracle must name by
their rule), and the Z3 model of one pCPU with the exact search that steps
the same model (:attr:`akita.model.smt.pcpu.TickPCPU.variant`, refuted by
the negative controls of :mod:`akita.proofs.mode_obligations`).  Each reads
its name, rule and description here and looks up only its own way of being
wrong by name, so that one wrong idea has one name and one rule on both
sides.

Where a variant lacks one of these two sides, :attr:`WrongVariant.why` says
why: the other side has its effect otherwise (an option, another admission
test), or the wrong idea lies outside the other's scope.

A third side is the controller that carries Akita out over Linux's
scheduling classes (:data:`akita.linux.controller.VARIANTS`, ``akita linux
--variant``, judged by the oracle's ``akita-linux`` rule set).  It carries a
variant only of what the controller itself decides -- R5's switch, R6's
classes in HI mode, R8's cooling, and the move past the virtual deadline
(L8 of :mod:`akita.oracle.linux_rules`); the rest is the kernel's own
scheduling, which no variant of the controller can make wrong.  Its names,
written in its captures and on its command line, are kept where they
differ (:attr:`WrongVariant.called`).  ``tests/model/test_wrong_variants.py``
checks that every entry has the sides it declares, and no other.
"""

from __future__ import annotations

import attrs

from .errors import ModelError

__all__ = ["WrongVariant", "WRONG_VARIANTS", "wrong_variant", "SIDES", "SIMULATOR", "Z3",
           "LINUX", "MODELS", "carried_by"]

#: The side of the simulator: a mutant of the ``akita`` policy (:mod:`akita.reference.mutants`).
SIMULATOR = "simulator"
#: The side of the Z3 model of one pCPU and the exact search that steps it
#: (:attr:`akita.model.smt.pcpu.TickPCPU.variant`).
Z3 = "z3"
#: The side of the Linux controller (:data:`akita.linux.controller.VARIANTS`).
LINUX = "linux"
#: Every side, in order.
SIDES = (SIMULATOR, Z3, LINUX)
#: The two sides that step Akita's rules themselves, the default of an entry.
MODELS = (SIMULATOR, Z3)


@attrs.frozen
class WrongVariant:
    """One wrong rule.

    :param name: e.g. ``"no-cooling"``, the same on every side.
    :param rule: the rule it breaks, e.g. ``"R8"``: the one the oracle must name.
    :param text: one sentence: what it does wrong.
    :param sides: the implementations that carry it (:data:`SIDES`).
    :param why: for a variant that lacks the simulator's side or Z3's, why; empty otherwise.
    :param called: ``(side, name)`` for a side that calls it otherwise (the Linux
        controller's ``no-switch`` is ``no-mode-switch``).
    """

    name: str
    rule: str
    text: str
    sides: tuple[str, ...] = MODELS
    why: str = ""
    called: tuple[tuple[str, str], ...] = ()

    def name_on(self, side: str) -> str:
        """The name *side* gives it: :attr:`name` unless :attr:`called` says otherwise."""
        return dict(self.called).get(side, self.name)


def _simulator_only(name: str, rule: str, text: str, why: str) -> WrongVariant:
    return WrongVariant(name, rule, text, (SIMULATOR,), why)


#: Every wrong variant, in the order of the simulator's mutants; the Linux side's own last.
WRONG_VARIANTS: tuple[WrongVariant, ...] = (
    _simulator_only(
        "wrong-tie-break", "R4",
        "On equal keys it runs the vCPU inserted last first (reverse queue order).",
        "in Z3 the other tie-break is the option queue_order (TickPCPU.queue_order), "
        "not a variant"),
    _simulator_only(
        "no-virtual-deadline", "R2",
        "A HI vCPU's LO-mode key is its actual deadline, not its virtual deadline s + x*T.",
        "in Z3 the admission test \"edf\" (x = 1) has its effect: virtual deadlines equal "
        "to the actual ones"),
    WrongVariant(
        "no-mode-switch", "R5",
        "A HI vCPU that consumes C_opt and is still runnable never switches the pCPU to HI.",
        (*MODELS, LINUX), called=((LINUX, "no-switch"),)),
    _simulator_only(
        "late-mode-switch", "R5",
        "The pCPU switches to HI when the HI vCPU has consumed C_opt + 1 ms, not C_opt.",
        "1 ms is not a whole number of ticks on every pCPU (a tick is the gcd of its "
        "times); R5's negative controls in Z3 are no-mode-switch and eager-mode-switch"),
    WrongVariant(
        "premature-hi-to-lo", "R9",
        "In HI mode the pCPU returns to LO at the next HI period start, whatever the "
        "temperatures."),
    WrongVariant(
        "no-cooling", "R8",
        "Temperatures are never lowered at period starts, so HI mode is never left.",
        (*MODELS, LINUX)),
    WrongVariant(
        "lo-first-in-hi-mode", "R6",
        "In HI mode the active runnable LO vCPUs run before the active runnable HI ones.",
        (*MODELS, LINUX), called=((LINUX, "lo-in-deadline"),)),
    _simulator_only(
        "budget-overrun", "R3",
        "An active vCPU runs 1 ms past its remaining budget before the pCPU decides again.",
        "1 ms is not a whole number of ticks on every pCPU; R3's negative controls in Z3 "
        "are the other hi_mode_order readings (akita.proofs.budget_isolation)"),
    _simulator_only(
        "idle-while-runnable", "R7",
        "The pCPU idles instead of running an inactive runnable vCPU.",
        "R7's negative control in Z3 is the option lo_in_hi_mode = false "
        "(akita.proofs.mode_obligations), not a variant"),
    _simulator_only(
        "no-wake-preempt", "R10",
        "A waking vCPU never makes the pCPU decide again, although wake_preempts is true.",
        "the Z3 model decides afresh at every tick (its scope is wake_preempts = true), so "
        "a wake that is not a decision point lies outside it"),
    _simulator_only(
        "last-fit", "R12",
        "Each vCPU goes to the last pCPU that passes the admission test, not the first.",
        "placement is not a pCPU's schedule: first fit's Z3 encoding "
        "(akita.model.smt.packing) has its own negative controls"),
    WrongVariant(
        "eager-mode-switch", "R5",
        "The pCPU switches to HI when a HI vCPU has consumed half of C_opt."),
    WrongVariant(
        "throttle-past-vd", "R4",
        "In LO mode a HI vCPU that has not asked by its virtual deadline stays in the "
        "deadline class, where the kernel throttles it until its next period start.",
        (LINUX,),
        "the throttle is the kernel's, of a constrained-deadline task that wakes after its "
        "deadline (L7 of akita.oracle.linux_rules); the simulator and Z3 keep R2's budget "
        "to s + T and run the vCPU first by R4"),
)


def carried_by(side: str) -> tuple[WrongVariant, ...]:
    """The wrong variants *side* carries, in the catalogue's order."""
    return tuple(variant for variant in WRONG_VARIANTS if side in variant.sides)


def wrong_variant(name: str) -> WrongVariant:
    """The wrong variant called *name*; :class:`~akita.model.ModelError` if there is none."""
    for variant in WRONG_VARIANTS:
        if variant.name == name:
            return variant
    raise ModelError("variant", name, f"one of {', '.join(v.name for v in WRONG_VARIANTS)}")
