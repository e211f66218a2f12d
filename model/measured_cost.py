"""Whether a measured context-switch cost is a measurement at all.

``bench/context_switch.py`` measures a switch as ``perf bench sched pipe``
does and takes the interpreter's and the system calls' time out by
subtracting a one-process loop (Li, Ding and Shen, ExpCS 2007; decision 70):
each repeat's *net* figure is a difference of two timed runs, and on a loaded
machine the difference can be noise -- a negative net median (the baseline
slower than the ping-pong) or a spread many times the figure.  Such a
difference is not a cost: clamped to 0, it would silently tell the
simulator and the overhead-aware admission (:mod:`akita.model.overheads`)
that a switch is free.

:func:`judge_switch_cost` decides (decision 330).  The net figures are
accepted as a cost iff

* their median is positive (at least 1 ns once rounded): a switch costs
  something, and a net at or below 0 says the baseline's noise exceeded the
  switch; and
* their spread (greatest - least over the repeats) is at most their median:
  the repeats agree on the figure to within a factor the median itself
  bounds.  Wider, and a repeat could as well have given a cost twice the
  median, or none.

Refused, the verdict carries no cost (``None``) and says which condition
failed with the figures; a caller that needs a cost then says where it took
one instead (:data:`STORED_NS`, the figure measured on a quiet machine,
decision 70) or refuses in turn.  A verdict is not a bool.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

__all__ = ["SwitchCostVerdict", "judge_switch_cost", "STORED_NS"]

#: This machine's cost measured on a quiet machine (``bench/README.md``, decision 70): the
#: documented figure a caller may fall back to, saying so, when a measurement is refused.
STORED_NS = 2_460


@attrs.frozen
class SwitchCostVerdict:
    """A net switch-cost measurement judged (:func:`judge_switch_cost`).

    :param cost_ns: the cost, whole ns, or ``None`` when refused.
    :param why: the figures and the condition that accepted or refused them.
    :param median: the net median of the repeats (ns per switch), as measured.
    :param least: the least net figure of the repeats.
    :param greatest: the greatest net figure of the repeats.
    """

    cost_ns: int | None
    why: str
    median: float
    least: float
    greatest: float

    @property
    def measured(self) -> bool:
        """Whether the figures were accepted as a cost."""
        return self.cost_ns is not None

    def as_json(self) -> dict[str, object]:
        """``{"cost_ns", "measured", "why"}``: what a record keeps of the verdict."""
        return {"cost_ns": self.cost_ns, "measured": self.measured, "why": self.why}

    def __bool__(self) -> bool:  # pragma: no cover - guard against misuse
        raise TypeError("a verdict is not a bool: read .measured or .cost_ns")


def judge_switch_cost(net: Mapping[str, float]) -> SwitchCostVerdict:
    """The verdict on *net*, the ``{"median", "min", "max"}`` of the net figures (ns per
    switch) that ``bench/context_switch.py`` reports; see the module's criterion."""
    median, least, greatest = float(net["median"]), float(net["min"]), float(net["max"])
    figures = f"net median {median:g} ns [{least:g}, {greatest:g}]"
    width = greatest - least
    if round(median) < 1:
        why = f"refused: {figures}: the median is not positive (the baseline's noise " \
              "exceeded the switch)"
        return SwitchCostVerdict(None, why, median, least, greatest)
    if width > median:
        why = f"refused: {figures}: the spread {width:g} ns exceeds the median"
        return SwitchCostVerdict(None, why, median, least, greatest)
    why = f"measured: {figures}: positive, spread {width:g} ns within the median"
    return SwitchCostVerdict(round(median), why, median, least, greatest)
