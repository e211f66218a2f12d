"""``bcredit``: the credit scheduler with the boost-credit patch of Xen-devel, Dec 2008.

Source: the thread "[RFC][PATCH] scheduler: credit scheduler for client
virtualization" (NISHIGUCHI Naoki, with Keir Fraser and George Dunlap,
xen-devel, December 2008 -- January 2009), the rules as its author stated
them last.  Everything else is :mod:`.credit`.

* **Boost credit.**  A second credit a vCPU holds besides its credit.
  While it holds boost credit (``>= 1``) its priority is BOOST: it is not
  lost at a tick, and a wake makes it BOOST whatever its credit.  It is
  earned two ways, both bounded by the *max boost period*
  (:attr:`BcreditPolicy.MAX_BOOST_PERIOD`):

  - at each accounting, *boost ratio* percent of one pCPU for a time slice
    (:attr:`BcreditPolicy.BOOST_RATIO`), "distributed in place of credit":
    what is added to the boost credit is taken from the credit the vCPU
    earns in that accounting, so its total share is unchanged;
  - credit above the upper bound (one slice) is kept as boost credit
    ("preserve the value of credit ... over upper bound") instead of being
    halved; the vCPU stays active.

  A running vCPU pays with its boost credit first, then with its credit.
  When its boost credit runs out it falls back to the priority its credit
  gives (UNDER if >= 0, else OVER) and its pCPU decides again.
* **Time slice.**  If the vCPU chosen to run is BOOST and so is the head of
  the run queue after it, 2 ms; if only the chosen one is BOOST, 10 ms;
  otherwise 30 ms.  A slice never outlasts the vCPU's boost credit.
* **Wake.**  A waking vCPU with boost credit makes at least one pCPU
  reschedule: if credit's tickle chose none (the running vCPU is BOOST
  too), its own pCPU is told to, where it takes its turn (a 2 ms slice).

The thread enables boost credit per domain (``xm sched-bcredit -d DOM -m
100 -r 20`` in its ex7 runs: max boost period 100 ms, boost ratio 20 %).  A
host file has no such field, so boost credit is enabled for the VMs
:meth:`BcreditPolicy.boosted` names -- the HI-criticality ones, the
latency-sensitive VMs of Akita's model -- with those values.  Boost credit
starts at 0; like credit, it is granted to active vCPUs only.

Simplifications: those of :mod:`.credit`; the patch's other parts (credit
precision, balancing credit among a VM's vCPUs) are either already exact
here (credit in ns) or left out (balancing).
"""

from __future__ import annotations

from akita.model import VM

from .credit import BOOST, MS, OVER, UNDER, CreditPolicy, UnitState, _Unit

__all__ = ["BcreditPolicy"]


class BcreditPolicy(CreditPolicy):
    """Credit plus boost credit and the 2 / 10 / 30 ms slices."""

    name = "bcredit"

    #: The most boost credit a vCPU may hold (``-m``, ms in the thread), in ns.
    MAX_BOOST_PERIOD = 100 * MS
    #: Boost credit granted per accounting, in percent of one pCPU (``-r``).
    BOOST_RATIO = 20
    #: The slice when the chosen vCPU and the head of the queue are BOOST.
    BOOST_TSLICE = 2 * MS
    #: The slice when only the chosen vCPU is BOOST.
    BOOST_ALONE_TSLICE = 10 * MS

    def boosted(self, vm: VM) -> bool:
        """Whether *vm* earns boost credit: the HI-criticality VMs."""
        return vm.is_hi

    def _fallback(self, unit: _Unit) -> None:
        unit.pri = UNDER if unit.credit >= 0 else OVER

    def burn(self, state: UnitState, t: int) -> None:
        unit = state.sched
        used = t - unit.charged_to
        unit.charged_to = t
        if unit.boost_credit > 0:
            paid = min(used, unit.boost_credit)
            unit.boost_credit -= paid
            used -= paid
            if unit.boost_credit == 0 and unit.pri == BOOST:
                self._fallback(unit)
                self.resched(state.cpu)
        unit.credit -= used

    def wake_priority(self, state: UnitState) -> None:
        if state.sched.boost_credit > 0:
            state.sched.pri = BOOST
        else:
            super().wake_priority(state)

    def unboost(self, state: UnitState) -> None:
        if state.sched.boost_credit <= 0:
            super().unboost(state)

    def earn(self, state: UnitState, credit_fair: int) -> None:
        unit = state.sched
        grant = 0
        if self.boosted(state.vm):
            grant = min(self.BOOST_RATIO * self.TSLICE // 100,
                        self.MAX_BOOST_PERIOD - unit.boost_credit)
            unit.boost_credit += grant
        unit.credit += credit_fair - grant

    def upper_bound(self, state: UnitState) -> None:
        unit = state.sched
        if not self.boosted(state.vm):
            super().upper_bound(state)
            return
        excess = unit.credit - self.TSLICE
        unit.boost_credit = min(self.MAX_BOOST_PERIOD, unit.boost_credit + excess)
        unit.credit = self.TSLICE

    def settle(self, state: UnitState) -> None:
        if state.sched.boost_credit > 0:
            state.sched.pri = BOOST

    def slice_for(self, state: UnitState, cpu: int) -> int:
        unit = state.sched
        if unit.pri != BOOST:
            return self.TSLICE
        queue = self.runq[cpu]
        both = bool(queue) and queue[0].sched.pri == BOOST
        tslice = self.BOOST_TSLICE if both else self.BOOST_ALONE_TSLICE
        if unit.boost_credit > 0:
            tslice = min(tslice, unit.boost_credit)
        return tslice

    def on_wake(self, state: UnitState, t: int) -> None:
        unit = state.sched
        if self.is_current(state) or unit.parked:
            return
        self.wake_priority(state)
        self.runq_insert(state)
        if not self.tickle(state) and unit.boost_credit > 0:
            self.resched(state.cpu)  # "send scheduler interrupts to at least one CPU"
