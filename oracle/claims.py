"""What a capture's first line claims about how it should be judged.

``akita linux`` (:mod:`akita.linux.capture`) writes its kernel trace with a
first line such as::

    # akita-linux capture: policy=akita-linux reports=dispatch,idle,mode,temperature tick=4000000

so that ``akita conform HOST.toml TRACE`` judges it by the rule set it was
made for, with the decisions it records (its controller's marks) and the
tick its kernel enforces budgets at, without a flag.  A flag given still
wins.  A first line that begins so but claims what the oracle does not know
is bad input, named.
"""

from __future__ import annotations

import attrs

from akita.trace.jsonl import TraceError
from akita.trace.kernel import ascii_digits

from .validation import DECISIONS

__all__ = ["Claims", "capture_claims", "PREFIX"]

PREFIX = "# akita-linux capture:"


@attrs.frozen
class Claims:
    """A capture's claims: its rule set, the decision kinds it records, its kernel's tick."""

    policy: str | None = None
    reports: tuple[str, ...] | None = None
    tick_ns: int | None = None


def capture_claims(first: str, path: str = "<trace>") -> Claims:
    """The claims of *first*, a trace's first line (none unless it begins with :data:`PREFIX`)."""
    if not first.startswith(PREFIX):
        return Claims()
    from .oracle import POLICIES

    fields = dict(w.split("=", 1) for w in first[len(PREFIX):].split() if "=" in w)
    policy = fields.get("policy")
    if policy not in POLICIES:
        raise TraceError("policy", policy, f"one of {', '.join(POLICIES)}", path=f"{path}:1")
    reports = tuple(fields.get("reports", "dispatch,idle").split(","))
    if not {"dispatch", "idle"} <= set(reports) <= DECISIONS:
        raise TraceError("reports", ",".join(reports), "decision kinds with dispatch and idle",
                         path=f"{path}:1")
    tick = fields.get("tick", "unknown")
    if tick != "unknown" and not ascii_digits(tick):
        raise TraceError("tick", tick, "the kernel's tick in ns, or 'unknown'", path=f"{path}:1")
    return Claims(policy, reports, None if tick == "unknown" else int(tick))
