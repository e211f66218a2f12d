"""The published kernel-vs-model tables, derived again from the recorded measurements.

``tests/data/kernel/predictions.json`` holds every kernel run and every simulation the
tables of docs/kernel.rst come from; deriving them needs no kernel.
"""

import json

import pytest

from akita.linux.predictions import HOSTS, fig5_rows, render_rst, table
from repo import DOCS, ROOT

RECORD = ROOT / "tests" / "data" / "kernel" / "predictions.json"


@pytest.fixture(scope="module")
def record():
    return json.loads(RECORD.read_text())


def test_the_published_tables_are_the_records(record):
    assert (DOCS / "kernel" / "tables.inc").read_text() == render_rst(record)
    assert (DOCS / "kernel" / "tables-eevdf.inc").read_text() == render_rst(record, "eevdf")


def test_every_host_fixed_in_advance_was_measured_often_enough(record):
    assert set(record["hosts"]) == set(HOSTS)
    assert record["runs"] >= 5
    for name, entry in record["hosts"].items():
        assert len(entry["kernel"]) == record["runs"], name
        assert (ROOT / entry["file"]).exists()


def test_each_row_has_kernel_model_and_ratio(record):
    rows = table(record)
    assert len(rows) == sum(len(figures) for _, figures in HOSTS.values())
    for row in rows:
        k = row["kernel"]
        assert k["n"] == record["runs"] and k["min"] <= k["median"] <= k["max"]
        assert row["model"] is not None and row["ratio"] is not None


def test_fig5_has_alone_and_crowded_under_the_default_scheduler(record):
    rows = [r for r in fig5_rows(record) if r["scheduler"].startswith("EEVDF")]
    assert [(r["setting"], r["model_policy"]) for r in rows] == [
        ("alone", "cfs"), ("crowded", "cfs"),
        ("alone", "cfs+measured-service"), ("crowded", "cfs+measured-service")]
    assert all(r["kernel"]["n"] == record["runs"] for r in rows)


def test_the_measured_service_is_what_the_runs_say(record):
    from akita.linux.predictions import measured_service

    for name in ("fig5", "fig5-alone"):
        entry = record["hosts"][name]
        costs = sorted(r["vms"]["memcached"]["cpu_ns"] // r["vms"]["memcached"]["requests"]
                       for r in entry["kernel"])
        assert measured_service(entry["kernel"]) == entry["measured_service_ns"] == costs[2]


def test_a_changed_measurement_changes_the_table(record):
    """The wrong variant: one kernel figure altered must show in the derived table."""
    run = record["hosts"]["weights"]["kernel"][0]["vms"]["heavy"]
    altered = json.loads(json.dumps(record))
    for one in altered["hosts"]["weights"]["kernel"]:
        one["vms"]["heavy"]["cpu_share"] = run["cpu_share"] / 2
    assert render_rst(altered) != render_rst(record)
