"""Requests in flight (decision 300) and think times drawn from a law (decision 301)."""

import random

import pytest

from akita.disk import ProcessSpec, VMSpec, simulate
from akita.disk.schedulers import Noop
from akita.disk.workload import exponential_ns
from akita.model import ModelError

MS = 10**6


class _Counting(Noop):
    """noop, counting the most requests of one process queued or in service at once."""

    name = "noop-counting"

    def __init__(self, drive, images):
        super().__init__(drive, images)
        self.outstanding: dict[int, int] = {}
        self.most = 0

    def add(self, request, now):
        self.outstanding[request.process] = self.outstanding.get(request.process, 0) + 1
        self.most = max(self.most, self.outstanding[request.process])
        super().add(request, now)

    def completed(self, request, now):
        self.outstanding[request.process] -= 1


def _most(spec, seconds=10**9 // 5):
    seen = []

    class Spy(_Counting):
        def __init__(self, drive, images):
            super().__init__(drive, images)
            seen.append(self)

    metrics = simulate([VMSpec("a", (spec,))], Spy, duration_ns=seconds).as_json()
    return seen[0].most, metrics


@pytest.mark.parametrize("depth", [1, 6])
def test_a_process_keeps_depth_requests_outstanding_and_no_more(depth):
    most, _ = _most(ProcessSpec("r", "rndrd", think_ns=0, depth=depth))
    assert most == depth


def test_a_batch_thinks_once_after_its_last_request_and_bounds_what_is_outstanding():
    """A writer of bursts of 10 requests, at most 4 outstanding, thinking 5 ms a burst: never
    more than 4 at once, and its think time is 5 ms per burst, not per request (the wrong
    variant, a think per request, would ask ten times as much)."""
    most, m = _most(ProcessSpec("w", "rndwr", think_ns=5 * MS, depth=4, batch=10))
    vm = m["vms"]["a"]
    assert most == 4
    bursts = -(-vm["requests"] // 10)
    assert vm["think_ns"] <= bursts * 5 * MS
    assert vm["think_ns"] >= (vm["requests"] // 10 - 1) * 5 * MS > 0


def test_exponential_draws_have_the_mean_and_the_shape_of_the_law():
    """20,000 draws of mean 100 us: the mean within 2 %, the share at most the mean within
    1.5 points of 1 - 1/e (63.2 %), the share above three means near e^-3 (5.0 %); a uniform
    law of the same mean (the wrong variant) has 50 % at most the mean."""
    rng = random.Random(7)
    draws = [exponential_ns(rng, 100_000) for _ in range(20_000)]
    assert abs(sum(draws) / len(draws) - 100_000) < 2_000
    assert abs(sum(d <= 100_000 for d in draws) / len(draws) - 0.632) < 0.015
    assert abs(sum(d > 300_000 for d in draws) / len(draws) - 0.0498) < 0.006
    uniform = [random.Random(7).randrange(200_001) for _ in range(2000)]
    assert abs(sum(d <= 100_000 for d in uniform) / len(uniform) - 0.632) > 0.05


def test_the_same_seed_draws_the_same_thinks():
    a, b = random.Random(3), random.Random(3)
    one = [exponential_ns(a, 1000) for _ in range(50)]
    two = [exponential_ns(b, 1000) for _ in range(50)]
    assert one == two and len(set(one)) > 1


def test_drawing_thinks_leaves_a_random_process_offsets_alone():
    """The thinks come from a generator of their own: the offsets a random reader draws are
    the same whatever the law of its thinks."""
    offsets = {}
    for draw in ("fixed", "exponential"):
        seen = []

        class Spy(Noop):
            name = "noop-spy"

            def add(self, request, now):
                seen.append(request.lba)
                super().add(request, now)

        simulate([VMSpec("a", (ProcessSpec("r", "rndrd", think_draw=draw),))], Spy,
                 duration_ns=10**8)
        offsets[draw] = seen[:50]
    assert offsets["fixed"] == offsets["exponential"]


@pytest.mark.parametrize("make, field", [
    (lambda: ProcessSpec("p", "seqrd", think_draw="normal"), "think_draw"),
    (lambda: ProcessSpec("p", "seqrd", depth=0), "depth"),
    (lambda: ProcessSpec("p", "seqrd", batch=0), "batch"),
])
def test_bad_depth_batch_or_law_is_a_model_error_naming_the_field(make, field):
    with pytest.raises(ModelError) as caught:
        make()
    assert field in str(caught.value)
