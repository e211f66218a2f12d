"""The trace schema (one JSON Lines line) and the Chrome trace-event timeline export."""

import io
import json
from decimal import Decimal
from importlib.resources import files

import jsonschema
import pytest

from akita.trace.timeline import main_timeline, microseconds, write_timeline
from repo import DOCS

HEADER = {
    "akita_trace": 1,
    "host": {"pcpus": 2, "test": "edf-vd"},
    "policy": "akita",
    "seed": 7,
    "duration_ns": 10_000,
}

def ev(t: int, cpu: int, event: str, **fields) -> dict:
    """An event line."""
    return {"t": t, "cpu": cpu, "event": event, **fields}


def server(t: int, cpu: int, event: str, vcpu: str, deadline: int, key: str, budget: int) -> dict:
    """A release or dispatch line."""
    return ev(t, cpu, event, vcpu=vcpu, deadline=deadline, key=key, budget=budget)


# A hand-made trace: pCPU 0 runs a/0 from 1500 to 4000, then b/0 to the end;
# pCPU 1 runs c/0 from 2000 to 3000 and is idle after.
EVENTS = [
    server(0, 0, "release", "a/0", 5000, "5000", 3000),
    server(1500, 0, "dispatch", "a/0", 5000, "10000/3", 3000),
    server(2000, 1, "dispatch", "c/0", 9000, "9000", 1000),
    {"t": 2500, "cpu": 0, "event": "mode", "mode": "HI", "vcpu": "a/0"},
    {"t": 3000, "cpu": 1, "event": "idle"},
    {"t": 3500, "cpu": 0, "event": "temperature", "vcpu": "a/0", "temperature": 2},
    {"t": 4000, "cpu": 0, "event": "complete", "vcpu": "a/0", "arrival": 1234},
    server(4000, 0, "dispatch", "b/0", 8000, "8000", 0),
    {"t": 9999, "cpu": 0, "event": "mode", "mode": "LO"},
]


def timeline(lines, **options) -> dict:
    out = io.StringIO()
    write_timeline(iter(lines), out, **options)
    return json.loads(out.getvalue(), parse_float=Decimal)


def of_phase(document: dict, ph: str) -> list[dict]:
    return [event for event in document["traceEvents"] if event["ph"] == ph]


# -- the schema --------------------------------------------------------------


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    text = (files("akita.trace") / "trace_schema.json").read_text(encoding="utf-8")
    schema = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


VALID = [
    HEADER,
    *EVENTS,
    {"t": 0, "cpu": 3, "event": "wake", "vcpu": "memcached/0"},
    {"t": 5, "cpu": 3, "event": "block", "vcpu": "memcached/12"},
    {"t": 9, "cpu": 3, "event": "exhaust", "vcpu": "memcached/0"},
    {"t": 9, "cpu": 3, "event": "idle"},
    server(9, 3, "release", "x/1", 10, "104000000/3", 1),
    {"t": 9, "cpu": 3, "event": "idle", "extra": {"from": "another implementation"}},
    {"t": 9, "cpu": 3, "event": "temperature", "vcpu": "x/0", "temperature": 0},
]

INVALID = {
    "dispatch without vcpu": ev(1, 0, "dispatch", deadline=5, key="5", budget=1),
    "negative t": {"t": -1, "cpu": 0, "event": "idle"},
    "unknown event": {"t": 1, "cpu": 0, "event": "preempt", "vcpu": "a/0"},
    "no event": {"t": 1, "cpu": 0},
    "negative cpu": {"t": 1, "cpu": -1, "event": "idle"},
    "t not an integer": {"t": "1", "cpu": 0, "event": "idle"},
    "release without key": ev(1, 0, "release", vcpu="a/0", deadline=5, budget=1),
    "key as a number": server(1, 0, "dispatch", "a/0", 5, 5, 1),
    "key a decimal": server(1, 0, "dispatch", "a/0", 5, "5.5", 1),
    "negative budget": server(1, 0, "dispatch", "a/0", 5, "5", -1),
    "vcpu without index": {"t": 1, "cpu": 0, "event": "wake", "vcpu": "memcached"},
    "complete without arrival": {"t": 1, "cpu": 0, "event": "complete", "vcpu": "a/0"},
    "mode MID": {"t": 1, "cpu": 0, "event": "mode", "mode": "MID"},
    "mode without mode": {"t": 1, "cpu": 0, "event": "mode", "vcpu": "a/0"},
    "negative temperature": ev(1, 0, "temperature", vcpu="a/0", temperature=-1),
    "header version 2": {**HEADER, "akita_trace": 2},
    "header without seed": {key: value for key, value in HEADER.items() if key != "seed"},
    "header host a string": {**HEADER, "host": "fig5.toml"},
}


@pytest.mark.parametrize("line", VALID, ids=lambda line: line.get("event", "header"))
def test_schema_accepts(validator, line):
    validator.validate(line)


@pytest.mark.parametrize("line", INVALID.values(), ids=list(INVALID))
def test_schema_refuses(validator, line):
    assert not validator.is_valid(line)


def test_schema_names_the_missing_field(validator):
    errors = list(validator.iter_errors(INVALID["dispatch without vcpu"]))
    assert [error.message for error in errors] == ["'vcpu' is a required property"]


# -- microseconds ------------------------------------------------------------


@pytest.mark.parametrize(
    ("ns", "text"),
    [(0, "0"), (1, "0.001"), (10, "0.01"), (1500, "1.5"), (2000, "2"),
     (1_234_567, "1234.567"), (10**18 + 1, "1000000000000000.001")],
)
def test_microseconds_exact(ns, text):
    assert microseconds(ns) == text


@pytest.mark.parametrize("ns", [-1, 1.5, True, "5"])
def test_microseconds_refuses(ns):
    with pytest.raises(ValueError):
        microseconds(ns)


# -- the timeline ------------------------------------------------------------


def test_tracks_one_per_pcpu():
    document = timeline([HEADER, *EVENTS])
    assert document["displayTimeUnit"] == "ns"
    names = {(e["name"], e["tid"]): e["args"] for e in of_phase(document, "M")}
    assert names[("process_name", 0)] == {"name": "host"}
    assert names[("thread_name", 0)] == {"name": "pCPU 0"}
    assert names[("thread_name", 1)] == {"name": "pCPU 1"}
    assert names[("thread_sort_index", 1)] == {"sort_index": 1}
    assert {e["pid"] for e in document["traceEvents"]} == {0}
    assert document["otherData"] == {"policy": "akita", "seed": 7, "duration_ns": 10_000}


def test_slices_exact():
    slices = {(e["tid"], e["name"]): e for e in of_phase(timeline([HEADER, *EVENTS]), "X")}
    assert set(slices) == {(0, "a/0"), (1, "c/0"), (0, "b/0")}
    first = slices[(0, "a/0")]
    # dispatch at 1500 ns, next dispatch on pCPU 0 at 4000 ns: ts 1.5 us, dur 2.5 us.
    assert (first["ts"], first["dur"]) == (Decimal("1.5"), Decimal("2.5"))
    assert first["args"] == {"deadline": 5000, "key": "10000/3", "budget": 3000}
    # ended by idle at 3000 ns.
    assert (slices[(1, "c/0")]["ts"], slices[(1, "c/0")]["dur"]) == (2, 1)
    # the last slice ends at duration_ns = 10000 ns.
    assert (slices[(0, "b/0")]["ts"], slices[(0, "b/0")]["dur"]) == (4, 6)


def test_times_written_as_exact_decimals():
    lines = [
        {**HEADER, "duration_ns": 5_000_001},
        server(1_234_567, 0, "dispatch", "a/0", 1, "1", 1),
    ]
    out = io.StringIO()
    write_timeline(lines, out)
    assert '"ts": 1234.567, "dur": 3765.434' in out.getvalue()


def test_instants():
    document = timeline([HEADER, *EVENTS])
    instants = {e["name"]: e for e in of_phase(document, "i")}
    assert set(instants) == {"mode HI", "mode LO", "release a/0", "complete a/0"}
    assert all(e["s"] == "t" for e in instants.values())
    mode_hi = instants["mode HI"]
    assert (mode_hi["ts"], mode_hi["args"]) == (Decimal("2.5"), {"vcpu": "a/0"})
    assert (instants["mode LO"]["ts"], instants["mode LO"]["args"]) == (Decimal("9.999"), {})
    assert instants["release a/0"]["args"] == {"deadline": 5000, "key": "5000", "budget": 3000}
    assert instants["complete a/0"]["args"] == {"arrival": 1234, "response_ns": 2766}


def test_jobs_off():
    names = {e["name"] for e in of_phase(timeline([HEADER, *EVENTS], jobs=False), "i")}
    assert names == {"mode HI", "mode LO"}


def test_tracks_declared_when_first_seen_without_pcpus():
    header = {**HEADER, "host": {}}
    events = [{"t": 0, "cpu": 3, "event": "idle"}]
    threads = [e for e in of_phase(timeline([header, *events]), "M") if e["name"] == "thread_name"]
    assert [(e["tid"], e["args"]["name"]) for e in threads] == [(3, "pCPU 3")]


def test_streaming_writes_before_the_trace_ends():
    out = io.StringIO()
    seen = []

    def lines():
        yield HEADER
        for event in EVENTS:
            yield event
            seen.append(len(out.getvalue()))

    write_timeline(lines(), out)
    # Output grows while events are still being read, not only at the end.
    assert seen[0] < seen[-1] < len(out.getvalue())


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([], "header"),
        ([EVENTS[0]], "header"),
        ([HEADER, ev(5, 0, "idle"), ev(4, 0, "idle")], "line 3"),
        ([HEADER, ev(5, 0, "dispatch", deadline=1, key="1", budget=1)], "vcpu"),
        ([HEADER, {"t": -5, "cpu": 0, "event": "idle"}], "'t'"),
        ([HEADER, [1, 2]], "event object"),
    ],
)
def test_refuses_bad_traces(lines, message):
    with pytest.raises(ValueError, match=message):
        write_timeline(lines, io.StringIO())


def test_main_timeline_reads_jsonl(tmp_path):
    trace = tmp_path / "trace.jsonl"
    text = "".join(json.dumps(line) + "\n" for line in [HEADER, *EVENTS])
    trace.write_text(text + "\n", encoding="utf-8")  # a trailing blank line is skipped
    out = tmp_path / "timeline.json"
    main_timeline(trace, out)
    document = json.loads(out.read_text(encoding="utf-8"), parse_float=Decimal)
    assert document == timeline([HEADER, *EVENTS])


def test_main_timeline_names_a_bad_line(tmp_path):
    trace = tmp_path / "trace.jsonl"
    trace.write_text(json.dumps(HEADER) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"trace.jsonl:2"):
        main_timeline(trace, tmp_path / "timeline.json")


# -- the published example ---------------------------------------------------


def documented_example() -> list[dict]:
    """The JSON Lines example of docs/trace-format.rst."""
    text = (DOCS / "trace-format.rst").read_text(encoding="utf-8")
    block = text.split(".. code-block:: json\n", 1)[1]
    lines = []
    for line in block.splitlines()[1:]:
        if line and not line.startswith("   "):
            break
        if line.strip():
            lines.append(json.loads(line))
    return lines


def test_documented_example_is_valid(validator):
    lines = documented_example()
    assert len(lines) == 10
    for line in lines:
        validator.validate(line)
    times = [line["t"] for line in lines[1:]]
    assert times == sorted(times)
    document = timeline(lines)
    assert [(e["name"], e["ts"]) for e in of_phase(document, "X")] == [
        ("batch/0", 0), ("memcached/0", Decimal("1200")), ("batch/0", Decimal("1450"))
    ]
