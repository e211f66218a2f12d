"""What an experiment is, and what it produces.

An experiment reruns one of the source documents' measurements on the
reference simulator: a host file under ``examples/``, the policies the
source compares, the metric it plots.  Its :class:`Outcome` holds a table
for people, the JSON of every metric, the plots, and the source's claims,
each as a :class:`Claim` with the source's figure beside ours and a
verdict -- never a bare boolean -- with the reason when the model does not
reproduce it.
"""

from __future__ import annotations

import json
import subprocess
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any, Callable

import attrs

from akita.atomic import write_atomic
from akita.model import Host, load_host
from akita.reference.run import simulate

__all__ = ["Claim", "Outcome", "Experiment", "RunRecord", "example_host", "run_policy", "ms",
           "source_commit", "REPRODUCED", "NOT_REPRODUCED", "NO_FIGURE", "TODAYS_DEFAULT",
           "TODAY_COLUMN"]

REPRODUCED, NOT_REPRODUCED, NO_FIGURE = "reproduced", "not reproduced", "qualitative only"

#: The default scheduler of today for each default scheduler of the sources' era: Linux's
#: EEVDF (since 6.6) for CFS, Xen's credit2 (since 4.12) for credit (decision 166).
TODAYS_DEFAULT = {"cfs": "eevdf", "credit": "credit2", "credit-3.3": "credit2"}
#: The claims table's column of today's default scheduler's figure.
TODAY_COLUMN = "today's default"


@attrs.frozen
class Claim:
    """One claim of the source, its figure and ours.

    :param text: the claim in the source's words (shortened).
    :param paper: the source's figure, as it gives it; ``None`` if none.
    :param ours: our figure, as measured.
    :param holds: whether our run shows what the claim says.
    :param why: when it does not, what the real system has that the model
        lacks (or why the figures differ although the claim holds).
    :param today: for a claim about "the default scheduler" of Xen or Linux, the same
        figure under today's default (:data:`TODAYS_DEFAULT`), named; it is beside the
        verdict, which stays the era's scheduler's.
    """

    text: str
    paper: str | None
    ours: str
    holds: bool
    why: str = ""
    today: str | None = None

    @property
    def verdict(self) -> str:
        if not self.holds:
            return NOT_REPRODUCED
        return REPRODUCED if self.paper is not None else NO_FIGURE

    def as_json(self) -> dict[str, Any]:
        doc = {"claim": self.text, "paper": self.paper, "ours": self.ours,
               "verdict": self.verdict, "why": self.why}
        if self.today is not None:
            doc["today"] = self.today
        return doc

    def cells(self, today: bool) -> list[str]:
        """The claims table's row: claim, source, ours (today's default), verdict."""
        verdict = self.verdict + (f": {self.why}" if self.why else "")
        return ([self.text, self.paper or "-", self.ours]
                + ([self.today or "-"] if today else []) + [verdict])


@attrs.frozen
class RunRecord:
    """How a result file was made, written into it so that a figure can be traced to its run.

    :param quick: whether the runs were ``--quick`` (shortened spans) or full.
    :param switch_cost_ns: what a context switch cost in the runs, ns.
    :param seed: the seed every simulation of the experiment ran with.
    :param commit: the git commit of the source tree (``-dirty`` when it had
        uncommitted changes), ``"unknown"`` outside a git checkout.
    """

    quick: bool
    switch_cost_ns: int
    seed: int
    commit: str

    def as_json(self) -> dict[str, Any]:
        return {"mode": "quick" if self.quick else "full", "switch_cost_ns": self.switch_cost_ns,
                "seed": self.seed, "commit": self.commit}


def source_commit() -> str:
    """The commit of the git checkout this package runs from, or ``"unknown"``.

    ``git describe --always --dirty --abbrev=40`` in the package's folder,
    if this very file is tracked there (an installed copy that merely sits
    inside some checkout is not that checkout's code); any failure (no git,
    not a checkout, a timeout) gives ``"unknown"``, never an error: a result
    file is worth writing without it.
    """
    here = Path(__file__).resolve()
    try:
        tracked = subprocess.run(["git", "ls-files", "--error-unmatch", here.name], cwd=here.parent,
                                 capture_output=True, text=True, timeout=10, check=False)
        if tracked.returncode != 0:
            return "unknown"
        done = subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=40"],
                              cwd=here.parent, capture_output=True, text=True, timeout=10,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else "unknown"


@attrs.define
class Outcome:
    """What one experiment produced."""

    name: str
    title: str
    source: str
    columns: list[str]
    rows: list[list[str]]
    claims: list[Claim]
    data: dict[str, Any]
    plots: list[str] = attrs.Factory(list)
    #: how the result was made (set by :func:`~.registry.reproduce`).
    run: RunRecord | None = None

    def as_json(self) -> dict[str, Any]:
        return {"experiment": self.name, "title": self.title, "source": self.source,
                "run": None if self.run is None else self.run.as_json(),
                "table": {"columns": self.columns, "rows": self.rows},
                "claims": [c.as_json() for c in self.claims], "plots": self.plots,
                "data": self.data}

    def markdown(self) -> str:
        lines = [f"# {self.title}", "", f"Source: {self.source}", "",
                 "| " + " | ".join(self.columns) + " |",
                 "|" + "---|" * len(self.columns)]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        header = self.claim_header()
        lines += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        today = TODAY_COLUMN in header
        lines += ["| " + " | ".join(c.cells(today)) + " |" for c in self.claims]
        return "\n".join(lines) + "\n"

    def claim_header(self) -> list[str]:
        """The claims table's columns: a column of today's default scheduler only when a
        claim has a figure for it."""
        today = any(c.today is not None for c in self.claims)
        return ["claim", "source", "ours"] + ([TODAY_COLUMN] if today else []) + ["verdict"]

    def rst(self) -> str:
        """The table and the claims as reStructuredText list-tables (for the docs)."""
        def table(title: str, header: list[str], rows: list[list[str]]) -> list[str]:
            lines = [f".. list-table:: {title}", "   :header-rows: 1", ""]
            for row in [header, *rows]:
                lines.append("   * - " + _rst_cell(row[0]))
                lines += [f"     - {_rst_cell(cell)}" for cell in row[1:]]
            return lines + [""]

        header = self.claim_header()
        claims = [c.cells(TODAY_COLUMN in header) for c in self.claims]
        return "\n".join(table("Measured", self.columns, self.rows)
                         + table("Claims", header, claims))

    def write(self, folder: Path) -> None:
        """``NAME.json``, ``NAME.md`` and ``NAME.rst`` into *folder* (the plots are already there)."""
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(folder / f"{self.name}.json", json.dumps(self.as_json(), indent=1) + "\n")
        write_atomic(folder / f"{self.name}.md", self.markdown())
        write_atomic(folder / f"{self.name}.rst", self.rst())


def _rst_cell(text: str) -> str:
    return text.replace("*", "\\*").replace("|", "\\|") or "-"


class Experiment:
    """One named experiment; subclasses set the class attributes and :meth:`run`."""

    name = ""
    title = ""
    source = ""
    #: the host file under ``examples/`` it starts from.
    host_file = ""
    #: simulated seconds of each run: ``(with --quick, without)``.
    seconds = (0, 0)
    #: the seed every simulation of it runs with (:func:`run_policy`'s default).
    seed = 1

    def duration(self, quick: bool) -> int:
        """The simulated span of each run, in ns."""
        return self.seconds[0 if quick else 1] * 1_000_000_000

    def host(self) -> Host:
        """The host of :attr:`host_file`, as shipped."""
        return example_host(self.host_file)

    def run(self, out: Path, *, quick: bool = False,
            progress: Callable[[str], None] | None = None) -> Outcome:
        """Run it, write its plots into *out*, return the outcome.

        *quick* shortens every simulated span (tests use it); the shipped
        figures come from full runs.
        """
        raise NotImplementedError


def ms(ns: int | None) -> str:
    """A latency in ns as a table shows it: milliseconds to the microsecond; ``-`` for none."""
    return "-" if ns is None else f"{ns / 1e6:.3f} ms"


def example_host(name: str) -> Host:
    """A host file shipped in ``akita.examples``."""
    with as_file(files("akita.examples") / name) as path:
        return load_host(path)


def run_policy(host: Host, policy: str, duration: int, *, seed: int = 1,
               trace_path: str | None = None) -> dict[str, Any]:
    """The metrics JSON of one simulation (:func:`akita.reference.run.simulate`) of *host*
    at the cost of a context switch the experiments run at (:mod:`.switch_cost`)."""
    from .switch_cost import at_switch_cost

    return simulate(at_switch_cost(host), policy, duration=duration, seed=seed,
                    trace_path=trace_path).as_json()
