"""``--hi-mode-order``: which reading of Akita's HI mode a command runs (R3, R7).

The host file's ``hi_mode_order`` (:class:`akita.model.SchedulerOptions`) says
what HI mode runs when no HI vCPU with budget is runnable: ``"capped"``, the
default, enforces budgets (a HI vCPU past ``C_pes`` runs only when no LO vCPU
is runnable); ``"hi-first"`` runs a HI vCPU past its budget before any LO
vCPU; ``"budget-first"`` runs every vCPU past its budget by deadline
(``docs/decisions.rst`` 27 and 130).  The option overrides the host file's
choice for one run, so the two readings can be compared on one file.
"""

from __future__ import annotations

from typing import Any, Callable

import attrs
import click

from akita.model import Host
from akita.model.options import HI_MODE_ORDERS

__all__ = ["hi_mode_order_option", "with_hi_mode_order"]


def hi_mode_order_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--hi-mode-order`` option, passed to *command* as ``hi_mode_order``."""
    return click.option(
        "--hi-mode-order", "hi_mode_order", type=click.Choice(HI_MODE_ORDERS), default=None,
        help="Override the host file's hi_mode_order (R3, R7): capped (budgets enforced, "
             "the default), hi-first or budget-first.")(command)


def with_hi_mode_order(host: Host, hi_mode_order: str | None) -> Host:
    """*host* with its ``hi_mode_order`` replaced by *hi_mode_order* (``None``: unchanged)."""
    if hi_mode_order is None:
        return host
    return attrs.evolve(host, options=attrs.evolve(host.options, hi_mode_order=hi_mode_order))
