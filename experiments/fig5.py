"""Fig. 5 of the Akita paper: a HI memcached VM alone, then beside three LO lookbusy VMs.

Source: Asyabi et al., Section 5: a memcached server VM (Type1, HI under
Akita) is stressed alone on a pCPU, then beside three CPU-bound VMs
(3x Type2, lookbusy at 25% each) on the same pCPU -- pinned there under
Credit and CFS; "the tail latency at 99.9 percentile remains intact as if
the Memcached server VM ran alone on the pCPU while the tail latency is
increased by 96% and 93% under Xen and KVM".

Here: ``examples/fig5.toml`` as shipped, under ``akita``, ``credit`` and
``cfs``, seed 1; "alone" is the same file without the lookbusy VMs.  Its
memcached serves the paper's load: "50 concurrent connections, each sending
700 requests per second with exponential inter-arrivals", 35,000/s of 7.14
us each on average, 25% of the pCPU (the paper: "the Memcached VM utilizes
around 25% of the CPU time"); the three lookbusy VMs burn 25% of every 10 ms,
their windows a third of a window apart.  Each VM is created at a phase
drawn from the seed (``phases = "seeded"``, :mod:`akita.model.phases`):
its periods and its workload start then, as on a host whose VMs were
started one by one.  Akita runs with its defaults: first-in-first-out
ties, budgets enforced in HI mode (``hi_mode_order = "capped"``: memcached's
vCPU past its ``C_pes`` runs only when no LO vCPU is runnable), x by the
paper's Eq. (4).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Callable

import attrs

from akita.model import Host, Share, Workload
from akita.model.io_path import IOPath
from akita.plotting import figure, log_axis, save

from .experiment import TODAYS_DEFAULT, Claim, Experiment, Outcome, ms, run_policy

__all__ = ["Fig5", "PERCENTILES", "TODAY", "tail_table", "offered", "measure", "claims",
           "today_growth",
           "intact", "via_backend", "tail_bars"]

POLICIES = ("akita", "credit", "cfs")
#: Today's default schedulers of Xen and KVM, beside the paper's (decision 166).
TODAY = (TODAYS_DEFAULT["credit"], TODAYS_DEFAULT["cfs"])
PERCENTILES = ("p50", "p90", "p99", "p999")


def tail_table(rtt: dict[str, int]) -> list[str]:
    """p50 ... p99.9 of an RTT summary, in ms, for a table row."""
    return [ms(rtt[p]) for p in PERCENTILES]


def growth(alone: int, crowded: int) -> float:
    """How much a latency grew, as a fraction (for people only: shown in %)."""
    return crowded / alone - 1


def grew_by_more(alone: int, crowded: int, by: Fraction) -> bool:
    """Whether *crowded* exceeds *alone* by more than the fraction *by*, exactly."""
    return crowded > alone * (1 + by)


def intact(alone: int, crowded: int) -> bool:
    """The judgement of "remains intact": the crowded p99.9 less than 10% above the one alone
    (the rule first stated for it; decision 141)."""
    return crowded < alone * Fraction(11, 10)


def _not_intact_why(host: Host) -> str:
    if host.options.capped:
        return ("with hi_mode_order = \"capped\" (the default, R3: budgets enforced), "
                "memcached's vCPU, once it has used its C_pes in a period, runs only when no "
                "LO vCPU is runnable: its requests past the budget wait until the lookbusy "
                "VMs are idle or its next period starts. Its Poisson load "
                "averages its C_pes (25%), so many periods ask for more, and the context "
                "switches charged to its budget add to that: the declaration is broken, "
                "which akita simulate's Budgets table counts (periods overrun); with "
                "hi_mode_order = \"hi-first\" the overrun is served ahead of the LO VMs' "
                "budgets and the tail stays intact (decision 130)")
    if host.options.budget_first:
        return ("with hi_mode_order = \"budget-first\" (R7), in HI mode the LO vCPUs with "
                "budget run before memcached's vCPU once it has used its budget")
    return ("memcached's vCPU waited behind LO vCPUs although in HI mode it waits for none "
            "(hi_mode_order = \"hi-first\", R7): the trace shows where")


def offered(host: Host) -> Fraction:
    """The share of one pCPU *host*'s workloads ask for: Poisson ``rate * service``, duty ``utilization``."""
    total = Fraction(0)
    for vm in host.vms:
        w = vm.workload
        if w.rate is not None and w.service is not None:  # poisson
            total += w.rate * w.service / 1_000_000_000
        elif w.utilization is not None:  # duty
            total += w.utilization
    return total


def _size_note(ours: float, paper: float, host: Host, through: float | None = None) -> str:
    """Why the size of a growth differs from the paper's, when it does by more than half;
    *through*: the growth measured with the request path through a backend."""
    if abs(ours - paper) <= paper / 2:
        return ""
    path = ("" if through is None else
            f"; with each request and reply through a backend on a pCPU of its own "
            f"({BACKEND_COST // 1000} us a packet, {NETWORK_NS // 1000} us of network each way, "
            f"the rows 'via backend') the p99.9 still grows {through:+.0%}: the path raises "
            "the tail alone, but what grows crowded is the queue at memcached's vCPU")
    return ("the direction holds, the size does not. The workloads ask for "
            f"{float(offered(host)):.0%} of the pCPU, memcached {float(offered(_only(host))):.0%}"
            f" of it against a fair share of 1/{len(host.vms)}: under a fair-share policy "
            "its requests queue as at a server at saturation, so the tail has no steady "
            "value and grows with the run's length (docs/experiments.rst gives it over "
            "runs of 5 to 30 s)" + path)


def measure(crowded: Host, duration: int, policies: tuple[str, ...] = POLICIES,
            seed: int = 1) -> dict[str, dict[str, dict[str, int]]]:
    """Policy -> ``"alone"``/``"crowded"`` -> memcached's RTT summary (ns), one run each."""
    alone = _only(crowded)
    return {policy: {setting: run_policy(host, policy, duration, seed=seed)
                     ["vms"]["memcached"]["rtt_ns"]
                     for setting, host in (("alone", alone), ("crowded", crowded))}
            for policy in policies}


def _only(host: Host) -> Host:
    """*host* with its HI VM (memcached) only, and the backend its requests cross if any."""
    return attrs.evolve(host, vms=[vm for vm in host.vms if vm.is_hi or vm.io.packet_cost])


#: The backend of :func:`via_backend`: its CPU a packet, and the network's one-way latency
#: (the Xen thread's, examples/thread-ex*.toml).  Assumptions, not measurements (decision 107).
BACKEND_COST, NETWORK_NS = 5_000, 50_000


def via_backend(host: Host) -> Host:
    """*host* with memcached's requests and replies through a backend (dom0's netback under
    credit, a vhost thread under CFS) pinned to a second pCPU of its own; every other VM is
    pinned to the first pCPU, as in the paper's runs."""
    lo = next(vm for vm in host.vms if not vm.is_hi)  # a Type2 VM: its budgets, unused here
    backend = attrs.evolve(lo, name="backend", preset=None, workload=Workload(kind="idle"),
                           io=IOPath(packet_cost=BACKEND_COST), share=Share(pin=(1,)),
                           phase=None)
    vms = [attrs.evolve(vm, share=attrs.evolve(vm.share, pin=(0,)),
                        io=IOPath(via="backend", latency=NETWORK_NS) if vm.is_hi else vm.io)
           for vm in host.vms]
    return attrs.evolve(host, pcpus=2, vms=[backend, *vms])


def tail_bars(rtt: dict[str, dict[str, dict[str, int]]], out: Path, *, name: str, title: str,
              labels: dict[str, str], beside: str) -> list[str]:
    """:func:`measure`'s tails as bars, alone and crowded (*beside* names the neighbours),
    per policy of *labels* (policy -> its label), on a log axis; each policy has the colour
    it has in Fig. 5, so that a figure and another compare at a glance."""
    fig, ax = figure(7, 3.4)
    width = 0.12
    middle = (2 * len(labels) - 1) / 2
    for i, policy in enumerate(labels):
        for j, setting in enumerate(("alone", "crowded")):
            xs = [k + (2 * i + j - middle) * width for k in range(len(PERCENTILES))]
            ax.bar(xs, [rtt[policy][setting][p] / 1e6 for p in PERCENTILES], width,
                   label=f"{labels[policy]}, {'alone' if j == 0 else beside}",
                   hatch="" if j == 0 else "//", color=f"C{POLICIES.index(policy)}",
                   alpha=0.55 if j == 0 else 0.95)
    ax.set_xticks(range(len(PERCENTILES)), ["p50", "p90", "p99", "p99.9"])
    log_axis(ax)
    ax.set_ylabel("memcached RTT (ms)")
    ax.set_title(title)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", fontsize=7,
               ncols=len(labels))  # below the axes: it covers no bar
    return save(fig, out, name)


class Fig5(Experiment):
    name = "fig5"
    title = "Fig. 5: memcached (HI) RTTs alone and beside 3 lookbusy VMs, one pCPU"
    source = "Akita paper, Section 5, Fig. 5"
    host_file = "fig5.toml"
    seconds = (15, 30)

    def run(self, out: Path, *, quick: bool = False,
            progress: Callable[[str], None] | None = None) -> Outcome:
        duration = self.duration(quick)
        crowded = self.host()
        rtt = measure(crowded, duration)
        today = measure(crowded, duration, TODAY)
        # with the request path through a backend: full runs only, it triples the events and
        # only the size notes cite it (decision 107)
        through = None if quick else measure(via_backend(crowded), duration, ("credit", "cfs"))
        plots = tail_bars(rtt, out, name="fig5-rtt", labels={p: p for p in POLICIES},
                          title="memcached (HI) alone and beside 3 lookbusy VMs, one pCPU",
                          beside="with 3 lookbusy")
        rows = [[policy, setting, *tail_table(rtt[policy][setting])]
                for policy in POLICIES for setting in ("alone", "crowded")]
        rows += [[f"{policy} (today)", setting, *tail_table(today[policy][setting])]
                 for policy in TODAY for setting in ("alone", "crowded")]
        if through is not None:
            rows += [[f"{policy} via backend", setting, *tail_table(through[policy][setting])]
                     for policy in through for setting in ("alone", "crowded")]
        grow = {p: growth(rtt[p]["alone"]["p999"], rtt[p]["crowded"]["p999"]) for p in POLICIES}
        data = {"duration_ns": duration, "seed": 1, "offered_load": str(offered(crowded)),
                "rtt_ns": rtt, "p999_growth": {p: f"{g:.4f}" for p, g in grow.items()},
                "today": {"rtt_ns": today, "p999_growth": {
                    p: f"{growth(today[p]['alone']['p999'], today[p]['crowded']['p999']):.4f}"
                    for p in TODAY}},
                "via_backend": {"packet_cost_ns": BACKEND_COST, "network_ns": NETWORK_NS,
                                "rtt_ns": through}}
        return Outcome(self.name, self.title, self.source,
                       ["policy", "memcached", "p50", "p90", "p99", "p99.9"], rows,
                       claims(rtt, crowded, through, today), data, plots)


def claims(rtt: dict[str, dict[str, dict[str, int]]], host: Host,
           through: dict[str, dict[str, dict[str, int]]] | None = None,
           today: dict[str, dict[str, dict[str, int]]] | None = None) -> list[Claim]:
    """The paper's claims, judged on :func:`measure`'s figures (*through*: the same with the
    request path through a backend, :func:`via_backend`, which only the size notes cite;
    *today*: the same under today's defaults, shown beside the Xen and KVM claims)."""
    grow = {p: growth(rtt[p]["alone"]["p999"], rtt[p]["crowded"]["p999"]) for p in POLICIES}
    path = {p: None if through is None else
            growth(through[p]["alone"]["p999"], through[p]["crowded"]["p999"])
            for p in ("credit", "cfs")}
    worst_alone = max(rtt[p]["alone"]["p999"] for p in POLICIES)
    akita = rtt["akita"]
    kept = intact(akita["alone"]["p999"], akita["crowded"]["p999"])
    grew = {p: grew_by_more(rtt[p]["alone"]["p999"], rtt[p]["crowded"]["p999"], Fraction(1, 4))
            for p in ("credit", "cfs")}
    return [
        Claim("Alone on a pCPU, RTTs are predictable and rarely above 5 ms under all three",
              "rarely > 5 ms", f"p99.9 at most {ms(worst_alone)}",
              worst_alone <= 5_000_000),
        Claim("Under Akita the p99.9 RTT stays as if memcached ran alone (judged: crowded "
              "less than 10% above alone)", "intact",
              f"{grow['akita']:+.0%} ({ms(akita['alone']['p999'])} alone, "
              f"{ms(akita['crowded']['p999'])} crowded)", kept,
              "" if kept else _not_intact_why(host)),
        Claim("Under Xen (credit) the p99.9 RTT grows", "+96%", f"{grow['credit']:+.0%}",
              grew["credit"], _size_note(grow["credit"], 0.96, host, path["credit"]),
              today=today_growth(today, "credit")),
        Claim("Under KVM (CFS) the p99.9 RTT grows", "+93%", f"{grow['cfs']:+.0%}",
              grew["cfs"], _size_note(grow["cfs"], 0.93, host, path["cfs"]) if grew["cfs"] else
              "in the model a waking memcached task is placed 3 ms behind min_vruntime "
              "(GENTLE_FAIR_SLEEPERS) and preempts the running lookbusy task at once "
              "(1 ms wakeup granularity); the real KVM host's request path also runs "
              "through vhost and interrupt threads (issue 15), which the model does not have",
              today=today_growth(today, "cfs")),
    ]


def today_growth(today: dict[str, dict[str, dict[str, int]]] | None, era: str) -> str | None:
    """The p99.9 growth under the default scheduler of today that replaced *era*, named;
    ``None`` without today's runs."""
    if today is None:
        return None
    policy = TODAYS_DEFAULT[era]
    alone, crowded = today[policy]["alone"]["p999"], today[policy]["crowded"]["p999"]
    return f"{policy}: {growth(alone, crowded):+.0%} ({ms(alone)} alone, {ms(crowded)} crowded)"
