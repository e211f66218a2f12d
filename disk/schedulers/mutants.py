"""Deliberately wrong variants, one per scheduler's distinctive behaviour.

Each drops the one mechanism its scheduler is known for; the tests
(``tests/disk/schedulers``) must tell each from the real one:

* :class:`DeadlineWithoutExpiry`: the elevator alone, deadlines ignored;
* :class:`CFQWithoutIdling`: CFQ with ``slice_idle = 0``;
* :class:`AnticipatoryWithoutAnticipation`: ``as`` with ``antic_expire = 0``;
* :class:`PregatherAlwaysWaiting`: SPLA waiting whatever the seek it saves.
"""

from __future__ import annotations

from .anticipatory import Anticipatory
from .cfq import CFQ
from .deadline import Deadline
from .pregather import Pregather

__all__ = ["DeadlineWithoutExpiry", "CFQWithoutIdling", "AnticipatoryWithoutAnticipation",
           "PregatherAlwaysWaiting", "MUTANTS"]


class DeadlineWithoutExpiry(Deadline):
    name = "deadline-without-expiry"

    def expired(self, write: bool, now: int) -> bool:
        return False


class CFQWithoutIdling(CFQ):
    name = "cfq-without-idling"
    slice_idle = 0


class AnticipatoryWithoutAnticipation(Anticipatory):
    name = "as-without-anticipation"
    antic_expire = 0


class PregatherAlwaysWaiting(Pregather):
    name = "pregather-always-waiting"

    def worth(self, wait: int, seek: int) -> bool:
        return True


#: name -> mutant class.
MUTANTS = {m.name: m for m in (DeadlineWithoutExpiry, CFQWithoutIdling,
                               AnticipatoryWithoutAnticipation, PregatherAlwaysWaiting)}
