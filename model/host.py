"""A host: its pCPUs, the admission test it uses, and the VMs offered to it.

The VMs are kept in the order the provider offers them: first fit (R12)
admits them in that order.  Every pCPU starts in LO mode (R13); that is a
property of the scheduler, not of this description.
"""

from __future__ import annotations

import attrs

from .admission_tests import ADMISSION_TESTS, DEFAULT_TEST
from .errors import ModelError
from .options import SchedulerOptions
from .vm import VM

__all__ = ["Host"]


@attrs.frozen
class Host:
    """A physical machine and the VMs to place on it.

    :param pcpus: number of pCPUs, ``>= 1``; they are indexed from 0.
    :param vms: the VMs, in the order they are offered; names are unique.
    :param test: the admission test, a key of
        :data:`~akita.model.admission_tests.ADMISSION_TESTS`.
    :param options: how the reference scheduler resolves the paper's open
        points (:class:`~.options.SchedulerOptions`).
    :raises ModelError: naming the field that is wrong.
    """

    pcpus: int
    vms: tuple[VM, ...] = attrs.field(default=(), converter=tuple)
    test: str = DEFAULT_TEST
    options: SchedulerOptions = SchedulerOptions()

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.pcpus, int) or isinstance(self.pcpus, bool) or self.pcpus < 1:
            raise ModelError("host.pcpus", self.pcpus, "an integer >= 1")
        if not isinstance(self.test, str) or self.test not in ADMISSION_TESTS:
            raise ModelError("host.test", self.test, f"one of {', '.join(map(repr, ADMISSION_TESTS))}")
        seen: set[str] = set()
        for vm in self.vms:
            if not isinstance(vm, VM):
                raise ModelError("vm", vm, "a VM")
            if vm.name in seen:
                raise ModelError("name", vm.name, "a name used by no other VM", vm=vm.name)
            seen.add(vm.name)

    def vm(self, name: str) -> VM:
        """The VM called *name*."""
        for vm in self.vms:
            if vm.name == name:
                return vm
        raise KeyError(name)
