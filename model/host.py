"""A host: its pCPUs, the admission test it uses, and the VMs offered to it.

The VMs are kept in the order the provider offers them: first fit (R12)
admits them in that order.  Every pCPU starts in LO mode (R13); that is a
property of the scheduler, not of this description.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence

import attrs

from .admission_tests import ADMISSION_TESTS, DEFAULT_TEST
from .errors import ModelError
from .options import SchedulerOptions
from .vm import VM

__all__ = ["Host", "PID_MAX", "check_trace_key", "check_trace_vcpu", "trace_map_field"]


#: The longest comm the kernel keeps (``TASK_COMM_LEN`` is 16 bytes with the NUL).
_COMM_BYTES = 15
_PID = re.compile(r"[0-9]+")
_VCPU = re.compile(r"([^/]+)/(0|[1-9][0-9]{0,8})")
#: The largest pid a Linux kernel hands out (``PID_MAX_LIMIT``, 2**22 on 64-bit).
PID_MAX = 4_194_304


def trace_map_field(key: object) -> str:
    """The field of a trace-map entry as a host file spells it: ``trace_map."4242"``."""
    shown = json.dumps(key, ensure_ascii=False) if isinstance(key, str) else repr(key)
    return f"trace_map.{shown}"


def check_trace_key(key: object, *, field: str) -> str:
    """*key* if it can name a task in a kernel trace: a pid or a comm.

    A key of decimal digits is a pid: it must be written without leading zeros
    and must not be ``0``, which is the idle task of every CPU.
    A pid is at most :data:`PID_MAX`, so a key of thousands of digits is
    refused before it is turned into a number.  Any other
    non-empty string is a comm, at most 15 bytes in UTF-8, since the kernel
    truncates longer names (``qemu-system-x86_64`` runs as ``qemu-system-x86``)
    and a longer key could never match.

    :raises ModelError: naming *field*.
    """
    if not isinstance(key, str) or not key:
        raise ModelError(field, key, "a pid or a comm as a non-empty string")
    if _PID.fullmatch(key):
        if key == "0":
            raise ModelError(field, key, "a pid other than 0 (pid 0 is the idle task)")
        if len(key) > len(str(PID_MAX)) or int(key) > PID_MAX:
            raise ModelError(field, key, f"a pid of at most {PID_MAX} (the kernel's PID_MAX_LIMIT)")
        if key != str(int(key)):
            raise ModelError(field, key, "a pid without leading zeros")
    elif len(key.encode("utf-8")) > _COMM_BYTES:
        raise ModelError(
            field, key, f"a comm of at most {_COMM_BYTES} bytes (the kernel truncates longer names)"
        )
    return key


def check_trace_vcpu(value: object, *, field: str) -> tuple[str, int]:
    """The VM name and vCPU index of the vCPU name *value*, ``"VM/i"``.

    :raises ModelError: naming *field*, if *value* is not shaped ``VM/i``
        (``i`` in decimal without leading zeros, at most 9 digits).
    """
    match = _VCPU.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise ModelError(field, value, "a vCPU name 'VM/i', e.g. 'web/0'")
    return match.group(1), int(match.group(2))


def _vm_tuple(vms: Iterable[VM]) -> tuple[VM, ...]:
    return tuple(vms)


def _trace_pairs(value: object) -> tuple[tuple[str, str], ...]:
    """A trace map as pairs sorted by key, from a mapping or from pairs."""
    expected = "a table from pids or comms to vCPU names 'VM/i'"
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, (tuple, list)):
        pairs = list(value)
    else:
        raise ModelError("trace_map", value, expected)
    seen: set[str] = set()
    for pair in pairs:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ModelError("trace_map", value, expected)
        key = pair[0]
        check_trace_key(key, field=trace_map_field(key))
        if key in seen:
            raise ModelError(trace_map_field(key), key, "each pid or comm at most once")
        seen.add(key)
    return tuple(sorted(((key, vcpu) for key, vcpu in pairs), key=lambda pair: pair[0]))


#: The workloads whose requests can travel an I/O path (they have arrivals).
_REQUESTS = ("periodic", "sporadic", "poisson", "trace", "closed")


def _check_io_paths(vms: Sequence[VM]) -> None:
    """Each ``io_via`` names a backend VM of the host, and the VM has requests to send;
    a backend sends nothing on (its own workload, if any, is work beside the packets)."""
    backends = {vm.name: vm for vm in vms if vm.io.is_backend}
    for vm in vms:
        if vm.io.is_backend and vm.io.via is not None:
            raise ModelError("io_via", vm.io.via, "none on a backend VM", vm=vm.name)
        via = vm.io.via
        if via is None:
            if vm.workload.kind == "closed":
                raise ModelError("workload.kind", "closed", "an io_via for a closed loop (the "
                                 "reply's return sends the next request)", vm=vm.name)
            continue
        if via not in backends:
            raise ModelError("io_via", via, "a VM of the host with a packet_cost", vm=vm.name)
        if vm.workload.kind not in _REQUESTS:
            raise ModelError("workload.kind", vm.workload.kind,
                             f"a workload with requests ({', '.join(_REQUESTS)}) to send via "
                             f"{via}", vm=vm.name)


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
    vms: tuple[VM, ...] = attrs.field(default=(), converter=_vm_tuple)
    test: str = DEFAULT_TEST
    options: SchedulerOptions = SchedulerOptions()
    trace_map: tuple[tuple[str, str], ...] = attrs.field(default=(), converter=_trace_pairs)

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
            for c in vm.share.pin:
                if c >= self.pcpus:
                    raise ModelError("pin", list(vm.share.pin),
                                     f"pCPU indices below host.pcpus ({self.pcpus})", vm=vm.name)
        _check_io_paths(self.vms)
        vcpus = {vm.name: vm.vcpus for vm in self.vms}
        for key, value in self.trace_map:
            field = trace_map_field(key)
            name, index = check_trace_vcpu(value, field=field)
            if name not in vcpus:
                raise ModelError(
                    field, value, f"a vCPU of a VM of the host; there is no VM {name!r}"
                )
            if index >= vcpus[name]:
                raise ModelError(
                    field, value, f"a vCPU of VM {name!r}, which has vCPUs 0 to {vcpus[name] - 1}"
                )

    def vm(self, name: str) -> VM:
        """The VM called *name*."""
        for vm in self.vms:
            if vm.name == name:
                return vm
        raise KeyError(name)
