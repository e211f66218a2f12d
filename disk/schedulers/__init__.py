"""The disk schedulers of the hypervisor: Linux's four and Pregather.

:data:`SCHEDULERS` maps each name to its class; each module states the
documented behaviour it follows and its source.
"""

from .anticipatory import Anticipatory
from .base import Scheduler
from .cfq import CFQ
from .deadline import Deadline
from .noop import Noop
from .pregather import Pregather

__all__ = ["SCHEDULERS", "Scheduler", "Noop", "Deadline", "CFQ", "Anticipatory", "Pregather"]

#: name -> scheduler class, in the order the experiment reports them.
SCHEDULERS: dict[str, type[Scheduler]] = {
    s.name: s for s in (Noop, Deadline, CFQ, Anticipatory, Pregather)}
