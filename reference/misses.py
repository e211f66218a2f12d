"""The HI-miss account: one definition, kept by the core for every policy.

A *HI miss* is a period ``[s, s + T)`` of a HI vCPU -- on the vCPU's own
grid ``0, T, 2T, ...``, whatever the policy does with periods -- in which it
was served less than it was owed at ``s``: ``min(C_pes, work it held at s)``
(``C_pes`` for a cpu-bound vCPU).  So a job of at most ``C_pes`` released at a
period start and not done by the period's end, or a HI vCPU with work enough
for the whole period that got less than ``C_pes``, each count as one miss.
A period that the run's end cuts short is not judged.

*Served* is the time the vCPU held a pCPU, context switches included, as
:attr:`.vcpu_state.VCPUState.ran_ns` counts it.  The account only observes:
the core (:mod:`.simulator`) calls :meth:`MissAccount.period_start` after
every other event of the instant (so the work that arrives with the period
counts as held), with the time served and the work held as of that instant,
computed without bringing the pCPU up to date -- so keeping the account
changes no decision of any policy, and no byte of a trace.
"""

from __future__ import annotations

__all__ = ["MissAccount"]


class MissAccount:
    """What one HI vCPU is owed in its current period, and what it had been served at its start."""

    __slots__ = ("c_pes", "endless", "owed", "served_at_start")

    def __init__(self, c_pes: int, endless: bool) -> None:
        self.c_pes = c_pes
        self.endless = endless
        self.owed = 0
        self.served_at_start = 0

    def period_start(self, t: int, served: int, held: int) -> bool:
        """A period starts at *t*; the vCPU has been served *served* ns in all and holds *held*
        ns of work.  Return whether the period that ends here was a miss."""
        missed = t > 0 and served - self.served_at_start < self.owed
        self.owed = self.c_pes if self.endless else min(self.c_pes, held)
        self.served_at_start = served
        return missed
