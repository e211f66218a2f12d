"""The state machines of Akita, as transition tables.

Three machines make up the state of an Akita host, and each is written here
once, as data: a :class:`Table` of :class:`Transition` records, each naming
its source and target state, the event and guard that take it (in words)
and the rule (R1-R13) that makes it happen.  The specification draws its
state graphs from these tables at build time (``docs/_ext/state_graphs.py``),
and ``tests/reference/test_transitions.py`` replays traces of the reference ``akita``
policy against them, so that the tables, the pictures and the simulator
cannot drift apart.  A table lists the transitions a trace can show; an
event that a table does not name leaves the state as it is.

**The pCPU's mode** (:data:`PCPU_MODES`).  Every pCPU starts in LO mode
(R13).  When a runnable HI vCPU has consumed ``C_opt`` in its period, the
pCPU switches to HI mode (R5); in HI mode the same event only re-heats the
vCPU.  Right after each HI vCPU's period start, a HI-mode pCPU goes back to
LO mode if no HI vCPU on it has a positive temperature, and stays HI
otherwise (R9).

**A vCPU's state** (:data:`VCPU_STATES`) is the product of two
independent facts.  It is *blocked* (no work), *waiting* (runnable, not
running) or *running* (runnable and dispatched on its pCPU); and it is
*active* (budget > 0) or *inactive* (budget 0, until its next period start:
R3).  A period start makes it active whatever it was doing (R2); only a
running vCPU spends budget, so only ``running-active`` exhausts (R3) or
blocks with the budget it holds.  The first period of a vCPU starts at
time 0, after a vCPU that has work from the start has woken, so every vCPU
starts ``blocked-inactive``.  A waiting vCPU runs when its pCPU picks it:
by its key in LO mode (R4), as a HI vCPU in HI mode (R6), as a LO one in HI
mode or as an inactive one under work conservation (R7).  A running vCPU
that is still runnable waits again when its pCPU, deciding again (R10),
runs another vCPU or none.

**A HI vCPU's temperature** (:func:`temperature_transitions`) ranges over
``0 .. n``, with ``n`` the host's ``initial_temperature``, and starts at 0.
Asking for the pessimistic budget (R5: consuming ``C_opt`` while runnable)
sets it to ``n``.  At each period start it drops by one if the vCPU did not
ask in the period just ended (R8); otherwise -- at 0, or at ``n`` after an
ask -- it stays.  A temperature strictly between 0 and ``n`` never survives
a period start, and a second ask at ``n`` changes nothing: neither is an
edge.
"""

from __future__ import annotations

import attrs
import networkx as nx

from .options import SchedulerOptions

__all__ = ["Transition", "Table", "PCPU_MODES", "VCPU_STATES", "TEMPERATURE",
           "temperature_transitions", "to_graph"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R2": ("VCPU_STATES",),
    "R3": ("VCPU_STATES",),
    "R4": ("VCPU_STATES",),
    "R5": ("PCPU_MODES", "temperature_transitions"),
    "R6": ("VCPU_STATES",),
    "R7": ("VCPU_STATES",),
    "R8": ("temperature_transitions",),
    "R9": ("PCPU_MODES",),
    "R10": ("VCPU_STATES",),
    "R13": ("PCPU_MODES",),
}


@attrs.frozen
class Transition:
    """One edge: *event* (with its guard) takes *source* to *target* by *rule*."""

    source: str
    target: str
    event: str
    rule: str


@attrs.frozen
class Table:
    """A state machine: its states in drawing order, its initial state, its edges."""

    name: str
    title: str
    states: tuple[str, ...]
    initial: str
    transitions: tuple[Transition, ...]


def _t(source: str, target: str, event: str, rule: str) -> Transition:
    return Transition(source, target, event, rule)


PCPU_MODES = Table(
    name="pcpu-modes",
    title="The pCPU's mode",
    states=("LO", "HI"),
    initial="LO",  # R13
    transitions=(
        _t("LO", "HI", "a runnable HI vCPU has consumed C_opt", "R5"),
        _t("HI", "HI", "a runnable HI vCPU has consumed C_opt (re-heat)", "R5"),
        _t("HI", "HI", "HI period start, some HI vCPU warm", "R9"),
        _t("HI", "LO", "HI period start, all HI vCPUs at 0", "R9"),
    ),
)

_RUNS = (("blocked", "waiting", "running"), ("active", "inactive"))

VCPU_STATES = Table(
    name="vcpu-states",
    title="A vCPU's state",
    states=tuple(f"{run}-{budget}" for budget in _RUNS[1] for run in _RUNS[0]),
    initial="blocked-inactive",
    transitions=(
        *(_t(f"{run}-{budget}", f"{run}-active", "period start", "R2")
          for budget in _RUNS[1] for run in _RUNS[0]),
        _t("blocked-active", "waiting-active", "wake", "R10"),
        _t("blocked-inactive", "waiting-inactive", "wake", "R10"),
        _t("waiting-active", "running-active", "dispatch, LO mode", "R4"),
        _t("waiting-active", "running-active", "dispatch, HI mode, HI vCPU", "R6"),
        _t("waiting-active", "running-active", "dispatch, HI mode, LO vCPU", "R7"),
        _t("waiting-inactive", "running-inactive", "dispatch as background", "R7"),
        _t("running-active", "waiting-active", "another vCPU or none runs", "R10"),
        _t("running-inactive", "waiting-inactive", "another vCPU or none runs", "R10"),
        _t("running-active", "running-inactive", "exhaust", "R3"),
        _t("running-active", "blocked-active", "block", "R10"),
        _t("running-inactive", "blocked-inactive", "block", "R10"),
    ),
)


def temperature_transitions(initial: int) -> Table:
    """The temperature machine of a HI vCPU for ``initial_temperature`` = *initial* (>= 1)."""
    if not isinstance(initial, int) or isinstance(initial, bool) or initial < 1:
        raise ValueError(f"initial temperature must be an integer >= 1, not {initial!r}")
    states = tuple(str(k) for k in range(initial + 1))
    top = str(initial)
    return Table(
        name="temperature",
        title=f"A HI vCPU's temperature (initial_temperature = {initial})",
        states=states,
        initial="0",
        transitions=(
            *(_t(str(k), top, "asks for C_pes", "R5") for k in range(initial)),
            *(_t(str(k), str(k - 1), "period start, did not ask", "R8")
              for k in range(initial, 0, -1)),
            _t(top, top, "period start, asked", "R8"),
            _t("0", "0", "period start", "R8"),
        ),
    )


#: The temperature machine for the default ``initial_temperature``.
TEMPERATURE = temperature_transitions(SchedulerOptions().initial_temperature)


def to_graph(table: Table) -> nx.MultiDiGraph:
    """*table* as a :class:`networkx.MultiDiGraph`: one node per state (in table order,
    the initial one marked ``initial=True``), one keyed edge per transition with its
    ``event``, ``rule`` and ``label`` (``"event (rule)"``)."""
    graph = nx.MultiDiGraph(name=table.name, title=table.title)
    for state in table.states:
        graph.add_node(state, initial=state == table.initial)
    for transition in table.transitions:
        graph.add_edge(transition.source, transition.target, event=transition.event,
                       rule=transition.rule, label=f"{transition.event} ({transition.rule})")
    return graph
