"""ConformOptions: one record of what a check is asked, validated once, passed down."""

import io

import pytest

from akita.oracle import ConformOptions, Oracle, TraceError, conform, conform_stream
from hosts import MUTANT_HOST

TRACE = b'{"akita_trace":1,"duration_ns":1000}\n{"t":0,"cpu":0,"event":"idle"}\n'


@pytest.mark.parametrize("keywords, field", [
    ({"ties": "sometimes"}, "ties"),
    ({"reports": ("dispatch",)}, "reports"),
    ({"tolerance": -1}, "tolerance"),
    ({"policy": "fifo"}, "policy"),
    ({"placement": "random"}, "placement"),
    ({"trace_format": "pcap"}, "trace_format"),
])
def test_a_bad_option_is_refused_when_the_record_is_made_naming_the_parameter(keywords, field):
    with pytest.raises(TraceError, match=f"field '{field}'"):
        ConformOptions(**keywords)


def test_the_record_and_its_keywords_judge_alike():
    kw = {"ties": "strict", "keep": 3, "window": 2, "tolerance": 5, "trace_format": "jsonl"}
    by_keywords = conform_stream(MUTANT_HOST, io.BytesIO(TRACE), **kw)
    by_record = conform_stream(MUTANT_HOST, io.BytesIO(TRACE), ConformOptions(**kw))
    assert by_record.as_json() == by_keywords.as_json()
    assert (by_record.ties, by_record.tolerance) == ("strict", 5)


def test_the_defaults_are_written_once():
    options = ConformOptions()
    assert (options.trace_format, options.ties, options.keep, options.window,
            options.placement, options.reports, options.tolerance) == (
        "auto", "any", 10, 8, "first-fit", None, None)
    oracle = Oracle(MUTANT_HOST, phases={vm.name: 0 for vm in MUTANT_HOST.vms})
    assert (oracle.tolerance, oracle.policy, oracle.keep, oracle.window) == (0, "akita", 10, 8)


def test_a_record_and_keywords_at_once_are_refused():
    with pytest.raises(TypeError, match="options and keywords at once: ties"):
        conform(MUTANT_HOST, [], ConformOptions(), ties="strict")


def test_an_oracle_refuses_bad_keywords_through_the_record():
    with pytest.raises(TraceError, match="field 'reports'"):
        Oracle(MUTANT_HOST, reports=["idle"])
