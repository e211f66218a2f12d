"""The Xen-devel boost-credit thread's experiments ex3, ex5, ex7 and ex8.

Source: the thread "[PATCH] boost credit" (``../shared/seeds``, Naoki
Nishiguchi's results mail): one pCPU, guests that burn the CPU (``burn``),
receive a stream (``stream``) or answer pings (``ping``), under the original
credit scheduler and the revised boost-credit patch:

=====  ==================================  =========================================
ex3    burn x7, ping x1                    ping 19.7 ms average (credit), 0.18 ms
                                           (patch); burn 14% each under both
ex5    stream x7, ping x1                  ping 8.2 ms under both
ex7    stream x3, burn x3, ping x1         ping 238 ms -> 32.2 ms; burn 28% -> 24%
ex8    stream x3, ping+burn x1, burn x3    ping+burn 264.9 ms -> 68.8 ms; burn 24% -> 19%
=====  ==================================  =========================================

Here: ``examples/thread-exN.toml`` under ``credit`` and ``bcredit`` (whose
defaults are the thread's ``-m 100 -r 20``).  Streams are modelled as CPU
work per packet, so their Mbps are not measured; the thread's dom0, which
carries every packet and which its ``-d 0`` variants tune, is not modelled.
"""

from __future__ import annotations

from pathlib import Path

from .experiment import Claim, Experiment, Outcome, run_policy
from .plotting import figure, save

__all__ = ["ThreadExperiment", "THREAD_EXPERIMENTS"]

POLICIES = ("credit", "bcredit")
NO_DOM0 = ("in the model a ping guest uses almost no CPU, so it is UNDER when a ping "
           "arrives, credit BOOSTs it and it preempts at once (within the 1 ms rate "
           "limit): there is nothing left for the patch to fix. In the thread every "
           "packet also crosses dom0, which is scheduled like the busy guests and which "
           "the patch's boost credit was tuned for (-d 0); the model has no dom0")

#: name -> (what, the thread's figures, the ping VM, the claims' checker)
_RUNS = {
    "ex3": ("burn x7, ping x1", {"credit": "19.7 ms", "bcredit": "0.18 ms"}, "burn 14% each"),
    "ex5": ("stream x7, ping x1", {"credit": "8.2 ms", "bcredit": "8.2 ms"}, None),
    "ex7": ("stream x3, burn x3, ping x1", {"credit": "238 ms", "bcredit": "32.2 ms"},
            "burn 28% -> 24%"),
    "ex8": ("stream x3, ping+burn x1, burn x3", {"credit": "264.9 ms", "bcredit": "68.8 ms"},
            "burn 24% -> 19%"),
}


def _ms(ns: int) -> str:
    return f"{ns / 1e6:.3f} ms"


class ThreadExperiment(Experiment):
    """One of ex3, ex5, ex7, ex8."""

    source = "Xen-devel thread on the boost-credit patch, results mail"
    seconds = (10, 60)

    def __init__(self, ex: str) -> None:
        self.ex = ex
        self.name = f"thread-{ex}"
        what, self.ping_paper, self.burn_paper = _RUNS[ex]
        self.title = f"Thread {ex}: {what} on one pCPU, credit vs bcredit"
        self.host_file = f"thread-{ex}.toml"

    def run(self, out: Path, *, quick: bool = False, progress=None) -> Outcome:
        duration = self.duration(quick)
        host = self.host()
        runs = {p: run_policy(host, p, duration)["vms"] for p in POLICIES}
        ping = {p: runs[p]["ping"]["rtt_ns"] for p in POLICIES}
        burn = {p: [m["cpu_share"] for vm, m in runs[p].items() if vm.startswith("burn")]
                for p in POLICIES}
        fig, ax = figure(5, 3)
        for i, p in enumerate(POLICIES):
            ax.bar([k + (i - 0.5) * 0.35 for k in range(3)],
                   [ping[p][q] / 1e6 for q in ("p50", "p99", "max")], 0.35, label=p)
        ax.set_xticks(range(3), ["p50", "p99", "max"])
        ax.set_ylabel("ping RTT in the guest (ms)")
        ax.set_title(self.title, fontsize=8)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
        plots = save(fig, out, f"{self.name}-ping")
        paper_ratio = {"ex3": 19.7 / 0.18, "ex5": 1.0, "ex7": 238 / 32.2, "ex8": 264.9 / 68.8}
        ours_ratio = ping["credit"]["p50"] / max(1, ping["bcredit"]["p50"])
        if paper_ratio[self.ex] > 2:
            claim = Claim("The patch cuts the ping guest's latency",
                          f"{self.ping_paper['credit']} -> {self.ping_paper['bcredit']} (average)",
                          f"p50 {_ms(ping['credit']['p50'])} -> {_ms(ping['bcredit']['p50'])}",
                          ours_ratio > 2, "" if ours_ratio > 2 else NO_DOM0)
        else:
            claim = Claim("With only stream guests the patch leaves ping latency as it was",
                          f"{self.ping_paper['credit']} -> {self.ping_paper['bcredit']} (average)",
                          f"p50 {_ms(ping['credit']['p50'])} -> {_ms(ping['bcredit']['p50'])}",
                          0.5 <= ours_ratio <= 2)
        claims = [claim]
        if self.burn_paper is not None:
            mean = {p: sum(burn[p]) / len(burn[p]) for p in POLICIES}
            same = self.ex == "ex3"
            holds = (abs(mean["credit"] - 1 / 7) < 0.02 and abs(mean["bcredit"] - 1 / 7) < 0.02
                     if same else mean["bcredit"] < mean["credit"] - 0.01)
            claims.append(Claim(
                "Burn guests' CPU share" + (" is the same under both" if same else
                                            " drops a little under the patch"),
                self.burn_paper, f"{mean['credit']:.1%} -> {mean['bcredit']:.1%} (mean)", holds,
                "" if holds else "the share the patch moves goes to dom0's and the streams' "
                "boosted network work in the thread; the model's stream guests need a fixed "
                "10% each and there is no dom0"))
        rows = [[p, vm, f"{m['cpu_share']:.1%}",
                 _ms(m["rtt_ns"]["p50"]) if m["requests"] else "-",
                 _ms(m["rtt_ns"]["p99"]) if m["requests"] else "-",
                 _ms(m["rtt_ns"]["max"]) if m["requests"] else "-"]
                for p in POLICIES for vm, m in runs[p].items()]
        return Outcome(self.name, self.title, self.source,
                       ["policy", "guest", "CPU share", "RTT p50", "RTT p99", "RTT max"], rows,
                       claims, {"duration_ns": duration, "vms": runs}, plots)


THREAD_EXPERIMENTS = tuple(ThreadExperiment(ex) for ex in _RUNS)
