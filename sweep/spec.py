"""The sweep file: TOML in, :class:`SweepSpec` out.

The format (documented in ``docs/sweep.rst``)::

    [sweep]
    seed = 1
    sets = 200                        # per utilisation point
    utilizations = [0.5, 0.55, 0.6]   # or { start = 0.05, stop = 0.95, step = 0.05 }
    tests = ["edf-vd", "amc-rtb"]
    batch = 50                        # sets per task of the cluster (optional)

    [sweep.generator]
    kind = "uunifast"                 # or "uunifast-discard"
    vcpus = 20
    periods = ["10ms", "1000ms"]
    period_distribution = "log-uniform"   # or "uniform" (optional)
    granularity = "100us"             # optional, default "1us"
    criticality_factor = 2            # C_pes = factor x C_opt for HI vCPUs
    p_hi = 0.5

Reading is as strict as for a host file (:mod:`akita.model.host_file`):
the file is bounded before it is parsed (:func:`~akita.model.limits.read_bounded`,
:func:`~akita.model.specfile.parse_toml`), unknown keys and values of the
wrong kind are refused, and every count has a ceiling checked before any
set is drawn.  Each error is a :class:`~akita.model.ModelError` naming the
file and the key (``sweep.generator.vcpus``), which the command line prints
as one line with exit status 2.
"""

from __future__ import annotations

import hashlib
import json
import os
from fractions import Fraction
from typing import Any

import attrs

from akita.model import ADMISSION_TESTS, ModelError, parse_duration, parse_fraction
from akita.model.limits import read_bounded
from akita.model.specfile import (MAX_SEED, parse_toml, read_choice, read_integer, read_names,
                                  read_required, read_table)
from akita.model.taskgen import KINDS, PERIOD_DISTRIBUTIONS, TaskSetGenerator

__all__ = ["SweepSpec", "load_spec", "loads_spec", "generator_json", "DEFAULT_BATCH",
           "MAX_SETS", "MAX_POINTS", "MAX_TOTAL_SETS", "MAX_BATCHES", "MAX_VCPUS", "MAX_SEED",
           "DEFAULT_EXACT_STATES", "MAX_EXACT_STATES"]

#: Sets per batch (one task of the cluster) when the file names none.
DEFAULT_BATCH = 50
#: Sets of one utilisation point.
MAX_SETS = 1_000_000
#: Utilisation points.
MAX_POINTS = 1000
#: Sets of the whole sweep.
MAX_TOTAL_SETS = 10_000_000
#: Batches of the whole sweep (each is one task, and one file under ``--out``).
MAX_BATCHES = 100_000
#: vCPUs of one set.
MAX_VCPUS = 256
#: States one exact search may keep when the file names no ``sweep.exact_states``.
DEFAULT_EXACT_STATES = 100_000
#: The most states one exact search of a sweep may keep.
MAX_EXACT_STATES = 100_000_000
#: Bumped whenever the sets a spec draws change, so that stored batches are not reused.
FORMAT = 1

_KIND = "sweep file"
_TOP_KEYS = ("sweep",)
_SWEEP_KEYS = ("seed", "sets", "utilizations", "tests", "batch", "exact_states", "generator")
_GENERATOR_KEYS = ("kind", "vcpus", "periods", "period_distribution", "granularity",
                   "criticality_factor", "p_hi")
_RANGE_KEYS = ("start", "stop", "step")


@attrs.frozen
class SweepSpec:
    """A sweep: which sets to draw, at which utilisations, under which tests.

    :param seed: the sweep's seed; set ``i`` of point ``U`` depends on
        ``(seed, U, i)`` only (:func:`~akita.model.taskgen.set_random`).
    :param sets: sets per utilisation point.
    :param utilizations: the LO-mode utilisations ``U_LO`` of the points,
        increasing, each in ``(0, 1]``.
    :param tests: admission test names (:data:`~akita.model.ADMISSION_TESTS`).
    :param generator: how a set is drawn.
    :param batch: sets per task of the cluster.
    :param exact_states: under the test ``exact``, the states one search may keep before
        it answers ``UNKNOWN`` (counted apart, never as accepted).  A sweep's exact
        searches have no time limit, so that the counts depend on the spec alone.
    """

    seed: int
    sets: int
    utilizations: tuple[Fraction, ...]
    tests: tuple[str, ...]
    generator: TaskSetGenerator
    batch: int = DEFAULT_BATCH
    exact_states: int = DEFAULT_EXACT_STATES

    @property
    def identity(self) -> dict[str, Any]:
        """What a set's verdicts depend on besides its point and index: the seed,
        the generator, the tests (and the generator's :data:`FORMAT`)."""
        identity = {"format": FORMAT, "seed": self.seed, "tests": list(self.tests),
                    "generator": generator_json(self.generator)}
        if "exact" in self.tests:
            identity["exact_states"] = self.exact_states
        return identity

    @property
    def digest(self) -> str:
        """The SHA-256 of :attr:`identity`: stored batches are reused only under it."""
        text = json.dumps(self.identity, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def generator_json(generator: TaskSetGenerator) -> dict[str, Any]:
    """*generator* for machines: times in integer ns, fractions as ``"p/q"``."""
    return {"kind": generator.kind, "vcpus": generator.vcpus,
            "periods_ns": list(generator.periods),
            "period_distribution": generator.period_distribution,
            "granularity_ns": generator.granularity,
            "criticality_factor": str(generator.criticality_factor),
            "p_hi": str(generator.p_hi)}


def load_spec(path: str | os.PathLike[str]) -> SweepSpec:
    """Read the sweep file at *path* (at most :data:`~akita.model.limits.MAX_FILE_BYTES`).

    :raises ModelError: naming the file and the key.
    """
    shown = os.fspath(path)
    return loads_spec(read_bounded(path, kind=_KIND, error=ModelError), path=shown)


def loads_spec(text: str, *, path: str = "<string>") -> SweepSpec:
    """Read a sweep file's *text*; *path* names it in error messages."""
    document = parse_toml(text, path=path, kind=_KIND, error=ModelError)
    try:
        return _spec(document)
    except ModelError as error:
        raise error.located(path=path) from None


def _spec(document: dict[str, object]) -> SweepSpec:
    for name in document:
        if name not in _TOP_KEYS:
            raise ModelError(name, name, "a known key (sweep)")
    sweep = read_table(document, "sweep", _SWEEP_KEYS)
    seed = read_integer(read_required(sweep, "seed", "sweep.seed"), "sweep.seed", 0, MAX_SEED)
    sets = read_integer(read_required(sweep, "sets", "sweep.sets"), "sweep.sets", 1, MAX_SETS)
    points = _utilizations(read_required(sweep, "utilizations", "sweep.utilizations"))
    if sets * len(points) > MAX_TOTAL_SETS:
        raise ModelError("sweep.sets", sets, f"at most {MAX_TOTAL_SETS} sets in all "
                         f"({len(points)} points of {sets} sets is {sets * len(points)})")
    batch = read_integer(sweep.get("batch", DEFAULT_BATCH), "sweep.batch", 1, MAX_SETS)
    batches = len(points) * -(-sets // batch)
    if batches > MAX_BATCHES:
        raise ModelError("sweep.batch", batch, f"a batch that makes at most {MAX_BATCHES} "
                         f"batches in all (this one makes {batches})")
    generator = _generator(read_table(document, "sweep.generator", _GENERATOR_KEYS))
    if generator.kind == "uunifast-discard" and generator.p_hi > 0 \
            and points[-1] * generator.criticality_factor > generator.vcpus:
        raise ModelError("sweep.generator.kind", generator.kind,
                         f"a generator that can find sets: at utilization {points[-1]} a set of "
                         f"{generator.vcpus} HI vCPUs with criticality factor "
                         f"{generator.criticality_factor} always has some C_pes > T "
                         "(use 'uunifast', or lower the utilizations or the factor)")
    exact_states = read_integer(sweep.get("exact_states", DEFAULT_EXACT_STATES),
                            "sweep.exact_states", 1, MAX_EXACT_STATES)
    return SweepSpec(seed=seed, sets=sets, utilizations=points,
                     tests=_tests(read_required(sweep, "tests", "sweep.tests")),
                     generator=generator, batch=min(batch, sets), exact_states=exact_states)


def _utilizations(value: Any) -> tuple[Fraction, ...]:
    field = "sweep.utilizations"
    if isinstance(value, dict):
        points = _range(value)
    elif isinstance(value, list) and value:
        if len(value) > MAX_POINTS:
            raise ModelError(field, f"{len(value)} points", f"at most {MAX_POINTS} points")
        points = [parse_fraction(u, field=field) for u in value]
    else:
        raise ModelError(field, value, "a non-empty list of utilizations such as [0.5, 0.55], "
                         "or a table { start = 0.05, stop = 0.95, step = 0.05 }")
    for point in points:
        if not 0 < point <= 1:
            raise ModelError(field, str(point), "each utilization in (0, 1]: a set is accepted "
                             "on one pCPU, and no test passes U_LO > 1")
    if any(a >= b for a, b in zip(points, points[1:])):
        raise ModelError(field, [str(p) for p in points][:12], "increasing utilizations, each once")
    return tuple(points)


def _range(table: dict[str, object]) -> list[Fraction]:
    field = "sweep.utilizations"
    for name in table:
        if name not in _RANGE_KEYS:
            raise ModelError(f"{field}.{name}", name, f"a known key ({', '.join(_RANGE_KEYS)})")
    start, stop, step = (parse_fraction(read_required(table, key, f"{field}.{key}"),
                                        field=f"{field}.{key}") for key in _RANGE_KEYS)
    if step <= 0 or stop < start:
        raise ModelError(field, {k: str(v) for k, v in zip(_RANGE_KEYS, (start, stop, step))},
                         "start <= stop and step > 0")
    count = (stop - start) // step + 1
    if count > MAX_POINTS:
        raise ModelError(field, f"{count} points", f"at most {MAX_POINTS} points")
    return [start + i * step for i in range(count)]


def _tests(value: Any) -> tuple[str, ...]:
    return read_names(value, "sweep.tests", ADMISSION_TESTS, "test")


def _generator(table: dict[str, object]) -> TaskSetGenerator:
    prefix = "sweep.generator."
    kind = read_choice(read_required(table, "kind", prefix + "kind"), prefix + "kind", KINDS)
    distribution = read_choice(table.get("period_distribution", PERIOD_DISTRIBUTIONS[0]),
                               prefix + "period_distribution", PERIOD_DISTRIBUTIONS)
    vcpus = read_integer(read_required(table, "vcpus", prefix + "vcpus"), prefix + "vcpus", 1,
                         MAX_VCPUS)
    periods = read_required(table, "periods", prefix + "periods")
    if not isinstance(periods, list) or len(periods) != 2:
        raise ModelError(prefix + "periods", periods,
                         "[shortest, longest] as two durations, e.g. ['10ms', '1000ms']")
    low, high = (parse_duration(p, field=prefix + "periods") for p in periods)
    granularity = parse_duration(table.get("granularity", "1us"), field=prefix + "granularity")
    factor = parse_fraction(read_required(table, "criticality_factor",
                                          prefix + "criticality_factor"),
                            field=prefix + "criticality_factor")
    p_hi = parse_fraction(read_required(table, "p_hi", prefix + "p_hi"), field=prefix + "p_hi")
    try:
        return TaskSetGenerator(kind=kind, vcpus=vcpus, periods=(low, high),
                                period_distribution=distribution, granularity=granularity,
                                criticality_factor=factor, p_hi=p_hi)
    except ModelError as error:
        raise ModelError(prefix + error.field, error.value, error.expected) from None
