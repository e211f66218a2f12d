"""Structure-aware fuzzing of host files through the real command line, in process.

Issue 13, finding 10: mutated host files gave tracebacks and hangs.  Here
Hypothesis builds host files key by key -- every key of every table, values
of every TOML type and of every unit, huge, negative, zero, fractional,
unicode, NUL and BOM, and hosts of thousands of VMs -- and also mutates the
text of the shipped examples, and runs them through ``akita.cli.run``.  For
every input:

* no exception escapes ``run`` (a traceback is a failed test);
* the status is 0, 1 or 2; with 2, stdout is empty and stderr is exactly one
  line, ``akita: error: FILE: ...``; with 0 or 1, stderr is empty;
* the input is bounded by the ceilings of :mod:`akita.model.limits`, so the
  run is too (bench/fuzz.py measures it; no test asserts a wall-clock time).

Each test sets ``max_examples`` so that the file stays within about 20 s of
CPU under the ``ci`` profile.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Iterator

import pytest
import tomli_w
from akita.model.limits import MAX_TOTAL_VCPUS
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from repo import HOST_EXAMPLES

from akita.cli import run

_QUIET = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]

UNITS = ("s", "ms", "us", "ns", "µs", "min", "", "MS")

#: Integers at and around every edge: zero, negatives, the ceilings, int64, thousands of digits.
integers = st.one_of(
    st.integers(-3, 5),
    st.sampled_from([255, 256, 257, 1023, 1024, 1025, 4096, 4097, 65535, 65536,
                     2**31, 2**63 - 1, -(2**63)]),
    st.integers(min_value=-(10**30), max_value=10**30),
)
numbers = st.one_of(
    st.integers(0, 10**6).map(str),
    st.decimals(0, 10**6, allow_nan=False, allow_infinity=False, places=4).map(str),
    st.sampled_from(["1e400", "1e-400", "9" * 60, "0", "00", "1.", ".5", "-5", "1/0", "١", "0x10"]),
)
durations = st.builds(lambda n, u, s: f"{n}{s}{u}", numbers, st.sampled_from(UNITS),
                      st.sampled_from(["", " "]))
fractions = st.one_of(
    numbers, st.builds(lambda n: f"{n}%", numbers),
    st.builds(lambda p, q: f"{p}/{q}", st.integers(-2, 10**20), st.integers(-1, 10**20)),
    st.floats(allow_nan=True, allow_infinity=True),
)
texts = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", "\x00", "\ufeff", "web", "a/b", "Type1", "Type7", "HI", "LO", "hi",
                     "edf-vd", "edf", "amc-rtb", "rm-ll", "rm-rta", "nope", "actual", "virtual",
                     "x" * 300, "../../etc/hostname", "/etc/hostname", "jobs.csv"]),
)
#: Any TOML value, nested a little.
values = st.recursive(
    st.one_of(integers, texts, durations, st.booleans(), st.floats(allow_nan=False)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(["kind", "a", "period"]), inner,
                                            max_size=2)),
    max_leaves=6,
)

workloads = st.fixed_dictionaries(
    {},
    optional={
        "kind": st.sampled_from(["cpu-bound", "periodic", "sporadic", "poisson", "duty", "trace",
                                 "nope"]),
        "demand": durations, "min_demand": durations, "offset": durations, "period": durations,
        "service": durations, "window": durations, "probability": fractions, "rate": fractions,
        "utilization": fractions,
        "distribution": st.sampled_from(["fixed", "exponential", "gauss"]),
        "path": st.sampled_from(["jobs.csv", "../jobs.csv", "/etc/hostname", "", "\x00"]),
        "bogus": values,
    },
)
vms = st.fixed_dictionaries(
    {"name": st.one_of(st.sampled_from(["web", "db", "batch", "memcached"]), texts)},
    optional={
        "type": st.one_of(st.sampled_from(["Type1", "Type2", "Type3", "Type4", "Type5", "Type6"]),
                          values),
        "vcpus": integers, "criticality": st.one_of(st.sampled_from(["HI", "LO"]), values),
        "period": st.one_of(durations, values), "c_opt": durations, "c_pes": durations,
        "workload": st.one_of(workloads, values), "weight": integers, "cap": integers,
        "nice": integers, "pin": st.one_of(st.lists(integers, max_size=4), values),
        "extra": values,
    },
)
hosts = st.fixed_dictionaries(
    {"pcpus": st.one_of(st.integers(1, 4), integers, values)},
    optional={
        "test": st.one_of(st.sampled_from(["edf-vd", "edf", "amc-rtb", "rm-ll", "rm-rta"]), texts),
        "initial_temperature": integers, "hi_mode_deadline": texts,
        "wake_preempts": st.one_of(st.booleans(), values), "lo_in_hi_mode": st.booleans(),
        "context_switch_cost": durations, "unknown": values,
    },
)
documents = st.fixed_dictionaries(
    {"host": hosts, "vm": st.lists(vms, max_size=5)},
    optional={"trace_map": st.dictionaries(st.one_of(st.sampled_from(["4242", "0", "007",
                                                                      "9" * 40, "qemu"]), texts),
                                           st.one_of(texts, st.sampled_from(["web/0", "web/99"])),
                                           max_size=3)},
)


@contextlib.contextmanager
def _written(text: str | bytes) -> Iterator[str]:
    """A host file of *text*, beside a small trace ``jobs.csv``, in a folder removed after."""
    with tempfile.TemporaryDirectory(prefix="akita-fuzz-") as folder:
        with open(os.path.join(folder, "jobs.csv"), "w", encoding="utf-8") as stream:
            stream.write("0ns, 1ms\n5ms, 2ms\n")
        path = os.path.join(folder, "host.toml")
        with open(path, "wb") as stream:
            stream.write(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
        yield path


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = run(list(argv))  # an exception here is a traceback: the test fails
    out, err = capsys.readouterr()
    return status, out, err


def _check(capsys, text: str | bytes, *argv: str) -> tuple[int, str, str]:
    """Run ``akita ARGV HOST`` on a host file of *text* and check the standards."""
    with _written(text) as path:
        status, out, err = _cli(capsys, *argv, path)
        _assert_well_behaved(status, out, err, path)
    return status, out, err


def _assert_well_behaved(status: int, out: str, err: str, path: str) -> None:
    assert status in (0, 1, 2, 4), (status, err)  # 4: nothing to admit (no VM)
    if status == 2:
        assert out == "", out
        assert err.count("\n") == 1 and err.startswith("akita: error: "), err
        assert path in err or "aborted" in err, err  # the file is named
    else:
        assert err == "", err


def _dump(document: dict) -> str | None:
    try:
        return tomli_w.dumps(document)
    except (TypeError, ValueError):  # e.g. a NaN float tomli_w will not write
        return None


@settings(max_examples=150, suppress_health_check=_QUIET, deadline=None)
@given(documents)
def test_admit_never_escapes(capsys, document):
    """Every generated host file gives 0, 1 or 2, with the output the standards require."""
    text = _dump(document)
    assume(text is not None)  # a document tomli_w will not write is no host file
    _check(capsys, text, "admit")
    _check(capsys, text, "admit", "--json")


_SMALL = st.fixed_dictionaries(
    {"host": st.fixed_dictionaries({"pcpus": st.integers(1, 2)}),
     "vm": st.lists(vms, min_size=1, max_size=2)},
)


@settings(max_examples=40, suppress_health_check=_QUIET, deadline=None)
@given(_SMALL)
def test_simulate_never_escapes(capsys, document):
    """Small hosts run through ``simulate --duration 1ms`` with the same guarantees."""
    text = _dump(document)
    assume(text is not None)  # a document tomli_w will not write is no host file
    _check(capsys, text, "simulate", "--duration", "1ms", "--json")


_EXAMPLES = HOST_EXAMPLES


@settings(max_examples=120, suppress_health_check=_QUIET, deadline=None)
@given(
    example=st.sampled_from(_EXAMPLES),
    at=st.floats(0, 1),
    cut=st.integers(0, 40),
    insert=st.one_of(
        st.sampled_from(["\x00", "\ufeff", "\"", "[", "{", "[" * 2000, "{a=" * 2000, "9" * 5000,
                         "\n[[vm]]\n", "= ", "\\u0000", "é", "\ud800", "1e400", "'''", "#"]),
        st.text(max_size=8),
    ),
)
def test_mutated_examples_never_escape(capsys, example, at, cut, insert):
    """The shipped examples, with characters cut and junk inserted anywhere."""
    text = example.read_text(encoding="utf-8")
    position = int(at * len(text))
    _check(capsys, text[:position] + insert + text[position + cut:], "admit")


@settings(max_examples=30, suppress_health_check=_QUIET, deadline=None)
@given(data=st.binary(max_size=64), bom=st.booleans())
def test_binary_junk_never_escapes(capsys, data, bom):
    _check(capsys, (b"\xef\xbb\xbf" if bom else b"") + data, "admit")


@pytest.mark.parametrize("vms, vcpus", [(4096, 1), (MAX_TOTAL_VCPUS // 4, 4), (4097, 1),
                                        (1, 257), (20, 256)])
def test_thousands_of_vms_are_bounded(capsys, vms, vcpus):
    """Up to the ceilings a host is admitted (quickly: see bench/fuzz.py); beyond, refused."""
    body = "[host]\npcpus = 1024\n" + "".join(
        f'[[vm]]\nname = "v{i}"\ntype = "Type5"\nvcpus = {vcpus}\n' for i in range(vms)
    )
    status, out, err = _check(capsys, body, "admit", "--json")
    assert (status == 2) == (vms * vcpus > MAX_TOTAL_VCPUS or vcpus > 256)
