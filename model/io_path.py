"""The I/O path of a VM: the driver domain that carries its packets, and what they cost.

In Xen every packet of a guest crosses the driver domain (dom0): netback
receives it from the NIC and hands it to the guest's netfront, and the
reply goes back the same way (Barham et al., "Xen and the art of
virtualization", SOSP 2003, Sec. 3.3; Menon et al., "Diagnosing performance
overheads in the Xen virtual machine environment", VEE 2005).  Under KVM
the same work is done by a vhost thread per VM, scheduled by the host like
any task.  Either way the backend is a *scheduled entity*: a request's
round trip waits for it twice.

A VM declares its path with three host-file keys, grouped here:

* ``io_via``: the VM whose vCPUs run the backend of its requests (a driver
  domain, or a VM standing for its vhost threads); ``None``, the default,
  for requests that appear on the guest's vCPU directly (the model before
  this path existed);
* ``io_latency``: the one-way network latency of its requests, ns (the
  client is on another machine; default 0);
* ``packet_cost``: on a backend VM, the CPU each packet costs it, ns.

:mod:`akita.reference.iopath` moves the requests along the path.
"""

from __future__ import annotations

import attrs

from .errors import ModelError

__all__ = ["IOPath"]


def _duration(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@attrs.frozen
class IOPath:
    """A VM's I/O path (see the module docstring).

    :raises ModelError: naming the field (``io_via``, ``io_latency``,
        ``packet_cost``) with the value it does not accept.
    """

    via: str | None = None
    latency: int = 0
    packet_cost: int | None = None

    def __attrs_post_init__(self) -> None:
        if self.via is not None and (not isinstance(self.via, str) or not self.via.strip()):
            raise ModelError("io_via", self.via, "the name of a VM of the host")
        if not _duration(self.latency) or self.latency < 0:
            raise ModelError("io_latency", self.latency, "a duration >= 0")
        if self.latency and self.via is None:
            raise ModelError("io_latency", self.latency, "an io_via for the requests to travel")
        if self.packet_cost is not None and (not _duration(self.packet_cost)
                                             or self.packet_cost <= 0):
            raise ModelError("packet_cost", self.packet_cost, "a duration > 0")

    @property
    def is_backend(self) -> bool:
        """Whether the VM runs backends (it declares a ``packet_cost``)."""
        return self.packet_cost is not None
