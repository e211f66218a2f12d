"""The cost of a context switch the experiments run at, and how much it moves them.

Seed 004 ("What I talk about when I talk about scheduling") measures what
scheduling costs as ``perf bench sched pipe`` does: two processes that
answer each other over a pipe, pinned to one CPU (3.10 us an operation on
its machine, 20.0 us unpinned), and equates that cost with the CPU time
"the various chores around scheduling ... squeeze out".
``bench/context_switch.py`` measures it so on this project's build machine
(``bench/README.md``): 2,460 ns a switch, net of the same loop in one
process (raw 3,433 ns; ``perf bench sched pipe`` pinned: 3.43 us).  Every
experiment runs its hosts at that cost (:data:`SWITCH_COST`), as a host
whose ``context_switch_cost`` is that figure; ``akita reproduce
--switch-cost 0ns`` reruns them without it.

The ``switch-cost`` experiment (:class:`SwitchCost`) shows, on the hosts of
Fig. 5 and the thread's ex3, each policy's switches per second, the share
of the CPU they cost, and the headline latency at cost 0 and at the
measured cost.
"""

from __future__ import annotations

from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable

import attrs

from akita.model import Host, format_duration
from akita.plotting import figure, log_axis, save

from .experiment import Claim, Experiment, Outcome, example_host, ms
from .fig5 import _only

__all__ = ["MEASURED_NS", "RAW_NS", "SWITCH_COST", "SOURCE", "at_switch_cost", "switch_cost", "SwitchCost"]

#: ns a context switch costs on this project's build machine (bench/README.md,
#: ``python bench/context_switch.py``: the net median of 11 pinned repeats, 2026-12-01).
MEASURED_NS = 2_460

#: The same measurement's raw figure, before the one-process loop is taken off (ns).
RAW_NS = 3_433

#: Where :data:`MEASURED_NS` comes from, for the tables.
SOURCE = ("bench/context_switch.py, pinned, net of one process's loop, median of 11 "
          "(raw 3,433 ns; perf bench sched pipe pinned: 3.43 us)")

#: The cost the experiments run their hosts at, ns a switch (``akita reproduce
#: --switch-cost`` sets it for one run of the experiments).
SWITCH_COST: ContextVar[int] = ContextVar("switch_cost", default=MEASURED_NS)


def switch_cost() -> int:
    """The cost of a context switch the experiments run at now, in ns."""
    return SWITCH_COST.get()


def at_switch_cost(host: Host, ns: int | None = None) -> Host:
    """*host* with ``context_switch_cost = ns`` (by default :func:`switch_cost`)."""
    cost = switch_cost() if ns is None else ns
    return attrs.evolve(host, options=attrs.evolve(host.options, context_switch_cost=cost))


#: (label, host file, the VM whose tail is the headline, policies) of the table.
_HOSTS = (
    ("Fig. 5 alone", "fig5.toml", "memcached", ("akita", "credit", "cfs")),
    ("Fig. 5 crowded", "fig5.toml", "memcached", ("akita", "credit", "cfs")),
    ("thread ex3", "thread-ex3.toml", "ping", ("credit-3.3", "bcredit-3.3")),
)

#: The seed's ``taskset -c 0 perf bench sched pipe``: 3.104995 us an operation.
_SEED_PINNED_NS = 3_105


def _host(label: str, file: str) -> Host:
    host = example_host(file)
    return _only(host) if label.endswith("alone") else host  # as Fig. 5's "alone"


class SwitchCost(Experiment):
    """Switches per second, their CPU share, and the latency they move, per policy."""

    name = "switch-cost"
    title = "What scheduling itself costs: context switches at the measured cost"
    source = ("seed 004 (the cost of scheduling, perf bench sched pipe); hosts of Fig. 5 "
              "(Asyabi et al.) and the Xen thread's ex3")
    seconds = (2, 10)

    def run(self, out: Path, *, quick: bool = False,
            progress: Callable[[str], None] | None = None) -> Outcome:
        from akita.reference.run import simulate

        duration = self.duration(quick)
        cost = switch_cost()
        rows: list[list[str]] = []
        data: dict[str, Any] = {"cost_ns": cost, "source": SOURCE, "runs": {}}
        for label, file, vm, policies in _HOSTS:
            host = _host(label, file)
            for policy in policies:
                docs = {ns: simulate(at_switch_cost(host, ns), policy, duration=duration)
                        .as_json() for ns in (0, cost)}
                at = docs[cost]
                tails = [docs[ns]["vms"][vm]["rtt_ns"]["p999"] for ns in (0, cost)]
                data["runs"][f"{label} / {policy}"] = {
                    "switching": at["switching"], "p999_ns": dict(zip(("0", str(cost)), tails))}
                rows.append([label, policy, f"{at['switching']['per_s']:,.0f}",
                             f"{at['switching']['share']:.2%}",
                             f"{vm} {ms(tails[0])} -> {ms(tails[1])}"])
        return Outcome(self.name, self.title, self.source,
                       ["host", "policy", "switches/s", "CPU switching",
                        f"p99.9 at 0 -> {format_duration(cost)}"],
                       rows, self._claims(cost, data["runs"]), data,
                       self._plot(data["runs"], cost, out))

    def _plot(self, runs: dict[str, Any], cost: int, out: Path) -> list[str]:
        """The CPU share each policy spends switching, per host, on a log axis; runs that
        spend none (a VM alone on its pCPU switches to no other, or at cost 0) are left out,
        and with none left there is no plot."""
        names = [n for n in runs if runs[n]["switching"]["share"] > 0]
        if not names:
            return []
        fig, ax = figure(6, 3)
        shares = [runs[n]["switching"]["share"] * 100 for n in names]
        bars = ax.bar(range(len(names)), shares, color="C3")
        ax.bar_label(bars, labels=[f"{runs[n]['switching']['share']:.2%}" for n in names],
                     fontsize=6)
        log_axis(ax)
        ax.set_xticks(range(len(names)), [n.replace(" / ", "\n") for n in names], fontsize=6)
        ax.set_ylabel(f"CPU time switching (%), {format_duration(cost)} a switch")
        ax.set_title(self.title, fontsize=7)
        return save(fig, out, f"{self.name}-share")

    def _claims(self, cost: int, runs: dict[str, Any]) -> list[Claim]:
        akita = runs["Fig. 5 crowded / akita"]["switching"]["share"]
        credit = runs["Fig. 5 crowded / credit"]["switching"]["share"]
        return [
            Claim("a context switch between two processes pinned to one CPU costs a few "
                  "microseconds (perf bench sched pipe, pinned)",
                  f"{_SEED_PINNED_NS / 1000:.2f} us an operation",
                  f"{format_duration(MEASURED_NS)} net, {RAW_NS / 1000:.2f} us raw, measured "
                  f"once by {SOURCE}; within 2x of the seed's judged",
                  holds=_SEED_PINNED_NS <= 2 * RAW_NS and RAW_NS <= 2 * _SEED_PINNED_NS,
                  why=""),
            Claim("the chores around scheduling squeeze out CPU time: a scheduler that "
                  "switches more pays more",
                  None,
                  f"Fig. 5 crowded: akita {akita:.2%} of the CPU switching, credit {credit:.2%}",
                  holds=cost > 0 and akita > credit,
                  why="" if cost else "at cost 0 no switch costs anything"),
        ]
