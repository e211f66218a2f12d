"""Fig. 5 of the Akita paper: a HI memcached VM alone, then beside three LO lookbusy VMs.

Source: Asyabi et al., Section 5: a memcached server VM (Type1, HI under
Akita) is stressed alone on a pCPU, then beside three CPU-bound VMs
(3x Type2, lookbusy at 25% each) on the same pCPU -- pinned there under
Credit and CFS; "the tail latency at 99.9 percentile remains intact as if
the Memcached server VM ran alone on the pCPU while the tail latency is
increased by 96% and 93% under Xen and KVM".

Here: ``examples/fig5.toml`` (its memcached serves Poisson requests, 3000/s
of 50 us each on average: 15% of the pCPU where the paper's used about
25%), under ``akita``, ``credit`` and ``cfs``; "alone" is the same file
without the lookbusy VMs.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from .experiment import Claim, Experiment, Outcome, run_policy
from .plotting import figure, log_axis, save

__all__ = ["Fig5", "PERCENTILES", "tail_table"]

POLICIES = ("akita", "credit", "cfs")
PERCENTILES = ("p50", "p90", "p99", "p999")


def _ms(ns: int) -> str:
    return f"{ns / 1e6:.3f} ms"


def tail_table(rtt: dict[str, int]) -> list[str]:
    """p50 ... p99.9 of an RTT summary, in ms, for a table row."""
    return [_ms(rtt[p]) for p in PERCENTILES]


def growth(alone: int, crowded: int) -> float:
    """How much a latency grew, as a fraction (for people: shown in %)."""
    return crowded / alone - 1


def _size_note(ours: float, paper: float) -> str:
    """Why the size of a growth differs from the paper's, when it does by more than half."""
    if abs(ours - paper) <= paper / 2:
        return ""
    return ("the direction holds, the size does not: the size depends on how long the "
            "lookbusy VMs hold the pCPU when a request arrives -- here bursts of 2.5 ms "
            "in every 10 ms each -- and on the request mix, which the paper does not give "
            "in that detail; the model has one request stream of 15% of the pCPU where "
            "the paper's memcached used about 25%")


class Fig5(Experiment):
    name = "fig5"
    title = "Fig. 5: memcached (HI) RTTs alone and beside 3 lookbusy VMs, one pCPU"
    source = "Akita paper, Section 5, Fig. 5"
    host_file = "fig5.toml"
    seconds = (15, 30)

    def run(self, out: Path, *, quick: bool = False, progress=None) -> Outcome:
        duration = self.duration(quick)
        crowded = self.host()
        alone = attrs.evolve(crowded, vms=[vm for vm in crowded.vms if vm.is_hi])
        rtt: dict[str, dict[str, dict[str, int]]] = {}
        for policy in POLICIES:
            rtt[policy] = {
                setting: run_policy(host, policy, duration)["vms"]["memcached"]["rtt_ns"]
                for setting, host in (("alone", alone), ("crowded", crowded))
            }
        fig, ax = figure(7, 3.4)
        width = 0.12
        for i, policy in enumerate(POLICIES):
            for j, setting in enumerate(("alone", "crowded")):
                xs = [k + (2 * i + j - 2.5) * width for k in range(len(PERCENTILES))]
                ax.bar(xs, [rtt[policy][setting][p] / 1e6 for p in PERCENTILES], width,
                       label=f"{policy}, {'alone' if j == 0 else 'with 3 lookbusy'}",
                       hatch="" if j == 0 else "//", color=f"C{i}",
                       alpha=0.55 if j == 0 else 0.95)
        ax.set_xticks(range(len(PERCENTILES)), ["p50", "p90", "p99", "p99.9"])
        log_axis(ax)
        ax.set_ylabel("memcached RTT (ms)")
        ax.set_title("memcached (HI) alone and beside 3 lookbusy VMs, one pCPU")
        fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", fontsize=7,
                   ncols=3)  # below the axes: it covers no bar
        plots = save(fig, out, "fig5-rtt")
        rows = [[policy, setting, *tail_table(rtt[policy][setting])]
                for policy in POLICIES for setting in ("alone", "crowded")]
        grow = {p: growth(rtt[p]["alone"]["p999"], rtt[p]["crowded"]["p999"]) for p in POLICIES}
        worst_alone = max(rtt[p]["alone"]["p999"] for p in POLICIES)
        claims = [
            Claim("Alone on a pCPU, RTTs are predictable and rarely above 5 ms under all three",
                  "rarely > 5 ms", f"p99.9 at most {_ms(worst_alone)}",
                  worst_alone <= 5_000_000),
            Claim("Under Akita the p99.9 RTT stays as if memcached ran alone", "intact",
                  f"{grow['akita']:+.0%}", grow["akita"] < 0.10),
            Claim("Under Xen (credit) the p99.9 RTT grows", "+96%", f"{grow['credit']:+.0%}",
                  grow["credit"] > 0.25, _size_note(grow["credit"], 0.96)),
            Claim("Under KVM (CFS) the p99.9 RTT grows", "+93%", f"{grow['cfs']:+.0%}",
                  grow["cfs"] > 0.25, _size_note(grow["cfs"], 0.93) if grow["cfs"] > 0.25 else
                  "in the model a waking memcached task is placed 3 ms behind min_vruntime "
                  "(GENTLE_FAIR_SLEEPERS) and preempts the running lookbusy task at once "
                  "(1 ms wakeup granularity), so its tail barely moves once the run is past "
                  "its first seconds, when every task starts at vruntime 0 (over the first "
                  "5 s the p99.9 grows by 247%). The real KVM host's request path also runs "
                  "through vhost and interrupt threads, which the model does not have"),
        ]
        data = {"duration_ns": duration, "rtt_ns": rtt,
                "p999_growth": {p: f"{g:.4f}" for p, g in grow.items()}}
        return Outcome(self.name, self.title, self.source,
                       ["policy", "memcached", "p50", "p90", "p99", "p99.9"], rows, claims,
                       data, plots)
