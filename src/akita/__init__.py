"""akita-sched: a formally checked model of the Akita hypervisor CPU scheduler.

The public API is re-exported here; the model lives in :mod:`akita.model`,
the reference scheduler in :mod:`akita.reference`, the proof obligations in
:mod:`akita.proofs`, and the command line in :mod:`akita.cli`.
"""

from akita.model import (
    ADMISSION_TESTS,
    PRESETS,
    VCPU,
    VM,
    Criticality,
    FirstFit,
    Host,
    ModelError,
    Placement,
    SchedulabilityVerdict,
    UtilizationSums,
    dumps_host,
    edf_test,
    edf_vd_test,
    first_fit,
    format_duration,
    load_host,
    loads_host,
    parse_duration,
)

__version__ = "0.1.0"

__all__ = [
    "ADMISSION_TESTS",
    "PRESETS",
    "VCPU",
    "VM",
    "Criticality",
    "FirstFit",
    "Host",
    "ModelError",
    "Placement",
    "SchedulabilityVerdict",
    "UtilizationSums",
    "dumps_host",
    "edf_test",
    "edf_vd_test",
    "first_fit",
    "format_duration",
    "load_host",
    "loads_host",
    "parse_duration",
]
