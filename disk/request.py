"""One disk request, from a guest process through its virtual disk.

A request names its VM and process (the hypervisor's scheduler sees the
VM; a guest's processes are invisible to it, decision 84), the drive
sector it starts at, its length, whether it writes, and the instant it
reached the hypervisor's queue.  It is mutable only in the instants the
simulation stamps on it.
"""

from __future__ import annotations

__all__ = ["Request"]


class Request:
    """A request for ``sectors`` sectors at drive sector ``lba``."""

    __slots__ = ("id", "vm", "process", "lba", "sectors", "write", "arrival", "started",
                 "finished")

    def __init__(self, id: int, vm: int, process: int, lba: int, sectors: int, write: bool,
                 arrival: int) -> None:
        self.id = id
        self.vm = vm
        self.process = process
        self.lba = lba
        self.sectors = sectors
        self.write = write
        self.arrival = arrival
        self.started = -1
        self.finished = -1

    @property
    def end(self) -> int:
        """The sector after its last."""
        return self.lba + self.sectors

    def __repr__(self) -> str:
        return (f"Request(id={self.id}, vm={self.vm}, process={self.process}, lba={self.lba}, "
                f"sectors={self.sectors}, write={self.write}, arrival={self.arrival})")
