"""``credit-3.3`` and ``bcredit-3.3``: Xen's credit scheduler as it was in Xen 3.3, and the
boost-credit patch on top of it, as the Xen-devel thread ran them.

The thread's runs were on Xen 3.3.0 (its results mail).  Two rules of
today's credit (:mod:`.credit`) did not exist then:

* **Credit at the tick.**  Xen 3.3's ``csched_vcpu_acct``, called by each
  10 ms tick for the vCPU it finds running, took a whole tick's credit
  from it (``CSCHED_CREDITS_PER_TICK``), however long it had run; a vCPU
  that ran between ticks paid nothing.  Exact accounting by run time
  (``burn_credits``) came with the "credit precision" part of the very
  patch series the thread discusses, merged for Xen 3.4 (it is in the
  ``sched_credit.c`` of that release, with ``CSCHED_TICKS_PER_ACCT``).
* **No rate limit.**  ``sched_ratelimit_us`` (1 ms by default) came with
  Xen 4.2 (2012): in 3.3 a waking BOOST vCPU preempts at once.

So ``credit-3.3`` is :class:`~.credit.CreditPolicy` with the running vCPU
charged one tick of credit at each tick and nothing in between, and no
rate limit; everything else (accounting every 30 ms, BOOST on wake while
UNDER, the run queues, stealing) is as in :mod:`.credit`, whose
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


class Bcredit33Policy(BcreditPolicy):
    """The boost-credit patch on Xen 3.3: its precise credit, and no rate limit."""

    name = "bcredit-3.3"
    RATELIMIT = 0
