"""akita-sched: a formally checked model of the Akita hypervisor CPU scheduler.

The public API is re-exported here, so that a script needs no submodule:

* the model: hosts, VMs, admission tests and first fit (:mod:`akita.model`);
* what each command does, as a function:

  ===================  =================================================  =====================
  command              function                                           returns
  ===================  =================================================  =====================
  ``akita admit``      :func:`first_fit`                                  ``Placement``
  ``akita simulate``   :func:`simulate`                                   ``Result``
  ``akita check``      :func:`check_host`                                 ``list[PCPUCheck]``
  ``akita conform``    :func:`conform_file` (or :func:`conform_stream`)   ``ConformanceReport``
  ``akita reproduce``  :func:`reproduce`                                  ``list[Outcome]``
  ``akita sweep``      :func:`run_sweep` (of :func:`load_sweep`'s spec)   ``SweepResult``
  ``akita fleet``      :func:`run_fleet` (of :func:`load_fleet`'s spec)   ``FleetResult``
  ===================  =================================================  =====================

The functions of the other layers are loaded on first use, so ``import
akita`` stays light; :func:`reproduce` loads matplotlib when it draws, and :func:`run_sweep` and :func:`run_fleet` load ``dask.distributed`` only
when they start a cluster.  The layers themselves: the reference scheduler in
:mod:`akita.reference`, the proof obligations in :mod:`akita.proofs`, the
oracle in :mod:`akita.oracle`, the experiments in :mod:`akita.experiments`,
the acceptance-ratio sweeps in :mod:`akita.sweep`, the fleets in
:mod:`akita.fleet`, and the command line in
:mod:`akita.cli`.
"""

from importlib import import_module
from typing import Any

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

#: What each command does, loaded on first use: name -> (module, attribute).
_LAZY = {
    "simulate": ("akita.reference.run", "simulate"),
    "Result": ("akita.reference.simulator", "Result"),
    "check_host": ("akita.proofs.host_check", "check_host"),
    "PCPUCheck": ("akita.proofs.host_check", "PCPUCheck"),
    "conform_file": ("akita.oracle", "conform_file"),
    "conform_stream": ("akita.oracle", "conform_stream"),
    "ConformanceReport": ("akita.oracle", "ConformanceReport"),
    "reproduce": ("akita.experiments", "reproduce"),
    "load_sweep": ("akita.sweep", "load_spec"),
    "run_sweep": ("akita.sweep", "run_sweep"),
    "SweepResult": ("akita.sweep", "SweepResult"),
    "load_fleet": ("akita.fleet", "load_spec"),
    "run_fleet": ("akita.fleet", "run_fleet"),
    "FleetResult": ("akita.fleet", "FleetResult"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'akita' has no attribute {name!r}")
    module, attribute = _LAZY[name]
    value = getattr(import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)

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
    *_LAZY,
]
