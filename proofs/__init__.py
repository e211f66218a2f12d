"""Proof obligations about the model, discharged by Z3.

Claims are grouped one concern per module (:data:`akita.proofs.manifest.MODULES`:
the EDF-VD formula, its bounds, first-fit packing, the HI guarantee, the
mode rules), each declared once where it is stated
(:class:`akita.proofs.obligation.Declarations`); what several claims share
sits apart: :mod:`akita.proofs.support` (refutation and counterexamples over
utilization sums), :mod:`akita.proofs.pcpus` (the pCPUs the schedule claims
are stated on), :mod:`akita.proofs.schedule_check`, :mod:`akita.proofs.replay`
and :mod:`akita.proofs.host_check`.  See docs/proofs.rst.
"""

__all__: list[str] = []
