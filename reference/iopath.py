"""Requests that travel: network, backend, guest, backend, network (:mod:`akita.model.io_path`).

A guest VM with ``io_via`` does not receive its requests on its own vCPU.
Each request its workload generates at ``a`` (the client sends it):

1. crosses the network and reaches the backend at ``a + io_latency``: a
   job of ``packet_cost`` on a vCPU of the backend VM (the guest's vCPU
   ``i`` is served by the backend's vCPU ``i mod n``);
2. when that job completes, the guest's vCPU receives the request: a job of
   the request's own demand (its ``service``);
3. when that completes, the reply is a job of ``packet_cost`` on the same
   backend vCPU;
4. when that completes, the reply crosses the network: the request's
   round-trip time is ``that instant + io_latency - a``.

A backend may have work of its own (its workload: dom0's daemons, say),
served with its packets in arrival order (a cpu-bound backend's packets run
ahead of its endless job, as a ``burn`` guest's requests do); the packets
it has passed on are delivered once no packet is left in its queue, however
much of its own work is.

Every job is scheduled by the host's policy like any other, so the backend
waits for the pCPU as the guest does; each hop is measured
(:class:`HopMetrics`): the time a request spends at the backend inbound
(waiting and processing), at the guest, and at the backend outbound, and the
network's two crossings.  The guest's CPU access latency stays its own
vCPU's (:mod:`akita.reference.metrics`); its ``rtt_ns`` is the round trip, end to end.  The
backend VM's own ``requests`` and ``rtt_ns`` count nothing: its jobs are
hops, not requests.

A ``closed`` workload is a closed loop: each of its connections sends its
first request at the VM's phase and its next one when the reply to the last
has crossed the network back, after its think time; the guest's throughput
is then what the path lets through, not what the client offers.

A job that carries a request is ``[arrival, remaining, request]``; the core
hands a completed one to :meth:`IOPaths.completed`.  Jobs without a request
are untouched, so a host without I/O paths runs exactly as before.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from .histogram import LogHistogram
from .metrics import summary

if TYPE_CHECKING:  # pragma: no cover
    from .simulator import Simulator
    from .vcpu_state import VCPUState

__all__ = ["Request", "HopMetrics", "IOPaths"]

#: The stages of a request.
INBOUND, AT_GUEST, OUTBOUND = 0, 1, 2


class Request:
    """One request on its way: when the client sent it, its guest and backend vCPUs, its
    service demand, its stage and when it reached that stage; for a closed loop, the
    client's think time before its next request (``None``: an open loop)."""

    __slots__ = ("sent", "guest", "backend", "service", "stage", "since", "think")

    def __init__(self, sent: int, guest: VCPUState[Any], backend: VCPUState[Any],
                 service: int, since: int, think: int | None = None) -> None:
        self.sent = sent
        self.guest = guest
        self.backend = backend
        self.service = service
        self.stage = INBOUND
        self.since = since
        self.think = think


class HopMetrics:
    """The hops of one guest VM's requests: each stage's time, and the network's."""

    __slots__ = ("via", "latency", "inbound", "at_guest", "outbound")

    def __init__(self, via: str, latency: int) -> None:
        self.via = via
        self.latency = latency
        self.inbound = LogHistogram()
        self.at_guest = LogHistogram()
        self.outbound = LogHistogram()

    def as_json(self, rtt: LogHistogram) -> dict[str, Any]:
        """The hops, and the round trip's exact mean (ns, rounded down) from *rtt*."""
        return {"via": self.via, "network_ns": 2 * self.latency,
                "rtt_mean_ns": rtt.total // rtt.count if rtt.count else None,
                "backend_in_ns": summary(self.inbound), "guest_ns": summary(self.at_guest),
                "backend_out_ns": summary(self.outbound)}


def _inbound(sent: Iterator[tuple[int, int]], guest: VCPUState[Any],
             backend: VCPUState[Any], latency: int,
             cost: int) -> Iterator[tuple[int, list[Any]]]:
    """The packets of *guest*'s requests as they reach *backend*: ``(instant, job)``."""
    for at, service in sent:
        reached = at + latency
        yield reached, [reached, cost, Request(at, guest, backend, service, reached)]


def _packets(jobs: Iterable[list[Any]]) -> bool:
    """Whether any of *jobs* is a packet (a job that carries a request), not the backend's
    own work."""
    return any(len(job) == 3 for job in jobs)


class IOPaths:
    """The I/O paths of one run: the sources of the backends, and each hop as it ends."""

    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        self.cost: dict[VCPUState[Any], int] = {}
        #: the first request of each closed-loop connection: (guest, backend, when sent)
        self._first: list[tuple[VCPUState[Any], VCPUState[Any], int]] = []
        #: per backend vCPU, the requests it has passed on since it last ran dry
        self._held: dict[VCPUState[Any], list[Request]] = {}
        by_vm: dict[str, list[VCPUState[Any]]] = {}
        for state in sim.vcpus:
            by_vm.setdefault(state.vm.name, []).append(state)
        streams: dict[VCPUState[Any], list[Iterator[tuple[int, Any]]]] = {}
        for state in sim.vcpus:
            io = state.vm.io
            if io.via is None:
                continue
            sent = sim.take_arrivals(state)
            if sent is None:
                continue
            backends = by_vm.get(io.via)
            if not backends:  # the backend VM was not admitted: the requests go nowhere
                continue
            backend = backends[state.vcpu.index % len(backends)]
            cost = backend.vm.io.packet_cost
            assert cost is not None  # the host checked that io_via names a backend
            self.cost[backend] = cost
            workload = state.vm.workload
            if workload.kind == "closed":
                assert workload.connections is not None
                mine = range(state.vcpu.index, workload.connections, state.vm.vcpus)
                self._first.extend((state, backend, state.vm.phase or 0) for _ in mine)
            else:
                streams.setdefault(backend, []).append(
                    _inbound(sent, state, backend, io.latency, cost))
            if state.stats.hops is None:
                state.stats.hops = HopMetrics(io.via, io.latency)
        for backend, inputs in streams.items():
            own = sim.take_arrivals(backend)
            if own is not None:  # the backend's own work, beside the packets
                inputs.append(own)
            # (instant, job) pairs, the job for the demand
            sim.give_arrivals(backend, heapq.merge(*inputs, key=lambda packet: packet[0]))

    def start(self) -> None:
        """Send the first request of every closed-loop connection (before time runs)."""
        for guest, backend, sent in self._first:
            self._send(guest, backend, sent)

    def _send(self, guest: VCPUState[Any], backend: VCPUState[Any], sent: int) -> None:
        """A closed-loop client sends a request at *sent*; it reaches the backend later."""
        workload = guest.vm.workload
        reached = sent + guest.vm.io.latency
        assert workload.service is not None
        request = Request(sent, guest, backend, workload.service, reached, workload.think or 0)
        self.sim.forward(backend, [reached, self.cost[backend], request], reached)

    def completed(self, job: list[Any], t: int) -> None:
        """The job carrying ``job[2]`` completed at *t*: the request moves on."""
        request: Request = job[2]
        hops = request.guest.stats.hops
        if request.stage == INBOUND:
            hops.inbound.add(t - request.since)
            request.stage, request.since = AT_GUEST, t
            held = self._held.setdefault(request.backend, [])
            held.append(request)
            if not _packets(request.backend.jobs):  # it ran dry: one notification for the batch
                for each in held:
                    self.sim.forward(each.guest, [t, each.service, each], t)
                held.clear()
        elif request.stage == AT_GUEST:
            hops.at_guest.add(t - request.since)
            request.stage, request.since = OUTBOUND, t
            self.sim.forward(request.backend, [t, self.cost[request.backend], request], t)
        else:
            hops.outbound.add(t - request.since)
            stats = request.guest.stats
            stats.requests += 1
            stats.rtt.add(t + hops.latency - request.sent)
            if request.think is not None:  # the reply is back: the client sends again
                self._send(request.guest, request.backend, t + hops.latency + request.think)
