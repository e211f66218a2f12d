"""The baseline keys of a VM (weight, cap, nice, pin): parsed, checked, written back."""

from __future__ import annotations

import pytest

from akita.model import DEFAULT_WEIGHT, ModelError, Share, dumps_host, host_json, loads_host

BASE = '[host]\npcpus = 2\n[[vm]]\nname = "a"\ntype = "Type2"\n'


def test_defaults_are_xen_and_linux_defaults_and_are_not_written():
    host = loads_host(BASE)
    assert host.vms[0].share == Share() and Share().weight == DEFAULT_WEIGHT == 256
    assert "weight" not in dumps_host(host) and "weight" not in host_json(host)["vms"][0]


def test_keys_round_trip():
    host = loads_host(BASE + "weight = 512\ncap = 150\nnice = -5\npin = [1, 0]\n")
    assert host.vms[0].share == Share(512, 150, -5, (1, 0))
    assert loads_host(dumps_host(host)) == host
    assert host_json(host)["vms"][0]["pin"] == [1, 0]


@pytest.mark.parametrize("line, field, expected", [
    ("weight = 0", "weight", "from 1 to 65535"),
    ("weight = true", "weight", "from 1 to 65535"),
    ("cap = -1", "cap", ">= 0"),
    ("nice = 20", "nice", "from -20 to 19"),
    ("pin = 1", "pin", "a list of pCPU indices"),
    ("pin = [0, 0]", "pin", "distinct"),
    ("pin = [2]", "pin", "below host.pcpus (2)"),
])
def test_bad_keys_name_the_vm_and_field(line, field, expected):
    with pytest.raises(ModelError) as caught:
        loads_host(BASE + line + "\n", path="h.toml")
    error = caught.value
    assert (error.field, error.vm, error.path) == (field, "a", "h.toml")
    assert expected in str(error)


def test_slice_is_a_duration_written_back_with_its_unit():
    """``slice``: the EEVDF request of ``sched_attr.sched_runtime`` (read by ``eevdf``)."""
    host = loads_host(BASE + 'slice = "300us"\n')
    assert host.vms[0].share == Share(slice=300_000)
    assert 'slice = "300us"' in dumps_host(host)
    assert loads_host(dumps_host(host)) == host
    assert host_json(host)["vms"][0]["slice"] == 300_000
    assert "slice" not in dumps_host(loads_host(BASE))


@pytest.mark.parametrize("line", ["slice = 5", 'slice = "-1ms"', 'slice = "fast"'])
def test_a_bad_slice_names_the_vm_and_field(line):
    with pytest.raises(ModelError) as caught:
        loads_host(BASE + line + "\n", path="h.toml")
    assert (caught.value.field, caught.value.vm, caught.value.path) == ("slice", "a", "h.toml")
