"""The host file: presets, overrides, strictness, and parse(print(host)) == host."""

import pytest
from hypothesis import given
from strategies import hosts

from akita.model import Criticality, HostFileError, ModelError, dumps_host, load_host, loads_host
from repo import HOST_EXAMPLES

MS = 1_000_000


def test_presets_and_explicit_keys():
    host = loads_host(
        """
        [host]
        pcpus = 2
        [[vm]]
        name = "memcached"
        type = "Type1"
        vcpus = 2
        [[vm]]
        name = "batch"
        criticality = "LO"
        period = "100ms"
        c_opt = "25ms"
        [[vm]]
        name = "tuned"
        type = "Type6"
        c_pes = "60ms"
        """
    )
    assert host.test == "edf-vd"
    memcached, batch, tuned = host.vms
    assert (memcached.criticality, memcached.c_opt, memcached.c_pes, memcached.period) == (
        Criticality.HI, 5 * MS, 25 * MS, 100 * MS,
    )
    assert memcached.vcpus == 2 and memcached.preset == "Type1"
    assert batch.c_pes is None and batch.u_opt * 4 == 1
    assert tuned.c_opt == 10 * MS and tuned.c_pes == 60 * MS


def test_lo_override_of_a_hi_preset_drops_its_c_pes():
    host = loads_host('[host]\npcpus = 1\n[[vm]]\nname = "a"\ntype = "Type1"\ncriticality = "LO"\n')
    assert host.vms[0].criticality is Criticality.LO and host.vms[0].c_pes is None


@pytest.mark.parametrize(
    "body, vm, field",
    [
        ('[host]\npcpus = 0', None, "host.pcpus"),
        ('[host]\npcpus = "2"', None, "host.pcpus"),
        ('[host]\npcpus = 1\ntest = "rm"', None, "host.test"),
        ('[host]\npcpus = 1\ncores = 2', None, "host.cores"),
        ("[hosts]\npcpus = 1", None, "hosts"),
        ("[[vm]]\nname = 'a'\ntype = 'Type1'", None, "host"),
        ("[host]\npcpus = 1\n[[vm]]\ntype = 'Type1'", None, "name"),
        ("[host]\npcpus = 1\n[[vm]]\nname = 'a'\ntype = 'Type9'", "a", "type"),
        ("[host]\npcpus = 1\n[[vm]]\nname = 'a'\ntype = 'Type1'\ncpus = 1", "a", "cpus"),
        ("[host]\npcpus = 1\n[[vm]]\nname = 'a'\ncriticality = 'LO'\nc_opt = '1ms'", "a", "period"),
        ("[host]\npcpus = 1\n[[vm]]\nname = 'a'\ncriticality = 'MID'\nperiod='1ms'\nc_opt='1ms'", "a", "criticality"),
        ("[host]\npcpus = 1\n[[vm]]\nname = 'a'\ntype = 'Type2'\nc_pes = '30ms'", "a", "c_pes"),
        ("[host]\npcpus = 1\n[[vm]]\nname = 'a'\ntype = 'Type1'\nc_pes = '200ms'", "a", "c_pes"),
        ("[host]\npcpus = 1\n[[vm]]\nname = 'a'\ntype = 'Type1'\nc_opt = '30ms'", "a", "c_pes"),
        ("[host]\npcpus = 1\n[[vm]]\nname = 'a'\ntype = 'Type1'\nperiod = '100'", "a", "period"),
        ("[host]\npcpus = 1\n[[vm]]\nname = 'a'\ntype = 'Type1'\nperiod = '0ms'", "a", "period"),
        ("[host]\npcpus = 1\n[[vm]]\nname = 'a'\ntype = 'Type1'\nc_opt = '-5ms'", "a", "c_opt"),
        ("[host]\npcpus = 1\n[[vm]]\nname = 'a'\ntype = 'Type1'\nvcpus = 0", "a", "vcpus"),
        ("[host]\npcpus = 1\n[[vm]]\nname = 'a'\ntype = 'Type1'\nvcpus = 1.5", "a", "vcpus"),
        ("[host]\npcpus = 1\n[[vm]]\nname = 'a'\ntype = 'Type1'\n[[vm]]\nname = 'a'\ntype = 'Type2'", "a", "name"),
        ("[host]\npcpus = 1\n[[vm]]\nname = 'a'\ncriticality = 'HI'\nperiod = '10ms'\nc_opt = '1ms'", "a", "c_pes"),
    ],
)
def test_bad_files_name_the_vm_and_the_field(body, vm, field):
    with pytest.raises(ModelError) as error:
        loads_host(body, path="h.toml")
    assert (error.value.path, error.value.vm, error.value.field) == ("h.toml", vm, field)
    assert str(error.value).startswith("h.toml: ")
    assert "\n" not in str(error.value)


def test_malformed_toml():
    with pytest.raises(HostFileError, match=r"^h.toml: field 'toml': expected valid TOML"):
        loads_host("[host\npcpus = 1", path="h.toml")


def test_missing_file(tmp_path):
    with pytest.raises(HostFileError, match="readable file"):
        load_host(tmp_path / "absent.toml")


@given(hosts())
def test_parse_print_round_trip(host):
    assert loads_host(dumps_host(host)) == host


def test_shipped_examples_load():
    examples = HOST_EXAMPLES
    assert examples
    for path in examples:
        assert loads_host(dumps_host(load_host(path))) == load_host(path)
