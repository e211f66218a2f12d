"""The ``akita-linux`` rule set: Akita's rules as Linux's scheduling classes carry them out.

``akita linux`` (:mod:`akita.linux`) runs Akita over ``SCHED_DEADLINE``,
``SCHED_FIFO`` and ``SCHED_OTHER``.  Where the kernel cannot do what a rule
says, this rule set says what it does instead, and the oracle holds the
implementation to that -- each difference by name, measured in
:doc:`/linux`, none hidden in the tolerance:

L1 (R7, LO mode: throttling, not work conservation)
   A deadline task whose runtime is spent is *throttled* by the kernel's
   CBS until its next period: an inactive vCPU does not run in the
   background.  Only a vCPU outside the deadline class (below) runs when no
   active vCPU can, and the machine's other ``SCHED_OTHER`` tasks share the
   CPU with it (EEVDF): there the pCPU may look idle.
L2 (R6, R7, HI mode: fixed priorities, then EEVDF)
   In HI mode the HI vCPUs are ``SCHED_FIFO`` (priorities by period,
   shortest highest, then host order) and the LO vCPUs ``SCHED_OTHER``: the
   pCPU runs the runnable HI vCPU of highest priority, whatever its budget
   (the kernel refuses to raise it to ``C_pes`` in the deadline class at
   the switch); then any runnable LO vCPU, or the machine's other tasks.
L3 (R2, rejoining)
   A vCPU enters the deadline class at its own period start in LO mode (so
   that the kernel's period grid is R2's): before its first one, and after
   a return to LO mode until its next one, it is *outside*, run as in L1's
   background (``SCHED_OTHER`` before its first period; after HI mode a HI
   vCPU is still ``SCHED_FIFO``, and runs before any other).
L4 (R3, tick-late enforcement)
   The kernel enforces a runtime at its scheduler tick (``HRTICK_DL`` off,
   the default): a running vCPU whose budget ran out may go on running for
   up to one tick (the capture states the tick, e.g. 4 ms at ``HZ=250``).

L5 (R3, the kernel's own account)
   The kernel charges a budget by its own clock (``rq_clock_task``, which
   leaves out interrupt time), not by the trace's timestamps (printed to the
   microsecond): a vCPU may be throttled with a few microseconds of budget
   left in the oracle's account.  A vCPU with at most the tolerance left
   may run, and need not.

L6 (R5, R8, the trace's resolution)
   The controller decides R5 on the kernel's account in nanoseconds; the
   trace prints microseconds, and a vCPU's consumption summed from it is
   off by up to a microsecond a dispatch.  A HI vCPU that has at least
   ``C_opt`` minus the tolerance consumed in its period (the trace has it
   block there) may have
   consumed ``C_opt`` and been runnable by the kernel's account (a
   memcached worker blocking at exactly 5.000000 ms in the trace, measured
   in :doc:`/linux`): there the controller's ask -- a temperature mark of
   the initial temperature, which it writes at every ask -- is taken as
   R5's ask.  With less consumed, its ask is R5's violation as before.

L7 (R2, R4, R5: a constrained deadline throttles a late wake-up)
   A HI vCPU is a deadline task with a *constrained* deadline
   (``floor(x T) < T``).  The kernel throttles such a task when it wakes
   after its deadline and before its next period (``dl_check_constrained_dl``,
   kernel/sched/deadline.c), budget left or not, so that it cannot use more
   than its density: in LO mode a HI vCPU that wakes after its virtual
   deadline ``s + x T`` (plus the tolerance: the kernel's grid lags R2's by
   the controller's join lateness; within the tolerance after it, it may
   be throttled and need not) does not run again before its next period start (nor
   reach ``C_opt`` there), where R2 keeps its budget until ``s + T``.  HI
   mode (``SCHED_FIFO``) ends the throttle, and so does L8.

L8 (R2, R4: past the virtual deadline, ``SCHED_FIFO``)
   At its virtual deadline ``s + x T`` in LO mode a HI vCPU that has not
   asked leaves the deadline class for ``SCHED_FIFO`` until its next period
   start (decision 310), so that L7's throttle does not hold it to ``s +
   T`` -- if it is runnable; asleep, when it next wakes (decision 312).
   From the tolerance after its virtual deadline or that wake, whichever is
   later (the controller is late by up to that; within it the vCPU may still
   be inside, or throttled by L7), it is *outside*: it runs whenever no active
   vCPU of the deadline class is runnable, before the LO vCPUs outside and
   the machine's other tasks, but after the active deadline tasks, where R4
   would run it first (its key is the least).  A pCPU that idles while it
   is runnable is named R7 (the oracle's name for an idle pCPU beside a
   runnable vCPU), one that runs a LO vCPU outside the class R4.

L9 (R3: the CBS's wake-up rule for a constrained deadline)
   A HI vCPU in the deadline class that wakes at ``t`` before its deadline
   ``d`` (its virtual deadline ``s + x T``) with runtime ``r`` left keeps
   its deadline, and keeps ``r`` only if ``r / (d - t) <= C_opt / floor(x
   T)`` (its density); otherwise its runtime becomes ``C_opt (d - t) /
   floor(x T)`` (the revised wake-up rule, ``update_dl_entity`` and
   ``update_dl_revised_wakeup`` in kernel/sched/deadline.c, for a task
   with ``dl_deadline < dl_period``): it may be throttled before it has
   consumed ``C_opt`` -- until L8 moves it out at its virtual deadline,
   HI mode, or its next period start.  A vCPU with at most the tolerance of
   that runtime left may run and need not (L5); a running one may overrun
   it by a tick (L4).  The kernel's runtime left is its ``C_opt`` at each
   LO-mode period start: a HI vCPU that has not asked rejoins the class
   there (L8, L3), and one that has is outside.  The CBS's rule for an
   implicit deadline (a LO vCPU that wakes with ``r / (d - t) > C_opt /
   T`` gets a new deadline ``t + T`` and a full runtime, off R2's grid) is
   not modelled.  :data:`WAKEUP_RULES` names the rule the oracle applies;
   ``"new-period"`` is the deliberately wrong one: a full runtime ``C_opt``
   at such a wake, as the CBS's rule before the revision gave (with the
   deadline ``t + floor(x T)``, which this variant does not apply: the
   vCPU keeps its key).

L10 (R2, R3, R4: the CBS's rule for a LO vCPU's implicit deadline)
   The kernel keeps its own deadline ``d`` and runtime ``r`` for a LO vCPU
   in the deadline class, which leave R2's grid (``update_dl_entity``,
   ``replenish_dl_entity`` and ``enqueue_dl_entity``'s ``ENQUEUE_RESTORE``
   case, kernel/sched/deadline.c; ``D = P = T``):

   * at its joining at ``s``, runnable: ``d = s + T``, ``r = C_opt``, unless
     an earlier stay in the class left a deadline not yet passed (it keeps
     that ``d`` and ``r``); asleep, at its next wake (below);
   * at a wake at ``t``: a new period ``d = t + T``, ``r = C_opt`` if ``d <=
     t`` or ``r T > C_opt (d - t)`` (its bandwidth would be exceeded); else
     ``d`` and ``r`` are kept (a capture's first switch to a vCPU it never
     saw woken is no wake: runnable since before the capture, it has the
     CBS of its joining);
   * running, ``r`` is spent; spent, the vCPU is throttled until ``d`` (or
     until it was spent, if later), where ``d += T`` and ``r += C_opt`` --
     with what it overran (L4) carried -- and if ``d`` is then still past, a
     new period from that instant;
   * nothing happens at R2's period start of a vCPU in the class.

   LO mode then runs the vCPUs in the class by the kernel's ``d`` (a HI
   vCPU's is its virtual deadline, L7-L9), each while its ``r`` lasts:
   a LO vCPU that woke above its bandwidth may be passed by one whose R2
   deadline is later (the capture finding of decision 311), and may run
   past its R2 budget on the new period's runtime.  ``r`` is counted from
   the trace's run times; within the tolerance of spent it may run and
   need not (L5), and a replenishment is applied at ``d`` whenever at most
   the tolerance is left (the kernel would throttle it there within the
   tolerance).  A vCPU outside the class (HI mode) keeps what it had, as
   the kernel does, until it rejoins.  :data:`LO_RULES` names the rule the
   oracle applies; ``"grid"`` is the deliberately wrong one, R2's grid for
   LO vCPUs too (this rule set before L10).

Everything else is Akita's: R2 (budgets, deadlines, virtual deadlines on
the period grid), R4 (LO mode: earliest key first, among active vCPUs in
the deadline class), R5, R8, R9 (checked from the controller's marks), R11,
R12.  A pCPU's "may idle" is written ``None`` among the allowed choices.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import attrs

from .shadow import Choice, ShadowCPU, ShadowVCPU, _tier

__all__ = ["LinuxRules", "Server", "POLICY", "DEFAULT_TICK_NS", "WAKEUP_RULES", "LO_RULES"]

#: The rule set's name (``akita conform --policy akita-linux``).
POLICY = "akita-linux"
#: The tick assumed when a capture does not state its kernel's (HZ = 100, the coarsest).
DEFAULT_TICK_NS = 10_000_000
#: L9's wake-up rule for a constrained deadline: the kernel's (``"revised"``), and the
#: deliberately wrong one (``"new-period"``) that a real capture must refute.
WAKEUP_RULES = ("revised", "new-period")
#: L10's rule for a LO vCPU's implicit deadline: the kernel's CBS (``"cbs"``), and the
#: deliberately wrong one (``"grid"``: R2's period grid) that a real capture must refute.
LO_RULES = ("cbs", "grid")

__rules__ = {
    "R3": ("LinuxRules.ran_out", "LinuxRules.revised_wakeup", "LinuxRules.cut_off"),
    "R4": ("LinuxRules.allowed",),
    "R6": ("LinuxRules.allowed",),
    "R7": ("LinuxRules.allowed", "LinuxRules.to_hi"),
    "R2": ("LinuxRules.period_start", "LinuxRules.pass_virtual_deadlines", "LinuxRules.join",
           "LinuxRules.cbs_wakeup", "LinuxRules.replenish"),
    "R5": ("LinuxRules.claimed_ask", "LinuxRules.woke"),
}


@attrs.define
class Server:
    """L10: the kernel's CBS for a LO vCPU in the deadline class.

    :ivar deadline: its absolute deadline ``d`` (ns).
    :ivar runtime: its runtime ``r`` (ns) when it had run :attr:`at` ns in all.
    :ivar at: the vCPU's run time (:attr:`LinuxRules.ran`) when :attr:`runtime` was set.
    :ivar out: when :attr:`runtime` was last spent (the kernel throttles there), if it was.
    """

    deadline: int
    runtime: int
    at: int
    out: int | None = None


def _fifo(v: ShadowVCPU) -> tuple[int, int]:
    """L2: a HI vCPU's SCHED_FIFO rank (shortest period first, then host order)."""
    return (v.period, v.order)


class LinuxRules:
    """The state the ``akita-linux`` rule set adds to the oracle's shadow (L1-L4)."""

    #: L9's rule (one of :data:`WAKEUP_RULES`).
    wakeup_rule = "revised"
    #: L10's rule (one of :data:`LO_RULES`).
    lo_rule = "cbs"

    def __init__(self, vcpus: Sequence[ShadowVCPU], tick_ns: int | None, slack: int) -> None:
        self.tick = DEFAULT_TICK_NS if tick_ns is None else tick_ns
        #: L5: a budget this small (the tolerance) may be left when the kernel throttles.
        self.slack = slack
        #: vCPUs outside the deadline class (L3): all of them before their first period.
        self.outside: set[str] = {v.name for v in vcpus}
        #: HI vCPUs outside the deadline class as SCHED_FIFO (since a switch to HI mode).
        self.fifo: set[str] = set()
        #: when each vCPU's budget last ran out (L4).
        self.exhausted: dict[str, int] = {}
        #: HI vCPUs that woke after their virtual deadline in the deadline class (L7), and
        #: those that woke within the tolerance after it (the kernel's deadline may be either
        #: side: they may run and need not).
        self.throttled: set[str] = set()
        self.maybe_throttled: set[str] = set()
        #: L8: HI vCPUs moved to SCHED_FIFO at their virtual deadline (until their next period).
        self.past: set[str] = set()
        #: L9: a HI vCPU's kernel runtime since its last cut: (runtime then, consumed then).
        self.cut: dict[str, tuple[int, int]] = {}
        #: each vCPU's last wake-up (L8: a HI vCPU asleep at its virtual deadline is moved
        #: out when it wakes).
        self.woke_at: dict[str, int] = {}
        #: L10: each vCPU's run time so far (ns, from the trace), and each LO vCPU's CBS.
        self.ran: dict[str, int] = {}
        self.servers: dict[str, Server] = {}
        #: L10: when each LO vCPU last joined the class (its first sighting may come later).
        self.joined: dict[str, int] = {}

    def period_start(self, v: ShadowVCPU, hi_mode: bool) -> None:
        """L3: a vCPU whose period starts in LO mode is (back) in the deadline class."""
        if not hi_mode:
            if v.name in self.outside:
                self.join(v, v.release)
            self.outside.discard(v.name)
            self.fifo.discard(v.name)
        self.exhausted.pop(v.name, None)
        self.throttled.discard(v.name)
        self.maybe_throttled.discard(v.name)
        self.past.discard(v.name)
        self.cut.pop(v.name, None)

    # -- L10: the CBS of a LO vCPU ----------------------------------------------------------

    def _cbs(self, v: ShadowVCPU) -> bool:
        """Whether L10 applies to *v*: a LO vCPU, under the kernel's rule."""
        return not v.hi and self.lo_rule == "cbs"

    def _server(self, v: ShadowVCPU) -> Server | None:
        """*v*'s CBS if L10 applies and it is in the deadline class."""
        if not self._cbs(v) or v.name in self.outside:
            return None
        return self.servers.get(v.name)

    def _left(self, v: ShadowVCPU, server: Server) -> int:
        return server.runtime - (self.ran.get(v.name, 0) - server.at)

    def _new_period(self, v: ShadowVCPU, start: int) -> None:
        """L10: *v*'s CBS starts a new period at *start*: ``(start + T, C_opt)``."""
        self.servers[v.name] = Server(start + v.period, v.c_opt, self.ran.get(v.name, 0))

    def join(self, v: ShadowVCPU, s: int) -> None:
        """L10: LO vCPU *v* (re)joins the deadline class at *s*; what it had outside it keeps
        (:meth:`to_hi` froze it).  Runnable, a new period unless its deadline is still
        ahead (``ENQUEUE_RESTORE``); asleep, its next wake decides (:meth:`cbs_wakeup`)."""
        if not self._cbs(v):
            return
        self.joined[v.name] = s
        server = self.servers.get(v.name)
        if server is not None:
            server.at = self.ran.get(v.name, 0)
        if v.runnable and (server is None or server.deadline < s):
            self._new_period(v, s)

    def cbs_wakeup(self, v: ShadowVCPU, t: int, first: bool = False) -> None:
        """L10: LO vCPU *v* in the deadline class wakes at *t*: a new period ``(t + T,
        C_opt)`` if its deadline has passed or its runtime exceeds its bandwidth to it.

        A *first* sighting (a capture's first switch to a vCPU it never saw woken: runnable
        since before the capture) is no wake: the kernel set its CBS when it joined, runnable,
        and it has not run since (nothing of it was seen)."""
        if not self._cbs(v) or v.name in self.outside:
            return
        if first:
            if v.name not in self.servers and v.name in self.joined:
                self._new_period(v, self.joined[v.name])
            return
        self.replenish(v, t)
        server = self.servers.get(v.name)
        if (server is None or server.deadline <= t
                or self._left(v, server) * v.period > v.c_opt * (server.deadline - t)):
            self._new_period(v, t)

    def replenish(self, v: ShadowVCPU, t: int) -> None:
        """L10: a spent runtime (at most the tolerance left) is replenished at the deadline,
        or when it was spent if later, once *t* has reached it: ``d += T``, ``r +=
        C_opt`` until ``r > 0``; a deadline still past then is a new period."""
        server = self._server(v)
        if server is None:
            return
        left = self._left(v, server)
        at = server.deadline if server.out is None else max(server.deadline, server.out)
        if left > self.slack or t < at:
            return
        deadline = server.deadline + v.period
        left += v.c_opt
        while left <= 0:
            deadline += v.period
            left += v.c_opt
        if deadline < at:
            self._new_period(v, at)
        else:
            self.servers[v.name] = Server(deadline, left, self.ran.get(v.name, 0))

    def charged(self, v: ShadowVCPU, ran: int, since: int) -> None:
        """L10: *v* ran *ran* ns from *since* (past its R2 budget too, as the kernel counts);
        when its CBS runtime was spent."""
        before = self.ran.get(v.name, 0)
        self.ran[v.name] = before + ran
        server = self._server(v)
        if server is not None:
            left = server.runtime - (before - server.at)
            if 0 < left <= ran:
                server.out = since + left

    def _budget(self, v: ShadowVCPU) -> int:
        """What *v* may still run: its CBS runtime under L10, else its R2 budget."""
        server = self._server(v)
        return v.budget if server is None else self._left(v, server)

    def _key(self, v: ShadowVCPU) -> int | Fraction:
        """Its EDF key in the deadline class: its CBS deadline under L10, else R2's key."""
        server = self._server(v)
        return v.key if server is None else server.deadline

    def _past_due(self, v: ShadowVCPU, t: int) -> bool:
        """L8: *v* is a runnable HI vCPU in the deadline class that has not asked, more than
        the tolerance past its virtual deadline or its first wake after it, whichever is
        later, at *t* (the controller has moved it out)."""
        if not v.hi or v.asked or v.name in self.outside or not v.runnable:
            return False
        return t > max(v.key, self.woke_at.get(v.name, v.key)) + self.slack

    def _past_maybe(self, v: ShadowVCPU, t: int) -> bool:
        """L8 within the tolerance after the virtual deadline: moved out or not yet."""
        return v.hi and not v.asked and v.name not in self.outside and v.key < t

    def pass_virtual_deadlines(self, cpu: ShadowCPU, t: int) -> None:
        """L8: in LO mode, every HI vCPU of *cpu* past its virtual deadline (plus the
        tolerance) without an ask is outside the deadline class, as ``SCHED_FIFO``."""
        for v in cpu.vcpus:
            if self._past_due(v, t):
                self._move_out(v)

    def _move_out(self, v: ShadowVCPU) -> None:
        self.outside.add(v.name)
        self.fifo.add(v.name)
        self.past.add(v.name)
        self.throttled.discard(v.name)
        self.maybe_throttled.discard(v.name)
        self.cut.pop(v.name, None)

    def _kernel_left(self, v: ShadowVCPU) -> int:
        """L9: the runtime the kernel holds for HI vCPU *v* in its period (ns; may be < 0)."""
        left, then = self.cut.get(v.name, (v.c_opt, 0))
        return left - (v.consumed - then)

    def revised_wakeup(self, v: ShadowVCPU, t: int) -> None:
        """L9: HI vCPU *v*, in the deadline class, wakes at *t* before its deadline: the
        CBS keeps its runtime within its density, or cuts it to ``C_opt (d - t) / D``."""
        if not v.hi or v.name in self.outside or not t < v.key:
            return
        d = v.x * v.period
        dl = d.numerator // d.denominator if isinstance(d, Fraction) else int(d)
        r = self._kernel_left(v)
        if r * dl <= v.c_opt * (v.key - t):
            return
        if self.wakeup_rule == "new-period":
            self.cut[v.name] = (v.c_opt, v.consumed)
            return
        cut = Fraction(v.c_opt) * (v.key - t) / dl
        self.cut[v.name] = (cut.numerator // cut.denominator, v.consumed)

    def cut_off(self, cpu: ShadowCPU) -> tuple[set[str], set[str], list[ShadowVCPU]]:
        """L9: the HI vCPUs of *cpu* in the deadline class whose cut runtime is spent
        (throttled), those with at most the tolerance of it left (may run, need not), and the
        running one within a tick past it (L4)."""
        out: set[str] = set()
        maybe: set[str] = set()
        late: list[ShadowVCPU] = []
        for v in cpu.vcpus:
            if not v.hi or v.name not in self.cut or v.name in self.outside:
                continue
            left = self._kernel_left(v)
            if left <= 0:
                out.add(v.name)
                if v is cpu.running and v.runnable and -left <= self.tick:
                    late.append(v)
            elif left <= self.slack:
                maybe.add(v.name)
        return out, maybe, late

    def woke(self, v: ShadowVCPU, t: int, first: bool = False) -> None:
        """L7: a HI vCPU in the deadline class waking after its virtual deadline is throttled
        until its next period start (more than the tolerance after it: the kernel's grid
        lags R2's by the controller's join lateness, measured below the tolerance), until
        the controller moves it out (L8), within the tolerance of the wake."""
        self.woke_at[v.name] = t
        self.revised_wakeup(v, t)
        self.cbs_wakeup(v, t, first)
        if v.hi and v.name not in self.outside and t > v.key + self.slack:
            self.throttled.add(v.name)
        elif v.hi and v.name not in self.outside and t >= v.key:
            self.maybe_throttled.add(v.name)

    def to_hi(self, cpu: ShadowCPU) -> None:
        """L2, L3: at a switch to HI mode every vCPU of *cpu* leaves the deadline class,
        a LO vCPU keeping its CBS's deadline and runtime as they are (L10)."""
        for v in cpu.vcpus:
            server = self._server(v)
            if server is not None:
                server.runtime, server.at = self._left(v, server), self.ran.get(v.name, 0)
        self.outside.update(v.name for v in cpu.vcpus)
        self.fifo.update(v.name for v in cpu.vcpus if v.hi)
        self.throttled.difference_update(v.name for v in cpu.vcpus)
        self.maybe_throttled.difference_update(v.name for v in cpu.vcpus)
        self.past.difference_update(v.name for v in cpu.vcpus)

    def claimed_ask(self, v: ShadowVCPU, claimed: int, initial: int) -> bool:
        """L6: whether the controller's temperature mark *claimed* is an ask the trace's
        resolution cannot rule out (*v* consumed ``C_opt`` within the tolerance)."""
        return v.hi and claimed == initial and not v.asked and v.consumed >= v.c_opt - self.slack

    def ran_out(self, v: ShadowVCPU, t: int) -> None:
        """L4: *v*'s budget ran out at *t*."""
        self.exhausted[v.name] = t

    def allowed(self, cpu: ShadowCPU, hi_mode: bool, rules: Choice, t: int
                ) -> tuple[list[ShadowVCPU | None], str]:
        """What *cpu* may run at *t* (``None``: idle, or a task no vCPU is), and the rule.

        L7's vCPUs that woke within the tolerance after their virtual deadline may be
        throttled or not, and L8's HI vCPUs within the tolerance after it may have been
        moved out of the deadline class or not: the choices of each are allowed."""
        if hi_mode:
            return self._allowed(cpu, hi_mode, rules, t, self.throttled, self.outside)
        for v in cpu.vcpus:
            self.replenish(v, t)
        self.pass_virtual_deadlines(cpu, t)
        spent, nearly, late = self.cut_off(cpu)
        held = self.throttled | spent
        options, rule = self._allowed(cpu, hi_mode, rules, t, held, self.outside)
        maybe = held | self.maybe_throttled | nearly
        moved = {v.name for v in cpu.vcpus if self._past_maybe(v, t)}
        views = [(maybe, self.outside)] if maybe != held else []
        if moved:
            views.append((held - moved, self.outside | moved))
        for throttled, outside in views:
            more, _ = self._allowed(cpu, hi_mode, rules, t, throttled, outside)
            options = [*options, *(o for o in more if o not in options)]
        return [*options, *(v for v in late if v not in options)], rule

    def _allowed(self, cpu: ShadowCPU, hi_mode: bool, rules: Choice, t: int,
                 throttled: set[str], outside: set[str]
                 ) -> tuple[list[ShadowVCPU | None], str]:
        runnable = [v for v in cpu.vcpus if v.runnable and v not in cpu.deferred
                    and v.name not in throttled]
        if hi_mode:
            hi = [v for v in runnable if v.hi]
            if hi:
                return [min(hi, key=_fifo)], "R6"
            return [None, *(v for v in runnable if not v.hi)], "R7"
        inside = [v for v in runnable if v.name not in outside]
        active = [v for v in inside if self._budget(v) > self.slack]
        late = [*self._late(cpu, t), *(v for v in inside if 0 < self._budget(v) <= self.slack)]
        if active:
            return [*_tier(active, self._key, rules.tie), *late], "R4"
        out = [v for v in runnable if v.name in outside]
        outside_hi = [v for v in out if v.name in self.fifo or v.name in outside - self.outside]
        if outside_hi:
            first = min(outside_hi, key=_fifo)
            rule = "R4" if first.name in self.past or first.name not in self.outside else "R7"
            return [first, *late], rule
        return [None, *out, *late], "R7"

    def _late(self, cpu: ShadowCPU, t: int) -> list[ShadowVCPU | None]:
        """L4: the running vCPU, if its budget ran out less than a tick ago."""
        v = cpu.running
        if v is None or not v.runnable or self._budget(v) > self.slack:
            return []
        server = self._server(v)
        out = self.exhausted.get(v.name) if server is None else server.out
        return [v] if out is not None and t - out <= self.tick else []
