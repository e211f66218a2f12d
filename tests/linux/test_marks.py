"""A controller's trace_marker lines and a capture's claims, as the oracle reads them."""

from __future__ import annotations

import pytest

from akita.oracle.claims import capture_claims
from akita.trace.ftrace import read_ftrace
from akita.trace.jsonl import TraceError

MAP = {"11": "web/0"}
LINES = [
    "# tracer: nop",
    "   akita-9   [000] ...1.   1.500000: tracing_mark_write: akita: origin",
    "   web-11   [000] d..2.   1.600000: sched_switch: prev_comm=web prev_pid=11 prev_prio=-1 "
    "prev_state=R ==> next_comm=y next_pid=2 next_prio=120",
    "   y-2   [000] d..2.   1.700000: sched_switch: prev_comm=y prev_pid=2 prev_prio=120 "
    "prev_state=R ==> next_comm=web next_pid=11 next_prio=-1",
    "   akita-9   [000] ...1.   1.800000: tracing_mark_write: akita: temperature pcpu=0 "
    "vcpu=web/0 value=2",
    "   akita-9   [000] ...1.   1.800100: tracing_mark_write: akita: mode pcpu=0 HI",
]


def test_the_origin_mark_is_t0_and_modes_and_temperatures_are_decisions():
    events = [(e["t"], e["event"], e.get("vcpu"), e.get("mode"), e.get("temperature"))
              for e in read_ftrace(LINES, MAP)]
    assert events == [
        (100_000_000, "idle", None, None, None),  # web/0 ran since before the origin
        (200_000_000, "wake", "web/0", None, None),
        (200_000_000, "dispatch", "web/0", None, None),
        (300_000_000, "temperature", "web/0", None, 2),
        (300_100_000, "mode", None, "HI", None),
    ]


def test_without_an_origin_mark_a_dispatch_is_not_a_wake():
    events = [e["event"] for e in read_ftrace([LINES[0], *LINES[2:4]], MAP)]
    assert events == ["idle", "dispatch"]


def test_a_mode_mark_without_its_pcpu_is_refused_with_its_line():
    bad = LINES[:2] + ["   akita-9   [000] ...1.   1.9: tracing_mark_write: akita: mode HI"]
    with pytest.raises(TraceError, match=r"pcpu=N"):
        list(read_ftrace(bad, MAP))


def test_claims_of_a_capture_first_line():
    claims = capture_claims("# akita-linux capture: policy=akita-linux "
                            "reports=dispatch,idle,mode,temperature tick=4000000")
    assert (claims.policy, claims.reports, claims.tick_ns) == (
        "akita-linux", ("dispatch", "idle", "mode", "temperature"), 4_000_000)
    assert capture_claims("# tracer: nop").policy is None
    with pytest.raises(TraceError, match="policy"):
        capture_claims("# akita-linux capture: policy=cfs")
