"""The disk file: VMs, their processes and the drive, for ``akita disk``.

A TOML file (``examples/disk-mixed.toml`` is one)::

    [run]                       # optional
    duration = "10s"            # simulated span
    seed = 1

    [drive]                     # optional: the WD Caviar Black 1 TB by default
    rpm = 7200                  # any field of Drive, durations with a unit

    [[vm]]
    name = "mix"
    image_sectors = 25165824    # optional: 12 GiB

    [[vm.process]]
    name = "reader"
    pattern = "seqrd"           # seqrd, seqwr, rndrd, rndwr
    think = "100us"             # optional, and request_sectors, file_sectors,
                                # file, start, stride (Workload's fields)

Every error names the file, the VM where there is one, the field, what was
expected and what was found, on one line (:class:`DiskFileError`).
Unknown keys are refused, so that a misspelt field is not silently
defaulted.
"""

from __future__ import annotations

import os
from typing import Any

import attrs

from akita.model import ModelError, parse_duration
from akita.model.limits import read_bounded
from akita.model.specfile import parse_toml

from .drive import WD_CAVIAR_BLACK_1TB, Drive
from .workload import ProcessSpec, VMSpec

__all__ = ["DiskFileError", "DiskRun", "load_disk_file", "loads_disk_file"]

_RUN = ("duration", "seed")
_DRIVE = {"name": str, "sectors": int, "rpm": int, "track_to_track": "ns",
          "average_seek": "ns", "full_stroke": "ns", "bytes_per_s": int, "surfaces": int}
_VM = ("name", "image_sectors", "process")
_PROCESS = {"name": str, "pattern": str, "think": "ns", "request_sectors": int,
            "file_sectors": int, "file": int, "start": int, "stride": int}


class DiskFileError(ModelError):
    """A disk file cannot be read or is not shaped as the format requires."""


@attrs.frozen
class DiskRun:
    """What a disk file describes."""

    drive: Drive
    vms: tuple[VMSpec, ...]
    duration_ns: int = 10 * 10**9
    seed: int = 1


def load_disk_file(path: str | os.PathLike[str]) -> DiskRun:
    """Read the disk file at *path*."""
    shown = os.fspath(path)
    return loads_disk_file(read_bounded(path, kind="disk file", error=DiskFileError), path=shown)


def loads_disk_file(text: str, *, path: str = "<string>") -> DiskRun:
    """Read a disk file's *text*; *path* names it in errors."""
    document = parse_toml(text, path=path, kind="disk file", error=DiskFileError)
    try:
        return _run(document)
    except ModelError as error:
        raise DiskFileError(error.field, error.value, error.expected, vm=error.vm,
                            path=path) from None


def _keys(table: object, allowed: Any, where: str, vm: str | None = None) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise DiskFileError(where, table, "a table", vm=vm)
    for key in table:
        if key not in allowed:
            raise DiskFileError(f"{where}.{key}" if where else key, table[key],
                                f"a key of {where or 'the file'}: {', '.join(allowed)}", vm=vm)
    return table


def _value(table: dict[str, Any], key: str, kind: object, where: str, vm: str | None) -> object:
    value = table[key]
    field = f"{where}.{key}"
    if kind == "ns":
        return parse_duration(value, field=field, vm=vm)
    if kind is int and (not isinstance(value, int) or isinstance(value, bool)):
        raise DiskFileError(field, value, "an integer", vm=vm)
    if kind is str and not isinstance(value, str):
        raise DiskFileError(field, value, "a string", vm=vm)
    return value


def _run(document: dict[str, Any]) -> DiskRun:
    _keys(document, ("run", "drive", "vm"), "")
    run = _keys(document.get("run", {}), _RUN, "run")
    duration = parse_duration(run.get("duration", "10s"), field="run.duration")
    seed = _value(run, "seed", int, "run", None) if "seed" in run else 1
    vms = document.get("vm")
    if not isinstance(vms, list) or not vms:
        raise DiskFileError("vm", vms, "at least one [[vm]] table")
    specs = tuple(_vm(entry, i) for i, entry in enumerate(vms))
    names = [vm.name for vm in specs]
    if len(set(names)) != len(names):
        raise DiskFileError("vm.name", names, "distinct VM names")
    assert isinstance(seed, int)
    return DiskRun(_drive(document.get("drive", {})), specs, duration, seed)


def _drive(table: object) -> Drive:
    table = _keys(table, tuple(_DRIVE), "drive")
    fields: dict[str, Any] = {
        key + ("_ns" if _DRIVE[key] == "ns" else ""): _value(table, key, _DRIVE[key], "drive", None)
        for key in table}
    return attrs.evolve(WD_CAVIAR_BLACK_1TB, **fields)


def _vm(entry: object, position: int) -> VMSpec:
    table = _keys(entry, _VM, "vm")
    name = table.get("name", f"vm{position + 1}")
    if not isinstance(name, str) or not name:
        raise DiskFileError("vm.name", name, "a non-empty string")
    processes = table.get("process")
    if not isinstance(processes, list) or not processes:
        raise DiskFileError("vm.process", processes, "at least one [[vm.process]] table", vm=name)
    specs = tuple(_process(p, i, name) for i, p in enumerate(processes))
    image = table.get("image_sectors", VMSpec(name, specs).image_sectors)
    if not isinstance(image, int) or isinstance(image, bool) or image <= 0:
        raise DiskFileError("vm.image_sectors", image, "a positive integer", vm=name)
    return VMSpec(name, specs, image)


def _process(entry: object, position: int, vm: str) -> ProcessSpec:
    table = _keys(entry, tuple(_PROCESS), "process", vm)
    if "pattern" not in table:
        raise DiskFileError("process.pattern", None, "one of seqrd, seqwr, rndrd, rndwr", vm=vm)
    fields: dict[str, Any] = {
        ("think_ns" if key == "think" else key): _value(table, key, _PROCESS[key], "process", vm)
        for key in table}
    fields.setdefault("name", f"{vm}-p{position}")
    try:
        return ProcessSpec(**fields)
    except ModelError as error:
        raise DiskFileError(f"process.{error.field}", error.value, error.expected, vm=vm) from None
