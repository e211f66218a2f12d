"""Fig. 7 of the Akita paper: the HI VM keeps its CPU share as its demand doubles.

Source: Asyabi et al., Section 5, "In this experiment, we aim to study if
Akita keeps the CPU share of HI-crit VMs intact": VM1 (Type6, HI) beside
VM2-VM4 (Type2, LO) running lookbusy at 25% each on one pCPU; the HI VM's
load is raised until it uses 50% of the CPU, and "each LO-crit VM can only
utilize 13% of the CPU time despite the fact that each one of them needs
to utilize 25%".

Here (``examples/fig7.toml``, as shipped): the LO VMs are ``duty``
workloads, busy 25% of every 10 ms, their windows staggered by a third of a
window, and each VM is created at a phase drawn from the run's seed
(``phases = "seeded"``, :mod:`akita.model.phases`): its periods and its
workload start then, as on a host whose VMs were started one by one.  Only
the HI VM's demand is replaced: a trace written next to the results, busy
25% of every 10 ms for the first half of the run and 50% for the second
(from the HI VM's creation on).  The policy is ``akita`` with the
host file's defaults (first-in-first-out ties, Eq. (4)'s x); the seed is 1.
Shares are measured per 500 ms window from the trace (:mod:`.series`).
"""

from __future__ import annotations

import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Callable

import attrs

from akita.atomic import write_atomic
from akita.model import Host, Workload
from akita.plotting import STYLES, figure, save

from .experiment import Claim, Experiment, Outcome, run_policy
from .series import shares_over_time

__all__ = ["Fig7", "fig7_host", "write_demand", "measure", "halves", "claims"]

MS, S = 1_000_000, 1_000_000_000
#: the width of the windows shares are measured over.
WINDOW = 500 * MS


def _pct(x: Fraction) -> str:
    return f"{float(x):.1%}"


def write_demand(path: Path, duration: int) -> Path:
    """The HI VM's demand: a job at each 10 ms, 25% of it in the first half, 50% after."""
    half = duration // 2
    lines = ["# arrival, demand: 25% of each 10ms, then 50%"]
    lines += [f"{t}ns, {(25 if t < half else 50) * MS // 10}ns"
              for t in range(0, duration, 10 * MS)]
    write_atomic(path, "\n".join(lines) + "\n")
    return path


def fig7_host(base: Host, demand: Path) -> Host:
    """*base* with the HI VM's workload replaced by the *demand* trace; the LO VMs as given."""
    vms = [attrs.evolve(vm, workload=Workload("trace", path=str(demand.resolve())))
           if vm.is_hi else vm for vm in base.vms]
    return attrs.evolve(base, vms=vms)


def measure(host: Host, duration: int, seed: int = 1) -> dict[str, list[Fraction]]:
    """Each VM's share of the pCPU per :data:`WINDOW` under ``akita``, from a trace."""
    with tempfile.TemporaryDirectory() as folder:
        trace = str(Path(folder) / "fig7.jsonl")
        run_policy(host, "akita", duration, seed=seed, trace_path=trace)
        return shares_over_time(trace, WINDOW, duration)


def halves(series: dict[str, list[Fraction]]) -> dict[str, tuple[Fraction, Fraction]]:
    """VM -> its mean share with the HI VM at 25%, then at 50% (the window of the change left out)."""
    n = len(next(iter(series.values())))
    return {vm: (Fraction(sum(s[: n // 2]), n // 2),
                 Fraction(sum(s[n // 2 + 1:]), n - n // 2 - 1))
            for vm, s in series.items()}


def _plot(series: dict[str, list[Fraction]], half: int, out: Path) -> list[str]:
    fig, ax = figure(7, 3.2)
    n = len(next(iter(series.values())))
    times = [(i + Fraction(1, 2)) * WINDOW / S for i in range(n)]
    # LO VMs may get the same share: each series has its own marker and line
    # style, the later ones thinner and on top, so that all stay visible.
    for i, (vm, shares) in enumerate(series.items()):
        marker, line = STYLES[i % len(STYLES)]
        ax.plot([float(t) for t in times], [float(s) * 100 for s in shares],
                marker=marker, linestyle=line, markersize=7 - 1.5 * i,
                linewidth=2.6 - 0.6 * i, zorder=2 + i, label=vm)
    ax.axvline(float(Fraction(half, S)), color="grey", linestyle=":")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("CPU share (% of the pCPU)")
    ax.set_ylim(0, 100)  # a share's whole range: the split reads against the whole pCPU
    ax.set_title("akita: HI demand 25% then 50%, 3 LO lookbusy VMs at 25%")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    return save(fig, out, "fig7-shares")


_EVEN_ENOUGH = (
    "the claim holds; the split is not equal (the paper: the time left is \"equally "
    "allocated\"). In HI mode the LO vCPUs run in queue order, first in first out, and a "
    "LO vCPU goes to the back of the queue at each of its period starts and each time the "
    "HI vCPU preempts it: the split follows where the VMs' seeded phases fall (it does not "
    "change when the lookbusy offsets are removed). The paper's LO VMs got 13% each of 39%, "
    "ours a third of 50% on average")
_UNEVEN = (
    "a LO VM got less than 10% or more than 20%: in HI mode the LO vCPUs run in queue "
    "order, so the split among them is set by the host's queue_order (with \"host\", the "
    "first LO VM keeps its 25% and the last gets what is left) and by the VMs' phases")


def claims(split: dict[str, tuple[Fraction, Fraction]]) -> list[Claim]:
    """The paper's claims, judged on :func:`halves`' shares."""
    lo = [vm for vm in split if vm != "hi"]
    lo_before = Fraction(sum(split[vm][0] for vm in lo), len(lo))
    lo_after = Fraction(sum(split[vm][1] for vm in lo), len(lo))
    hi_after = split["hi"][1]
    each = [split[vm][1] for vm in lo]
    between = all(Fraction(1, 10) <= x < Fraction(1, 5) for x in each)  # decision 141
    return [
        Claim("At first the LO VMs use 25% of the CPU each", "25% each",
              f"{_pct(lo_before)} each (mean)", abs(lo_before - Fraction(1, 4)) < Fraction(1, 50)),
        Claim("When its load gets intense, the HI VM gets its desired CPU share", "50%",
              _pct(hi_after), abs(hi_after - Fraction(1, 2)) < Fraction(1, 50)),
        Claim("With the HI VM at 50%, the LO VMs share what is left", "39% together",
              f"{_pct(lo_after * len(lo))} together",
              abs(lo_after * len(lo) - Fraction(1, 2)) < Fraction(1, 50),
              "the claim holds, the figure differs: the model has no hypervisor or "
              "dom0 time, so all of the 50% left goes to the LO VMs; the paper's "
              "3 x 13% leaves 11% of the pCPU unaccounted for"),
        Claim("With the HI VM at 50%, each LO VM can only use about 13% (judged: each "
              "at least 10% and under 20%)", "13% each", ", ".join(_pct(x) for x in each),
              between, _EVEN_ENOUGH if between else _UNEVEN),
    ]


class Fig7(Experiment):
    name = "fig7"
    title = "Fig. 7: CPU share per VM as the HI VM's demand rises from 25% to 50%"
    source = "Akita paper, Section 5, Fig. 7"
    host_file = "fig7.toml"
    seconds = (4, 20)

    def run(self, out: Path, *, quick: bool = False,
            progress: Callable[[str], None] | None = None) -> Outcome:
        duration = self.duration(quick)
        out.mkdir(parents=True, exist_ok=True)
        demand = write_demand(out / "fig7-hi-demand.csv", duration)
        series = measure(fig7_host(self.host(), demand), duration)
        split = halves(series)
        plots = _plot(series, duration // 2, out)
        rows = [[vm, _pct(a), _pct(b)] for vm, (a, b) in split.items()]
        data = {"window_ns": WINDOW, "duration_ns": duration, "seed": 1,
                "shares": {vm: [str(s) for s in shares] for vm, shares in series.items()},
                "halves": {vm: {"hi_25": str(a), "hi_50": str(b)} for vm, (a, b) in split.items()}}
        return Outcome(self.name, self.title, self.source,
                       ["VM", "share, HI at 25%", "share, HI at 50%"], rows, claims(split),
                       data, plots)
