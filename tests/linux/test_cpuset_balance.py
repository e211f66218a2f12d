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


def _exclusive(root: Path, name: str, flag: str = "1") -> None:
    (root / name).mkdir()
    (root / name / "cpuset.cpu_exclusive").write_text(flag + "\n")


@pytest.mark.parametrize("run", ["remove", "undo"])
def test_balancing_comes_back_only_when_no_exclusive_cpuset_is_left(tmp_path, monkeypatch, run):
    """Both ways a run ends -- :meth:`Cpusets.remove` and the ledger's
    :func:`akita.linux.cleanup.undo` -- restore balancing through the one test,
    :func:`akita.linux.cpuset.restore_balance`: not while another exclusive cpuset is left
    (turning it on then is the wrong variant: the other run's pCPUs would be balanced
    into), and as it was once none is."""
    from akita.linux import cleanup, cpuset

    root = _root(tmp_path, "0")
    _exclusive(root, "not-exclusive", "0")
    _exclusive(root, "someone-else")
    monkeypatch.setattr(cleanup, "ROOT", root)

    def end() -> None:
        if run == "remove":
            sets = Cpusets([0], owner=4242, root=root)
            sets.balance_was = "1"
            sets.remove()
        else:
            cleanup.undo(cleanup.Ledger(tmp_path / "ledger.json", balance_was="1"))

    end()
    assert (root / "cpuset.sched_load_balance").read_text().strip() == "0"
    assert [d.name for d in cpuset.exclusive_cpusets(root)] == ["someone-else"]
    (root / "someone-else" / "cpuset.cpu_exclusive").write_text("0\n")
    end()
    assert (root / "cpuset.sched_load_balance").read_text().strip() == "1"
