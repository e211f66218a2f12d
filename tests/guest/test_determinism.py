"""The same host and seed give the same run, byte for byte; another seed, another program."""

import json

import pytest

from akita.experiments.experiment import example_host
from akita.experiments.flexcore import variant
from akita.reference.run import simulate

S = 1_000_000_000


def _host(approach: str):
    return variant(example_host("flexcore.toml"), approach, work_divisor=16)


@pytest.mark.parametrize("approach", ["none", "balloon", "relaxed-co"])
def test_same_seed_same_bytes(tmp_path, approach):
    runs = []
    for k in range(2):
        trace = tmp_path / f"{k}.jsonl"
        doc = simulate(_host(approach), "credit", duration=S // 4, seed=7,
                       trace_path=str(trace)).as_json()
        runs.append((json.dumps(doc), trace.read_bytes()))
    assert runs[0] == runs[1]


def test_another_seed_draws_other_programs():
    one, two = (simulate(_host("none"), "cfs", duration=S // 4, seed=seed).as_json()["guests"]
                for seed in (1, 2))
    assert one["streamcluster"]["completion_ns"] != two["streamcluster"]["completion_ns"]


def test_a_host_without_guests_has_no_guests_key():
    doc = simulate(example_host("fig5.toml"), "credit", duration=S // 100).as_json()
    assert "guests" not in doc
