"""The guest scheduler: programs run to their end, hotplug moves threads, the pieces add up."""

import pytest

from akita.guest.kernel import GuestKernel
from akita.guest.parsec import Program, build
from akita.guest.program import Compute, Critical, Wait
from akita.guest.runtime import program_for
from akita.model.guest import PROGRAMS
from akita.reference.run import simulate
from akita.reference.vcpu_state import ENDLESS
from guest_hosts import host, vm

S = 1_000_000_000


class Recorder:
    """A dispatcher that records the last piece each vCPU got."""

    def __init__(self):
        self.last = {}

    def give(self, state, demand, t):
        self.last[state] = demand
        return 0


def _kernel(program: Program, vcpus: int):
    recorder = Recorder()
    states = [object() for _ in range(vcpus)]
    kernel = GuestKernel("g", states, program, recorder)  # type: ignore[arg-type]
    kernel.start(0)
    return kernel, recorder, states


@pytest.mark.parametrize("program", PROGRAMS)
def test_every_program_finishes_and_uses_its_work(program):
    """Alone on as many pCPUs as vCPUs, the VM runs its program's work and no more (but spins
    and 1 ns halts)."""
    alone = host(4, vm("a", 4, program=program, work="80ms"))
    doc = simulate(alone, "cfs", duration=S).as_json()
    guest, ran = doc["guests"]["a"], doc["vms"]["a"]["cpu_ns"]
    work = program_for(alone.vms[0], 1).work
    assert guest["completion_ns"] is not None
    assert work <= ran - guest["spin_ns"] < work + 1_000_000
    assert guest["completion_ns"] >= work // 4


def test_blackscholes_alone_takes_its_share_exactly():
    alone = host(4, vm("a", 4, program="blackscholes", work="80ms"))
    assert simulate(alone, "cfs", duration=S).as_json()["guests"]["a"]["completion_ns"] == 20_000_000


def test_the_shapes_have_their_operations():
    assert all(isinstance(op, (Compute, Wait)) for ops in build("streamcluster", 3, 30_000_000,
                                                             "s").ops for op in ops)
    locks = [op for ops in build("fluidanimate", 3, 30_000_000, "s").ops for op in ops
             if isinstance(op, Critical)]
    assert locks and all(0 <= op.lock < 3 for op in locks)
    assert len(build("dedup", 6, 30_000_000, "s").channels) == 2
    assert build("fluidanimate", 3, 30_000_000, "s").ops == build("fluidanimate", 3, 30_000_000,
                                                                   "s").ops


def test_offline_moves_the_threads_and_online_pulls_one():
    kernel, recorder, states = _kernel(Program([[Compute(10_000_000)] for _ in range(4)]), 4)
    kernel.set_online(2, 1_000)
    assert [len(q) + (c is not None) for q, c in zip(kernel.rq, kernel.cur)] == [2, 2, 0, 0]
    assert recorder.last[states[2]] is None and recorder.last[states[3]] is None
    assert all(th.vcpu in (0, 1) for th in kernel.threads)
    kernel.set_online(3, 2_000)
    assert kernel.cur[2] is not None and recorder.last[states[2]] not in (None, ENDLESS)


def test_a_spinning_thread_leaves_an_offline_vcpu_only_after_its_section():
    program = Program([[Critical(0, 5_000_000)], [Critical(0, 5_000_000)]], locks=1)
    kernel, recorder, states = _kernel(program, 2)
    holder, spinner = kernel.threads
    assert holder.in_cs and spinner.spinning and recorder.last[states[1]] == ENDLESS
    kernel.offline(1, 1_000)
    assert kernel.cur[1] is spinner  # it cannot move while it spins
    kernel.on_done(0, 5_000_000)  # the holder leaves its section: the spinner takes the lock
    assert spinner.in_cs and recorder.last[states[1]] == 5_000_000
    kernel.on_done(1, 10_000_000)
    assert kernel.cur[1] is None and spinner.state == "done"
