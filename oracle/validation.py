"""What a trace event must look like before the oracle reads it.

Every event has an integer time ``t >= 0``, a pCPU index and a known kind;
the events about a vCPU name one of the host's; a ``mode`` is ``"HI"`` or
``"LO"``; times, budgets and temperatures are integers ``>= 0``; a ``key``
is an exact number of ns written ``"p"`` or ``"p/q"`` (:doc:`/trace-format`).
Every field's type is checked before its value is used, so a value of any
JSON type (a list where a name belongs, an object where a kind belongs) is
a located error, never a crash.
A malformed event raises :class:`~akita.trace.jsonl.TraceError`, which
the readers locate at its line.
"""

from __future__ import annotations

import re
from typing import Any

from akita.trace.jsonl import TraceError

__all__ = ["INPUTS", "DECISIONS", "LOST", "validate"]

#: Events that are the implementation's inputs.
INPUTS = frozenset({"wake", "block", "complete"})
#: Events that are its decisions and bookkeeping.
DECISIONS = frozenset({"dispatch", "idle", "mode", "temperature", "release", "exhaust"})
#: An event about the trace itself: records of a pCPU were not written (:mod:`akita.trace.kernel`).
LOST = "lost"

#: Events with no field to check but their vCPU, and events with values to check.
_PLAIN = frozenset({"wake", "block", "exhaust"})
_CHECKED = frozenset({"complete", "dispatch", "release", "mode", "temperature"})
_KEY = re.compile(r"[0-9]+(/[0-9]*[1-9][0-9]*)?")
#: The fields that are integers >= 0 when present.
_VALUES = ("deadline", "budget", "arrival", "temperature")
#: The longest key: two numbers of at most 20 digits and a slash.
_KEY_CHARS = 41


def validate(event: dict[str, Any], pcpus: int, vcpus: frozenset[str]) -> None:
    """Check *event*'s shape on a host of *pcpus* pCPUs whose vCPUs are *vcpus*."""
    t = event.get("t")
    if type(t) is not int or t < 0:
        raise TraceError("t", t, "an integer time >= 0 in ns")
    cpu = event.get("cpu")
    if type(cpu) is not int or not 0 <= cpu < pcpus:
        raise TraceError("cpu", cpu, f"a pCPU index from 0 to {pcpus - 1}")
    kind = event.get("event")
    if kind == LOST:
        _validate_lost(event, t, vcpus)
        return
    if not isinstance(kind, str):
        raise TraceError("event", kind, f"one of {', '.join(sorted(INPUTS | DECISIONS))}")
    if kind in _PLAIN or (kind in _CHECKED and kind != "mode"):
        name = event.get("vcpu")
        if not isinstance(name, str) or name not in vcpus:
            raise TraceError("vcpu", event.get("vcpu"), "a vCPU of the host, named VM/i")
    elif kind not in _CHECKED and kind != "idle":
        raise TraceError("event", kind, f"one of {', '.join(sorted(INPUTS | DECISIONS))}")
    if kind not in _CHECKED:
        return
    if kind == "mode" and (not isinstance(event.get("mode"), str)
                           or event.get("mode") not in ("HI", "LO")):
        raise TraceError("mode", event.get("mode"), '"HI" or "LO"')
    for field in _VALUES:
        if field in event:
            value = event[field]
            if type(value) is not int or value < 0:
                raise TraceError(field, value, "an integer >= 0 (ns for a time)")
    if "key" in event:
        key = event["key"]
        if type(key) is not str or len(key) > _KEY_CHARS or _KEY.fullmatch(key) is None:
            raise TraceError("key", key, 'an exact number of ns, "p" or "p/q"')


def _validate_lost(event: dict[str, Any], t: int, vcpus: frozenset[str]) -> None:
    """A ``lost`` event: ``since`` from 0 to ``t``; the vCPU found running, if any, and the
    count of records lost, if known."""
    since = event.get("since")
    if type(since) is not int or not 0 <= since <= t:
        raise TraceError("since", since, f"an integer time from 0 to t = {t} ns")
    if "vcpu" in event and (not isinstance(event["vcpu"], str) or event["vcpu"] not in vcpus):
        raise TraceError("vcpu", event["vcpu"], "a vCPU of the host, named VM/i")
    if "count" in event and (type(event["count"]) is not int or event["count"] < 0):
        raise TraceError("count", event["count"], "an integer >= 0")
