"""The bytes of Pregather's structures as a kernel would lay them out (decision 303).

Pregather runs in the hypervisor's block layer (dom0's Linux).  Its memory
is counted as the C structures that hold what the model keeps, laid out by
the x86-64 System V ABI that GCC follows for the kernel: each field at the
next offset that is a multiple of its alignment (a scalar's alignment is
its size), the structure's size rounded up to its largest alignment.  The
kernel's own types give the embedded pieces: ``struct rb_node`` (an
``unsigned long`` and two pointers, 24 bytes, ``include/linux/rbtree.h``
since 2.6.18), ``struct rb_root`` (one pointer) and ``struct list_head``
(two pointers).  An object allocated from a ``kmem_cache`` costs its
structure's size; the slab's own per-page overhead is not counted.

The structures (:data:`ZONE`, :data:`VM`, :data:`QUEUED`, :data:`SCHEDULER`)
hold exactly the fields :mod:`akita.disk.schedulers.vnavigator` and
:mod:`akita.disk.schedulers.pregather` keep, at the widths their values
need (a zone index of a 12 GB image fits 32 bits; densities, instants and
sector numbers take 64).
"""

from __future__ import annotations

__all__ = ["Field", "size_of", "ZONE", "VM", "QUEUED", "SCHEDULER", "RB_NODE", "LIST_HEAD"]

#: ``(name, size, alignment)``.
Field = tuple[str, int, int]

_U32: tuple[int, int] = (4, 4)
_U64: tuple[int, int] = (8, 8)
_PTR: tuple[int, int] = (8, 8)

#: ``struct rb_node``: ``__rb_parent_color``, ``rb_right``, ``rb_left``.
RB_NODE: tuple[Field, ...] = (("rb_parent_color", *_U64), ("rb_right", *_PTR),
                              ("rb_left", *_PTR))
#: ``struct list_head``: ``next``, ``prev``.
LIST_HEAD: tuple[Field, ...] = (("next", *_PTR), ("prev", *_PTR))


def size_of(fields: tuple[Field, ...]) -> int:
    """``sizeof`` of a structure of *fields* in order (x86-64 System V)."""
    offset, widest = 0, 1
    for _, size, align in fields:
        offset = -(-offset // align) * align + size
        widest = max(widest, align)
    return -(-offset // widest) * widest


def _embedded(name: str, fields: tuple[Field, ...]) -> Field:
    return (name, size_of(fields), max(align for _, _, align in fields))


#: One zone vNavigator holds, a node of its VM's tree of zones by index: the node, its
#: density (fixed point), last completion, mean access interval, index and window.
ZONE: tuple[Field, ...] = (_embedded("node", RB_NODE), ("density", *_U64), ("done", *_U64),
                           ("interval", *_U64), ("index", *_U32), ("window", *_U32))
#: Per VM: the root of its zones, the total density and its window, the window last pruned,
#: AvgT and AvgD (sum and count each), last completion and last sector, its queue (the
#: sorted tree's root and the arrival list's head), its wait counts.
VM: tuple[Field, ...] = (("zones", *_PTR), ("total", *_U64), ("total_window", *_U32),
                         ("pruned_window", *_U32), ("think_sum", *_U64),
                         ("think_count", *_U64), ("distance_sum", *_U64),
                         ("distance_count", *_U64), ("last_done", *_U64), ("last_lba", *_U64),
                         ("sorted", *_PTR), _embedded("fifo", LIST_HEAD),
                         ("waits", *_U64), ("wait_successes", *_U64))
#: Per queued request: its node in the VM's sector tree and in the VM's arrival list (the
#: request itself is the block layer's, not the scheduler's).
QUEUED: tuple[Field, ...] = (_embedded("sorted", RB_NODE), _embedded("fifo", LIST_HEAD))
#: Once: the VM in service and its slice's end, the wait (its kind, VM, timer, unit's two
#: zones, head and bar) and the completion to decide on (VM, instant, sector), the timer
#: kinds' counts.
SCHEDULER: tuple[Field, ...] = (("current", *_U32), ("vms", *_U32), ("slice_end", *_U64),
                                ("wait_coarse", *_U32), ("wait_vm", *_U32),
                                ("wait_until", *_U64), ("unit_low", *_U32),
                                ("unit_high", *_U32), ("wait_head", *_U64), ("wait_bar", *_U64),
                                ("done_vm", *_U32), ("done_at", *_U64), ("done_lba", *_U64),
                                ("kinds", 32, 8))
