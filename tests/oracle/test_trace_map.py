"""The host file's [trace_map]: kernel tasks (pid or comm) to the host's vCPUs."""

import json

import pytest
from hypothesis import given
from strategies import hosts

from akita.model import Host, ModelError, dumps_host, first_fit, host_json, loads_host

BASE = """
[host]
pcpus = 2
[[vm]]
name = "web"
type = "Type1"
vcpus = 2
[[vm]]
name = "db"
type = "Type2"
"""


def test_round_trip():
    host = loads_host(BASE + '[trace_map]\n"4242" = "web/1"\n"qemu-db" = "db/0"\n"CPU 0/KVM" = "web/0"\n')
    assert host.trace_map == (("4242", "web/1"), ("CPU 0/KVM", "web/0"), ("qemu-db", "db/0"))
    assert dict(host.trace_map) == {"4242": "web/1", "qemu-db": "db/0", "CPU 0/KVM": "web/0"}
    text = dumps_host(host)
    assert "[trace_map]" in text
    assert loads_host(text) == host
    assert hash(host) == hash(loads_host(text))


def test_absent_or_empty_table():
    plain = loads_host(BASE)
    assert plain.trace_map == ()
    assert "trace_map" not in dumps_host(plain)
    assert loads_host(BASE + "[trace_map]\n") == plain


def test_a_mapping_or_pairs_in_any_order_make_the_same_host():
    vms = loads_host(BASE).vms
    one = Host(2, vms, trace_map={"qemu-db": "db/0", "4242": "web/1"})
    two = Host(2, vms, trace_map=[("4242", "web/1"), ("qemu-db", "db/0")])
    assert one == two and one.trace_map == (("4242", "web/1"), ("qemu-db", "db/0"))


def test_host_json_only_when_non_empty():
    plain = loads_host(BASE)
    assert "trace_map" not in host_json(plain)
    mapped = loads_host(BASE + '[trace_map]\n"4242" = "web/1"\n')
    assert host_json(mapped)["trace_map"] == {"4242": "web/1"}
    json.dumps(host_json(mapped))
    without = host_json(mapped)
    del without["trace_map"]
    assert without == host_json(plain)


def test_no_effect_on_admission():
    plain = loads_host(BASE)
    mapped = loads_host(BASE + '[trace_map]\n"4242" = "web/1"\n')
    assert first_fit(mapped) == first_fit(plain)


@pytest.mark.parametrize(
    "entry, field, value, expected",
    [
        ('"4242" = "cache/0"', 'trace_map."4242"', "cache/0", "there is no VM 'cache'"),
        ('"4242" = "web/2"', 'trace_map."4242"', "web/2", "which has vCPUs 0 to 1"),
        ('"qemu-db" = "db/1"', 'trace_map."qemu-db"', "db/1", "which has vCPUs 0 to 0"),
        ('"4242" = 0', 'trace_map."4242"', 0, "a vCPU name 'VM/i' as a string"),
        ('"4242" = ["web/0"]', 'trace_map."4242"', ["web/0"], "a vCPU name 'VM/i' as a string"),
        ('"4242" = "web"', 'trace_map."4242"', "web", "a vCPU name 'VM/i'"),
        ('"4242" = "web/01"', 'trace_map."4242"', "web/01", "a vCPU name 'VM/i'"),
        ('"0" = "web/0"', 'trace_map."0"', "0", "pid 0 is the idle task"),
        ('"007" = "web/0"', 'trace_map."007"', "007", "leading zeros"),
        ('"" = "web/0"', 'trace_map.""', "", "non-empty string"),
        ('"qemu-system-x86_64" = "web/0"', 'trace_map."qemu-system-x86_64"', "qemu-system-x86_64",
         "at most 15 bytes"),
    ],
)
def test_bad_entries_name_the_file_and_the_field(entry, field, value, expected):
    with pytest.raises(ModelError) as error:
        loads_host(BASE + "[trace_map]\n" + entry + "\n", path="h.toml")
    assert (error.value.path, error.value.vm, error.value.field, error.value.value) == (
        "h.toml", None, field, value,
    )
    message = str(error.value)
    assert message.startswith(f"h.toml: field {field!r}: expected ")
    assert expected in message and message.endswith(f"got {value!r}")


def test_a_trace_map_that_is_no_table():
    with pytest.raises(ModelError) as error:
        loads_host('trace_map = "web/0"\n' + BASE, path="h.toml")
    assert error.value.field == "trace_map"
    assert str(error.value).startswith("h.toml: field 'trace_map': expected a [trace_map] table")


def test_a_duplicate_key_given_as_pairs():
    with pytest.raises(ModelError, match="each pid or comm at most once"):
        Host(2, loads_host(BASE).vms, trace_map=[("4242", "web/0"), ("4242", "web/1")])


@given(hosts())
def test_round_trip_with_a_map_of_every_vcpu(host):
    pairs = {str(1000 + i): name for i, name in enumerate(
        f"{vm.name}/{index}" for vm in host.vms for index in range(vm.vcpus)
    )}
    mapped = Host(host.pcpus, host.vms, test=host.test, options=host.options, trace_map=pairs)
    assert loads_host(dumps_host(mapped)) == mapped
    assert dict(mapped.trace_map) == pairs
