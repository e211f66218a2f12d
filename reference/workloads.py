"""Workload generators: the jobs each vCPU receives.

A :class:`~akita.model.workload.Workload` *describes* demand; this module
*generates* it.  For the ``index``-th vCPU of a VM, :func:`arrivals` yields
the jobs the vCPU receives as ``(arrival, demand)`` pairs of integer
nanoseconds, in nondecreasing order of arrival.  Every demand is at least
1 ns.  A job is work, not a deadline: the scheduler decides when it runs.

Generation is lazy.  Each job is computed when it is asked for, so memory is
bounded whatever the horizon, and a simulation may stop at any time.

**The kinds.**  Let ``T`` be the VM's period and ``C`` its optimistic
budget ``c_opt``.  Times below are counted from the VM's creation, its
phase ``p`` (:mod:`akita.model.phases`; 0 if not set): every job arrives
``p`` later than stated, so the jobs of ``periodic`` and ``sporadic``
workloads come at the vCPU's own period starts (a cpu-bound vCPU becomes
runnable at ``p``, which the simulator arranges).

``cpu-bound``
    No jobs: the vCPU is always runnable and its demand is infinite.
    :func:`arrivals` returns ``None`` rather than an iterator.
``periodic``
    A job of ``demand`` (default ``C``) at each ``k * period + offset``,
    ``k = 0, 1, 2, ...`` (``period`` default ``T``, ``offset`` default 0).
``sporadic``
    Jobs at period starts (multiples of ``period``, default ``T``), at
    least one period apart.  The first job comes at ``k0 * period``, where
    ``k0 >= 0`` counts the failures before the first success of Bernoulli
    trials with success probability ``p = probability`` (default 1/2): it is
    0 with probability ``p``.  After each job the next comes ``k`` periods
    later, where ``k >= 1`` counts the trials up to and including the first
    success.  With ``p = 1`` there is a job at every period start.  Each
    job's demand is uniform over the integers of ``[min_demand, demand]``
    (defaults 1 ns and ``C``).
``poisson``
    Requests arrive at the VM as a Poisson process of ``rate`` requests per
    second, split evenly over its ``n`` vCPUs: each vCPU receives an
    independent Poisson process of rate ``rate / n``.  The gaps between
    arrivals are exponential with mean ``1e9 * n / rate`` ns, rounded to a
    whole nanosecond; a gap may be 0 (two requests arriving together).  The
    first request arrives one gap after time 0.  Each request needs
    ``service`` of CPU: exactly that with ``distribution = "fixed"`` (the
    default), or an exponential amount with mean ``service`` with
    ``"exponential"``, rounded to a whole nanosecond and at least 1 ns.
``duty``
    lookbusy: at each window start ``k * window + offset`` (``window``
    default 10 ms, ``offset`` default 0) a job of
    ``floor(utilization * window)`` ns.  If that is 0 there are no jobs at
    all.
``trace``
    The ``(arrival, demand)`` pairs of a file, one per line, read line by
    line as jobs are asked for.  Every vCPU of the VM replays the same
    file.  :func:`validate_trace` states the format and checks a whole
    file.

**Randomness.**  The ``sporadic`` and ``poisson`` kinds are random.  Each
vCPU draws from its own :class:`random.Random`, seeded with the string
``"{seed}/{vm}/{index}"`` (for example ``"7/memcached/0"``).  A string seed is hashed with SHA-512,
not with Python's per-process ``hash``, so the same seed, VM name and index
give the same jobs in every process and on every run; two vCPUs draw
independent streams.

Floats enter only as the random variates themselves: a uniform ``U`` in
``[0, 1)`` and an exponential ``E`` of mean 1 (``E = -ln(1 - U)``), and for
``sporadic`` the rate ``-ln(1 - p)``.  Each is turned at once into an exact
:class:`~fractions.Fraction` (every float is one) and scaled exactly, and
the result becomes an integer in one place, ``_whole``: ``floor(x)``, but at
least a stated minimum.  A time is rounded to the nearest nanosecond as
``floor(x + 1/2)``.  Sporadic gaps use the exponential as well:
``floor(E / -ln(1 - p))`` is geometric, 0 with probability ``p``.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import TypeVar

from akita.model.duration import format_duration, parse_duration
from akita.model.errors import DurationError, ModelError
from akita.model.vm import VM

__all__ = ["arrivals", "validate_trace"]

#: A job: when it arrives and how much CPU it needs, both in ns.
Job = tuple[int, int]
T = TypeVar("T")

_NS_PER_S = 10**9
_HALF = Fraction(1, 2)
#: Below this success probability, ``-ln(1 - p)`` is taken to be ``p``
#: (the relative error, under ``p / 2``, is below a float's precision).
_SMALL_P = Fraction(1, 2**60)
_DEFAULT_PROBABILITY = Fraction(1, 2)


def arrivals(vm: VM, index: int, seed: int, horizon: int | None = None) -> Iterator[Job] | None:
    """The work that vCPU ``vm/index`` receives.

    :param vm: the VM; its workload says what kind of work arrives.
    :param index: the vCPU, ``0 <= index < vm.vcpus``.
    :param seed: the simulation's seed; the vCPU draws from
        ``random.Random(f"{seed}/{vm.name}/{index}")``.
    :param horizon: if given, the jobs stop before this instant: only jobs
        with ``arrival < horizon`` are yielded.
    :returns: an iterator of ``(arrival_ns, demand_ns)`` pairs in
        nondecreasing arrival order, each demand ``>= 1``, generated lazily;
        ``None`` for a ``cpu-bound`` workload (always runnable).
    :raises ModelError: at once, for a bad index, seed or horizon, or a
        ``min_demand`` above the default demand ``c_opt``; while iterating,
        for a trace file that cannot be read or has a bad line.
    """
    vm.vcpu(index)  # raises ModelError for an index outside the VM
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ModelError("seed", seed, "an integer", vm=vm.name)
    if horizon is not None and (
        isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 0
    ):
        raise ModelError("horizon", horizon, "an instant in ns >= 0", vm=vm.name)
    kind = vm.workload.kind
    if kind == "cpu-bound":
        return None
    generate = _GENERATORS.get(kind)
    if generate is None:
        raise ModelError(
            "workload.kind", kind, f"a kind with a generator ({', '.join(_GENERATORS)})", vm=vm.name
        )
    jobs = generate(vm, _rng(seed, vm.name, index))
    if vm.phase:
        jobs = _shifted(jobs, vm.phase)
    return jobs if horizon is None else itertools.takewhile(lambda job: job[0] < horizon, jobs)


def _shifted(jobs: Iterator[Job], phase: int) -> Iterator[Job]:
    """*jobs* moved later by *phase* ns."""
    return ((arrival + phase, demand) for arrival, demand in jobs)


def validate_trace(path: str, vm: str | None = None) -> int:
    """Check a whole trace file and return its number of entries.

    The format: one job per line, ``ARRIVAL, DEMAND``, each a duration with
    a unit as :func:`~akita.model.duration.parse_duration` reads it
    (``10ms, 2ms``).  Blank lines and lines whose first non-blank character
    is ``#`` are ignored.  Arrivals are nondecreasing and every demand is
    ``> 0``.  The file is UTF-8 text.  An empty file is valid (no jobs).

    :param path: the trace file.
    :param vm: the VM that replays it, for the error message.
    :raises ModelError: with ``field="workload.path"``, ``vm`` and the file
        as ``path``, on the first line that breaks the format; ``expected``
        names the line number and ``value`` is the line as written.
    """
    return sum(1 for _ in _trace(path, vm))


def _rng(seed: int, vm: str, index: int) -> random.Random:
    """The random stream of vCPU ``vm/index`` under ``seed``."""
    return random.Random(f"{seed}/{vm}/{index}")


def _whole(x: Fraction, *, least: int) -> int:
    """The one place where a random quantity becomes an integer: ``max(least, floor(x))``.

    *x* is exact (a float variate turned into a :class:`~fractions.Fraction`
    and scaled exactly), so the floor is exact too.
    """
    return max(least, math.floor(x))


def _exponential(rng: random.Random) -> Fraction:
    """An exponential variate of mean 1, as an exact fraction."""
    return Fraction(rng.expovariate(1.0))


def _periodic(vm: VM, _random: random.Random) -> Iterator[Job]:
    """A job of ``demand`` at each ``k * period + offset``."""
    workload = vm.workload
    demand = _demand(vm)
    period = _period(vm)
    offset = workload.offset if workload.offset is not None else 0
    return zip(itertools.count(offset, period), itertools.repeat(demand))  # in C: no frame a job


def _sporadic(vm: VM, rng: random.Random) -> Iterator[Job]:
    """Jobs at period starts, geometric numbers of periods apart, of uniform demand."""
    workload = vm.workload
    high = _demand(vm)
    low = workload.min_demand if workload.min_demand is not None else 1
    if low > high:  # only when min_demand is set and demand defaults to c_opt
        raise ModelError(
            "workload.min_demand", format_duration(low),
            f"min_demand <= demand (by default c_opt, {format_duration(high)})", vm=vm.name,
        )
    p = workload.probability if workload.probability is not None else _DEFAULT_PROBABILITY
    return _sporadic_jobs(_period(vm), _geometric_rate(p), low, high, rng)


def _sporadic_jobs(
    period: int, rate: Fraction | None, low: int, high: int, rng: random.Random
) -> Iterator[Job]:
    """The sporadic jobs, given the period, the geometric rate and the demand bounds."""
    start = _failures(rng, rate) * period
    while True:
        yield start, rng.randint(low, high)
        start += (1 + _failures(rng, rate)) * period


def _geometric_rate(p: Fraction) -> Fraction | None:
    """``-ln(1 - p)``, exactly the float it is computed as; ``None`` for ``p = 1``."""
    if p == 1:
        return None
    if p < _SMALL_P:
        return p
    if p <= _HALF:
        return Fraction(-math.log1p(-float(p)))
    return Fraction(-math.log(float(1 - p)))


def _failures(rng: random.Random, rate: Fraction | None) -> int:
    """Failures before the first success: ``floor(E / rate)``, geometric; 0 if ``p = 1``.

    ``P(floor(E / rate) >= n) = P(E >= n * rate) = exp(-n * rate) = (1 - p) ** n``.
    """
    if rate is None:
        return 0
    return _whole(_exponential(rng) / rate, least=0)


def _poisson(vm: VM, rng: random.Random) -> Iterator[Job]:
    """A Poisson stream of ``rate / vcpus`` requests per second, each needing ``service``.

    The same exact values as ``_whole(E * mean + 1/2)``, computed in integers on
    the hot path: with ``E = n/d`` (the float's exact ratio) and a mean of
    ``g/h``, ``floor(E * g/h + 1/2) = (2 n g + d h) // (2 d h)``.
    """
    workload = vm.workload
    mean_gap = Fraction(_NS_PER_S * vm.vcpus) / _required(workload.rate, "rate", vm)
    gap_n, gap_d = mean_gap.numerator, mean_gap.denominator
    service = _required(workload.service, "service", vm)
    exponential_service = workload.distribution == "exponential"
    draw = rng.expovariate
    arrival = 0
    while True:
        n, d = draw(1.0).as_integer_ratio()
        arrival += (2 * n * gap_n + d * gap_d) // (2 * d * gap_d)
        if exponential_service:
            n, d = draw(1.0).as_integer_ratio()
            demand = max(1, (2 * n * service + d) // (2 * d))
        else:
            demand = service
        yield arrival, demand


def _duty(vm: VM, _random: random.Random) -> Iterator[Job]:
    """A job of ``floor(utilization * window)`` at each window start, if that is > 0."""
    workload = vm.workload
    window = workload.window_or_default
    offset = workload.offset if workload.offset is not None else 0
    busy = math.floor(_required(workload.utilization, "utilization", vm) * window)
    if busy == 0:
        return
    for k in itertools.count():
        yield k * window + offset, busy


def _replay(vm: VM, _random: random.Random) -> Iterator[Job]:
    """The jobs of the VM's trace file, read as they are asked for."""
    return _trace(_required(vm.workload.path, "path", vm), vm.name)


def _required(value: T | None, field: str, vm: VM) -> T:
    """A field the VM's workload kind requires (:class:`~akita.model.Workload` checks it is set)."""
    if value is None:
        raise ModelError(f"workload.{field}", None, f"a {field} for a {vm.workload.kind} workload",
                         vm=vm.name)
    return value


def _demand(vm: VM) -> int:
    """A periodic or sporadic workload's ``demand``, by default the VM's ``c_opt``."""
    return vm.workload.demand if vm.workload.demand is not None else vm.c_opt


def _period(vm: VM) -> int:
    """A periodic or sporadic workload's ``period``, by default the VM's."""
    return vm.workload.period if vm.workload.period is not None else vm.period


def _idle(vm: VM, rng: random.Random) -> Iterator[Job]:
    """No work of its own (a backend VM's vCPU runs the packets it is given)."""
    return iter(())


_GENERATORS: dict[str, Callable[[VM, random.Random], Iterator[Job]]] = {
    "periodic": _periodic,
    "sporadic": _sporadic,
    "idle": _idle,
    "closed": _idle,  # its requests are sent by the I/O path, as the replies return
    "poisson": _poisson,
    "duty": _duty,
    "trace": _replay,
}


def _trace(path: str, vm: str | None) -> Iterator[Job]:
    """The entries of the trace file *path*, checked one line at a time."""
    try:
        stream = open(path, "rb")
    except OSError as error:
        raise ModelError(
            "workload.path", path, f"a readable trace file ({error.strerror})", vm=vm, path=path
        ) from None
    with stream:
        previous: tuple[int, int] | None = None  # (line number, arrival) of the last entry
        for number, raw in enumerate(stream, start=1):
            text = _decode(raw, number, path, vm).strip()
            if not text or text.startswith("#"):
                continue
            arrival, demand = _entry(text, number, path, vm)
            if previous is not None and arrival < previous[1]:
                raise _line_error(
                    text,
                    f"line {number} to arrive no earlier than line {previous[0]} "
                    f"({format_duration(previous[1])})",
                    path, vm,
                )
            previous = number, arrival
            yield arrival, demand


def _decode(raw: bytes, number: int, path: str, vm: str | None) -> str:
    """Line *number* as text (a byte-order mark on line 1 is dropped)."""
    try:
        return raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError:
        raise _line_error(raw, f"line {number} to be UTF-8 text", path, vm) from None


def _entry(text: str, number: int, path: str, vm: str | None) -> Job:
    """The ``(arrival, demand)`` written on a non-blank, non-comment line."""
    parts = text.split(",")
    if len(parts) != 2:
        raise _line_error(
            text, f"line {number} to read 'ARRIVAL, DEMAND' (two durations and a comma, "
            "such as '10ms, 2ms')", path, vm,
        )
    times = []
    for name, part in zip(("arrival", "demand"), parts):
        try:
            times.append(parse_duration(part))
        except DurationError as error:
            raise _line_error(
                text, f"line {number} to give its {name} as {error.expected}", path, vm
            ) from None
    arrival, demand = times
    if demand == 0:
        raise _line_error(text, f"line {number} to have a demand > 0", path, vm)
    return arrival, demand


def _line_error(value: object, expected: str, path: str, vm: str | None) -> ModelError:
    """The error for a bad line of the trace file *path*."""
    return ModelError("workload.path", value, expected, vm=vm, path=path)
