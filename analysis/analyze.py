"""``akita analyze``: what a trace shows, whatever its format.

:func:`analyze_stream` reads a trace with the oracle's readers
(:mod:`akita.analysis.sources`), feeds it once, in order, to an
:class:`~.accumulate.Accumulator` and returns an :class:`~.result.Analysis`:
per task (vCPU or kernel task) its CPU time and share, in total, per CPU
and per window, its wake-to-run latencies and migrations; per CPU its idle
time; per pCPU its mode residency and switches where the trace records
modes (JSON Lines); per server its budget used in each whole period,
beside what its host declares (the JSON Lines header's host, or the host
file given, which wins).

Nothing is kept per event but one integer per wake-to-run latency, so a
trace of any length is read in memory bounded by its tasks, windows and
periods (decision 200).
"""

from __future__ import annotations

from os import PathLike
from typing import IO, Any, Mapping

from akita.model import Host
from akita.model.errors import ParameterError
from akita.oracle.phases import host_phases
from akita.trace.jsonl import TraceError
from akita.trace.kernel import Tally, check_mapping
from akita.trace.opening import open_trace

from .accumulate import Accumulator, Declared, Recorder
from .result import Analysis
from .sources import feed_jsonl, feed_kernel, refuse_empty

__all__ = ["analyze_stream", "analyze_file", "declared_of_host", "declared_of_header"]


def declared_of_host(host: Host) -> dict[str, Declared]:
    """Each vCPU's server as *host* declares it, its phase where the host fixes one."""
    phases = host_phases(host)
    return {f"{vm.name}/{i}": Declared(f"{vm.name}/{i}", vm.criticality.name, vm.period,
                                       vm.c_opt, vm.c_pes, phases[vm.name])
            for vm in host.vms for i in range(vm.vcpus)}


def declared_of_header(header: Mapping[str, Any], path: str) -> dict[str, Declared]:
    """Each vCPU's server as a JSON Lines header's host gives it (none if it has no host)."""
    described = header.get("host")
    if not isinstance(described, dict):
        return {}
    found: dict[str, Declared] = {}
    for number, vm in enumerate(described.get("vms") or []):
        try:
            name, period, c_opt = vm["name"], vm["period"], vm["c_opt"]
            for i in range(int(vm.get("vcpus", 1))):
                found[f"{name}/{i}"] = Declared(f"{name}/{i}", str(vm.get("criticality", "LO")),
                                                int(period), int(c_opt),
                                                None if vm.get("c_pes") is None
                                                else int(vm["c_pes"]), vm.get("phase"))
        except (KeyError, TypeError, ValueError):
            raise TraceError(f"host.vms[{number}]", vm, "a VM as akita simulate writes it "
                             "(name, period, c_opt, c_pes, vcpus)", path=f"{path}:1") from None
    return found


def analyze_stream(stream: IO[Any], *, path: str = "<trace>", host: Host | None = None,
                   trace_format: str = "auto", trace_map: Mapping[str, str] | None = None,
                   window: int | None = None, cpu_hz: int | None = None,
                   buffer: str | None = None, origin_ns: int | None = None,
                   recorder: Recorder | None = None) -> Analysis:
    """Analyse the trace on *stream* (bytes or text; named *path* in errors).

    :param host: the host the trace ran: its ``[trace_map]`` names a kernel
        trace's vCPU tasks, its declarations are the budgets per period
        measured against.
    :param trace_map: ``task -> "VM/i"`` pairs added to the host's.
    :param window: ns, the length of the windows CPU shares are also given per.
    :param cpu_hz: ``xentrace``: the cycle counter's frequency.
    :param buffer: ``trace.dat``: the instance to read.
    :param origin_ns: kernel traces: the trace time that is ``t = 0``.
    :param recorder: receives what a schedule picture draws.
    :raises TraceError: a trace none of the formats can read, or one with no event.
    """
    if window is not None and window <= 0:
        raise ParameterError("window", window, "a window > 0")
    mapping = check_mapping(dict(host.trace_map if host is not None else ())
                            | dict(trace_map or {}))
    tally = Tally()
    fmt, header, records = open_trace(stream, path=path, trace_format=trace_format,
                                      cpu_hz=cpu_hz, buffer=buffer, tally=tally)
    declared = declared_of_host(host) if host is not None else {}
    migrate_records: int | None = None
    if fmt == "jsonl":
        assert header is not None
        if host is None:
            declared = declared_of_header(header, path)
        acc = Accumulator(window=window, declared=declared, grid=False, recorder=recorder)
        count, end = feed_jsonl(acc, header, records, path)
        cpus = _header_cpus(header)
        source = "releases"
    else:
        acc = Accumulator(window=window, declared=declared, grid=True, recorder=recorder)
        count, end, migrate_records = feed_kernel(acc, records, mapping, origin_ns)
        cpus = 0
        source = "declared phase"
    refuse_empty(path, count, "scheduler events (dispatches, switches, wakeups)")
    acc.finish(end, cpus)
    return Analysis.of(acc, path=path, trace_format=fmt, events=count, span=end,
                       window=window, declared=declared, periods_from=source,
                       modes_recorded=fmt == "jsonl", migrate_records=migrate_records,
                       lost=tally.lost_marks)


def analyze_file(path: str | PathLike[str], **options: Any) -> Analysis:
    """:func:`analyze_stream` on the file at *path* (keyword *options* as there)."""
    with open(path, "rb") as stream:
        return analyze_stream(stream, path=str(path), **options)


def _header_cpus(header: Mapping[str, Any]) -> int:
    described = header.get("host")
    pcpus = described.get("pcpus") if isinstance(described, dict) else None
    return pcpus if isinstance(pcpus, int) and not isinstance(pcpus, bool) else 0
