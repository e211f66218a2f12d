"""Criticality levels (rule R1).

A VM, and every vCPU it owns, is either of LO or of HI criticality.  HI
vCPUs carry a pessimistic budget on top of the optimistic one, and only
they are served when a pCPU is in HI mode (R6).
"""

from __future__ import annotations

import enum

__all__ = ["Criticality"]


class Criticality(enum.Enum):
    """The criticality of a VM: ``LO`` (best effort) or ``HI`` (guaranteed)."""

    LO = "LO"
    HI = "HI"

    def __str__(self) -> str:
        return self.value
