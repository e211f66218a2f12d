"""Fig. 6 of the Akita paper: one LO memcached beside one to three HI memcached VMs.

Source: Asyabi et al., Section 5: "The RTTs of the LO-crit VM slightly
fluctuate, while the HI-crit Memcached VM delivers a predictable
(expected) performance ... As the number of HI-crit VMs grows, the RTTs of
the LO-crit VMs swing more noticeably. However, in our experiment, no VM
misses deadlines."

Here: ``examples/fig6.toml`` with its first 1, 2 and 3 HI VMs, under
``akita``, seed 1.  Each VM is created at a phase drawn from the seed
(``phases = "seeded"``): its periods and its requests start then, so the
HI VMs' deadlines do not tie.  "Misses no deadline" is read two ways: no HI miss (the
simulator's account, :doc:`/simulator`), and every VM's p99.9 RTT under
its period.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import attrs

from akita.plotting import figure, log_axis, save

from .experiment import Claim, Experiment, Outcome, run_policy
from .fig5 import tail_table

__all__ = ["Fig6"]



#: Why memcached-hi1's p99 may grow more than twofold (shown only when it does).
_HI_SPREAD = (
    "each HI memcached asks for three times its optimistic budget, so the pCPU is in HI "
    "mode, where the HI vCPUs run by deadline: with out-of-phase periods their deadlines "
    "differ, and a request to the VM whose deadline is the latest waits for the other HI "
    "VMs' queued requests, whereas synchronous periods tie and first in first out serves "
    "the requests in arrival order. Every p99.9 stays far below the 100 ms period (the "
    "third claim), which is what the paper's \"expected\" performance is")


class Fig6(Experiment):
    name = "fig6"
    title = "Fig. 6: a LO memcached beside 1-3 HI memcached VMs under akita, one pCPU"
    source = "Akita paper, Section 5, Fig. 6"
    host_file = "fig6.toml"
    seconds = (5, 30)

    def run(self, out: Path, *, quick: bool = False,
            progress: Callable[[str], None] | None = None) -> Outcome:
        duration = self.duration(quick)
        full = self.host()
        lo = [vm for vm in full.vms if not vm.is_hi]
        his = [vm for vm in full.vms if vm.is_hi]
        runs = {}
        for count in (1, 2, 3):
            host = attrs.evolve(full, vms=lo + his[:count])
            runs[count] = run_policy(host, "akita", duration)["vms"]
        fig, ax = figure()
        for name, style in (("memcached-lo", "o-"), ("memcached-hi1", "s--")):
            for p, alpha in (("p99", 1.0), ("p50", 0.5)):
                ax.plot([1, 2, 3], [runs[c][name]["rtt_ns"][p] / 1e6 for c in (1, 2, 3)], style,
                        alpha=alpha, label=f"{name} {p}")
        ax.set_xticks([1, 2, 3])
        ax.set_xlabel("HI memcached VMs")
        ax.set_ylabel("RTT (ms)")
        ax.set_title("akita: LO memcached beside 1-3 HI memcached VMs, one pCPU")
        log_axis(ax)
        ax.legend(fontsize=7)
        plots = save(fig, out, "fig6-rtt")
        rows = [[str(c), vm, *tail_table(m["rtt_ns"]), str(m["hi_misses"])]
                for c, vms in runs.items() for vm, m in vms.items()]
        lo_p99 = [runs[c]["memcached-lo"]["rtt_ns"]["p99"] for c in (1, 2, 3)]
        hi_p99 = [runs[c]["memcached-hi1"]["rtt_ns"]["p99"] for c in (1, 2, 3)]
        misses = sum(m["hi_misses"] for vms in runs.values() for m in vms.values())
        late = [(c, vm) for c, vms in runs.items() for vm, m in vms.items()
                if m["rtt_ns"]["p999"] >= full.vm(vm).period]
        claims = [
            Claim("The HI memcached's RTTs stay predictable as HI VMs are added (judged: "
                  "its p99 at most doubles)", None,
                  "p99 of memcached-hi1: " + ", ".join(f"{v / 1e6:.3f}" for v in hi_p99) + " ms",
                  max(hi_p99) <= 2 * min(hi_p99),
                  "" if max(hi_p99) <= 2 * min(hi_p99) else _HI_SPREAD),
            Claim("The LO memcached's RTTs swing more as HI VMs are added", None,
                  "p99 of memcached-lo: " + ", ".join(f"{v / 1e6:.3f}" for v in lo_p99) + " ms",
                  lo_p99[0] < lo_p99[2]),
            Claim("No VM misses deadlines", "none", f"{misses} HI misses; "
                  f"{len(late)} VM runs with p99.9 over the period", misses == 0 and not late),
        ]
        return Outcome(self.name, self.title, self.source,
                       ["HI VMs", "VM", "p50", "p90", "p99", "p99.9", "HI misses"], rows,
                       claims, {"duration_ns": duration, "runs": runs}, plots)
