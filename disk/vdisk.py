"""Virtual disks: a VM's image is a contiguous range of the drive's sectors.

In the Pregather testbed each VM has a 12 GB virtual disk, an image on the
host's one SATA disk; a guest's file is a sub-range of its image.  Here the
images lie back to back from sector 0, in the order the VMs are listed
(decision 83), so a VM's requests fall in its image's range: the
*regional* spatial locality of Pregather's observations.  Files are placed
by :func:`file_extent`.
"""

from __future__ import annotations

import attrs

from akita.model import ModelError

__all__ = ["VirtualDisk", "lay_out", "file_extent", "IMAGE_SECTORS"]

#: The testbed's 12 GB virtual disk, in 512-byte sectors (12 GiB).
IMAGE_SECTORS = 12 * 2**30 // 512


@attrs.frozen
class VirtualDisk:
    """The image of one VM: sectors ``[start, start + sectors)`` of the drive."""

    vm: str
    start: int
    sectors: int

    def physical(self, offset: int) -> int:
        """The drive sector of the image's sector *offset*."""
        if not 0 <= offset < self.sectors:
            raise ModelError("offset", offset, f"a sector of the image of {self.vm!r} "
                             f"(0 to {self.sectors - 1})", vm=self.vm)
        return self.start + offset


def lay_out(images: list[tuple[str, int]], drive_sectors: int) -> list[VirtualDisk]:
    """The images ``(vm, sectors)``, back to back from sector 0."""
    disks, start = [], 0
    for vm, sectors in images:
        disks.append(VirtualDisk(vm, start, sectors))
        start += sectors
    if start > drive_sectors:
        raise ModelError("vm.image", start, f"images that fit the drive's {drive_sectors} "
                         "sectors")
    return disks


def file_extent(image: VirtualDisk, index: int, count: int, sectors: int) -> int:
    """The image offset of file *index* of *count* files of *sectors* each.

    The files are spread evenly over the image, as a file system spreads
    files over its block groups (decision 83).
    """
    if sectors * count > image.sectors:
        raise ModelError("file_sectors", sectors, f"files that fit the image of {image.vm!r}",
                         vm=image.vm)
    return index * (image.sectors // count)
