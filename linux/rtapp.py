"""A host file's workloads as an rt-app use case, and an rt-app use case as a host file.

rt-app (``scheduler-tools/rt-app``, in Debian) is what people use to emulate
periodic load on Linux; its use case is a JSON document of ``"tasks"`` (one
object a thread: ``policy``, ``priority``, ``dl-runtime``/``dl-period``/
``dl-deadline``, ``cpus``, ``delay``, then events -- ``run``, ``runtime``,
``sleep``, ``timer`` -- flat or in ``"phases"``, each repeated ``loop`` times) and
a ``"global"`` object (rt-app's ``doc/tutorial.txt``).  The project measures with
its own programs (decision 180); this module lets a user replay a host with the
tool they know, and read a use case they have as a host (decisions 189, 210-213).

**Export** (:func:`export`).  Every vCPU is a thread ``VM-INDEX`` pinned to the
Linux CPU the placement gives it, its first event after a ``delay`` of the VM's
phase (seeded phases drawn under the seed, as ``akita simulate`` draws them):

* ``periodic``: ``run`` of the demand, then a ``timer`` of the period; a
  workload ``offset`` is a first phase of one ``sleep`` (the windows start after
  it, since an rt-app timer starts at its first use);
* ``duty`` (lookbusy): the same with ``utilization * window`` every ``window``;
  a utilization of 0 is a ``sleep`` of the window;
* ``cpu-bound``: ``run`` of 10 ms over and over; ``idle``: ``sleep`` of 10 ms;
* ``poisson`` (a request server): rt-app has no random arrivals and no server,
  so it is *approximated* by its mean CPU demand, ``rate / vcpus * service`` of
  ``run`` every millisecond, with a note saying so;
* ``sporadic``, ``trace``, ``closed``, ``burn`` and guests are refused, the VM
  named: their jobs are random, replayed or brought by an I/O path.

``policy="other"`` gives every thread ``SCHED_OTHER`` at the VM's nice;
``policy="deadline"`` makes every vCPU a ``SCHED_DEADLINE`` server of
``dl-runtime = C_opt``, ``dl-period = dl-deadline = T`` (Linux's one budget has no
mode switch: a HI VM is reserved its optimistic budget, noted).  rt-app counts
whole microseconds: a time that is not one is rounded down (a ``run`` to at least
1 us) and noted.  ``run`` is rt-app's calibrated loop, CPU work rather than wall
time, as a job is in the simulator.  What rt-app cannot say -- criticality,
``C_pes``, the budgets under ``SCHED_OTHER``, the workload kind, the host's test
and options -- is kept under a top-level ``"akita"`` key, which rt-app does not
read (decision 211).

**Import** (:func:`read_use_case`).  The reverse, through the host file's own
reader (:func:`~akita.model.loads_host`): threads ``NAME-0 .. NAME-(n-1)`` with the
same events are one VM of ``n`` vCPUs (``instance: n`` too); ``delay`` is the
phase; the events give the kind (``run`` alone: ``cpu-bound``; ``sleep`` alone:
``idle``; ``run`` + ``timer``: ``periodic``, or ``duty`` where the ``"akita"`` key
says so; ``run`` + ``sleep``: ``periodic`` of period ``run + sleep``, noted).  The
server is the ``"akita"`` key's, else the ``dl-*`` parameters, else a LO VM whose
period is the timer's (10 ms without one) and whose budget is its demand, noted.
Any other event (locks, memory, I/O, barriers), several looping phases, or a
policy with no host-file form is refused or noted, the thread named.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import attrs

from akita.model import Host, ModelError, ParameterError, VM, dumps_host, format_duration, \
    loads_host, parse_duration
from akita.model.phases import resolve_phases, with_phases

from .kernel_run import placement

__all__ = ["export", "read_use_case", "loads_use_case", "host_file_text", "UseCase", "Note", "KINDS", "APPROXIMATED",
           "POLICIES", "EXTENSION", "use_case"]

#: The workload kinds rt-app expresses, and those it approximates.
KINDS = ("cpu-bound", "periodic", "duty", "idle")
APPROXIMATED = ("poisson",)
#: ``--policy`` -> rt-app's policy name.
POLICIES = {"other": "SCHED_OTHER", "deadline": "SCHED_DEADLINE"}
#: The top-level key that keeps what rt-app has no word for.
EXTENSION = "akita"
_US = 1_000
#: The chunk an always-busy or always-idle thread repeats: rt-app stops a thread at its
#: global ``duration`` only between events.
_CHUNK_US = 10_000
#: The period over which a request server's mean demand is spread.
_REQUEST_PERIOD_US = 1_000
_SERVER_KEYS = ("type", "criticality", "period", "c_opt", "c_pes")
_EVENTS = ("runtime", "run", "sleep", "timer")  # rt-app matches events by prefix


@attrs.frozen
class Note:
    """Something written or read approximately, in the words of the host file."""

    vm: str
    field: str
    value: str
    outcome: str

    def __str__(self) -> str:
        return f"VM {self.vm}: {self.field} {self.value}: {self.outcome}"

    def as_json(self) -> dict[str, str]:
        return {"vm": self.vm, "field": self.field, "value": self.value, "outcome": self.outcome}


@attrs.frozen
class UseCase:
    """An rt-app use case (the JSON document) and the notes made writing it."""

    document: dict[str, Any]
    notes: tuple[Note, ...]


# -- export ----------------------------------------------------------------------------


def export(host: Host, *, cpus: tuple[int, ...] = (1,), seed: int = 1, seconds: int = 10,
           policy: str = "other") -> UseCase:
    """*host*'s VMs as an rt-app use case of *seconds*, phases drawn under *seed*.

    :param cpus: the Linux CPU of each host pCPU, in order.
    :param policy: a key of :data:`POLICIES`.
    :raises ModelError: a VM whose workload has no rt-app form; a
        :class:`~akita.model.ParameterError` for a bad *policy* or too few *cpus*.
    """
    if policy not in POLICIES:
        raise ParameterError("policy", policy, f"one of {', '.join(POLICIES)}")
    for vm in host.vms:
        _refuse(vm)
    host = with_phases(host, resolve_phases(host, seed))
    where = placement(host, cpus)
    notes: list[Note] = []
    tasks: dict[str, Any] = {}
    for vm in host.vms:
        events = _events(vm, notes)
        sched = _policy(vm, policy, notes)
        for i in range(vm.vcpus):
            name = f"{vm.name}-{i}"
            tasks[name] = {"cpus": [where[(vm.name, i)]], **sched,
                           "delay": _micro(vm.phase or 0, vm.name, "phase", notes, least=0),
                           **_with_timer(events, name)}
    document = {"global": {"duration": seconds, "calibration": f"CPU{cpus[0]}",
                           "default_policy": "SCHED_OTHER", "lock_pages": False,
                           "log_size": "Disable", "logdir": "./"},
                "tasks": tasks,
                EXTENSION: _extension(host, policy)}
    return UseCase(document, tuple(notes))


def use_case(host: Host, *, cpus: tuple[int, ...], seed: int, seconds: int) -> dict[str, Any]:
    """The ``SCHED_OTHER`` use case's document alone (:func:`export`)."""
    return export(host, cpus=cpus, seed=seed, seconds=seconds).document


def _refuse(vm: VM) -> None:
    w = vm.workload
    if vm.guest is not None:
        raise ModelError("guest", "an SMP guest", "a VM running its own workload (an rt-app "
                         "thread has no guest scheduler)", vm=vm.name)
    if w.burn:
        raise ModelError("workload.burn", True, "no burn (rt-app has no interrupt-level work)",
                         vm=vm.name)
    if w.kind not in KINDS + APPROXIMATED:
        raise ModelError("workload.kind", w.kind, "a kind rt-app can express "
                         f"({', '.join(KINDS + APPROXIMATED)}): rt-app has no random or "
                         "replayed job stream and no I/O path", vm=vm.name)


def _micro(ns: int, vm: str, field: str, notes: list[Note], *, least: int = 1) -> int:
    """*ns* in rt-app's whole microseconds, rounded down (at least *least*), noted if inexact."""
    us = max(least, ns // _US)
    if us * _US != ns:
        notes.append(Note(vm, field, format_duration(ns),
                          f"written as {us} us (rt-app counts whole microseconds)"))
    return us


def _repeat(event: str, us: int, timer_us: int | None) -> dict[str, Any]:
    events: dict[str, Any] = {"loop": -1, event: us}
    if timer_us is not None:
        events["timer"] = {"ref": "", "period": timer_us}
    return events


def _events(vm: VM, notes: list[Note]) -> dict[str, Any]:
    """The events every vCPU of *vm* repeats (the timer's reference is set per thread)."""
    w = vm.workload
    if w.kind == "cpu-bound":
        return _repeat("run", _CHUNK_US, None)
    if w.kind == "idle":
        return _repeat("sleep", _CHUNK_US, None)
    if w.kind == "poisson":
        return _requests(vm, notes)
    if w.kind == "periodic":
        demand = w.demand if w.demand is not None else vm.c_opt
        period = w.period if w.period is not None else vm.period
        jobs = _repeat("run", _micro(demand, vm.name, "workload.demand", notes),
                       _micro(period, vm.name, "workload.period", notes))
    else:
        assert w.kind == "duty" and w.utilization is not None
        window = w.window_or_default
        window_us = _micro(window, vm.name, "workload.window", notes)
        busy = w.utilization * window
        busy_us = math.floor(busy / _US)
        if busy_us != busy / _US:
            notes.append(Note(vm.name, "workload.utilization", str(w.utilization),
                              f"written as run {busy_us} us of every {window_us} us "
                              "(rt-app counts whole microseconds)"))
        jobs = (_repeat("sleep", window_us, None) if busy_us == 0
                else _repeat("run", busy_us, window_us))
    if not w.offset:
        return jobs
    offset = _micro(w.offset, vm.name, "workload.offset", notes, least=0)
    return {"phases": {"offset": {"loop": 1, "sleep": offset}, "jobs": jobs}}


def _requests(vm: VM, notes: list[Note]) -> dict[str, Any]:
    """A request server's mean CPU demand per millisecond, as ``run`` + ``timer``."""
    w = vm.workload
    assert w.rate is not None and w.service is not None
    busy = w.rate * w.service * _REQUEST_PERIOD_US / (vm.vcpus * 10**6)  # us per period
    run_us = max(1, math.floor(busy / _US))
    notes.append(Note(vm.name, "workload.kind", "poisson",
                      f"approximated by its mean CPU demand, run {run_us} us every "
                      f"{_REQUEST_PERIOD_US} us a vCPU ({w.rate}/s of "
                      f"{format_duration(w.service)}): rt-app has no random arrivals and no "
                      "request server, so latencies are not reproduced"))
    return _repeat("run", run_us, _REQUEST_PERIOD_US)


def _with_timer(events: dict[str, Any], ref: str) -> dict[str, Any]:
    """*events* with every timer's reference set to *ref* (one timer a thread)."""
    out: dict[str, Any] = {}
    for key, value in events.items():
        if key == "timer":
            value = {**value, "ref": ref}
        elif isinstance(value, dict):
            value = _with_timer(value, ref)
        out[key] = value
    return out


def _policy(vm: VM, policy: str, notes: list[Note]) -> dict[str, Any]:
    share = vm.share
    if share.weight != type(share)().weight or share.cap:
        notes.append(Note(vm.name, "weight/cap", f"{share.weight}/{share.cap}",
                          "not written (rt-app sets a policy and a priority, no weight or cap)"))
    if policy == "other":
        return {"policy": "SCHED_OTHER", "priority": share.nice}
    if share.nice:
        notes.append(Note(vm.name, "nice", str(share.nice),
                          "not written (SCHED_DEADLINE has no nice)"))
    if vm.c_pes is not None:
        notes.append(Note(vm.name, "c_pes", format_duration(vm.c_pes),
                          "not reserved: a SCHED_DEADLINE server has one budget and no mode "
                          "switch, so the HI VM is reserved C_opt"))
    period = _micro(vm.period, vm.name, "period", notes)
    return {"policy": "SCHED_DEADLINE",
            "dl-runtime": _micro(vm.c_opt, vm.name, "c_opt", notes),
            "dl-period": period, "dl-deadline": period}


def _extension(host: Host, policy: str) -> dict[str, Any]:
    """What rt-app has no word for, in the host file's own words (:func:`dumps_host`)."""
    table = tomllib.loads(dumps_host(host))
    dropped = ("period", "c_opt") if policy == "deadline" else ()
    vms = {entry["name"]: {**{k: entry[k] for k in _SERVER_KEYS
                              if k in entry and k not in dropped},
                           "kind": entry["workload"]["kind"]}
           for entry in table.get("vm", [])}
    return {"host": table["host"], "vms": vms}


# -- import ----------------------------------------------------------------------------


@attrs.frozen
class _Thread:
    """One rt-app thread as a vCPU: its policy, phase and workload, read from its events."""

    name: str
    instances: int
    server: dict[str, Any]
    nice: int
    delay_us: int
    workload: dict[str, Any]
    cpus: tuple[int, ...]

    def same_vm(self, other: _Thread) -> bool:
        return (self.server, self.nice, self.delay_us, self.workload) == \
            (other.server, other.nice, other.delay_us, other.workload)


def loads_use_case(text: str, *, source: str = "<rt-app>") -> Any:
    """The JSON document of an rt-app use case's *text*, read as rt-app reads it (json-c):
    ``/* ... */`` and ``// ...`` comments outside strings and a comma before a closing
    brace or bracket are allowed, as rt-app's own examples use them.

    :raises ModelError: text that is not JSON, naming *source*.
    """
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[i:end + 1])
            i = end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(" ")
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        else:
            if c in "}]":
                _drop_trailing_comma(out)
            out.append(c)
            i += 1
    try:
        return json.loads("".join(out))
    except json.JSONDecodeError as error:
        raise ModelError("json", f"{error.msg} at line {error.lineno}",
                         "an rt-app use case (JSON, comments allowed)", path=source) from None


def _drop_trailing_comma(out: list[str]) -> None:
    """Remove a comma (and the blanks after it) ending *out*, before a closing bracket."""
    j = len(out)
    while j > 0 and out[j - 1].isspace():
        j -= 1
    if j > 0 and out[j - 1] == ",":
        del out[j - 1:]


def read_use_case(document: object, *, source: str = "<rt-app>") -> tuple[Host, tuple[Note, ...]]:
    """The host an rt-app use case describes, and the notes made reading it.

    :raises ModelError: naming *source*, the thread (as ``vm``) and the field.
    """
    try:
        return _read(document, source)
    except ModelError as error:
        raise error.located(path=source) from None


def _read(document: object, source: str) -> tuple[Host, tuple[Note, ...]]:
    if not isinstance(document, dict) or not isinstance(document.get("tasks"), dict) \
            or not document["tasks"]:
        raise ModelError("tasks", type(document).__name__ if not isinstance(document, dict)
                         else document.get("tasks"), "an rt-app use case with a 'tasks' object")
    extension = document.get(EXTENSION)
    if extension is not None and not (isinstance(extension, dict)
                                      and isinstance(extension.get("vms"), dict)):
        raise ModelError(EXTENSION, extension, "the object akita export-rtapp writes")
    kinds = {name: entry.get("kind") for name, entry in (extension or {"vms": {}})["vms"].items()}
    notes: list[Note] = []
    threads = [_thread(name, task, kinds, notes) for name, task in document["tasks"].items()]
    vms = []
    for name, group in _grouped(threads, set(kinds)):
        vms.append(_vm_table(name, group, (extension or {"vms": {}})["vms"].get(name), notes))
    host_section = dict(extension["host"]) if extension is not None else \
        {"pcpus": max(1, len({c for t in threads for c in t.cpus}))}
    import tomli_w

    text = tomli_w.dumps({"host": host_section, "vm": vms})
    return loads_host(text, path=source), tuple(notes)


def host_file_text(host: Host, source: str, notes: tuple[Note, ...]) -> str:
    """*host* as a host file (:func:`~akita.model.dumps_host`), headed by where it came from
    and the notes made reading it."""
    head = [f"# Read from the rt-app use case {source} (akita import-rtapp)."]
    head += [f"# note: {note}" for note in notes]
    return "\n".join(head) + "\n" + dumps_host(host)


def _grouped(threads: list[_Thread], known: set[str]) -> list[tuple[str, list[_Thread]]]:
    """Threads ``NAME-0 .. NAME-(n-1)`` of one VM together (the extension's names first)."""
    groups: dict[str, list[_Thread]] = {}
    order: list[str] = []
    for thread in threads:
        match = re.fullmatch(r"(.+)-(\d+)", thread.name)
        if match is not None and (match.group(1) in known or not known):
            base, index = match.group(1), int(match.group(2))
            group = groups.get(base)
            if group is not None and index == len(group) and group[0].same_vm(thread):
                group.append(thread)
                continue
            if group is None and index == 0:
                groups[base] = [thread]
                order.append(base)
                continue
        groups[thread.name] = [thread]
        order.append(thread.name)
    return [(name, groups[name]) for name in order]


def _int(task: Mapping[str, Any], key: str, thread: str, default: int | None = None,
         least: int = 0) -> int:
    value = task.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ModelError(key, value, f"an integer >= {least} (rt-app's microseconds)", vm=thread)
    return value


def _thread(name: str, task: object, kinds: Mapping[str, Any], notes: list[Note]) -> _Thread:
    if not isinstance(task, dict):
        raise ModelError("task", task, "an rt-app thread object", vm=name)
    if "/" in name:
        raise ModelError("name", name, "a thread name without '/' (a VM name)", vm=name)
    policy = task.get("policy", "SCHED_OTHER")
    server: dict[str, Any] = {}
    nice = 0
    if policy == "SCHED_DEADLINE":
        runtime = _int(task, "dl-runtime", name, least=1)
        period = _int(task, "dl-period", name, default=runtime, least=1)
        server = {"period": period, "c_opt": runtime}
        if task.get("dl-deadline", period) != period:
            notes.append(Note(name, "dl-deadline", str(task["dl-deadline"]),
                              "read as the period (a VM's deadline is its period)"))
    elif policy == "SCHED_OTHER":
        nice = _int(task, "priority", name, default=0, least=-20)
    else:
        notes.append(Note(name, "policy", str(policy), "read as SCHED_OTHER at nice 0 (a "
                          "host file has no fixed-priority VM)"))
    base = re.fullmatch(r"(.+)-\d+", name)
    kind = kinds.get(base.group(1) if base else name) or kinds.get(name)
    workload = _workload(name, _phases(name, task), kind, notes)
    cpus = task.get("cpus", [])
    return _Thread(name, _int(task, "instance", name, default=1, least=1), server, nice,
                   _int(task, "delay", name, default=0), workload,
                   tuple(c for c in cpus if isinstance(c, int)) if isinstance(cpus, list) else ())


def _phases(name: str, task: dict[str, Any]) -> tuple[int, list[tuple[str, int]]]:
    """The thread's (offset sleep in us, the events it repeats)."""
    phases = task.get("phases")
    if phases is None:
        return 0, _event_list(name, task)
    if not isinstance(phases, dict) or not phases:
        raise ModelError("phases", phases, "an object of phases", vm=name)
    parts = list(phases.values())
    if len(parts) > 2 or not all(isinstance(p, dict) for p in parts):
        raise ModelError("phases", len(parts), "one phase, or a one-shot sleep then one phase "
                         "(a VM's workload does not change over time)", vm=name)
    if len(parts) == 1:
        return 0, _event_list(name, parts[0])
    first = _event_list(name, parts[0])
    if parts[0].get("loop") != 1 or [e for e, _ in first] != ["sleep"]:
        raise ModelError("phases", list(phases), "a first phase of one sleep (loop 1): a "
                         "workload's offset", vm=name)
    return first[0][1], _event_list(name, parts[1])


def _event_list(name: str, events: dict[str, Any]) -> list[tuple[str, int]]:
    out = []
    for key, value in events.items():
        event = next((e for e in _EVENTS if key.startswith(e)), None)
        if event is None:
            if key in ("loop", "cpus", "policy", "priority", "delay", "instance", "phases",
                       "dl-runtime", "dl-period", "dl-deadline", "nice"):
                continue
            raise ModelError(key, value, "an event with a host-file form (run, runtime, sleep, "
                             "timer)", vm=name)
        if event == "timer":
            if not isinstance(value, dict):
                raise ModelError(key, value, "a timer object with a period", vm=name)
            value = value.get("period")
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ModelError(key, value, "a duration in whole microseconds >= 0", vm=name)
        if event == "sleep" and value == 0:
            continue  # rt-app sleeps for nothing: no event
        out.append(("run" if event == "runtime" else event, value))
    return out


def _workload(name: str, phases: tuple[int, list[tuple[str, int]]], kind: object,
              notes: list[Note]) -> dict[str, Any]:
    """The host-file workload table of a thread's events (times in us, as ints)."""
    offset, events = phases
    shape = [e for e, _ in events]
    value = dict(events)
    table: dict[str, Any]
    if shape == ["run"]:
        table = {"kind": "cpu-bound"}
    elif shape == ["sleep"]:
        table = ({"kind": "duty", "utilization": "0", "window": value["sleep"]}
                 if kind == "duty" else {"kind": "idle"})
    elif shape in (["run", "timer"], ["run", "sleep"]):
        period = value.get("timer", 0) or value["run"] + value.get("sleep", 0)
        if "sleep" in value:
            notes.append(Note(name, "sleep", str(value["sleep"]), f"read as a periodic "
                              f"workload of period run + sleep ({period} us); rt-app's sleep "
                              "drifts with the run's lateness, a period does not"))
        if kind == "duty":
            table = {"kind": "duty", "utilization": str(Fraction(value["run"], period)),
                     "window": period}
        else:
            if kind == "poisson":
                notes.append(Note(name, "workload.kind", "poisson",
                                  "written as its mean demand: read back as periodic"))
            table = {"kind": "periodic", "demand": value["run"], "period": period}
    else:
        raise ModelError("events", ", ".join(shape) or "none", "run; sleep; run then timer; "
                         "or run then sleep (a workload kind of the host file)", vm=name)
    if offset:
        table["offset"] = offset
    return table


def _vm_table(name: str, group: list[_Thread], server: Mapping[str, Any] | None,
              notes: list[Note]) -> dict[str, Any]:
    """One host-file ``[[vm]]`` table of the threads of *group*."""
    first = group[0]
    workload = dict(first.workload)
    entry: dict[str, Any] = {"name": name}
    if server is not None:
        entry.update({k: v for k, v in server.items() if k != "kind"})
    if first.server:
        entry["period"] = format_duration(first.server["period"] * _US)
        entry["c_opt"] = format_duration(first.server["c_opt"] * _US)
    if server is None:
        period_us = first.server.get("period") or workload.get("period") or \
            workload.get("window") or _CHUNK_US
        entry.setdefault("criticality", "LO")
        entry.setdefault("period", format_duration(period_us * _US))
        entry.setdefault("c_opt", format_duration(min(workload.get("demand", period_us),
                                                      period_us) * _US))
        notes.append(Note(name, "server", f"{entry['c_opt']} every {entry['period']}",
                          "derived: the use case does not say the VM's criticality and "
                          "budget, so it is a LO VM of this budget and period"))
    period_ns = _duration_ns(entry["period"])
    phase = first.delay_us * _US
    if phase >= period_ns:
        notes.append(Note(name, "delay", str(first.delay_us),
                          f"read as phase {format_duration(phase % period_ns)} (the delay "
                          "modulo the period)"))
        phase %= period_ns
    entry["phase"] = format_duration(phase)
    entry["vcpus"] = len(group) * first.instances
    if first.nice:
        entry["nice"] = first.nice
    entry["workload"] = _canonical(workload, entry, period_ns)
    return entry


def _duration_ns(text: str) -> int:
    return parse_duration(text, field="period")


def _canonical(workload: dict[str, Any], entry: Mapping[str, Any], period_ns: int) -> dict[str, Any]:
    """*workload* in host-file words, leaving out a periodic demand or period equal to the
    VM's own budget or period (the defaults they stand for); a duty window is always
    written."""
    out: dict[str, Any] = {"kind": workload["kind"]}
    c_opt_ns = _duration_ns(entry["c_opt"])
    for key, value in workload.items():
        if key == "kind":
            continue
        if key in ("demand", "period", "window", "offset"):
            ns = value * _US
            default = {"demand": c_opt_ns, "period": period_ns}.get(key)
            if ns == default:
                continue
            value = format_duration(ns)
        out[key] = value
    return out
