"""The fleet file (fleet/spec.py): what it reads, and each bad key named."""

from fractions import Fraction

import pytest

from akita.fleet import load_spec, loads_spec
from akita.model import ModelError
from repo import EXAMPLES, ROOT

SMALL = (ROOT / "tests" / "fleet" / "small.toml").read_text(encoding="utf-8")


def test_the_small_spec_reads_as_written():
    spec = loads_spec(SMALL)
    assert (spec.seed, spec.horizon, spec.tick, spec.hosts, spec.pcpus) == \
        (3, 3600 * 10**9, 10**9, 4, 2)
    assert spec.test == "edf-vd" and spec.placements == ("first-fit", "spread")
    assert spec.p_arrival == Fraction(1, 15) and spec.ticks == 3600
    assert spec.lifetime == ("log-uniform", 60 * 10**9, 1800 * 10**9)
    assert [(t.preset, t.weight, t.vcpus) for t in spec.mix] == \
        [("Type1", 1, (1, 2)), ("Type6", 1, (1,)), ("Type2", 2, (1, 2)), ("Type3", 1, (1,))]
    assert [t.preset for t in spec.types(True)] == ["Type1", "Type6"]
    assert spec.mix[0].workload.kind == "poisson" and spec.mix[1].workload.kind == "cpu-bound"
    assert (spec.sample, spec.duration, spec.spread_policy) == (2, 10**8, "credit")


def test_the_optional_keys_have_their_documented_defaults():
    text = SMALL.replace('tick = "1s"\n', "").replace('duration = "100ms"\n', "")
    text = text.replace('placements = ["first-fit", "spread"]\n', "")
    text = text.replace('distribution = "log-uniform"\n', "")
    spec = loads_spec(text)
    assert (spec.tick, spec.duration, spec.spread_policy) == (10**9, 10**9, "credit")
    assert spec.placements == ("first-fit", "spread") and spec.lifetime[0] == "log-uniform"
    assert spec.test == "edf-vd" and spec.mix[1].weight == 1 and spec.mix[1].vcpus == (1,)


def test_the_example_reads():
    spec = load_spec(EXAMPLES / "fleet.toml")
    assert spec.hosts * spec.pcpus == 192 and spec.sample == 4
    # one policy for both placements' sampled hosts, at a load that does not fill the fleet
    assert spec.policy == "akita" and spec.rate == Fraction(1, 60)


def test_one_policy_for_every_sampled_host_is_read_and_kept_in_the_json():
    spec = loads_spec(SMALL.replace('duration = "100ms"', 'duration = "100ms"\npolicy = "cfs"'))
    assert spec.policy == "cfs" and spec.as_json()["sample"]["policy"] == "cfs"
    assert loads_spec(SMALL).policy is None


BAD = {
    "no fleet table": ("[flet]\nseed = 1\n", "field 'flet'"),
    "unknown key": (SMALL.replace("seed = 3", "sed = 3"), "field 'fleet.sed'"),
    "no seed": (SMALL.replace("seed = 3\n", ""), "field 'fleet.seed'"),
    "horizon off the grid": (SMALL.replace('"3600s"', '"3600.5s"'), "field 'fleet.horizon'"),
    "too many ticks": (SMALL.replace('tick = "1s"', 'tick = "1us"'), "at most 10000000 ticks"),
    "zero hosts": (SMALL.replace("hosts = 4", "hosts = 0"), "field 'fleet.hosts'"),
    "bad test": (SMALL.replace('placements =', 'test = "edf-x"\nplacements ='),
                 "field 'fleet.test'"),
    "bad placement": (SMALL.replace('"spread"]', '"worst-fit"]'), "field 'fleet.placements'"),
    "placement twice": (SMALL.replace('"spread"]', '"first-fit"]'), "each placement once"),
    "rate above one per tick": (SMALL.replace('rate = "1/15"', "rate = 2"),
                                "field 'fleet.arrivals.rate'"),
    "zero rate": (SMALL.replace('rate = "1/15"', "rate = 0"), "a rate > 0"),
    "lifetime off the grid": (SMALL.replace('"60s", "1800s"', '"60.5s", "1800s"'),
                              "field 'fleet.lifetimes.range'"),
    "lifetimes reversed": (SMALL.replace('"60s", "1800s"', '"1800s", "60s"'),
                           "0 < shortest <= longest"),
    "bad distribution": (SMALL.replace('"log-uniform"', '"pareto"'),
                         "field 'fleet.lifetimes.distribution'"),
    "p_hi above one": (SMALL.replace("p_hi = 0.3", "p_hi = 1.5"), "field 'fleet.mix.p_hi'"),
    "unknown type": (SMALL.replace('type = "Type6"', 'type = "Type9"'),
                     "field 'fleet.mix.types[1].type'"),
    "type twice": (SMALL.replace('type = "Type6"', 'type = "Type1"'), "each type once"),
    "no HI type": (SMALL.replace('type = "Type1"', 'type = "Type4"').replace(
        'type = "Type6"', 'type = "Type5"'), "at least one HI type"),
    "too many vCPUs": (SMALL.replace("vcpus = [1, 2]\nworkload = { kind = \"duty\"",
                                     "vcpus = [1, 3]\nworkload = { kind = \"duty\""),
                       "field 'fleet.mix.types[2].vcpus'"),
    "bad workload": (SMALL.replace('utilization = "25%"', 'utilisation = "25%"'),
                     "field 'fleet.mix.types[2].workload.utilisation'"),
    "sample above the fleet": (SMALL.replace("hosts = 2", "hosts = 5"),
                               "field 'fleet.sample.hosts'"),
    "bad policy": (SMALL.replace('duration = "100ms"',
                                 'duration = "100ms"\nspread_policy = "rtds"'),
                   "field 'fleet.sample.spread_policy'"),
    "not TOML": ("[fleet\n", "field 'toml'"),
    "unknown one policy": (SMALL.replace('duration = "100ms"',
                                         'duration = "100ms"\npolicy = "rtds2"'),
                           "field 'fleet.sample.policy'"),
    "one policy and a spread policy": (SMALL.replace(
        'duration = "100ms"', 'duration = "100ms"\npolicy = "akita"\nspread_policy = "cfs"'),
        "either policy (one for every host) or spread_policy"),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_each_bad_spec_names_the_file_and_the_key(case):
    text, expected = BAD[case]
    with pytest.raises(ModelError) as error:
        loads_spec(text, path="f.toml")
    message = str(error.value)
    assert message.startswith("f.toml") and expected in message and "\n" not in message
