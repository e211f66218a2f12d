"""The host file: TOML in, :class:`~.host.Host` out, and back.

The format (documented in ``docs/host-file.rst``)::

    [host]
    pcpus = 2            # >= 1
    test = "edf-vd"      # admission test; default "edf-vd"

    [[vm]]
    name = "memcached"   # unique
    type = "Type1"       # optional Table 1 preset; explicit keys override it
    vcpus = 1            # default 1

    [[vm]]
    name = "batch"
    criticality = "LO"   # "HI" | "LO"
    period = "100ms"
    c_opt = "25ms"
    # c_pes = "..."      # required for HI, refused for LO

    [trace_map]          # optional: kernel tasks (pid or comm) to vCPUs
    "4242" = "memcached/0"
    "qemu-batch" = "batch/0"

    [conform]            # optional: how akita conform judges this host's traces
    policy = "edf"       # "akita" | "edf"
    placement = "trace"  # "first-fit" | "trace"
    origin = "5192.169386558"   # kernel seconds, as ftrace prints them

Reading is strict: unknown keys, missing keys and values of the wrong kind
are refused with a :class:`~.errors.ModelError` that names the file, the VM
and the field.  A preset fills in criticality, period and budgets; if an
explicit ``criticality = "LO"`` overrides a HI preset, the preset's
``c_pes`` is dropped with it (a LO VM has none).
"""

from __future__ import annotations

import os
import re
from fractions import Fraction
from typing import Any, Callable, cast

import attrs

from .admission_tests import DEFAULT_TEST
from .criticality import Criticality
from .duration import format_duration, parse_duration
from .errors import HostFileError, ModelError
from .guest import Guest
from .host import Host, trace_map_field
from .io_path import IOPath
from .limits import (MAX_CONNECTIONS, MAX_GUEST_THREADS, MAX_HYSTERESIS, MAX_INTEGER,
                     MAX_NUMBER_CHARS, MAX_PCPUS, MAX_STRING_CHARS, MAX_TOTAL_VCPUS,
                     MAX_VCPUS_PER_VM, MAX_VMS, check_count, read_bounded)
from .options import SchedulerOptions, is_duration
from .presets import PRESETS
from .rules import RULE_SETS
from .share import Share
from .specfile import parse_toml
from .vm import VM
from .workload import Workload

__all__ = ["load_host", "loads_host", "load_conform", "dumps_host", "host_json",
           "parse_fraction", "parse_workload", "CONFORM_CHOICES"]

_TOP_KEYS = ("host", "vm", "trace_map", "conform")
#: The keys of ``[conform]`` with a fixed set of values (the oracle's rule sets and
#: placements, :data:`akita.oracle.oracle.POLICIES`, :data:`akita.oracle.placement.PLACEMENTS`).
CONFORM_CHOICES: dict[str, tuple[str, ...]] = {
    "policy": RULE_SETS, "placement": ("first-fit", "trace")}
#: ``[conform] origin``: seconds as ftrace prints them.
_SECONDS = re.compile(r"[0-9]{1,12}\.[0-9]{1,9}")
#: The scheduler options, in the order of the fields of :class:`~.options.SchedulerOptions`.
_OPTIONS = attrs.fields(SchedulerOptions)
_OPTION_KEYS = tuple(option.name for option in _OPTIONS)
_HOST_KEYS = ("pcpus", "test") + _OPTION_KEYS
_SHARE_KEYS = ("weight", "cap", "nice", "pin", "slice")
_VM_KEYS = ("name", "type", "vcpus", "criticality", "period", "c_opt", "c_pes", "phase",
            "ioq", "io_via", "io_latency", "packet_cost", "workload", "guest") \
    + _SHARE_KEYS
_WORKLOAD_DURATIONS = ("demand", "min_demand", "offset", "period", "service", "window", "think")
_WORKLOAD_FRACTIONS = ("probability", "rate", "utilization")
_WORKLOAD_INTEGERS = ("connections",)
_WORKLOAD_BOOLEANS = ("burn",)
_WORKLOAD_KEYS = (("kind", "distribution", "path") + _WORKLOAD_DURATIONS + _WORKLOAD_FRACTIONS
                  + _WORKLOAD_INTEGERS + _WORKLOAD_BOOLEANS)
_GUEST_DURATIONS = ("work", "period")
#: The keys of ``[vm.guest]``, in the order of the fields of :class:`~.guest.Guest`.
_GUEST_KEYS = tuple(field.name for field in attrs.fields(Guest))


class _Missing:
    def __repr__(self) -> str:
        return "nothing"


_MISSING = _Missing()
_DEFAULT_SHARE = Share()


def load_host(path: str | os.PathLike[str]) -> Host:
    """Read the host file at *path*.

    The file's size is checked against
    :data:`~akita.model.limits.MAX_FILE_BYTES` before it is read, and no
    more than that is ever read.

    :raises ModelError: (a :class:`~.errors.HostFileError` for I/O, size and
        TOML syntax) carrying the path, the VM and the field.
    """
    shown = os.fspath(path)
    text = read_bounded(path)
    return loads_host(text, path=shown, base=os.path.dirname(os.path.abspath(shown)))


def loads_host(text: str, *, path: str = "<string>", base: str | None = None) -> Host:
    """Read a host file's *text*.

    Every ceiling of :mod:`~akita.model.limits` is checked before the work
    it bounds: the text's size, line length and nesting before it is parsed,
    every number and string of the document before a VM is built.

    :param path: the file's name, for error messages.
    :param base: the folder that trace paths are read from (default: the
        current folder); a trace path is relative to it and stays inside it.
        Paths are stored absolute.
    """
    if not isinstance(text, str):
        raise HostFileError("file", type(text).__name__, "the host file's text as a str", path=path)
    document = parse_toml(text, path=path)
    try:
        _bounded(document, "")
        return _host(document, base if base is not None else os.getcwd())
    except ModelError as error:
        raise error.located(path=path) from None


def load_conform(path: str | os.PathLike[str]) -> dict[str, str]:
    """The ``[conform]`` table of the host file at *path* (empty if it has none), checked.

    It is not part of the :class:`~.host.Host`: it says how ``akita conform``
    judges the host's traces -- ``policy``, ``placement`` and ``origin`` (a
    kernel trace's ``t = 0``, in seconds as ftrace prints them) -- where the
    command line does not say.

    :raises ModelError: naming the file and the field ``conform.KEY``.
    """
    shown = os.fspath(path)
    document = parse_toml(read_bounded(path), path=shown)
    try:
        return _conform(document.get("conform", {}))
    except ModelError as error:
        raise error.located(path=shown) from None


def _conform(table: object) -> dict[str, str]:
    """The ``[conform]`` table: known keys, each a string of the values it may take."""
    if not isinstance(table, dict):
        raise ModelError("conform", table, "a [conform] table")
    _unknown_keys(table, tuple(CONFORM_CHOICES) + ("origin",), "conform", None)
    for key, value in table.items():
        field = f"conform.{key}"
        choices = CONFORM_CHOICES.get(key)
        if choices is not None and value not in choices:
            raise ModelError(field, value, "one of " + ", ".join(repr(c) for c in choices))
        if key == "origin" and (not isinstance(value, str) or _SECONDS.fullmatch(value) is None):
            raise ModelError(field, value, "seconds as ftrace prints them, as a string, "
                             "e.g. \"5192.169386558\"")
    return dict(table)


def _bounded(value: object, field: str, vm: str | None = None) -> None:
    """Refuse an integer beyond :data:`~.limits.MAX_INTEGER` or a string or key
    beyond :data:`~.limits.MAX_STRING_CHARS` anywhere in *value*, before any is used.

    The fields are named as the rest of the reader names them: ``host.pcpus``,
    a VM's ``period`` with the VM, ``trace_map."KEY"``.
    """
    if isinstance(value, dict):
        for key, item in value.items():
            if len(key) > MAX_STRING_CHARS:
                raise ModelError(field or "key", key,
                                 f"a key of at most {MAX_STRING_CHARS} characters", vm=vm)
            if not field and key == "vm" and isinstance(item, list):
                for entry in item:
                    name = entry.get("name") if isinstance(entry, dict) else None
                    shown = name if isinstance(name, str) and len(name) <= MAX_STRING_CHARS else None
                    _bounded(entry, "", shown)
                continue
            _bounded(item, trace_map_field(key) if field == "trace_map"
                     else f"{field}.{key}" if field else key, vm)
    elif isinstance(value, list):
        for item in value:
            _bounded(item, field, vm)
    elif isinstance(value, bool):
        return
    elif isinstance(value, int):
        if not -MAX_INTEGER <= value <= MAX_INTEGER:
            raise ModelError(field, value, f"an integer of magnitude at most {MAX_INTEGER}", vm=vm)
    elif isinstance(value, str) and len(value) > MAX_STRING_CHARS:
        raise ModelError(field, value, f"a string of at most {MAX_STRING_CHARS} characters", vm=vm)


def dumps_host(host: Host) -> str:
    """Write *host* as a host file; ``loads_host(dumps_host(h)) == h``."""
    section: dict[str, Any] = {"pcpus": host.pcpus, "test": host.test}
    section.update(_option_table(host.options, durations=format_duration))
    document: dict[str, Any] = {"host": section}
    vms = []
    for vm in host.vms:
        entry: dict[str, Any] = {"name": vm.name}
        if vm.preset is not None:
            entry["type"] = vm.preset
        entry["criticality"] = vm.criticality.value
        entry["period"] = format_duration(vm.period)
        entry["c_opt"] = format_duration(vm.c_opt)
        if vm.c_pes is not None:
            entry["c_pes"] = format_duration(vm.c_pes)
        if vm.phase is not None:
            entry["phase"] = format_duration(vm.phase)
        if vm.ioq is not None:
            entry["ioq"] = format_duration(vm.ioq)
        entry.update(_io_table(vm.io, format_duration))
        entry["vcpus"] = vm.vcpus
        entry.update(_share_table(vm.share, format_duration))
        entry["workload"] = _workload_table(vm.workload)
        if vm.guest is not None:
            entry["guest"] = _guest_table(vm.guest, durations=format_duration)
        vms.append(entry)
    if vms:
        document["vm"] = vms
    if host.trace_map:
        document["trace_map"] = dict(host.trace_map)
    import tomli_w  # only to write a host file: reading one does not load it

    return tomli_w.dumps(document)


def _unknown_keys(table: dict[str, object], allowed: tuple[str, ...], where: str,
                  vm: str | None) -> None:
    for key in table:
        if key not in allowed:
            field = f"{where}.{key}" if where else key
            raise ModelError(field, key, f"a known key ({', '.join(allowed)})", vm=vm)


def host_json(host: Host) -> dict[str, Any]:
    """*host* normalized for machines: times in integer ns, fractions as ``"p/q"``.

    This is the ``"host"`` object of a trace header.  It has a
    ``"trace_map"`` object only when the host has a non-empty trace map, so
    that the header of a host without one is unchanged.
    """
    result: dict[str, Any] = {
        "pcpus": host.pcpus,
        "test": host.test,
        "options": _option_table(host.options),
        "vms": [
            {
                "name": vm.name,
                "criticality": vm.criticality.value,
                "period": vm.period,
                "c_opt": vm.c_opt,
                "c_pes": vm.c_pes,
                **({} if vm.phase is None else {"phase": vm.phase}),
                **({} if vm.ioq is None else {"ioq": vm.ioq}),
                **_io_table(vm.io, int),
                "vcpus": vm.vcpus,
                **_share_table(vm.share),
                "workload": {
                    key: (str(value) if isinstance(value, Fraction) else value)
                    for key, value in attrs.asdict(vm.workload).items()
                    if value is not None
                },
                **({} if vm.guest is None else {"guest": _guest_table(vm.guest)}),
            }
            for vm in host.vms
        ],
    }
    if host.trace_map:
        result["trace_map"] = dict(host.trace_map)
    return result


def _option_table(options: SchedulerOptions,
                  durations: Callable[[int], str] | None = None) -> dict[str, Any]:
    """Every option, by its key, in field order; a duration rendered by *durations*, if given.

    The host file writes a duration with a unit (``format_duration``); JSON
    keeps integer ns.
    """
    table: dict[str, Any] = {}
    for option in _OPTIONS:
        value = getattr(options, option.name)
        table[option.name] = durations(value) if durations and is_duration(option) else value
    return table


def _io_table(io: IOPath, shown: Callable[[int], Any]) -> dict[str, Any]:
    """A VM's I/O path keys, those that differ from the default only."""
    table: dict[str, Any] = {}
    if io.via is not None:
        table["io_via"] = io.via
    if io.latency:
        table["io_latency"] = shown(io.latency)
    if io.packet_cost is not None:
        table["packet_cost"] = shown(io.packet_cost)
    return table


def _share_table(share: Share, shown: Callable[[int], Any] = int) -> dict[str, Any]:
    """The baseline keys that differ from their defaults (none for most hosts);
    *shown* writes the ``slice`` duration."""
    table: dict[str, Any] = {}
    for key in _SHARE_KEYS:
        value = getattr(share, key)
        if value != getattr(_DEFAULT_SHARE, key):
            table[key] = list(value) if key == "pin" else shown(value) if key == "slice" else value
    return table


def _guest_table(guest: Guest,
                 durations: Callable[[int], str] | None = None) -> dict[str, Any]:
    """Every key of *guest* that is set, in :data:`_GUEST_KEYS` order."""
    table: dict[str, Any] = {}
    for key in _GUEST_KEYS:
        value = getattr(guest, key)
        if value is not None:
            table[key] = durations(value) if durations and key in _GUEST_DURATIONS else value
    return table


#: How one value of a ``[vm.SECTION]`` table is read: ``(value, field, vm) -> value``.
_Reader = Callable[[object, str, str], Any]


def _string(value: object, field: str, vm: str) -> str:
    if not isinstance(value, str):
        raise ModelError(field, value, "a string", vm=vm)
    return value


def _integer(value: object, field: str, vm: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ModelError(field, value, "an integer", vm=vm)
    return value


def _count(value: object, field: str, vm: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ModelError(field, value, "an integer >= 1", vm=vm)
    return value


def _boolean(value: object, field: str, vm: str) -> bool:
    if not isinstance(value, bool):
        raise ModelError(field, value, "true or false", vm=vm)
    return value


def _duration(value: object, field: str, vm: str) -> int:
    return parse_duration(value, field=field, vm=vm)


def _fraction(value: object, field: str, vm: str) -> Fraction:
    return parse_fraction(value, field=field, vm=vm)


def _fields(table: dict[str, Any], section: str, vm: str,
            readers: dict[str, _Reader]) -> dict[str, Any]:
    """Every value of a ``[vm.SECTION]`` table, read in the table's order by its key's reader
    (a string where the key has none); the first bad one is refused, naming its field."""
    return {key: readers.get(key, _string)(value, f"{section}.{key}", vm)
            for key, value in table.items()}


def _at_most(ceiling: int) -> _Reader:
    """A reader of a count ``1 <= value <= ceiling`` (a ceiling of :mod:`.limits`)."""

    def read(value: object, field: str, vm: str) -> int:
        return check_count(_count(value, field, vm), ceiling, field=field, vm=vm)

    return read


#: Each key's reader, for the keys that are not strings.  Every count a file declares
#: has a ceiling (:mod:`.limits`): a count drives the work that follows.
_GUEST_READERS: dict[str, _Reader] = {**dict.fromkeys(_GUEST_DURATIONS, _duration),
                                       "threads": _at_most(MAX_GUEST_THREADS),
                                       "hysteresis": _at_most(MAX_HYSTERESIS)}
_WORKLOAD_READERS: dict[str, _Reader] = {**dict.fromkeys(_WORKLOAD_DURATIONS, _duration),
                                         **dict.fromkeys(_WORKLOAD_FRACTIONS, _fraction),
                                         "connections": _at_most(MAX_CONNECTIONS),
                                         **dict.fromkeys(_WORKLOAD_BOOLEANS, _boolean)}


def _guest(table: object, vm: str) -> Guest:
    """A ``[vm.guest]`` table (:mod:`~.guest`)."""
    if not isinstance(table, dict):
        raise ModelError("guest", table, "a [vm.guest] table", vm=vm)
    _unknown_keys(table, _GUEST_KEYS, "guest", vm)
    if "program" not in table:
        raise ModelError("guest.program", _MISSING, "a program for the guest", vm=vm)
    fields = _fields(table, "guest", vm, _GUEST_READERS)
    try:
        return Guest(**fields)
    except ModelError as error:
        raise error.located(vm=vm) from None


def _workload_table(workload: Workload) -> dict[str, Any]:
    table: dict[str, Any] = {"kind": workload.kind}
    for key in _WORKLOAD_KEYS[1:]:
        value = getattr(workload, key)
        if value is None:
            continue
        if key in _WORKLOAD_DURATIONS:
            value = format_duration(value)
        elif key in _WORKLOAD_FRACTIONS:
            value = str(value)
        table[key] = value
    return table


#: A number as :func:`parse_fraction` reads it: a decimal (with a short
#: exponent, as a TOML float prints) or a quotient of integers.  ASCII only.
_FRACTION = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?"
                       r"|[+-]?[0-9]+\s*/\s*[0-9]+")


def parse_fraction(value: object, *, field: str, vm: str | None = None) -> Fraction:
    """An exact fraction from ``3``, ``"1/4"``, ``"25%"`` or ``"0.25"`` (a TOML float too).

    The text is at most :data:`~.limits.MAX_NUMBER_CHARS` characters and an
    exponent at most three digits, so no number costs more than a moment.
    """
    expected = "a number such as 700, '1/4', '25%' or '0.25'"
    if isinstance(value, bool):
        raise ModelError(field, value, expected, vm=vm)
    if isinstance(value, int) and abs(value) > MAX_INTEGER:
        raise ModelError(field, value, f"{expected}, at most {MAX_INTEGER}", vm=vm)
    if isinstance(value, (int, float)):
        value = str(value)
    if not isinstance(value, str):
        raise ModelError(field, value, expected, vm=vm)
    if len(value) > MAX_NUMBER_CHARS:
        raise ModelError(field, value, f"{expected}, of at most {MAX_NUMBER_CHARS} characters",
                         vm=vm)
    text = value.strip()
    scale = Fraction(1)
    if text.endswith("%"):
        text, scale = text[:-1].strip(), Fraction(1, 100)
    if not _FRACTION.fullmatch(text):
        raise ModelError(field, value, expected, vm=vm)
    try:
        return Fraction(text.replace(" ", "")) * scale
    except (ValueError, ZeroDivisionError):
        raise ModelError(field, value, expected, vm=vm) from None


#: The most requests per second a poisson workload may ask for (one every 100 ns).
MAX_RATE = 10**7


def parse_workload(table: object, *, vm: str, base: str) -> Workload:
    """A ``[vm.workload]`` table read as a host file reads it, for other files that
    give VMs workloads (``akita fleet``'s mix, :mod:`akita.fleet.spec`).

    :param vm: the name shown in error messages.
    :param base: the folder a ``trace`` workload's ``path`` is relative to.
    :raises ModelError: naming *vm* and the field ``workload.KEY``.
    """
    return _workload(table, vm, base)


def _workload(table: object, vm: str, base: str) -> Workload:
    if not isinstance(table, dict):
        raise ModelError("workload", table, "a [vm.workload] table", vm=vm)
    _unknown_keys(table, _WORKLOAD_KEYS, "workload", vm)
    fields = _fields(table, "workload", vm, _WORKLOAD_READERS)
    if "rate" in fields and fields["rate"] > MAX_RATE:
        raise ModelError("workload.rate", table["rate"],
                         f"a rate of at most {MAX_RATE} requests per second", vm=vm)
    if "path" in fields:
        fields["path"] = _inside(fields["path"], base, vm)
    try:
        return Workload(**fields)
    except ModelError as error:
        raise error.located(vm=vm) from None


def _inside(path: str, base: str, vm: str) -> str:
    """The trace file *path*, relative to *base*, as an absolute path inside *base*.

    A host file names only files in its own folder or below it: an absolute
    path, or one that ``..`` or a symbolic link leads out of the folder, is
    refused, so that a host file cannot make a command read (and quote from)
    any file the user can read.
    """
    expected = "a path relative to the host file's folder, inside it (e.g. 'traces/jobs.csv')"
    if not path or "\0" in path or os.path.isabs(path):
        raise ModelError("workload.path", path, expected, vm=vm)
    root = os.path.realpath(base)
    full = os.path.realpath(os.path.join(root, path))
    if os.path.commonpath([root, full]) != root or full == root:
        raise ModelError("workload.path", path, expected, vm=vm)
    return os.path.normpath(os.path.join(base, path))


def _options(section: dict[str, object]) -> SchedulerOptions:
    fields: dict[str, Any] = {}
    for option in _OPTIONS:
        if option.name in section:
            value = section[option.name]
            fields[option.name] = (parse_duration(value, field=f"host.{option.name}")
                                   if is_duration(option) else value)
    return SchedulerOptions(**fields)


def _host(document: dict[str, object], base: str) -> Host:
    _unknown_keys(document, _TOP_KEYS, "", None)
    section = document.get("host", _MISSING)
    if not isinstance(section, dict):
        raise ModelError("host", section, "a [host] table")
    _unknown_keys(section, _HOST_KEYS, "host", None)
    pcpus = section.get("pcpus", _MISSING)
    if not isinstance(pcpus, int) or isinstance(pcpus, bool):
        raise ModelError("host.pcpus", pcpus, "an integer >= 1")
    check_count(pcpus, MAX_PCPUS, field="host.pcpus")
    test = section.get("test", DEFAULT_TEST)
    entries = document.get("vm", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ModelError("vm", entries, "[[vm]] tables")
    if len(entries) > MAX_VMS:
        raise ModelError("vm", f"{len(entries)} VMs", f"at most {MAX_VMS} [[vm]] tables")
    vms = []
    total = 0
    for position, entry in enumerate(entries, start=1):
        vm = _vm(entry, position, base)
        total += vm.vcpus
        if total > MAX_TOTAL_VCPUS:
            raise ModelError("vcpus", vm.vcpus,
                             f"at most {MAX_TOTAL_VCPUS} vCPUs on the host in all "
                             f"(the VMs before this one have {total - vm.vcpus})", vm=vm.name)
        vms.append(vm)
    _conform(document.get("conform", {}))  # checked here too: a bad table is bad input
    return Host(pcpus=pcpus, vms=vms, test=test, options=_options(section),
                trace_map=_trace_map(document.get("trace_map", {})))


def _trace_map(table: object) -> dict[str, str]:
    """The ``[trace_map]`` table; :class:`~.host.Host` checks its keys and vCPUs."""
    if not isinstance(table, dict):
        raise ModelError("trace_map", table, "a [trace_map] table of pids or comms to 'VM/i'")
    for key, value in table.items():
        if not isinstance(value, str):
            raise ModelError(trace_map_field(key), value, "a vCPU name 'VM/i' as a string")
    return table


def _io_path(entry: dict[str, object], name: str) -> IOPath:
    """The VM's ``io_via``, ``io_latency`` and ``packet_cost`` (:mod:`.io_path`)."""
    via = entry.get("io_via")
    if via is not None and not isinstance(via, str):
        raise ModelError("io_via", via, "the name of a VM of the host", vm=name)
    latency = (parse_duration(entry["io_latency"], field="io_latency", vm=name)
               if "io_latency" in entry else 0)
    cost = (parse_duration(entry["packet_cost"], field="packet_cost", vm=name)
            if "packet_cost" in entry else None)
    try:
        return IOPath(via, latency, cost)
    except ModelError as error:
        raise error.located(vm=name) from None


def _vm(entry: dict[str, object], position: int, base: str) -> VM:
    name = entry.get("name", _MISSING)
    if not isinstance(name, str):
        raise ModelError("name", name, f"a name for the VM at position {position}")
    _unknown_keys(entry, _VM_KEYS, "", name)
    fields: dict[str, Any] = {}
    preset_name = entry.get("type")
    if preset_name is not None:
        preset = PRESETS.get(preset_name) if isinstance(preset_name, str) else None
        if preset is None:
            raise ModelError("type", preset_name, f"one of {', '.join(PRESETS)}", vm=name)
        fields = {
            "criticality": preset.criticality,
            "period": preset.period,
            "c_opt": preset.c_opt,
            "c_pes": preset.c_pes,
        }
    if "criticality" in entry:
        value = entry["criticality"]
        if value not in ("HI", "LO"):
            raise ModelError("criticality", value, "'HI' or 'LO'", vm=name)
        fields["criticality"] = Criticality(value)
        if fields["criticality"] is Criticality.LO:
            fields["c_pes"] = None
    for key in ("period", "c_opt", "c_pes", "phase", "ioq"):
        if key in entry:
            fields[key] = parse_duration(entry[key], field=key, vm=name)
    for key in ("criticality", "period", "c_opt"):
        if key not in fields:
            raise ModelError(key, _MISSING, f"a value for {key!r} (or a 'type' preset)", vm=name)
    if fields["criticality"] is Criticality.HI and fields.get("c_pes") is None:
        raise ModelError("c_pes", _MISSING, "a pessimistic budget for a HI VM", vm=name)
    vcpus = entry.get("vcpus", 1)
    if not isinstance(vcpus, int) or isinstance(vcpus, bool):
        raise ModelError("vcpus", vcpus, "an integer >= 1", vm=name)
    check_count(vcpus, MAX_VCPUS_PER_VM, field="vcpus", vm=name)
    if "workload" in entry:
        fields["workload"] = _workload(entry["workload"], name, base)
    fields["io"] = _io_path(entry, name)
    if "guest" in entry:
        fields["guest"] = _guest(entry["guest"], name)
    share: dict[str, Any] = {key: entry[key] for key in _SHARE_KEYS if key in entry}
    if share:
        if "pin" in share and not isinstance(share["pin"], list):
            raise ModelError("pin", share["pin"], "a list of pCPU indices, e.g. [0, 1]", vm=name)
        if "slice" in share:
            share["slice"] = parse_duration(share["slice"], field="slice", vm=name)
        try:
            fields["share"] = Share(**share)
        except ModelError as error:
            raise error.located(vm=name) from None
    # preset_name is None or a key of PRESETS (checked above)
    return VM(name=name, vcpus=vcpus, preset=cast("str | None", preset_name), **fields)
