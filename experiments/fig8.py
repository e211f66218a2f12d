"""Fig. 8 and Fig. 9 of the Akita paper: an RPC VM's tail and idle cores as CPU-bound VMs are added.

Source: Asyabi et al., Section 5: an RPC server VM (Type1, HI under
Akita) beside 5 to 24 CPU-bound Type2 VMs that consume 25% of CPU time
each.  "At low loads, Akita, Xen, and KVM deliver the same performance
... When 24 VMs run on the physical machine, Xen and KVM lengthen the tail
latency at the [99.9]th percentile by 10x and 5x, respectively"; and
(Fig. 9) "Akita's first-fit mechanism ... keeps the number of idle cores
and their idleness periods as high as possible", while the load balancers
of its counterparts "spread vCPUs as much as possible".

Here: ``examples/fig8.toml`` (7 pCPUs) with its first 5, 8, 12, 16, 20 and
24 lookbusy VMs, under ``akita``, ``credit`` and ``cfs``, seed 1.  Each VM
is created at a phase drawn from the seed (``phases = "seeded"``): its
periods and its workload start then, so the lookbusy VMs' 10 ms windows do
not line up.  The tail growth
is each policy's p99.9 at 24 VMs over its own at 5 VMs; idle cores are the
pCPUs that ran nothing for the whole run.  (The pCPUs' total idle time is
no measure of it: every work-conserving policy leaves the same total idle
time for the same demand; what first fit changes is where it falls.)
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Callable

import attrs

from akita.plotting import STYLES, pyplot, save

from .experiment import TODAYS_DEFAULT, Claim, Experiment, Outcome, run_policy

__all__ = ["Fig8"]

POLICIES = ("akita", "credit", "cfs")
#: Today's default schedulers of Xen and KVM, run beside the paper's (decision 166).
TODAY = (TODAYS_DEFAULT["credit"], TODAYS_DEFAULT["cfs"])
COUNTS = (5, 8, 12, 16, 20, 24)


def _size_note(ours: Fraction, paper: int) -> str:
    """Why a tail growth's size differs from the paper's, when it does by more than half."""
    if 2 * abs(ours - paper) <= paper:
        return ""
    return ("the direction holds, the size differs: the RPC's wait is the lookbusy bursts "
            "(2.5 ms each) queued on its pCPU when a request arrives; with the VMs created "
            "at unrelated instants their windows do not line up, so fewer bursts coincide "
            "than with every VM created at 0 (docs/experiments.rst gives both). The model "
            "also lacks the request path through dom0's netback or KVM's vhost (issue 15)")


class Fig8(Experiment):
    name = "fig8"
    title = "Fig. 8 and 9: RPC (HI) tail latency and idle cores beside 5-24 lookbusy VMs, 7 pCPUs"
    source = "Akita paper, Section 5, Fig. 8 and Fig. 9"
    host_file = "fig8.toml"
    seconds = (2, 10)

    def run(self, out: Path, *, quick: bool = False,
            progress: Callable[[str], None] | None = None) -> Outcome:
        duration = self.duration(quick)
        full = self.host()
        rpc = [vm for vm in full.vms if vm.name == "rpc"]
        busy = [vm for vm in full.vms if vm.name != "rpc"]
        tail: dict[str, dict[int, dict[str, int]]] = {p: {} for p in POLICIES + TODAY}
        idle: dict[str, dict[int, int]] = {p: {} for p in POLICIES + TODAY}
        busy_idle: dict[str, dict[int, float]] = {p: {} for p in POLICIES + TODAY}
        for policy in POLICIES + TODAY:
            for n in COUNTS:
                host = attrs.evolve(full, vms=rpc + busy[:n])
                doc = run_policy(host, policy, duration)
                tail[policy][n] = doc["vms"]["rpc"]["rtt_ns"]
                idle[policy][n] = sum(c["idle_ns"] == duration for c in doc["pcpus"])
                busy_idle[policy][n] = sum(c["idle_ns"] for c in doc["pcpus"]) / duration
        plots = _plot(tail, idle, out)
        growth = {p: Fraction(tail[p][COUNTS[-1]]["p999"], tail[p][COUNTS[0]]["p999"])
                  for p in POLICIES + TODAY}
        low = [tail[p][COUNTS[0]]["p999"] for p in POLICIES]
        rows = [[policy, str(n), f"{tail[policy][n]['p99'] / 1e6:.3f} ms",
                 f"{tail[policy][n]['p999'] / 1e6:.3f} ms", str(idle[policy][n]),
                 f"{busy_idle[policy][n]:.2f}"]
                for policy in POLICIES + TODAY for n in COUNTS]
        claims = [
            Claim("At low load (5 VMs) the three deliver about the same tail", "same",
                  "p99.9 " + ", ".join(f"{p} {v / 1e6:.2f} ms" for p, v in zip(POLICIES, low)),
                  max(low) <= 3 * min(low)),
            Claim("At 24 VMs Xen (credit) lengthens the p99.9 tail", "10x",
                  f"{float(growth['credit']):.1f}x", growth["credit"] >= 3,
                  _size_note(growth["credit"], 10),
                  today=f"credit2: {float(growth['credit2']):.1f}x"),
            Claim("At 24 VMs KVM (CFS) lengthens the p99.9 tail", "5x",
                  f"{float(growth['cfs']):.1f}x", growth["cfs"] >= 2, _size_note(growth["cfs"], 5),
                  today=f"eevdf: {float(growth['eevdf']):.1f}x"),
            Claim("Akita keeps the tail whatever the number of VMs", "flat",
                  f"{float(growth['akita']):.1f}x", growth["akita"] < 2),
            Claim("Akita keeps more pCPUs idle than the load balancers (Fig. 9)", "more idle",
                  ", ".join(f"{p} {idle[p][COUNTS[0]]}" for p in POLICIES)
                  + " pCPUs never used at 5 VMs",
                  all(idle["akita"][n] >= max(idle["credit"][n], idle["cfs"][n])
                      for n in COUNTS) and idle["akita"][COUNTS[0]] > idle["credit"][COUNTS[0]]),
        ]
        data = {"duration_ns": duration, "counts": list(COUNTS), "rtt_ns": tail,
                "pcpus_never_used": idle,
                "idle_pcpus_mean": {p: {n: f"{v:.4f}" for n, v in d.items()}
                                    for p, d in busy_idle.items()}}
        return Outcome(self.name, self.title, self.source,
                       ["policy", "lookbusy VMs", "RPC p99", "RPC p99.9", "pCPUs never used",
                        "idle time (pCPUs)"], rows,
                       claims, data, plots)


def _plot(tail: dict[str, dict[int, dict[str, int]]], idle: dict[str, dict[int, int]],
          out: Path) -> list[str]:
    """The RPC's p99.9 and the idle pCPUs per lookbusy count, per policy (Figs. 8 and 9)."""
    fig, (left, right) = pyplot().subplots(1, 2, figsize=(8, 3.4), layout="constrained")
    fig.suptitle("RPC (HI) beside 5-24 lookbusy VMs on 7 pCPUs: akita, credit, cfs")
    # credit and cfs can give equal values: each series has its own marker and
    # line style, drawn thinner and smaller on top, and the integer counts of
    # idle pCPUs are shifted a little sideways.
    for i, policy in enumerate(POLICIES):
        marker, line = STYLES[i]
        look = {"marker": marker, "linestyle": line, "color": f"C{i}", "label": policy,
                "markersize": 8 - 2 * i, "linewidth": 2.5 - 0.7 * i, "zorder": 2 + i}
        left.plot(COUNTS, [tail[policy][n]["p999"] / 1e6 for n in COUNTS], **look)
        right.plot([n + (i - 1) * 0.3 for n in COUNTS], [idle[policy][n] for n in COUNTS],
                   **look)
    for ax in (left, right):
        ax.set_xticks(COUNTS)
    left.set_title("RPC tail latency (Fig. 8)", fontsize=9)
    left.set_xlabel("lookbusy VMs")
    left.set_ylabel("RPC p99.9 RTT (ms)")
    left.set_ylim(0, None)  # linear from 0: a log axis over one decade showed two ticks
    left.legend()
    right.set_title("idle pCPUs (Fig. 9; points shifted apart)", fontsize=9)
    right.set_xlabel("lookbusy VMs")
    right.set_ylabel("pCPUs idle for the whole run")
    right.legend()
    return save(fig, out, "fig8-tail-idle")
