"""The VM types of the Akita paper's Table 1, as presets.

Source: E. Asyabi, A. Bestavros, R. Mancuso, R. West, E. Sharafzadeh,
"Akita: A CPU scheduler for virtualized Clouds" (the Akita paper), Table 1
"The configurations of VMs".
Each preset gives criticality, ``C_opt``, ``C_pes`` (HI only) and ``T``;
in a host file, ``type = "Type1"`` fills in these keys and any key written
explicitly overrides the preset's.
"""

from __future__ import annotations

import attrs

from .criticality import Criticality

__all__ = ["Preset", "PRESETS"]

_MS = 1_000_000


@attrs.frozen
class Preset:
    """One row of Table 1 (times in integer nanoseconds)."""

    name: str
    criticality: Criticality
    c_opt: int
    c_pes: int | None
    period: int


#: Table 1 of the paper: C_opt / C_pes / T in ms.
PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("Type1", Criticality.HI, 5 * _MS, 25 * _MS, 100 * _MS),
        Preset("Type2", Criticality.LO, 25 * _MS, None, 100 * _MS),
        Preset("Type3", Criticality.LO, 50 * _MS, None, 100 * _MS),
        Preset("Type4", Criticality.LO, 5 * _MS, None, 50 * _MS),
        Preset("Type5", Criticality.LO, 10 * _MS, None, 100 * _MS),
        Preset("Type6", Criticality.HI, 10 * _MS, 50 * _MS, 100 * _MS),
    )
}
