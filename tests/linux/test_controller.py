"""The controller's rules against a simulated kernel (no root needed): R2, R5, R8, R9, variants."""

from __future__ import annotations

from fractions import Fraction

import pytest

from akita.linux.controller import Controller, VcpuState, deadline_params

MS = 1_000_000


class FakeKernel:
    """A kernel whose account the test sets: consumption per thread, runnable or not."""

    def __init__(self) -> None:
        self.used: dict[str, int] = {}
        self.running: dict[str, bool] = {}
        self.calls: list[tuple[str, str, tuple]] = []
        self.marks: list[str] = []

    def deadline(self, v: VcpuState, runtime: int, deadline: int, period: int) -> None:
        self.calls.append(("deadline", v.name, (runtime, deadline, period)))

    def fifo(self, v: VcpuState, priority: int) -> None:
        self.calls.append(("fifo", v.name, (priority,)))

    def other(self, v: VcpuState) -> None:
        self.calls.append(("other", v.name, ()))

    def consumed(self, v: VcpuState) -> int:
        return self.used.get(v.name, 0)

    def runnable(self, v: VcpuState) -> bool:
        return self.running.get(v.name, False)

    def mark(self, text: str) -> None:
        self.marks.append(text)


def fig5(variant: str = "correct") -> tuple[Controller, FakeKernel]:
    kernel = FakeKernel()
    hi = VcpuState("memcached/0", 0, 0, True, 10, 100 * MS, 0, 5 * MS, Fraction(1, 5))
    lo = VcpuState("lookbusy1/0", 0, 1, False, 11, 100 * MS, 10 * MS, 25 * MS, Fraction(1, 5))
    return Controller([hi, lo], kernel, origin=0, variant=variant), kernel


@pytest.mark.rule("R2")
def test_each_vcpu_enters_the_deadline_class_at_its_own_period_start():
    c, k = fig5()
    c.step(0)
    assert k.calls == [("deadline", "memcached/0", (5 * MS, 20 * MS, 100 * MS))]
    c.step(10 * MS)
    assert k.calls[-1] == ("deadline", "lookbusy1/0", (25 * MS, 100 * MS, 100 * MS))
    assert deadline_params(c.vcpus[0]) == (5 * MS, 20 * MS, 100 * MS)


@pytest.mark.rule("R5", "R6", "R7")
def test_reaching_c_opt_while_runnable_switches_to_hi_mode():
    c, k = fig5()
    c.step(0)
    c.step(10 * MS)  # the check due at 5 ms finds nothing used: again at 15 ms
    k.used["memcached/0"] = 5 * MS + 1
    c.step(14 * MS)
    assert not c.hi_mode[0]
    c.step(15 * MS)
    assert c.hi_mode[0] and c.vcpus[0].temperature == 2
    assert ("fifo", "memcached/0", (50,)) in k.calls and ("other", "lookbusy1/0", ()) in k.calls
    assert k.marks[-2:] == ["akita: temperature pcpu=0 vcpu=memcached/0 value=2",
                            "akita: mode pcpu=0 HI"]


@pytest.mark.rule("R5")
def test_blocking_at_exactly_c_opt_does_not_switch():
    c, k = fig5()
    c.step(0)
    k.used["memcached/0"] = 5 * MS
    k.running["memcached/0"] = False
    c.step(6 * MS)
    assert not c.hi_mode[0]
    k.running["memcached/0"] = True
    c.step(7 * MS)  # re-checked after the floor, still runnable: it asks
    assert c.hi_mode[0]


@pytest.mark.rule("R8", "R9")
def test_cooling_returns_to_lo_mode_and_vcpus_rejoin_at_their_period_starts():
    c, k = fig5()
    c.step(0)
    k.used["memcached/0"] = 6 * MS
    c.step(6 * MS)
    assert c.hi_mode[0]
    c.step(100 * MS)  # period 1: no ask in period 0? it asked: no cooling
    assert c.vcpus[0].temperature == 2
    c.step(200 * MS)  # period 2 starts: period 1 without an ask
    assert c.vcpus[0].temperature == 1 and c.hi_mode[0]
    c.step(300 * MS)
    assert c.vcpus[0].temperature == 0 and not c.hi_mode[0]
    assert k.marks[-1] == "akita: mode pcpu=0 LO"
    assert k.calls[-1] == ("deadline", "memcached/0", (5 * MS, 20 * MS, 100 * MS))
    c.step(310 * MS)
    assert k.calls[-1] == ("deadline", "lookbusy1/0", (25 * MS, 100 * MS, 100 * MS))


@pytest.mark.rule("R5")
def test_variant_no_switch_never_switches():
    c, k = fig5("no-switch")
    c.step(0)
    k.used["memcached/0"] = 6 * MS
    c.step(6 * MS)
    assert not c.hi_mode[0] and not k.marks


@pytest.mark.rule("R8", "R9")
def test_variant_no_cooling_stays_hot():
    c, k = fig5("no-cooling")
    c.step(0)
    k.used["memcached/0"] = 6 * MS
    c.step(6 * MS)
    for s in range(1, 6):
        c.step(s * 100 * MS)
    assert c.hi_mode[0] and c.vcpus[0].temperature == 2


@pytest.mark.rule("R7")
def test_variant_lo_in_deadline_leaves_lo_vcpus_in_the_deadline_class():
    c, k = fig5("lo-in-deadline")
    c.step(0)
    c.step(10 * MS)
    k.used["memcached/0"] = 6 * MS
    c.step(15 * MS)
    assert c.hi_mode[0] and ("other", "lookbusy1/0", ()) not in k.calls


@pytest.mark.rule("R2", "R4")
def test_a_hi_vcpu_that_has_not_asked_leaves_the_deadline_class_at_its_virtual_deadline():
    c, k = fig5()
    c.step(0)
    k.used["memcached/0"] = 3 * MS  # below C_opt at x T = 20 ms: no ask
    k.running["memcached/0"] = True
    c.step(20 * MS - 1)
    assert ("fifo", "memcached/0", (50,)) not in k.calls
    c.step(20 * MS)
    assert k.calls[-1] == ("fifo", "memcached/0", (50,)) and not c.hi_mode[0]
    assert not c.vcpus[0].in_deadline and not k.marks
    c.step(100 * MS)  # its next period start in LO mode: back in the deadline class
    assert k.calls[-1] == ("deadline", "memcached/0", (5 * MS, 20 * MS, 100 * MS))


@pytest.mark.rule("R2")
def test_asleep_at_its_virtual_deadline_a_hi_vcpu_is_moved_out_when_it_wakes():
    c, k = fig5()
    c.step(0)
    c.step(20 * MS)  # asleep: leaving the class asleep would keep its bandwidth (312)
    assert c.vcpus[0].in_deadline and not [x for x in k.calls if x[0] == "fifo"]
    c.step(30 * MS)
    assert c.vcpus[0].in_deadline
    k.running["memcached/0"] = True  # woken (and throttled by the kernel, L7)
    c.step(30 * MS + 100_000)
    assert k.calls[-1] == ("fifo", "memcached/0", (50,)) and not c.vcpus[0].in_deadline


@pytest.mark.rule("R5")
def test_past_its_virtual_deadline_a_hi_vcpu_still_asks_at_c_opt():
    c, k = fig5()
    c.step(0)
    k.running["memcached/0"] = True
    c.step(20 * MS)
    k.used["memcached/0"] = 5 * MS + 1
    c.step(30 * MS)
    assert c.hi_mode[0] and k.marks[-1] == "akita: mode pcpu=0 HI"


@pytest.mark.rule("R2")
def test_variant_throttle_past_vd_keeps_the_hi_vcpu_in_the_deadline_class():
    c, k = fig5("throttle-past-vd")
    c.step(0)
    c.step(20 * MS)
    assert [call for call in k.calls if call[0] == "fifo"] == []
    assert c.vcpus[0].in_deadline
