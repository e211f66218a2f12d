"""The fleet file: TOML in, :class:`FleetSpec` out.

The format (every key in ``docs/fleet.rst``)::

    [fleet]
    seed = 1
    horizon = "172800s"             # how long VMs arrive and leave (two days)
    tick = "1s"                     # the time grid of arrivals and lifetimes
    hosts = 24                      # hosts of the fleet
    pcpus = 8                       # pCPUs of each host
    test = "edf-vd"                 # the admission test of every pCPU (optional)
    placements = ["first-fit", "spread"]

    [fleet.arrivals]
    rate = "1/40"                   # VMs per second: one per tick with p = rate x tick

    [fleet.lifetimes]
    distribution = "log-uniform"    # or "uniform"
    range = ["600s", "86400s"]

    [fleet.mix]
    p_hi = 0.25                     # P(a VM is HI); then a type of that criticality

    [[fleet.mix.types]]
    type = "Type1"                  # a row of the paper's Table 1
    weight = 1
    vcpus = [1, 2]                  # an integer, or choices drawn uniformly
    workload = { kind = "poisson", rate = 2000, service = "125us" }   # optional

    [fleet.sample]
    hosts = 4                       # hosts simulated per placement
    duration = "1s"
    spread_policy = "credit"        # or "cfs": the policy of the spread hosts
    policy = "akita"                # instead: one policy for every sampled host

Reading is as strict as for a sweep file (:mod:`akita.sweep.spec`), by the
same readers (:mod:`akita.model.specfile`): the text is bounded before it is parsed,
unknown keys and values of the wrong kind are refused, and every count has
a ceiling checked before anything is drawn.  Each error is a
:class:`~akita.model.ModelError` naming the file and the key
(``fleet.arrivals.rate``), which the command line prints as one line with
exit status 2.
"""

from __future__ import annotations

import hashlib
import json
import os
from fractions import Fraction
from typing import Any

import attrs

from akita.model import ADMISSION_TESTS, DEFAULT_TEST, PRESETS, ModelError, Workload
from akita.model import format_duration, parse_duration, parse_fraction
from akita.model.host_file import parse_workload
from akita.model.limits import read_bounded
from akita.model.specfile import (MAX_SEED, parse_toml, read_choice, read_integer, read_names,
                                  read_required, read_table)

__all__ = ["FleetSpec", "MixType", "load_spec", "loads_spec", "PLACEMENTS", "LIFETIMES",
           "SPREAD_POLICIES", "MAX_HOSTS", "MAX_PCPUS", "MAX_TICKS", "MAX_VCPUS",
           "MAX_SAMPLE", "MAX_SAMPLE_DURATION", "MAX_WEIGHT"]

#: The placements a fleet can compare (:mod:`akita.fleet.placement`).
PLACEMENTS = ("first-fit", "spread")
#: How a lifetime is drawn in its range.
LIFETIMES = ("log-uniform", "uniform")
#: The policies a spread host may be simulated under (load-balancing schedulers).
SPREAD_POLICIES = ("credit", "cfs")
#: Hosts of a fleet.
MAX_HOSTS = 10_000
#: pCPUs of one host.
MAX_PCPUS = 1024
#: Ticks of the horizon: the arrival process draws once per tick.
MAX_TICKS = 10_000_000
#: vCPUs of one VM.
MAX_VCPUS = 64
#: Hosts simulated per placement.
MAX_SAMPLE = 1000
#: The longest simulation of a sampled host.
MAX_SAMPLE_DURATION = 60 * 10**9
#: The largest weight of a type in the mix.
MAX_WEIGHT = 10**6
#: Bumped whenever what a spec gives changes.
FORMAT = 1

_KIND = "fleet file"
_TOP_KEYS = ("fleet",)
_FLEET_KEYS = ("seed", "horizon", "tick", "hosts", "pcpus", "test", "placements", "arrivals",
               "lifetimes", "mix", "sample")
_ARRIVAL_KEYS = ("rate",)
_LIFETIME_KEYS = ("distribution", "range")
_MIX_KEYS = ("p_hi", "types")
_TYPE_KEYS = ("type", "weight", "vcpus", "workload")
_SAMPLE_KEYS = ("hosts", "duration", "spread_policy", "policy")
_SECOND = 10**9


@attrs.frozen
class MixType:
    """One row of the mix: a Table 1 type, its weight among the types of its
    criticality, the vCPU counts a VM of it may have, and its workload.

    :param preset: the name of a row of Table 1 (:data:`~akita.model.PRESETS`).
    :param weight: an integer ``>= 1``.
    :param vcpus: the choices, drawn uniformly, of a VM's vCPU count.
    :param workload: each vCPU's demand when a sampled host is simulated.
    """

    preset: str
    weight: int
    vcpus: tuple[int, ...]
    workload: Workload = Workload()

    @property
    def is_hi(self) -> bool:
        """Whether the type is HI in Table 1."""
        return PRESETS[self.preset].criticality.value == "HI"


@attrs.frozen
class FleetSpec:
    """A fleet: its hosts, the VMs that arrive and leave, and what is compared.

    :param seed: the fleet's seed; the arrival stream depends on it alone,
        VM ``i``'s type, size and lifetime on ``(seed, i)``
        (:mod:`.arrivals`).
    :param horizon: ns during which VMs arrive; a multiple of *tick*.
    :param tick: the grid, in ns, of arrival instants and lifetimes.
    :param hosts: hosts of the fleet, each of *pcpus* pCPUs.
    :param test: the admission test of every pCPU.
    :param placements: the placements compared (:data:`PLACEMENTS`).
    :param rate: arrivals per second; ``rate x tick <= 1``.
    :param lifetime: ``(distribution, shortest, longest)``, ns on the grid.
    :param p_hi: the probability that an arriving VM is HI.
    :param mix: the types.
    :param sample: hosts simulated per placement.
    :param duration: ns each sampled host is simulated for.
    :param spread_policy: the policy the spread hosts are simulated under.
    :param policy: if set, the one policy every sampled host, of every placement, is
        simulated under (so that the placements are compared under one scheduler);
        ``None``: a first-fit host under ``akita``, a spread host under ``spread_policy``.
    """

    seed: int
    horizon: int
    tick: int
    hosts: int
    pcpus: int
    test: str
    placements: tuple[str, ...]
    rate: Fraction
    lifetime: tuple[str, int, int]
    p_hi: Fraction
    mix: tuple[MixType, ...]
    sample: int
    duration: int
    spread_policy: str = "credit"
    policy: str | None = None

    @property
    def p_arrival(self) -> Fraction:
        """The probability of an arrival in one tick, ``rate x tick``."""
        return self.rate * self.tick / _SECOND

    @property
    def ticks(self) -> int:
        """Ticks of the horizon."""
        return self.horizon // self.tick

    def types(self, hi: bool) -> tuple[MixType, ...]:
        """The mix's types of one criticality."""
        return tuple(t for t in self.mix if t.is_hi == hi)

    def as_json(self) -> dict[str, Any]:
        """The spec for machines: times in integer ns, fractions as ``"p/q"``."""
        return {"format": FORMAT, "seed": self.seed, "horizon_ns": self.horizon,
                "tick_ns": self.tick, "hosts": self.hosts, "pcpus": self.pcpus,
                "test": self.test, "placements": list(self.placements),
                "arrivals": {"rate_per_s": str(self.rate), "p_per_tick": str(self.p_arrival)},
                "lifetimes": {"distribution": self.lifetime[0],
                              "range_ns": [self.lifetime[1], self.lifetime[2]]},
                "mix": {"p_hi": str(self.p_hi),
                        "types": [{"type": t.preset, "weight": t.weight, "vcpus": list(t.vcpus),
                                   "workload": t.workload.kind} for t in self.mix]},
                "sample": {"hosts": self.sample, "duration_ns": self.duration,
                           "spread_policy": self.spread_policy, "policy": self.policy}}

    @property
    def digest(self) -> str:
        """The SHA-256 of :meth:`as_json` (names the cluster's tasks)."""
        text = json.dumps(self.as_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def load_spec(path: str | os.PathLike[str]) -> FleetSpec:
    """Read the fleet file at *path*.

    A ``trace`` workload's ``path`` is relative to the file's folder.

    :raises ModelError: naming the file and the key.
    """
    shown = os.fspath(path)
    base = os.path.dirname(os.path.abspath(shown))
    return loads_spec(read_bounded(path, kind=_KIND, error=ModelError), path=shown, base=base)


def loads_spec(text: str, *, path: str = "<string>", base: str | None = None) -> FleetSpec:
    """Read a fleet file's *text*; *path* names it in error messages, *base* is the
    folder trace workloads are relative to (default: the working folder)."""
    document = parse_toml(text, path=path, kind=_KIND, error=ModelError)
    try:
        return _spec(document, base or os.getcwd())
    except ModelError as error:
        raise error.located(path=path) from None


def _duration(table: dict[str, object], key: str, field: str, default: str | None = None) -> int:
    value = table.get(key, default) if default is not None else read_required(table, key, field)
    ns = parse_duration(value, field=field)
    if ns <= 0:
        raise ModelError(field, value, "a duration > 0")
    return ns


def _spec(document: dict[str, object], base: str) -> FleetSpec:
    for name in document:
        if name not in _TOP_KEYS:
            raise ModelError(name, name, "a known key (fleet)")
    fleet = read_table(document, "fleet", _FLEET_KEYS)
    seed = read_integer(read_required(fleet, "seed", "fleet.seed"), "fleet.seed", 0, MAX_SEED)
    tick = _duration(fleet, "tick", "fleet.tick", "1s")
    horizon = _duration(fleet, "horizon", "fleet.horizon")
    if horizon % tick:
        raise ModelError("fleet.horizon", fleet["horizon"],
                         f"a whole number of ticks ({format_duration(tick)})")
    if horizon // tick > MAX_TICKS:
        raise ModelError("fleet.horizon", fleet["horizon"],
                         f"at most {MAX_TICKS} ticks of {format_duration(tick)} "
                         f"(this one is {horizon // tick})")
    hosts = read_integer(read_required(fleet, "hosts", "fleet.hosts"), "fleet.hosts", 1,
                         MAX_HOSTS)
    pcpus = read_integer(read_required(fleet, "pcpus", "fleet.pcpus"), "fleet.pcpus", 1,
                         MAX_PCPUS)
    test = read_choice(fleet.get("test", DEFAULT_TEST), "fleet.test", ADMISSION_TESTS)
    placements = _placements(fleet.get("placements", list(PLACEMENTS)))
    arrivals = read_table(document, "fleet.arrivals", _ARRIVAL_KEYS)
    rate = parse_fraction(read_required(arrivals, "rate", "fleet.arrivals.rate"),
                          field="fleet.arrivals.rate")
    p = rate * tick / _SECOND
    if not 0 < p <= 1:
        raise ModelError("fleet.arrivals.rate", arrivals["rate"],
                         f"a rate > 0 of at most one VM per tick ({format_duration(tick)}): "
                         f"rate x tick is {p}")
    lifetime = _lifetime(read_table(document, "fleet.lifetimes", _LIFETIME_KEYS), tick)
    mix_table = read_table(document, "fleet.mix", _MIX_KEYS)
    p_hi = parse_fraction(read_required(mix_table, "p_hi", "fleet.mix.p_hi"),
                          field="fleet.mix.p_hi")
    if not 0 <= p_hi <= 1:
        raise ModelError("fleet.mix.p_hi", mix_table["p_hi"], "a probability in [0, 1]")
    mix = _mix(read_required(mix_table, "types", "fleet.mix.types"), pcpus, base)
    for hi, word in ((True, "HI"), (False, "LO")):
        if (p_hi if hi else 1 - p_hi) > 0 and not any(t.is_hi == hi for t in mix):
            raise ModelError("fleet.mix.types", [t.preset for t in mix],
                             f"at least one {word} type of Table 1, since "
                             f"p_hi = {p_hi} draws {word} VMs")
    sample = read_table(document, "fleet.sample", _SAMPLE_KEYS)
    count = read_integer(read_required(sample, "hosts", "fleet.sample.hosts"),
                         "fleet.sample.hosts", 0, min(MAX_SAMPLE, hosts))
    duration = _duration(sample, "duration", "fleet.sample.duration", "1s")
    if duration > MAX_SAMPLE_DURATION:
        raise ModelError("fleet.sample.duration", sample["duration"],
                         f"at most {format_duration(MAX_SAMPLE_DURATION)}")
    policy = read_choice(sample.get("spread_policy", SPREAD_POLICIES[0]),
                         "fleet.sample.spread_policy", SPREAD_POLICIES)
    return FleetSpec(seed=seed, horizon=horizon, tick=tick, hosts=hosts, pcpus=pcpus, test=test,
                     placements=placements, rate=rate, lifetime=lifetime, p_hi=p_hi, mix=mix,
                     sample=count, duration=duration, spread_policy=policy,
                     policy=_one_policy(sample))


def _one_policy(sample: dict[str, object]) -> str | None:
    """``fleet.sample.policy``: one policy for every sampled host, or ``None``."""
    if "policy" not in sample:
        return None
    if "spread_policy" in sample:
        raise ModelError("fleet.sample.policy", sample["policy"],
                         "either policy (one for every host) or spread_policy, not both")
    from akita.reference.policies import POLICIES

    policy = sample["policy"]
    if not isinstance(policy, str) or policy not in POLICIES:
        raise ModelError("fleet.sample.policy", policy, f"one of {', '.join(POLICIES)}")
    return policy


def _placements(value: Any) -> tuple[str, ...]:
    return read_names(value, "fleet.placements", PLACEMENTS, "placement")


def _lifetime(table: dict[str, object], tick: int) -> tuple[str, int, int]:
    field = "fleet.lifetimes"
    distribution = read_choice(table.get("distribution", LIFETIMES[0]), f"{field}.distribution",
                               LIFETIMES)
    bounds = read_required(table, "range", f"{field}.range")
    if not isinstance(bounds, list) or len(bounds) != 2:
        raise ModelError(f"{field}.range", bounds,
                         "[shortest, longest] as two durations, e.g. ['600s', '86400s']")
    low, high = (parse_duration(b, field=f"{field}.range") for b in bounds)
    if not 0 < low <= high:
        raise ModelError(f"{field}.range", bounds, "0 < shortest <= longest")
    for value, shown in ((low, bounds[0]), (high, bounds[1])):
        if value % tick:
            raise ModelError(f"{field}.range", shown,
                             f"a whole number of ticks ({format_duration(tick)})")
    return (distribution, low, high)


def _mix(value: Any, pcpus: int, base: str) -> tuple[MixType, ...]:
    field = "fleet.mix.types"
    if not isinstance(value, list) or not value or not all(isinstance(t, dict) for t in value):
        raise ModelError(field, value, "a non-empty array of [[fleet.mix.types]] tables")
    if len(value) > len(PRESETS):
        raise ModelError(field, f"{len(value)} types", f"at most {len(PRESETS)} types")
    out: list[MixType] = []
    for position, entry in enumerate(value):
        where = f"{field}[{position}]"
        for name in entry:
            if name not in _TYPE_KEYS:
                raise ModelError(f"{where}.{name}", name, f"a known key ({', '.join(_TYPE_KEYS)})")
        preset = read_required(entry, "type", f"{where}.type")
        if not isinstance(preset, str) or preset not in PRESETS:
            raise ModelError(f"{where}.type", preset, f"a type of Table 1 ({', '.join(PRESETS)})")
        if any(t.preset == preset for t in out):
            raise ModelError(f"{where}.type", preset, "each type once")
        weight = read_integer(entry.get("weight", 1), f"{where}.weight", 1, MAX_WEIGHT)
        vcpus = _vcpus(entry.get("vcpus", 1), f"{where}.vcpus", pcpus)
        workload = Workload()
        if "workload" in entry:
            try:
                workload = parse_workload(entry["workload"], vm=preset, base=base)
            except ModelError as error:
                raise ModelError(f"{where}.{error.field}", error.value, error.expected) from None
        out.append(MixType(preset=preset, weight=weight, vcpus=vcpus, workload=workload))
    return tuple(out)


def _vcpus(value: Any, field: str, pcpus: int) -> tuple[int, ...]:
    high = min(MAX_VCPUS, pcpus)
    choices = value if isinstance(value, list) else [value]
    if not choices:
        raise ModelError(field, value, "a vCPU count, or a non-empty list of them")
    for count in choices:
        read_integer(count, field, 1, high)
    if len(set(choices)) != len(choices):
        raise ModelError(field, value, "each count once")
    return tuple(choices)
