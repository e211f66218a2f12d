"""vCPU ballooning: a VM's online vCPUs follow the CPU the host gives it.

FlexCore (``../shared/seeds/002``) removes the host's multiplexing of a
VM's vCPUs by changing, at run time, how many of them are online, so that
each online vCPU has a physical CPU's worth of time and the guest's own
scheduler, not the host's, shares the CPU among its threads.  The source
names the mechanism; its estimator, period and hysteresis are not in the
text at hand, so they are this controller's, with these defaults (the host
file's ``[vm.guest]`` keys, :mod:`akita.model.guest`; decision 90):

*Period* ``P`` (20 ms).  Every ``P`` the controller estimates the VM's CPU
over the last period, in vCPUs' worth, an integer:

* ``steal`` (the default): what the online vCPUs could have run,
  ``online * P - steal``, where *steal* is the time they were runnable but
  not running (the guest's steal time, :mod:`.observe`) -- a halted vCPU
  could have run, so an idle guest is not mistaken for a starved one;
* ``ran``: what they did run.

The target is that estimate divided by ``P``, rounded up, within
``[1, vcpus]``: a VM keeps a vCPU for a fraction of a pCPU's worth.
Rounding to the nearest integer instead shrank VMs whose share was three
pCPUs to one: each shrink raised the steal of the vCPUs left (the host's
slices and credit accounting are coarser than a period), which shrank the
VM again (decision 90).  If the VM had no more than a
tenth of one period stolen in all and has vCPUs offline, the target is one
more than online: nothing was stolen, so there may be more to take (a
probe; without it a VM could only shrink).

*Hysteresis* ``h`` (2).  The online count changes only when ``h`` periods
in a row asked for a change in the same direction; it is then set to the
last target.  Offline vCPUs are the highest-numbered ones.

Everything is integer arithmetic on ns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .kernel import GuestKernel
    from .observe import DoubleScheduling

__all__ = ["Balloon"]


class Balloon:
    """The ballooning controller of one VM."""

    def __init__(self, kernel: GuestKernel, account: DoubleScheduling, *, period: int,
                 hysteresis: int, estimator: str) -> None:
        self.kernel = kernel
        self.account = account
        self.period = period
        self.hysteresis = hysteresis
        self.estimator = estimator
        self._steal = 0
        self._ran = 0
        self._direction = 0
        self._streak = 0

    def target(self) -> int:
        """The vCPUs the last period's CPU asks for (reads and resets the period's counters)."""
        kernel, period = self.kernel, self.period
        steal = sum(self.account.steal)
        ran = sum(state.ran_ns for state in kernel.states)
        stolen, used = steal - self._steal, ran - self._ran
        self._steal, self._ran = steal, ran
        online, vcpus = kernel.online_count(), len(kernel.states)
        available = online * period - stolen if self.estimator == "steal" else used
        target = min(vcpus, max(1, -(-available // period)))
        if target <= online < vcpus and 10 * stolen <= period:
            target = online + 1
        return target

    def step(self, t: int) -> None:
        """One period's decision, at *t* (the account is up to date)."""
        target, online = self.target(), self.kernel.online_count()
        direction = (target > online) - (target < online)
        if direction == 0:
            self._direction = self._streak = 0
            return
        self._streak = self._streak + 1 if direction == self._direction else 1
        self._direction = direction
        if self._streak >= self.hysteresis:
            self.kernel.set_online(target, t)
            self._direction = self._streak = 0
