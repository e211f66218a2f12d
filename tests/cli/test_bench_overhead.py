"""``bench/overhead.py``: the sweep's hosts, counted both ways, on a few seeded draws."""

import importlib.util
import random

import pytest

from repo import ROOT

pytestmark = pytest.mark.rule("R11")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("overhead", ROOT / "bench" / "overhead.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_counting_the_cost_no_pcpu_misses_ignoring_it_some_do(bench):
    rng = random.Random(1)
    hosts = [bench.random_host(rng, 2_460) for _ in range(40)]
    counted = [bench.missing_pcpus(host, True, 2_460) for host in hosts]
    ignored = [bench.missing_pcpus(host, False, 2_460) for host in hosts]
    assert sum(bad for _, bad, _ in counted) == 0
    assert sum(bad for _, bad, _ in ignored) > 0


def test_the_hosts_are_the_same_for_the_same_seed(bench):
    assert bench.random_host(random.Random(7), 1) == bench.random_host(random.Random(7), 1)
