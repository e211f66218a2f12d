"""``credit-3.3`` and ``bcredit-3.3``: Xen's credit scheduler as it was in Xen 3.3, and the
boost-credit patch on top of it, as the Xen-devel thread ran them.

The thread's runs were on Xen 3.3.0 (its results mail).  Three rules of
today's credit (:mod:`.credit`) did not exist then:

* **Credit at the tick.**  Xen 3.3's ``csched_vcpu_acct``, called by each
  10 ms tick for the vCPU it finds running, took a whole tick's credit
  from it (``CSCHED_CREDITS_PER_TICK``), however long it had run; a vCPU
  that ran between ticks paid nothing.  Exact accounting by run time
  (``burn_credits``) came with "Accurate accounting for credit scheduler"
  (xen commit 78c9b2a64b, August 2009, after Xen 3.4.0, whose
  ``csched_vcpu_acct`` still does ``atomic_sub(CSCHED_CREDITS_PER_TICK, ...)``).
* **Credit reset to 0 at the upper bound.**  Xen 3.3's ``csched_acct``
  (``xen/common/sched_credit.c`` at tag ``3.3.0-rc7``, commit 9dd93b24de,
  the last release candidate before 3.3.0): "Upper bound on credits means
  VCPU stops earning": ``if ( credit > CSCHED_CREDITS_PER_TSLICE ) {
  __csched_vcpu_acct_stop_locked(svc); credit = 0; atomic_set(&svc->credit,
  credit); }``.  Halving instead of resetting came with "Credit1: Tweak reset
  condition" (commit c92d5f4e0f, August 2010).  The thread's patch ("preserve
  the value of credit when credit of the vcpu is over upper bound") is about
  exactly this reset: a vCPU that sleeps most of the time (the ping guest,
  dom0) reaches the bound, loses all its credit, and the next tick that finds
  it running makes it OVER.
* **No rate limit.**  ``sched_ratelimit_us`` (1 ms by default) came with
  Xen 4.2 (2012): in 3.3 a waking BOOST vCPU preempts at once.

So ``credit-3.3`` is :class:`~.credit.CreditPolicy` with the running vCPU
charged one tick of credit at each tick and nothing in between, credit set
to 0 at the upper bound, and no rate limit; everything else (accounting
every 30 ms, BOOST on wake while UNDER, the run queues, stealing) is as in
:mod:`.credit`, whose
``sched_credit.c`` rules were already those of 3.3.  ``bcredit-3.3`` is the
thread's revised patch (:mod:`.bcredit`) as its author applied it to 3.3:
with its credit precision (credit by run time, as :mod:`.bcredit` does) and
without the later rate limit.
"""

from __future__ import annotations

from .bcredit import BcreditPolicy
from .credit import CreditPolicy, UnitState

__all__ = ["Credit33Policy", "Bcredit33Policy"]


class Credit33Policy(CreditPolicy):
    """Xen 3.3's credit: a tick's credit from the vCPU a tick finds running; no rate limit."""

    name = "credit-3.3"
    RATELIMIT = 0

    def burn(self, state: UnitState, t: int) -> None:
        """Credit is not taken by run time in 3.3 (:meth:`tick_burn` takes it)."""
        state.sched.charged_to = t

    def tick_burn(self, state: UnitState, t: int) -> None:
        """``csched_vcpu_acct`` in 3.3: the vCPU a tick finds running pays one whole tick."""
        self.burn(state, t)
        state.sched.credit -= self.TICK

    def upper_bound(self, state: UnitState) -> None:
        """``csched_acct`` in 3.3: credit above one slice: the vCPU stops earning, at credit 0."""
        self.acct_stop(state)
        state.sched.credit = 0


class Bcredit33Policy(BcreditPolicy):
    """The boost-credit patch on Xen 3.3: its precise credit, and no rate limit."""

    name = "bcredit-3.3"
    RATELIMIT = 0
