"""The registry of trace formats (akita.trace.formats): a new format is one module and one line.

``toysched.py`` beside this file is a whole format (its sniff and its
reader); :func:`toy` registers it with one call of
:func:`~akita.trace.formats.register`.  Registered, it is told apart by
``"auto"`` and read by the oracle (:func:`akita.oracle.conform_file`) and by
:func:`akita.trace.opening.open_trace`, and judges a schedule exactly as the
same schedule written as ftrace text is judged; unregistered, the same file
is refused.
"""

import io
import json

import attrs
import pytest

from akita.model.errors import ModelError
from akita.oracle import TraceError, conform_file, conform_stream
from akita.reference.mutants import Mutant, mutant_named, simulate_mutant
from akita.reference.policies import AkitaPolicy
from akita.trace.formats import FORMATS, Format, format_names, kernel_formats, register
from akita.trace.ftrace import sched_events
from akita.trace.opening import open_trace
from hosts import MUTANT_HOST
from repo import DOCS
from kernel_render import render_ftrace_text
from toysched import looks_like_toysched, read_toysched, toysched_lines

MS = 1_000_000


@pytest.fixture
def toy():
    """The toy format, registered for the test (one line), and removed after it."""
    fmt = register(Format("toysched", title="a toy scheduler log", described="a toysched log",
                          first="'toysched 1'", binary=False, sniff=looks_like_toysched,
                          read=read_toysched, kernel=True, recording="toysched -o FILE"))
    try:
        yield fmt
    finally:
        del FORMATS["toysched"]


def _host():
    return attrs.evolve(MUTANT_HOST, options=attrs.evolve(MUTANT_HOST.options,
                                                          phases="synchronous"))


def _renderings(mutant: str | None):
    """The schedule of *mutant* (None: Akita itself) on the mutant host, as ftrace text and as
    a toysched log of the same scheduler events."""
    host, out = _host(), io.StringIO()
    variant = mutant_named(mutant) if mutant else Mutant("reference", "-", "Akita.", AkitaPolicy)
    simulate_mutant(host, variant, duration=60 * MS, seed=1, trace=out)
    lines = out.getvalue().splitlines()
    ftrace = render_ftrace_text(lines)
    events = sched_events(ftrace.data.decode().splitlines())
    toy = ("\n".join(toysched_lines(events)) + "\n").encode()
    options = dict(ftrace.options, trace_map=ftrace.trace_map, tolerance=0, keep=1000,
                   end=json.loads(lines[0])["duration_ns"])
    return host, ftrace.data, toy, options


def _judged(report):
    return report.verdict, dict(report.counts), [(v.rule, v.t, v.cpu) for v in report.violations]


@pytest.mark.parametrize("mutant", [None, "idle-while-runnable", "lo-first-in-hi-mode"])
def test_a_registered_format_is_judged_as_the_same_schedule_in_ftrace(toy, tmp_path, mutant):
    host, ftrace, data, options = _renderings(mutant)
    path = tmp_path / "run.toysched"
    path.write_bytes(data)
    options.pop("trace_format")
    by_ftrace = conform_stream(host, io.BytesIO(ftrace), trace_format="ftrace", **options)
    by_toy = conform_file(host, path, **options)  # "auto": told by its first line
    assert _judged(by_toy) == _judged(by_ftrace)
    assert by_toy.decisions == by_ftrace.decisions > 0
    assert (by_toy.verdict == "conformant") == (mutant is None)


def test_open_trace_reads_a_registered_format(toy):
    _, ftrace, data, _ = _renderings(None)
    name, header, records = open_trace(io.BytesIO(data), path="run.toysched")
    assert (name, header) == ("toysched", None)
    expected = list(sched_events(ftrace.decode().splitlines()))
    got = list(records)
    assert [(e.ns, e.cpu, e.kind, e.prev, e.prev_runnable, e.next, e.task) for e in got] == \
        [(e.ns, e.cpu, e.kind, e.prev, e.prev_runnable, e.next, e.task) for e in expected]


def test_the_registry_names_a_registered_format(toy):
    assert format_names()[0] == "auto" and "toysched" in format_names()
    assert "toysched" in kernel_formats() and "jsonl" not in kernel_formats()
    with pytest.raises(ValueError, match="registered already"):
        register(toy)


def test_an_unregistered_format_is_refused():
    _, _, data, _ = _renderings(None)
    with pytest.raises(TraceError, match="expected a JSON Lines header or an ftrace line"):
        open_trace(io.BytesIO(data), path="run.toysched")
    with pytest.raises(ModelError, match="field 'trace_format'"):
        open_trace(io.BytesIO(data), path="run.toysched", trace_format="toysched")


def test_the_shipped_formats_and_their_order():
    """``auto`` tries trace.dat, xentrace (by their first bytes), then jsonl, ftrace."""
    assert format_names() == ("auto", "jsonl", "ftrace", "trace.dat", "xentrace")
    assert kernel_formats() == {"ftrace", "trace.dat", "xentrace"}
    assert {name: fmt.unit for name, fmt in FORMATS.items()} == {
        "jsonl": "line", "ftrace": "line", "trace.dat": "event", "xentrace": "event"}
    assert all(fmt.recording for fmt in FORMATS.values() if fmt.kernel)


def test_the_docs_table_lists_every_registered_format(toy, tmp_path, monkeypatch):
    """The table of docs/conform.rst is written from the registry, a toy format included."""
    monkeypatch.syspath_prepend(str(DOCS / "_ext"))
    from trace_formats import write_table

    text = write_table(tmp_path).read_text()
    assert all(f"``{name}``" in text for name in FORMATS) and "``toysched``" in text
    assert "a toy scheduler log" in text and "``toysched -o FILE``" in text
