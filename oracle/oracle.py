"""The streaming conformance oracle: is each decision of a trace one the rules allow?

Another implementation of Akita records what it saw and what it decided, as
events.  Its *inputs* are ``wake``, ``block`` and ``complete``: work arriving
and running out.  Its *decisions* are ``dispatch`` and ``idle`` (which vCPU a
pCPU runs), ``mode`` (R5, R9) and ``temperature`` (R5, R8); ``release`` and
``exhaust`` events, and the ``deadline`` and ``budget`` a dispatch reports,
are its bookkeeping, checked too when present.

The oracle keeps its own account of every vCPU by the rules alone
(:mod:`.shadow`), driven by the inputs and by which vCPU the implementation
ran -- each vCPU's period grid from its VM's phase (:mod:`akita.oracle.phases`), its
``x`` by the host's ``x_rule``, its place among equal keys by the host's
``queue_order`` -- and checks the decisions against it:

* at every *check point* -- an instant of the trace, or an instant where a
  rule acts although the trace says nothing (a period start, a budget
  running out, a HI vCPU reaching ``C_opt``) -- it computes what the rules
  allow each pCPU touched to run (:func:`.shadow.allowed`), which mode they
  require, and each HI vCPU's temperature;
* a pCPU whose running vCPU, mode or a reported temperature differs from
  what the rules allow opens an *obligation*.  The implementation has
  ``tolerance`` ns to put it right; an obligation still open after that is
  a :class:`~.violation.Violation`, reported once, dated from when it began.
  With ``tolerance = 0`` a wrong state that lasts any time at all is a
  violation; one that is put right at the same instant is not;
* a reported value (a dispatch's budget or deadline, a release's key, an
  exhaustion) that differs from the oracle's by more than ``tolerance`` is
  a violation at once.

Each violation carries the trace around it: the ``window`` events leading up
to and including the decision it is about (the events of its own instant,
never later ones), and the line of the last of them.  Violations are kept
and listed in the order they began -- by time, then by trace line -- so a
cause comes before its consequences, whichever was noticed first.

Lost events.  A kernel's trace may lack records (:mod:`akita.trace.kernel`, "Lost
events"): a ``lost`` event of a pCPU at ``t`` says its state from ``since``
to ``t`` is unknown.  With ``resync`` (kernel traces), violations are held
per pCPU until the pCPU's next decision confirms the oracle's account (a
switch whose ``prev`` is the task the oracle has running); a ``lost``
event instead *withholds* every held violation of its pCPU that began at
or after ``since``, drops the findings open since then, sets the pCPU
running the vCPU it names (or nothing), charges no budget for the hole,
and withholds the violations of that pCPU that begin before each of its
vCPUs' next period start (until then their budgets are unknown).
Withheld violations are counted by rule (:attr:`Oracle.withheld`), never
reported; the holes are counted with their instants (:attr:`Oracle.lost_at`).

The work is bounded by the input: the oracle steps through every period
start of every vCPU, so a trace's span may cover at most
:data:`SPAN_PERIODS` period starts, plus :data:`PERIODS_PER_EVENT` per
event read (:doc:`/trace-format`, "Ceilings"); a time beyond that is
refused before any step is taken.

All events of one instant are taken together, in the reference's order:
the running vCPUs are charged up to the instant, then the inputs are
applied, then the period starts that fall on the instant, then the
decisions; the final state of the instant is what is checked.  Memory is
bounded: per vCPU and pCPU state, one instant's events, a window of recent
events and the first ``keep`` violations.
"""

from __future__ import annotations

import heapq
from collections import Counter, deque
from fractions import Fraction
from typing import Any, Iterable, Mapping

import attrs
from akita.model import Host, Placement, first_fit
from akita.model.edf_vd import virtual_deadline_factor
from akita.model.rules import RULE_SETS
from akita.trace.jsonl import TraceError

from .linux_rules import POLICY as LINUX_POLICY
from .linux_rules import LinuxRules
from .budgets import BudgetAudit, isolation
from .findings import Finding, dispatch_finding, mode_finding, ns, temperature_finding
from .options import ConformOptions
from .phases import resolve_oracle_phases
from .shadow import Choice, ShadowCPU, ShadowVCPU, allowed, fifo_tie, host_tie
from .validation import DECISIONS, INPUTS, LOST, validate
from .violation import Violation

__all__ = ["Oracle", "DECISIONS", "INPUTS", "POLICIES", "SPAN_PERIODS",
           "PERIODS_PER_EVENT"]  # event kinds from .validation

#: The period starts (summed over the vCPUs) any trace's span may cover.
SPAN_PERIODS = 100_000
#: The period starts each event read adds to what its span may cover.
PERIODS_PER_EVENT = 1_000

#: Where the oracle checks each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R2": ("Oracle._release_due", "Oracle._decision", "Oracle._place"),
    "R3": ("Oracle._charge", "Oracle._exhausted"),
    "R4": ("Oracle._settle", "Oracle._tie_only", "Oracle._input", "Oracle._decision"),
    "R5": ("Oracle._ask", "Oracle._ask_on_pick", "Oracle._check_mode",
           "Oracle._check_temperature"),
    "R6": ("Oracle._settle",),
    "R7": ("Oracle._settle",),
    "R8": ("Oracle._check_temperature",),
    "R9": ("Oracle._release_due", "Oracle._check_mode"),
    "R10": ("Oracle._close_instant", "Oracle._settle"),
    "R11": ("Oracle._admission",),
    "R12": ("Oracle._vcpu",),
}

#: The rule sets the oracle checks: Akita's, plain EDF over the same
#: periodic servers (the ``edf`` policy: ``x = 1``, no modes, no temperatures),
#: or Akita's as ``akita linux`` carries them out on Linux (:mod:`.linux_rules`).
POLICIES = RULE_SETS
assert LINUX_POLICY in POLICIES


class Oracle:
    """Check a stream of trace events against the Akita rules on *host*.

    :param tolerance: ns an implementation may take to reach the state the
        rules require, and by which a reported value may differ.
    :param ties: ``"any"`` accepts any of several vCPUs with an equal key
        (and counts such decisions as ambiguous); ``"strict"`` requires the
        host's ``queue_order``: ``"fifo"``, the vCPU inserted first (then
        host order), or ``"host"``, HI first, then host order.
    :param reports: the decision kinds the implementation writes (a subset
        of :data:`DECISIONS`; ``dispatch`` and ``idle`` are required).  A
        mode it does not report is taken to be the mode the rules require;
        a temperature it does not report is not checked.
    :param keep: how many violations to keep (all are counted).
    :param window: how many recent events a violation carries.
    :param policy: the rules: ``"akita"`` (R2-R13), or ``"edf"`` -- the same
        periodic servers ordered by actual deadlines, with no modes and no
        temperatures, as :mod:`akita.reference.policies.edf` schedules them; or
        ``"akita-linux"``, Akita's as Linux's scheduling classes carry them out
        (:mod:`.linux_rules`).
    :param tick_ns: ``akita-linux``: the kernel's tick, how late it may enforce a budget.
    :param phases: the phases a trace claims, by VM name (its header's,
        :func:`akita.oracle.phases.trace_phases`); merged with the host's declarations
        by :func:`akita.oracle.phases.resolve_oracle_phases`, which refuses a VM whose
        phase is unknown or claimed other than declared.
    :param resync: hold each violation until its pCPU's next decision confirms it, and
        withhold those a ``lost`` event explains (kernel traces; see the module's text).
    """

    #: How many lost events are kept with their instants.
    LOST_SHOWN = 20

    def __init__(self, host: Host, options: ConformOptions | None = None, *,
                 phases: Mapping[str, int] | None = None, placement: Placement | None = None,
                 resync: bool = False, tick_ns: int | None = None, **keywords: Any) -> None:
        """Ready to check a trace of *host* under *options* (or the keywords that make them:
        ``tolerance``, ``ties``, ``reports``, ``keep``, ``window``, ``policy``;
        :class:`~.options.ConformOptions`, validated there)."""
        self.host = host
        self._settings(ConformOptions.of(options, keywords), resync)
        self._host_rules(host)
        self._shadows(host, placement, phases, tick_ns)
        self._stream_state()
        self._tallies()

    def _settings(self, options: ConformOptions, resync: bool) -> None:
        """What the check was asked: the rule set, the tolerance, the ties, what is kept."""
        self.options = options
        self.policy = options.policy or "akita"
        self.modes = self.policy != "edf"
        self.tolerance = options.tolerance or 0
        self.strict = options.ties == "strict"
        self.reports = frozenset(DECISIONS if options.reports is None else options.reports)
        self.keep = options.keep
        self.window = options.window
        self.resync = resync

    def _host_rules(self, host: Host) -> None:
        """The host's scheduler options, as the rules read them."""
        options = host.options
        self.initial_temperature = options.initial_temperature
        self.lo_in_hi_mode = options.lo_in_hi_mode
        self.virtual_in_hi = options.virtual_in_hi
        self.wake_preempts = options.wake_preempts
        queue_tie = fifo_tie if options.fifo else host_tie
        self.choice = Choice(options.lo_in_hi_mode, self.virtual_in_hi, options.hi_first,
                             queue_tie if self.strict else None, capped=options.capped)
        self.queue_tie = queue_tie

    def _shadows(self, host: Host, placement: Placement | None,
                 phases: Mapping[str, int] | None, tick_ns: int | None) -> None:
        """The shadow pCPUs and vCPUs, placed, with their first timers."""
        self.cpus = [ShadowCPU(c) for c in range(host.pcpus)]
        #: each vCPU's budget account (:mod:`akita.oracle.budgets`)
        self.budgets = BudgetAudit()
        self.vcpus: dict[str, ShadowVCPU] = {}
        self.rejected: dict[str, str] = {}
        self._timers: list[list[Any]] = [[] for _ in range(host.pcpus)]
        self.placement = first_fit(host) if placement is None else placement
        #: whose placement R12 compares with: first fit's, or the trace's own.
        self.placed_by = "first fit puts" if placement is None else "the trace first put"
        #: pCPUs of a given placement whose set the host's test rejects (R11), until reported.
        self._inadmissible = [] if placement is None else [
            load for load in placement.pcpus if load.vcpus and not load.verdict.schedulable]
        self._place(host, phases)
        self.linux = (LinuxRules(list(self.vcpus.values()), tick_ns, self.tolerance)
                      if self.policy == LINUX_POLICY else None)
        for timers in self._timers:
            heapq.heapify(timers)
        self._names = frozenset(self.vcpus) | frozenset(self.rejected)
        rate = sum((Fraction(1, v.period) for v in self.vcpus.values()), Fraction(0))
        self._rate = (rate.numerator, rate.denominator) if rate else (0, 1)

    def _stream_state(self) -> None:
        """Where the reading of the trace stands: the instant open, the events kept for
        the violations' windows, the findings open and kept."""
        self._open: list[dict[str, Finding]] = [{} for _ in self.cpus]
        #: per pCPU, the earliest instant it has something to do at, as of when it was last
        #: processed (:meth:`_next_point`); only its own events change it.
        self._next: list[int | float] = [-1] * self.host.pcpus
        self._ok = [True] * self.host.pcpus
        self._t = 0
        self._buffer: list[dict[str, Any]] = []
        #: the last events of the instants closed (their positions in the trace
        #: are consecutive, the last one :attr:`_closed_events`).
        self._recent: deque[dict[str, Any]] = deque(maxlen=self.window + 64)
        self._closed_events = 0
        #: the events of the instant being closed, once its rule points before it are done.
        self._current: list[dict[str, Any]] = []
        self._kept: list[tuple[int, int, int, int, Violation]] = []  # a max-heap by time
        self._first: dict[str, tuple[int, int, int, int, Violation]] = {}  # each rule's first
        self._found = 0
        self._safe = -1  # every time up to this one is within the span allowed so far
        self._new: list[Violation] = []
        self._misplaced: set[str] = set()
        self._closed = False
        #: per pCPU: violations held until a decision confirms them, ``(violation,
        #: position, rank)``; and the span ``[since, until)`` whose violations are withheld.
        self._held: list[list[tuple[Violation, int, int]]] = [[] for _ in self.cpus]
        self._blind: list[tuple[int, int] | None] = [None] * self.host.pcpus

    def _tallies(self) -> None:
        """What the check has counted so far."""
        #: the vCPUs the trace names.
        self.seen: set[str] = set()
        #: the time of the first event, if any.
        self.start: int | None = None
        #: how many violations of each rule were found.
        self.counts: Counter[str] = Counter()
        #: deviations put right (or off by) within the tolerance, by rule, and the largest.
        self.tolerated: Counter[str] = Counter()
        self.tolerated_max: dict[str, int] = {}
        self.events = 0
        self.decisions = 0
        self.ambiguous = 0
        self.checks = 0
        self.end = 0
        #: lost events read, the first :data:`LOST_SHOWN` of them, and the records they
        #: say the capture lost.
        self.lost = 0
        self.lost_at: list[dict[str, Any]] = []
        #: holes whose CPU's last written switch went to idle: a switch out of idle not
        #: written (some kernels write none on some CPUs: :doc:`/linux`, "Idle exits").
        self.lost_after_idle = 0
        #: violations withheld because a lost event explains them, by rule.
        self.withheld: Counter[str] = Counter()

    def _place(self, host: Host, claimed: Mapping[str, int] | None) -> None:
        """Each admitted vCPU on its pCPU (first fit's, R12, unless the placement is
        given: :mod:`akita.oracle.placement`), with its phase and ``x`` (R2).

        ``x`` is the host's ``x_rule`` applied to the pCPU's EDF-VD verdict
        (:func:`~akita.model.edf_vd.virtual_deadline_factor`), 1 under the
        ``edf`` rule set.
        """
        placement = self.placement
        admitted = frozenset(a.vm.name for a in placement.vms if a.admitted)
        #: every admitted VM's phase (ns), and where the oracle took them from.
        self.phases, self.phase_source = resolve_oracle_phases(host, claimed, needed=admitted)
        order = 0
        for answer in placement.vms:
            for index, vcpu in enumerate(answer.vm.all_vcpus()):
                if not answer.admitted:
                    self.rejected[vcpu.name] = answer.reason or "rejected"
                    continue
                c = answer.pcpus[index]
                x = (virtual_deadline_factor(placement.pcpus[c].verdict, host.options.x_rule)
                     if self.modes else Fraction(1))
                phase = self.phases[answer.vm.name]
                v = ShadowVCPU(vcpu, c, order, x, phase)
                v.watch = v.hi and self.modes
                self.vcpus[v.name] = v
                self.cpus[c].vcpus.append(v)
                self._timers[c].append((phase, order, v))
                order += 1

    # -- the stream ---------------------------------------------------------------------

    def feed(self, event: dict[str, Any]) -> list[Violation]:
        """Take one event (a dict shaped as a trace line); return the violations it revealed.

        Violations of an instant are found when the next instant begins, or
        at :meth:`close`.
        """
        if self._closed:
            raise TraceError("event", event, "no event after close()")
        validate(event, len(self.cpus), self._names)
        t: int = event["t"]
        if t != self._t or not self.events:
            if t < self._t:
                raise TraceError("t", t, f"a time >= {self._t} (events in time order)")
            if t > self._safe:
                self._within_span("t", t, self.events + 1)
            if self._buffer:
                self._close_instant()
        if self.start is None:
            self.start = t
            self._admission(event)
        self._t = t
        self._buffer.append(event)
        self.events += 1
        name = event.get("vcpu")
        if isinstance(name, str) and name in self._names:
            self.seen.add(name)
        found, self._new = self._new, []
        return found

    def close(self, end: int | None = None) -> list[Violation]:
        """End the stream at *end* ns (default: the last event) and return the last violations."""
        if not self._closed:
            if self._buffer:
                self._close_instant()
            if end is not None and end > self._t:
                self._within_span("end", end, self.events)
            self.end = max(self._t, end if end is not None else self._t)
            for cpu in self.cpus:
                self._advance(cpu, self.end)
                self._expire(cpu, self.end)
                self._confirm(cpu.index, None)
            self.budgets.close(self.cpus, self.end)
            self._closed = True
        found, self._new = self._new, []
        return found

    @property
    def first_of_each_rule(self) -> dict[str, Violation]:
        """The violation of each rule that began first (kept whatever ``keep`` is)."""
        return {rule: entry[-1] for rule, entry in self._first.items()}

    @property
    def violations(self) -> list[Violation]:
        """The first ``keep`` violations, in the order they began (time, then trace line)."""
        return [v for *_, v in sorted(self._kept, key=lambda k: (-k[0], -k[1], -k[2], -k[3]))]

    def _within_span(self, field: str, t: int, events: int) -> None:
        """Refuse a time whose span would take more steps than the input allows."""
        allowance = SPAN_PERIODS + PERIODS_PER_EVENT * events
        numerator, denominator = self._rate
        if numerator == 0:
            self._safe = t
            return
        most = allowance * denominator // numerator
        self._safe = max(self._safe, most)
        if t > most:
            raise TraceError(field, t, f"a time of at most {most} ns: a span of at most "
                             f"{SPAN_PERIODS:,} + {PERIODS_PER_EVENT:,} x {events} (events) "
                             f"period starts of the host's vCPUs")

    # -- one instant ----------------------------------------------------------------------

    def _close_instant(self) -> None:
        t, events = self._t, self._buffer
        self._buffer = []
        self._closed_events = self.events - len(events)
        self._current = []
        touched = sorted({e["cpu"] for e in events} | self._homes(events))
        nxt = self._next
        for c, point in enumerate(nxt):  # the rule points of the others, while evidence is recent
            if point < t and c not in touched:
                self._advance(self.cpus[c], t)
                nxt[c] = self._next_point(self.cpus[c])
        blocks_first = set()
        seen = set()
        for e in events:
            name = e.get("vcpu")
            if e["event"] in ("block", "wake") and name not in seen:
                seen.add(name)
                if e["event"] == "block":
                    blocks_first.add(name)
        decides = {e["cpu"] for e in events if e["event"] not in ("wake", "complete")}
        for c in touched:
            cpu = self.cpus[c]
            self._advance(cpu, t)
            running = cpu.running
            timers = self._timers[c]
            if timers and timers[0][0] == t or running is None or (
                    running.runnable and running.due() == t - cpu.synced):
                decides.add(c)
        self._current = events
        holes = {e["cpu"] for e in events if e["event"] == LOST}
        for e in events:
            if e["event"] == LOST:
                self._lost(e, t)
        for c in touched:
            cpu = self.cpus[c]
            self._charge(cpu, t, cpu.running is not None and cpu.running.name not in blocks_first)
        for e in events:  # what the charging and the inputs did
            kind = e["event"]
            if kind in INPUTS:
                self._input(e, t)
            elif kind == "exhaust":
                self._exhausted(e, t)
        for c in touched:
            self._release_due(self.cpus[c], t)
        dispatched = set()
        for e in events:
            if e["event"] in DECISIONS and e["event"] != "exhaust":
                self._decision(e, t)
                if e["event"] in ("dispatch", "idle"):
                    dispatched.add(e["cpu"])
        for c in touched:
            self._settle(self.cpus[c], t, c in dispatched, c in decides)
            nxt[c] = self._next_point(self.cpus[c])
            if c in dispatched and c not in holes:
                self._confirm(c, t)
        self._recent.extend(events)
        self._closed_events = self.events
        self._current = []

    def _homes(self, events: list[dict[str, Any]]) -> set[int]:
        """The home pCPUs of the vCPUs *events* name on another pCPU (a migration, or a
        wake or block there): checked at once, not when an event next names them (R12, R7)."""
        homes = set()
        for e in events:
            v = self.vcpus.get(e.get("vcpu", ""))
            if v is not None and v.cpu != e["cpu"]:
                homes.add(v.cpu)
        return homes

    def _lost(self, e: dict[str, Any], t: int) -> None:
        """A hole in pCPU ``e["cpu"]``'s records from ``e["since"]`` to *t*: withhold, resync."""
        c, since = e["cpu"], e["since"]
        cpu = self.cpus[c]
        self.lost += 1
        if len(self.lost_at) < self.LOST_SHOWN:
            self.lost_at.append({key: e[key] for key in ("t", "cpu", "since", "vcpu", "count",
                                                         "after", "line") if key in e})
        self.lost_after_idle += e.get("after") == "idle"
        kept = []
        for held in self._held[c]:
            if held[0].t >= since:
                self.withheld[held[0].rule] += 1
            else:
                kept.append(held)
        self._held[c] = kept
        opened = self._open[c]
        for key in [key for key, finding in opened.items() if finding.since >= since]:
            del opened[key]
        found = self.vcpus.get(e.get("vcpu", ""))
        cpu.running = found if found is not None and found.cpu == c else None
        if found is not None and found.cpu == c:
            found.runnable = True  # it ran until now; a block at this instant says otherwise
        cpu.synced = t  # no budget is charged for the hole
        cpu.ran_out = None
        until = max((v.release + v.period for v in cpu.vcpus), default=t)
        blind = self._blind[c]
        if blind is not None and since <= blind[1]:
            since, until = min(since, blind[0]), max(until, blind[1])
        self._blind[c] = (since, max(until, t))

    def _confirm(self, c: int, t: int | None) -> None:
        """pCPU *c*'s account is confirmed up to *t* (``None``: the end): report what it held."""
        held = self._held[c]
        if not held:
            return
        keep = [item for item in held if t is not None and item[0].t >= t]
        for violation, position, rank in held:
            if t is None or violation.t < t:
                self._record(violation, position, rank)
        self._held[c] = keep

    def _next_point(self, cpu: ShadowCPU) -> int | float:
        """The earliest instant *cpu* has a rule point at (-1 with an open obligation, whose
        expiry must be watched at every instant; infinity if none)."""
        if self._open[cpu.index]:
            return -1
        timers = self._timers[cpu.index]
        point: int | float = timers[0][0] if timers else float("inf")
        running = cpu.running
        if running is not None and running.runnable:
            due = running.due()
            if due is not None and cpu.synced + due < point:
                point = cpu.synced + due
        return point

    def _advance(self, cpu: ShadowCPU, t: int) -> None:
        """Apply the rule points of *cpu* strictly before *t* (no trace event there)."""
        timers = self._timers[cpu.index]
        while True:
            u = timers[0][0] if timers else None
            running = cpu.running
            if running is not None and running.runnable:
                due = running.due()
                if due is not None and (u is None or cpu.synced + due < u):
                    u = cpu.synced + due
            if u is None or u >= t:
                break
            self._expire(cpu, u)
            self._charge(cpu, u, True)
            self._release_due(cpu, u)
            self._settle(cpu, u, False, True)
        self._expire(cpu, t)

    def _charge(self, cpu: ShadowCPU, t: int, still_runnable: bool) -> None:
        running, since, ran = cpu.running, cpu.synced, t - cpu.synced
        cpu.synced = t
        cpu.ran_out = None
        if running is None or not running.runnable:
            return
        had = running.budget
        if self.linux is not None:
            self.linux.charged(running, ran, since)
        if running.run(ran, since) and still_runnable:
            self._ask(cpu, running, t)
        self.budgets.charged(cpu, running, had, ran, still_runnable)
        if had > 0 and running.budget == 0:
            cpu.ran_out = running
            if self.linux is not None:
                self.linux.ran_out(running, since + running.spent)
        if cpu.ran_out is running and "exhaust" in self.reports:
            out = since + running.spent
            self._opened(cpu.index, "exhaust " + running.name, Finding(
                out, "R3", ("exhaust",), "no exhaust",
                f"{running.name} ran out of budget at {ns(out)} but no exhaust is reported"))

    def _ask(self, cpu: ShadowCPU, v: ShadowVCPU, t: int) -> None:
        """R5: *v* consumed ``C_opt`` and is runnable: it heats, and the pCPU goes HI."""
        if not self.modes:
            return
        v.asked = True
        v.temperature = self.initial_temperature
        if not cpu.rules_hi:
            cpu.rules_hi = True
            cpu.rules_changed = t
            if self.linux is not None:
                self.linux.to_hi(cpu)

    def _release_due(self, cpu: ShadowCPU, t: int) -> None:
        """R2 and R8 for the periods starting at *t*; then R9."""
        timers = self._timers[cpu.index]
        hi_release = False
        started = []
        while timers and timers[0][0] <= t:
            s, order, v = heapq.heappop(timers)
            v.start_period(s)
            started.append(v)
            hi_release |= v.hi
            heapq.heappush(timers, (s + v.period, order, v))
        if hi_release and cpu.rules_hi and all(v.temperature == 0 for v in cpu.vcpus if v.hi):
            cpu.rules_hi = False
            cpu.rules_changed = t
        if self.linux is not None:
            for v in started:
                self.linux.period_start(v, cpu.rules_hi)

    # -- events -----------------------------------------------------------------------------

    def _vcpu(self, e: dict[str, Any], t: int) -> ShadowVCPU | None:
        """The vCPU an event names, or ``None`` (after an R12 finding) if it is not placed there."""
        name = e["vcpu"]
        v = self.vcpus.get(name)
        if v is None:
            if name not in self._misplaced:
                self._misplaced.add(name)
                self._now("R12", t, e["cpu"], ("none",), name,
                          f"{name} ran although first fit rejects its VM: {self.rejected[name]}",
                          e)
            return None
        if e["cpu"] != v.cpu:
            if name not in self._misplaced:
                self._misplaced.add(name)
                self._now("R12", t, e["cpu"], (f"pCPU {v.cpu}",), f"pCPU {e['cpu']}",
                          f"{name} is on pCPU {e['cpu']}; {self.placed_by} it on pCPU {v.cpu}",
                          e)
            return None
        return v

    def _admission(self, first: dict[str, Any]) -> None:
        """R11 on a placement the trace gave: a pCPU whose set the host's test rejects."""
        for load in self._inadmissible:
            names = ", ".join(v.name for v in load.vcpus)
            self._now("R11", first["t"], load.index, (f"a set {self.host.test} admits",),
                      names, f"the trace puts {names} on pCPU {load.index}: "
                      f"{load.verdict.reason}", first)
        self._inadmissible = []

    def _input(self, e: dict[str, Any], t: int) -> None:
        v = self.vcpus.get(e["vcpu"])
        if v is None or e["cpu"] != v.cpu:
            self._vcpu(e, t)  # an R12 finding, once per vCPU
        if v is None:
            return
        if e["event"] == "wake":
            if not v.runnable:
                v.ins = t  # inserted in the run queue (queue_order = "fifo")
                if self.linux is not None:
                    self.linux.woke(v, t, first=e.get("first") is True)
            v.runnable = True
            if not self.wake_preempts and self.cpus[v.cpu].running is not None:
                self.cpus[v.cpu].deferred.add(v)
        elif e["event"] == "block":
            v.runnable = False

    def _decision(self, e: dict[str, Any], t: int) -> None:
        kind, c = e["event"], e["cpu"]
        cpu = self.cpus[c]
        if kind == "idle":
            self._deschedule(cpu, None, t)
            cpu.running = None
            return
        if kind == "mode":
            hi = e["mode"] == "HI"
            if hi != cpu.claimed_hi:
                cpu.claimed_hi = hi
                cpu.claimed_changed = t
            return
        v = self._vcpu(e, t)
        if kind == "dispatch":
            self._deschedule(cpu, v, t)
            cpu.running = v
            if v is not None:
                self._compare(e, t, "budget", v.budget, "R3", "remaining budget")
                self._compare(e, t, "deadline", v.deadline, "R2", "deadline")
        elif v is None:
            return
        elif kind == "temperature":
            v.claimed_temperature = e["temperature"]
            if self.linux is not None and self.linux.claimed_ask(
                    v, e["temperature"], self.initial_temperature):
                self._ask(cpu, v, t)
        elif kind == "release":
            if v.release != t:
                self._now("R2", t, c, (f"next period start {ns(v.release + v.period)}",),
                          f"release at {ns(t)}",
                          f"{v.name} starts a period at {ns(t)}, off its grid of {ns(v.period)}",
                          e)
                return
            self._compare(e, t, "deadline", v.deadline, "R2", "deadline")
            self._compare(e, t, "budget", v.budget, "R2", "budget")
            self._compare(e, t, "key", v.key, "R2", "key (virtual deadline for HI)")

    @staticmethod
    def _deschedule(cpu: ShadowCPU, chosen: ShadowVCPU | None, t: int) -> None:
        """A runnable vCPU the pCPU stops running goes back into the run queue at *t*.

        The paper's scheduling function "inserts the currently running vCPU
        into the run-queue" when it picks another: *after* the pick, so the
        pick that descheduled it saw its old place.  Its insertion is
        applied when the next decision of the instant is taken, or once the
        instant's final one is judged (:meth:`_settle`).
        """
        if cpu.descheduled is not None:
            cpu.descheduled.ins = t
        previous = cpu.running
        keep = previous is not None and previous is not chosen and previous.runnable
        cpu.descheduled = previous if keep else None

    def _exhausted(self, e: dict[str, Any], t: int) -> None:
        """An ``exhaust`` event, checked before the period starts of its instant (R3)."""
        v = self._vcpu(e, t)
        if v is not None:
            self._resolve(v.cpu, "exhaust " + v.name, t)
        if v is not None and 0 < v.budget <= self.tolerance:
            self._tolerate("R3", v.budget)
        if v is not None and v.budget > self.tolerance:
            self._now("R3", t, e["cpu"], (f"budget {ns(v.budget)} left",), "exhausted",
                      f"{v.name} is reported out of budget at {ns(t)} with {ns(v.budget)} left", e)

    def _compare(self, e: dict[str, Any], t: int, field: str, expected: Any, rule: str,
                 what: str) -> None:
        if field not in e:
            return
        got = Fraction(e[field]) if field == "key" else e[field]  # checked by feed()
        off = abs(got - expected)
        if 0 < off <= self.tolerance:
            self._tolerate(rule, off)
        if off > self.tolerance:
            self._now(rule, t, e["cpu"], (ns(expected),), ns(got),
                      f"{e['vcpu']} {e['event']} at {ns(t)} reports {what} {ns(got)}; "
                      f"the rules give {ns(expected)}", e)

    # -- checks ------------------------------------------------------------------------------

    def _settle(self, cpu: ShadowCPU, t: int, dispatched: bool, decides: bool) -> None:
        """Check *cpu*'s state at check point *t*: mode, temperatures, the running vCPU.

        *decides*: whether *t* is a decision point of *cpu* (R10) -- anything
        but a wake while it runs a vCPU, when ``wake_preempts`` is false.
        """
        self.checks += 1
        if decides or self.wake_preempts:
            cpu.deferred.clear()
        if not cpu.rules_hi:
            self._ask_on_pick(cpu, t)
        if "mode" not in self.reports:
            cpu.claimed_hi = cpu.rules_hi
        self._check_mode(cpu, t)
        if "temperature" in self.reports and self.modes:
            for v in cpu.vcpus:
                if v.hi:
                    self._check_temperature(cpu, v, t)
        options, rule = self._allowed(cpu, cpu.claimed_hi, self.choice, t)
        running = cpu.running
        ok = running in options if options else running is None
        if dispatched:
            self.decisions += 1
            if ok and len(options) > 1:
                self.ambiguous += 1
        opened = self._open[cpu.index].get("dispatch")
        if ok:
            self._resolve(cpu.index, "dispatch", t)
        elif opened is None:
            self._opened(cpu.index, "dispatch", self._dispatch_finding(
                cpu, t, options, rule, dispatched))
        elif not opened.reported:  # still wrong: perhaps wrong otherwise (a new part)
            now = self._dispatch_finding(cpu, t, options, rule, dispatched)
            if opened.turn(now):
                now.evidence = self._evidence(t)
        self._ok[cpu.index] = ok
        if cpu.descheduled is not None:
            cpu.descheduled.ins = t
            cpu.descheduled = None

    def _dispatch_finding(self, cpu: ShadowCPU, t: int, options: list[ShadowVCPU | None],
                          rule: str, dispatched: bool) -> Finding:
        """The finding of a wrong dispatch at *t*: named R3 when it is an overrun under
        ``"capped"`` (:func:`.budgets.isolation`); ``None`` options (may idle) left out."""
        named = [v for v in options if v is not None]
        return isolation(dispatch_finding(cpu, t, named, rule, dispatched, self._ok[cpu.index],
                                          self._tie_only(cpu)), cpu, named, self.choice.capped)

    def _allowed(self, cpu: ShadowCPU, hi_mode: bool, choice: Choice, t: int
                 ) -> tuple[list[ShadowVCPU | None], str]:
        """What the rule set allows *cpu* to run at *t* (``None``: may idle; akita-linux)."""
        if self.linux is not None:
            return self.linux.allowed(cpu, hi_mode, choice, t)
        options, rule = allowed(cpu, hi_mode, choice)
        return list(options), rule

    def _ask_on_pick(self, cpu: ShadowCPU, t: int) -> None:
        """R5 on pick: the LO-mode head is a HI vCPU that already consumed ``C_opt``.

        (It blocked exactly there and woke.)  Under ``--ties any`` the head
        may be one of several tied vCPUs, and the implementation may pick
        another: if it runs a tied head that asks nothing, nothing is
        asked; otherwise the asking head it runs -- or the first of them in
        queue order -- asks.  Under ``--ties strict`` the head is one.
        """
        heads, _ = self._allowed(cpu, False, self.choice, t)
        asking = [v for v in heads
                  if v is not None and v.hi and v.budget > 0 and v.consumed >= v.c_opt]
        running = cpu.running
        if not asking or (running in heads and running not in asking):
            return
        self._ask(cpu, running if running in asking else min(asking, key=self.queue_tie), t)

    def _tie_only(self, cpu: ShadowCPU) -> str | None:
        """The host's ``queue_order`` if *cpu* runs a vCPU that only the tie-break rules out
        (``--ties any`` would allow it), else ``None``."""
        if self.choice.tie is None:
            return None
        loose, _ = self._allowed(cpu, cpu.claimed_hi, attrs.evolve(self.choice, tie=None),
                                 self._t)
        return self.host.options.queue_order if cpu.running in loose else None

    def _check_mode(self, cpu: ShadowCPU, t: int) -> None:
        opened = self._open[cpu.index]
        if cpu.claimed_hi == cpu.rules_hi:
            self._resolve(cpu.index, "mode", t)
        elif "mode" not in opened:
            self._opened(cpu.index, "mode", mode_finding(cpu, t))

    def _check_temperature(self, cpu: ShadowCPU, v: ShadowVCPU, t: int) -> None:
        opened, kind = self._open[cpu.index], "temperature " + v.name
        if v.claimed_temperature == v.temperature:
            self._resolve(cpu.index, kind, t)
        elif kind not in opened:
            self._opened(cpu.index, kind, temperature_finding(v, t, self.initial_temperature))

    def _expire(self, cpu: ShadowCPU, u: int) -> None:
        for obligation in self._open[cpu.index].values():
            if not obligation.reported and u - obligation.since > self.tolerance:
                obligation.reported = True
                part = obligation.longest(u)  # named after its longest deviation
                window, line, position = part.evidence
                self._report(Violation(part.rule, part.since, cpu.index, part.allowed,
                                       part.did, part.text, window, line), position)

    def _resolve(self, cpu: int, key: str, t: int) -> None:
        """The finding *key* of pCPU *cpu*, if open, is put right at *t*: closed, and
        counted as tolerated if it lasted a while but not past the tolerance."""
        finding = self._open[cpu].pop(key, None)
        if finding is not None and not finding.reported and t > finding.since:
            self._tolerate(finding.rule, t - finding.since)

    def _tolerate(self, rule: str, amount: int | Fraction) -> None:
        """Count a deviation of *amount* ns that the tolerance accepts (never hidden)."""
        self.tolerated[rule] += 1
        ceiling = int(amount) + (0 if int(amount) == amount else 1)
        self.tolerated_max[rule] = max(self.tolerated_max.get(rule, 0), ceiling)

    def _opened(self, cpu: int, key: str, finding: Finding) -> None:
        """Open *finding* on pCPU *cpu*, with the trace that led up to it."""
        finding.evidence = self._evidence(finding.since)
        self._open[cpu][key] = finding

    def _evidence(self, since: int, upto: dict[str, Any] | None = None
                  ) -> tuple[tuple[dict[str, Any], ...], int | None, int]:
        """The events leading up to *since* (and to the event *upto*, including it).

        Returns the last :attr:`window` of them, the trace line of the last
        one (``None`` if it has none), and its position in the trace.
        """
        base = self._closed_events - len(self._recent)
        events = list(self._recent) + self._current
        if upto is not None:
            for index in range(len(events) - 1, -1, -1):
                if events[index] is upto:
                    del events[index + 1:]
                    break
        items = [(base + i + 1, e) for i, e in enumerate(events) if e["t"] <= since]
        if not items:
            return (), None, 0
        position, last = items[-1]
        line = last.get("line")
        shown = tuple(e for _, e in items[-self.window:]) if self.window else ()
        return shown, line if isinstance(line, int) else None, position

    def _now(self, rule: str, t: int, cpu: int, allowed_: tuple[str, ...], did: str,
             text: str, event: dict[str, Any]) -> None:
        window, line, position = self._evidence(t, event)
        # a reported value (R2, R3) follows from the choice at the same line: after it
        self._report(Violation(rule, t, cpu, allowed_, did, text, window, line), position,
                     0 if rule == "R12" else 1)

    def _report(self, violation: Violation, position: int, rank: int = 0) -> None:
        """Record *violation* (:meth:`_record`), or with ``resync`` hold it until its pCPU's
        account is confirmed -- or withhold it at once if it began in a hole's shadow."""
        if not self.resync:
            self._record(violation, position, rank)
            return
        blind = self._blind[violation.cpu]
        if blind is not None and blind[0] <= violation.t < blind[1]:
            self.withheld[violation.rule] += 1
            return
        self._held[violation.cpu].append((violation, position, rank))

    def _record(self, violation: Violation, position: int, rank: int = 0) -> None:
        """Count *violation*; keep it if it is among the ``keep`` that began first.

        The order is by time, then trace position, then *rank* (a wrong
        choice before the wrong values reported with it), then as found.
        """
        self.counts[violation.rule] += 1
        self._found += 1
        entry = (-violation.t, -position, -rank, -self._found, violation)
        first = self._first.get(violation.rule)
        if first is None or entry[:4] > first[:4]:
            self._first[violation.rule] = entry
        if len(self._kept) < self.keep:
            heapq.heappush(self._kept, entry)
        elif entry[:4] > self._kept[0][:4]:
            heapq.heapreplace(self._kept, entry)
        self._new.append(violation)
