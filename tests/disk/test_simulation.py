"""The simulation: determinism, accounting, bad input."""

import json

import pytest

from akita.disk import ProcessSpec, VMSpec, simulate
from akita.model import ModelError

S = 10**9
VMS = (VMSpec("a", (ProcessSpec("a0", "seqrd"), ProcessSpec("a1", "rndwr"))),
       VMSpec("b", (ProcessSpec("b0", "rndrd"),)))


@pytest.mark.parametrize("scheduler", ["noop", "deadline", "cfq", "as", "pregather"])
def test_same_seed_same_bytes(scheduler):
    one = json.dumps(simulate(VMS, scheduler, duration_ns=S // 4, seed=3).as_json())
    two = json.dumps(simulate(VMS, scheduler, duration_ns=S // 4, seed=3).as_json())
    assert one == two


def test_another_seed_moves_the_random_processes():
    one = simulate(VMS, "noop", duration_ns=S // 4, seed=1).as_json()
    two = simulate(VMS, "noop", duration_ns=S // 4, seed=2).as_json()
    assert one["mean_seek_sectors"] != two["mean_seek_sectors"]


def test_time_adds_up():
    m = simulate(VMS, "cfq", duration_ns=S // 4).as_json()
    assert m["transfer_ns"] + m["seek_ns"] + m["rotation_ns"] <= S // 4 + 30_000_000
    assert 0 < m["utilisation_permille"] < 1000
    assert sum(v["requests"] for v in m["vms"].values()) <= m["requests_started"]


def test_a_lone_sequential_reader_streams():
    m = simulate([VMSpec("a", (ProcessSpec("a0", "seqrd", think_ns=0),))], "noop",
                 duration_ns=S // 10).as_json()
    assert m["mean_seek_sectors"] == 0 and m["utilisation_permille"] >= 990


@pytest.mark.parametrize("make, field", [
    (lambda: ProcessSpec("p", "seqread"), "pattern"),
    (lambda: ProcessSpec("p", "seqrd", think_ns=-1), "think_ns"),
    (lambda: simulate(VMS, "sstf", duration_ns=S), "scheduler"),
    (lambda: simulate(VMS, "noop", duration_ns=0), "duration"),
])
def test_bad_input_is_a_model_error_of_one_line_naming_the_field(make, field):
    with pytest.raises(ModelError) as caught:
        make()
    assert caught.value.field == field and "\n" not in str(caught.value)
    assert "expected" in str(caught.value) and "got" in str(caught.value)
