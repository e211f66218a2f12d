"""How a claim of a source is judged by its size: the verdicts, the rules and what a run reads.

A claim of a source (the paper, the Xen thread, FlexCore, Pregather, the
essay on the cost of scheduling) says that something happens -- its
*direction* -- and, where the source prints a number, how much.  Each claim
of :mod:`akita.experiments.claims` carries a :class:`Rule` fixed before its run: the
direction our run must show, and, where the source gives a number, a
two-sided :class:`Band` the size must fall in, with the reason for its width
(decision 140).  The :class:`Verdict` follows:

* ``reproduced``: the direction holds and, where the source gives a
  number, our figure lies in the band;
* ``direction only``: the direction holds, the size does not;
* ``not reproduced``: the direction does not hold (or, for a claim that is
  a lone figure with no direction, the figure is out of its band);
* ``not attempted``: no experiment of this project measures it.

A verdict is not a boolean: ``bool(verdict)`` raises, so that no caller can
read ``direction only`` as a pass by accident.
"""

from __future__ import annotations

import enum
from fractions import Fraction

import attrs

__all__ = ["Verdict", "Band", "Rule", "Reading", "FACTOR_2", "POINTS_3", "ONE_SIDED", "BOUND",
           "bound"]


class Verdict(enum.Enum):
    """What a claim's run shows, judged by its rule."""

    REPRODUCED = "reproduced"
    DIRECTION_ONLY = "direction only"
    NOT_REPRODUCED = "not reproduced"
    NOT_ATTEMPTED = "not attempted"

    def __bool__(self) -> bool:
        raise TypeError(f"a verdict is not a boolean: {self.value!r}; compare it with a Verdict")

    def __str__(self) -> str:
        return self.value


@attrs.frozen
class Band:
    """A two-sided band on a figure: ``low <= x <= high`` (an end is open when marked so).

    ``None`` for an end means unbounded on that side; a band with both ends
    ``None`` is never built (:data:`ONE_SIDED` is a rule without a band).
    """

    low: Fraction | None
    high: Fraction | None
    high_open: bool = False

    def __contains__(self, x: object) -> bool:
        if not isinstance(x, (int, Fraction)):
            raise TypeError(f"a band holds exact numbers, not {x!r}")
        if self.low is not None and x < self.low:
            return False
        if self.high is not None and (x >= self.high if self.high_open else x > self.high):
            return False
        return True


@attrs.frozen
class Rule:
    """A claim's rule, stated before its run.

    :param text: the rule in words, as the table prints it.
    :param band: where the size must lie (on :attr:`Reading.size`); ``None``
        when the source gives no number, so only the direction is judged.
    :param reason: why the band is as wide as it is.
    """

    text: str
    band: Band | None
    reason: str = ""

    def judge(self, reading: Reading) -> Verdict:
        """The verdict on *reading*: direction first, then the size against :attr:`band`."""
        if reading.direction is False:
            return Verdict.NOT_REPRODUCED
        if self.band is None:
            if reading.direction is None:
                raise ValueError(f"rule {self.text!r} has no band and the reading no direction")
            return Verdict.REPRODUCED
        if reading.size is None:
            raise ValueError(f"rule {self.text!r} has a band and the reading no size: {reading}")
        if reading.size in self.band:
            return Verdict.REPRODUCED
        return Verdict.NOT_REPRODUCED if reading.direction is None else Verdict.DIRECTION_ONLY


@attrs.frozen
class Reading:
    """What one result file shows for a claim.

    :param ours: our figure, as the table prints it.
    :param direction: whether the run shows what the claim says; ``None``
        for a claim that is a lone figure (it has no direction, only a size).
    :param size: the exact number the rule's band is applied to; ``None``
        when the rule has no band.
    """

    ours: str
    direction: bool | None
    size: Fraction | None = None


#: Latencies, bandwidths, speed-ups, growth ratios: within a factor of 2 of the
#: source's figure, the size applied to being the worse of ``ours / source`` and
#: ``source / ours`` (so the band is ``<= 2``).
FACTOR_2 = Band(None, Fraction(2))
#: Percentages of a whole (CPU shares, disk utilisation, success ratios): within
#: 3 percentage points, the size being the largest ``|ours - source|`` in points.
POINTS_3 = Band(None, Fraction(3))
#: For claims without a number: the direction alone.
ONE_SIDED = None
#: The reason of a one-sided rule whose source figure is itself a bound ("rarely above 5 ms").
BOUND = "the source's figure is a bound: the rule is that bound, one-sided as the source states it"


def bound(text: str) -> Rule:
    """A rule that is the source's own bound (no band: the bound is the direction)."""
    return Rule(text, ONE_SIDED, BOUND)
