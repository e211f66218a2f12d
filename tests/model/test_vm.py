"""R1: the parameters of a VM, validated with errors that say where and what."""

import pytest

from akita.model import PRESETS, VM, Criticality, Host, ModelError

pytestmark = pytest.mark.rule("R1")

MS = 1_000_000


def lo(name="batch", **kw):
    return VM(name, Criticality.LO, kw.pop("period", 100 * MS), kw.pop("c_opt", 25 * MS), **kw)


def hi(name="web", **kw):
    return VM(
        name, Criticality.HI, kw.pop("period", 100 * MS), kw.pop("c_opt", 5 * MS),
        kw.pop("c_pes", 25 * MS), **kw,
    )


@pytest.mark.parametrize(
    "make, field",
    [
        (lambda: lo(period=0), "period"),
        (lambda: lo(period=-1), "period"),
        (lambda: lo(c_opt=0), "c_opt"),
        (lambda: lo(c_opt=101 * MS), "c_opt"),
        (lambda: lo(c_pes=30 * MS), "c_pes"),
        (lambda: hi(c_pes=None), "c_pes"),
        (lambda: hi(c_pes=4 * MS), "c_pes"),
        (lambda: hi(c_pes=101 * MS), "c_pes"),
        (lambda: lo(vcpus=0), "vcpus"),
        (lambda: lo(name=""), "name"),
        (lambda: lo(name="a/b"), "name"),
    ],
)
def test_invalid_vm_names_the_field(make, field):
    with pytest.raises(ModelError) as error:
        make()
    assert error.value.field == field
    assert isinstance(error.value, ValueError)


def test_error_carries_vm_and_expectation():
    with pytest.raises(ModelError) as error:
        hi(c_pes=200 * MS)
    assert error.value.vm == "web"
    assert error.value.value == "200ms"
    assert "c_pes <= period (100ms)" in error.value.expected
    assert str(error.value) == (
        "vm 'web': field 'c_pes': expected c_opt (5ms) <= c_pes <= period (100ms), got '200ms'"
    )


def test_boundaries_are_allowed():
    assert lo(c_opt=100 * MS).u_opt == 1
    assert hi(c_opt=100 * MS, c_pes=100 * MS).u_pes == 1
    assert hi(c_opt=25 * MS, c_pes=25 * MS).u_opt == hi(c_opt=25 * MS, c_pes=25 * MS).u_pes


def test_vcpus_inherit_and_are_named():
    vm = hi(vcpus=3)
    assert [v.name for v in vm.all_vcpus()] == ["web/0", "web/1", "web/2"]
    with pytest.raises(ModelError):
        vm.vcpu(3)


def test_table1_presets():
    rows = {
        name: (p.criticality.value, p.c_opt // MS, None if p.c_pes is None else p.c_pes // MS,
               p.period // MS)
        for name, p in PRESETS.items()
    }
    assert rows == {
        "Type1": ("HI", 5, 25, 100),
        "Type2": ("LO", 25, None, 100),
        "Type3": ("LO", 50, None, 100),
        "Type4": ("LO", 5, None, 50),
        "Type5": ("LO", 10, None, 100),
        "Type6": ("HI", 10, 50, 100),
    }


@pytest.mark.parametrize("pcpus", [0, -1, True, 1.0])
def test_host_needs_pcpus(pcpus):
    with pytest.raises(ModelError) as error:
        Host(pcpus=pcpus)
    assert error.value.field == "host.pcpus"


def test_host_refuses_unknown_test_and_duplicates():
    with pytest.raises(ModelError, match="host.test"):
        Host(pcpus=1, test="rm")
    with pytest.raises(ModelError, match="used by no other VM"):
        Host(pcpus=1, vms=[lo("a"), hi("a")])
