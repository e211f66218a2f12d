"""A guest thread never runs on an offline vCPU (but to leave a spin lock's section)."""

import pytest

from akita.experiments.experiment import example_host
from akita.experiments.flexcore import variant
from akita.guest.kernel import GuestKernel
from akita.guest.runtime import HALT
from akita.guest.thread import CURRENT
from akita.reference.run import simulate

S = 1_000_000_000


def _watch(monkeypatch) -> list:
    """Every piece handed to an offline vCPU by a thread that may not run there."""
    wrong: list = []
    give = GuestKernel._give

    def watched(self, v, demand, t):
        if not self.online[v] and demand not in (None, HALT):
            th = self.cur[v]
            if th is None or not (th.spinning or th.in_cs):
                wrong.append((self.name, v, t, th))
        return give(self, v, demand, t)

    monkeypatch.setattr(GuestKernel, "_give", watched)
    return wrong


def _run(policy: str) -> dict:
    host = variant(example_host("flexcore.toml"), "balloon", work_divisor=4)
    return simulate(host, policy, duration=S).as_json()["guests"]


@pytest.mark.parametrize("policy", ["credit", "cfs"])
def test_no_thread_runs_on_an_offline_vcpu(monkeypatch, policy):
    wrong = _watch(monkeypatch)
    guests = _run(policy)
    assert sum(g["online_changes"] > 0 for g in guests.values()) >= 3
    assert all(g["completion_ns"] is not None for g in guests.values())
    assert wrong == []


def test_a_scheduler_that_forgets_hotplug_is_caught(monkeypatch):
    """Deliberately wrong: an idle vCPU picks a thread whether or not it is online."""
    wrong = _watch(monkeypatch)

    def forgetful(self, v, t):  # GuestKernel._schedule without its online check
        th = self._pick(v)
        self.cur[v] = th
        if th is None:
            self._give(v, None, t)
            return
        th.state, th.vcpu = CURRENT, v
        self.slice_left[v] = self._slice(v)
        self._give(v, self._piece(v, th), t)

    monkeypatch.setattr(GuestKernel, "_schedule", forgetful)
    _run("credit")
    assert wrong
