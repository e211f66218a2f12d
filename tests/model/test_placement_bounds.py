"""The CAL bound is kept in the placement (R14, decision 261): admission's answer carries
it, and the admission document and the simulation's metrics read that one bound."""

import pytest

from akita.model import first_fit, load_host, scan_fit
from akita.model.ioq import vm_bound
from akita.reference.run import simulate
from repo import EXAMPLES

pytestmark = pytest.mark.rule("R14")

IOQ = EXAMPLES / "ioq.toml"


def test_first_fit_keeps_each_admitted_ioq_vms_bound():
    host = load_host(IOQ)
    placement = first_fit(host)
    kept = {a.vm.name: a.cal_bound for a in placement.vms}
    for answer in placement.vms:
        if answer.admitted and answer.vm.ioq is not None:
            assert kept[answer.vm.name] == vm_bound(placement, answer.vm.name,
                                                    host.options.x_rule)
            assert kept[answer.vm.name] is not None
        else:  # rejected, or no IOQ declared: no bound to keep
            assert kept[answer.vm.name] is None
    assert not placement.of("logger").admitted and kept["memcached"] is not None


def test_the_literal_scan_keeps_the_bounds_of_its_own_placement():
    """``scan_fit`` (the ``last-fit`` mutant's placer) holds no IOQ, so it places differently,
    and keeps the bound of each admitted IOQ VM where it put it."""
    host = load_host(IOQ)
    for choose in ("first", "last"):
        scanned = scan_fit(host, choose)
        bounded = [a for a in scanned.vms if a.admitted and a.vm.ioq is not None]
        assert bounded
        for answer in bounded:
            assert answer.cal_bound == vm_bound(scanned, answer.vm.name, host.options.x_rule)


def test_the_document_and_the_simulation_read_the_kept_bound():
    host = load_host(IOQ)
    placement = first_fit(host)
    document = placement.as_json(host.options)
    metrics = simulate(host, "akita", duration=20_000_000).as_json()["vms"]
    for entry in document["vms"]:
        answer = placement.of(entry["name"])
        if answer.cal_bound is None:
            continue
        assert entry["cal_bound"] == answer.cal_bound.as_json()
        assert metrics[entry["name"]]["ioq"]["cal_bound"] == answer.cal_bound.as_json()


def test_the_bound_takes_no_part_in_equality():
    host = load_host(IOQ)
    placement = first_fit(host)
    answer = placement.of("memcached")
    assert answer == answer.__class__(answer.vm, answer.pcpus, answer.reason)
