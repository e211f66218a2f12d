"""The root cpuset's load balancing, as a run finds it and as it restores it (decision 358).

A fake cgroup root in a temporary folder: no kernel needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from akita.linux.cpuset import PREFIX, Cpusets


def _root(tmp_path: Path, balance: str, *others: str) -> Path:
    (tmp_path / "cpuset.sched_load_balance").write_text(balance + "\n")
    for name in others:
        (tmp_path / name).mkdir()
    return tmp_path


@pytest.mark.parametrize("balance, others, restored", [
    ("1", (), "1"),                                # the machine's own value
    ("0", (), "0"),                                # off by someone else's choice: kept off
    ("0", (f"{PREFIX}999999-p0",), "1"),           # off because another run is on: it
])                                                 # was "0" here, left off after both runs
def test_a_run_restores_what_the_machine_had(tmp_path, balance, others, restored):
    sets = Cpusets([0], owner=4242, root=_root(tmp_path, balance, *others))
    sets.create()
    assert (tmp_path / "cpuset.sched_load_balance").read_text() == "0"
    assert sets.balance_was == restored
