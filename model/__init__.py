"""The system model of Akita: VMs, vCPUs, hosts, exact analysis, packing.

Everything here is exact: times are integer nanoseconds, utilizations and the
virtual-deadline factor ``x`` are :class:`fractions.Fraction`.
"""

from .admission_tests import ADMISSION_TESTS, DEFAULT_TEST, AdmissionTest
from .amc import amc_priorities, amc_rtb_test
from .criticality import Criticality
from .duration import format_duration, parse_duration
from .edf import edf_test
from .edf_vd import edf_vd_test
from .errors import DurationError, HostFileError, ModelError, ParameterError
from .first_fit import FirstFit, PCPULoad, Placement, VMPlacement, first_fit
from .host import Host
from .host_file import dumps_host, host_json, load_host, loads_host, parse_fraction
from .options import HI_MODE_DEADLINES, SchedulerOptions
from .phases import resolve_phases, with_phases
from .presets import PRESETS, Preset
from .rm import rm_ll_test, rm_order, rm_rta_test
from .scan_fit import scan_fit
from .utilization import UtilizationSums
from .verdict import SchedulabilityVerdict
from .share import DEFAULT_WEIGHT, Share
from .vm import VCPU, VM
from .workload import KINDS, Workload

__all__ = [
    "ADMISSION_TESTS",
    "HI_MODE_DEADLINES",
    "KINDS",
    "SchedulerOptions",
    "Workload",
    "host_json",
    "parse_fraction",
    "DEFAULT_TEST",
    "AdmissionTest",
    "Criticality",
    "DurationError",
    "FirstFit",
    "Host",
    "HostFileError",
    "ModelError",
    "ParameterError",
    "PCPULoad",
    "PRESETS",
    "Placement",
    "Preset",
    "SchedulabilityVerdict",
    "Share",
    "DEFAULT_WEIGHT",
    "UtilizationSums",
    "VCPU",
    "VM",
    "VMPlacement",
    "dumps_host",
    "edf_test",
    "edf_vd_test",
    "amc_priorities",
    "amc_rtb_test",
    "rm_ll_test",
    "rm_order",
    "rm_rta_test",
    "first_fit",
    "scan_fit",
    "format_duration",
    "load_host",
    "loads_host",
    "parse_duration",
]
