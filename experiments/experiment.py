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
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any, Callable

import attrs

from akita.atomic import write_atomic
from akita.model import Host, load_host
from akita.reference.run import simulate

__all__ = ["Claim", "Outcome", "Experiment", "example_host", "run_policy", "ms",
           "REPRODUCED", "NOT_REPRODUCED", "NO_FIGURE"]

REPRODUCED, NOT_REPRODUCED, NO_FIGURE = "reproduced", "not reproduced", "qualitative only"


@attrs.frozen
class Claim:
    """One claim of the source, its figure and ours.

    :param text: the claim in the source's words (shortened).
    :param paper: the source's figure, as it gives it; ``None`` if none.
    :param ours: our figure, as measured.
    :param holds: whether our run shows what the claim says.
    :param why: when it does not, what the real system has that the model
        lacks (or why the figures differ although the claim holds).
    """

    text: str
    paper: str | None
    ours: str
    holds: bool
    why: str = ""

    @property
    def verdict(self) -> str:
        if not self.holds:
            return NOT_REPRODUCED
        return REPRODUCED if self.paper is not None else NO_FIGURE

    def as_json(self) -> dict[str, Any]:
        return {"claim": self.text, "paper": self.paper, "ours": self.ours,
                "verdict": self.verdict, "why": self.why}


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

    def as_json(self) -> dict[str, Any]:
        return {"experiment": self.name, "title": self.title, "source": self.source,
                "table": {"columns": self.columns, "rows": self.rows},
                "claims": [c.as_json() for c in self.claims], "plots": self.plots,
                "data": self.data}

    def markdown(self) -> str:
        lines = [f"# {self.title}", "", f"Source: {self.source}", "",
                 "| " + " | ".join(self.columns) + " |",
                 "|" + "---|" * len(self.columns)]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        lines += ["", "| claim | source | ours | verdict |", "|---|---|---|---|"]
        for c in self.claims:
            verdict = c.verdict + (f": {c.why}" if c.why else "")
            lines.append(f"| {c.text} | {c.paper or '-'} | {c.ours} | {verdict} |")
        return "\n".join(lines) + "\n"

    def rst(self) -> str:
        """The table and the claims as reStructuredText list-tables (for the docs)."""
        def table(title: str, header: list[str], rows: list[list[str]]) -> list[str]:
            lines = [f".. list-table:: {title}", "   :header-rows: 1", ""]
            for row in [header, *rows]:
                lines.append("   * - " + _rst_cell(row[0]))
                lines += [f"     - {_rst_cell(cell)}" for cell in row[1:]]
            return lines + [""]

        claims = [[c.text, c.paper or "-", c.ours, c.verdict + (f": {c.why}" if c.why else "")]
                  for c in self.claims]
        return "\n".join(table("Measured", self.columns, self.rows)
                         + table("Claims", ["claim", "source", "ours", "verdict"], claims))

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
