"""Each proof obligation's budget of Z3's resource count (its ``rlimit``).

The budget is what decides when a check gives up (``unknown``), so that the
verdict does not depend on the machine's load
(:mod:`akita.model.smt.resources`).  Each figure is calibrated from a
measurement: ``akita prove --rlimit 0 --json`` reports what each obligation
spent (``rlimit_used``); the budget is :data:`MARGIN` times that, rounded up
to two significant digits, so that today's verdicts hold with room for
changes in Z3 and in the encodings.  An obligation missing here has no
budget (0), only its wall-clock guard.
"""

from __future__ import annotations

__all__ = ["RLIMITS", "MARGIN"]

#: The budget is this many times the measured count.
MARGIN = 4

#: Obligation name -> its budget (units of Z3's ``rlimit count``).
RLIMITS: dict[str, int] = {}
