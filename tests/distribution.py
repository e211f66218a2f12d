"""How ``.ci/run`` spreads the tests over its two worker processes
(pytest-xdist's ``--dist loadgroup``; decision 350).

``loadgroup`` sends each group of tests (the ``xdist_group`` mark) to one
worker and every other test on its own, to whichever worker asks for work.
:func:`group` marks exactly the tests that share something expensive, so
that it is computed once, and leaves the others free:

* the tests of one module that use a fixture of module (or class, or
  package) scope defined in ``tests/``: one group, so that the fixture (the
  experiments' tiny run, the mutants' traces) runs once, as decision 172
  asked of ``--dist loadscope``; a group a module marks itself stands
  (``reproduce all --quick``'s tests, whose fixture one of them reaches
  through another fixture's parameter, where pytest cannot see it);
* the tests that use one session fixture of ``tests/`` (the docs' HTML
  build, the analysis traces): one group per fixture;
* the tests parametrised by one proof obligation that read its outcome (the
  ``outcomes`` fixture, which discharges an obligation once per worker):
  one group per obligation, so that the fast tier's and the long tier's
  tests of it share one discharge.

Every other test, each obligation of the proof manifest among them, is a
unit of its own: a module of many slow obligations no longer runs on one
worker while the other idles.  :func:`order` puts the groups a module
declares first (the ``--quick`` run, the longest unit of the suite), then
the obligations, the largest Z3 budget first (four times a measured count
of Z3's resources, which ranks their cost without a clock), so that the
longest work starts early and short tests fill the tail.

Where an obligation runs changes what ran before it in its process, and so
what it spends of its budget; the budgets cover that (decision 351,
``bench/README.md``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # the conftest loads this module; Z3 is imported where it is needed
    from akita.proofs.obligation import Obligation

#: The scopes a fixture shared within one module may have.
_MODULE_SCOPES = ("module", "class", "package")


def _project_fixtures(item: pytest.Item) -> list[tuple[str, str]]:
    """(name, scope) of each fixture *item* uses that is defined in a module or a conftest
    of ``tests/`` (not by pytest or a plugin), in the order pytest resolves them."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    found = []
    for name in info.names_closure:
        definitions = info.name2fixturedefs.get(name)
        if definitions and definitions[-1].baseid.startswith("tests"):
            found.append((name, definitions[-1].scope))
    return found


def group(item: pytest.Item) -> str | None:
    """The name of the group *item* must run in, or None when it may run anywhere (a
    group its module marks it with stands)."""
    marked = item.get_closest_marker("xdist_group")
    if marked is not None:
        return None
    fixtures = _project_fixtures(item)
    if any(scope in _MODULE_SCOPES for _, scope in fixtures):
        return f"module:{item.nodeid.split('::')[0]}"
    obligation = _obligation(item)
    if obligation is not None and ("outcomes", "session") in fixtures:
        return f"obligation:{obligation.name}"
    shared = [name for name, scope in fixtures if scope == "session"]
    return f"session:{shared[0]}" if shared else None


def _obligation(item: pytest.Item) -> Obligation | None:
    """The proof obligation *item* is parametrised by, if any."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    return params.get("obligation")


def cost(item: pytest.Item) -> int:
    """The Z3 budget of the obligation *item* discharges (0 for any other test)."""
    fixtures = _project_fixtures(item)
    obligation = _obligation(item)
    return obligation.rlimit if obligation and ("outcomes", "session") in fixtures else 0


def order(items: list[pytest.Item]) -> None:
    """Sort *items* in place: first the groups a module marks itself (a run too long to
    repeat, as ``reproduce all --quick``), then the proof obligations, the largest budget
    first, then the other tests, each part in the order pytest collected it."""
    def rank(item: pytest.Item) -> tuple[int, int]:
        if item.get_closest_marker("xdist_group") is not None:
            return (0, 0)
        return (1, -cost(item)) if cost(item) else (2, 0)

    items.sort(key=rank)


def distribute(items: list[pytest.Item]) -> None:
    """Mark each item of a group with its ``xdist_group`` and put them in :func:`order`."""
    order(items)  # before the marks: a mark already there is the module's own
    for item in items:
        name = group(item)
        if name is not None:
            item.add_marker(pytest.mark.xdist_group(name))
