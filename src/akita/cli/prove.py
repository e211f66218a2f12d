"""``akita prove [NAME ...]``: discharge the proof obligations of the manifest."""

from __future__ import annotations

import json
import sys
import time
from typing import Iterable, Sequence

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from akita.model import ModelError
from akita.proofs import manifest
from akita.proofs.obligation import GUARD_FACTOR, Obligation, Outcome, discharge_alone
from akita.proofs.verdict import UNKNOWN, ProofVerdict

__all__ = ["prove", "select", "run_obligations", "outcomes_json", "status_of"]


@click.command(short_help="Discharge the proof obligations.")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@click.option(
    "--json", "as_json", is_flag=True, help="Print the outcomes (or the list) as JSON on stdout."
)
@click.option(
    "--list",
    "as_list",
    is_flag=True,
    help="List the obligations with their statements; prove nothing.",
)
@click.option("--rlimit", type=click.IntRange(min=0), default=None, metavar="UNITS",
              help="Each obligation's budget of Z3's resource count, the limit that decides "
                   "(default: each obligation's calibrated budget; 0: none).  The same "
                   "budget gives the same verdict on a quiet or a loaded machine.")
@click.option("--guard", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="SECONDS",
              help=f"Each obligation's wall-clock guard, an outer bound only (default: "
                   f"{GUARD_FACTOR} times its declared seconds).")
def prove(names: tuple[str, ...], as_json: bool, as_list: bool, rlimit: int | None,
          guard: float | None) -> int:
    """Discharge the proof obligations (all, or those NAMEd) and compare each
    verdict with the expected one.

    Each check is limited by its budget of Z3's resource count (deterministic:
    the verdict does not depend on the machine's load) and, as an outer guard
    only, by the clock; a limit reached answers "unknown", which is never a
    pass.  Exit status 0 if every verdict is the expected one, 1 if some
    verdict contradicts it, 3 if none does but some is "unknown", 2 if a NAME
    is unknown.
    """
    chosen = select(manifest.load(), names)
    if as_list:
        if as_json:
            click.echo(json.dumps({"obligations": [_listing(o) for o in chosen]}))
        else:
            _print_list(chosen)
        return 0
    outcomes = run_obligations(chosen, rlimit=rlimit, guard=guard)
    if as_json:
        click.echo(json.dumps(outcomes_json(outcomes)))
    else:
        _print_table(outcomes, detailed=bool(names))
    return status_of(outcomes)


def status_of(outcomes: Sequence[Outcome]) -> int:
    """0 every verdict the expected one; 1 some verdict the opposite; else 3 (some
    ``unknown``: a limit was reached, never a pass)."""
    if all(outcome.passed for outcome in outcomes):
        return 0
    if any(o.verdict.verdict != UNKNOWN and not o.passed for o in outcomes):
        return 1
    return 3


def select(obligations: Sequence[Obligation], names: Iterable[str]) -> list[Obligation]:
    """The obligations called *names*, in the order given (all of them if none is given).

    :raises ModelError: field ``NAME``, for a name that is not in the manifest.
    """
    by_name = {obligation.name: obligation for obligation in obligations}
    names = list(dict.fromkeys(names))
    for name in names:
        if name not in by_name:
            raise ModelError(
                "NAME", name, "the name of a proof obligation (see akita prove --list)"
            )
    return [by_name[name] for name in names] if names else list(obligations)


def run_obligations(obligations: Sequence[Obligation], *, rlimit: int | None = None,
                    guard: float | None = None) -> list[Outcome]:
    """Discharge each obligation in turn, each alone (in a fresh interpreter, so that its
    verdict does not depend on which obligations ran before it), with a progress bar on
    stderr if it is a terminal.

    A check that raises does not stop the run: its verdict is ``unknown``,
    with the exception as the reason.
    """
    if not sys.stderr.isatty():
        return [_discharge(obligation, rlimit, guard) for obligation in obligations]
    outcomes = []
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("proving", total=len(obligations))
        for obligation in obligations:
            progress.update(task, description=f"proving {obligation.name}")
            outcomes.append(_discharge(obligation, rlimit, guard))
            progress.advance(task)
    return outcomes


def _discharge(obligation: Obligation, rlimit: int | None, guard: float | None) -> Outcome:
    start = time.perf_counter()
    try:
        return discharge_alone(obligation, rlimit=rlimit, guard=guard)
    except Exception as error:  # noqa: BLE001 - a crashing check is reported, never a pass
        verdict = ProofVerdict.unknown(f"the check raised {type(error).__name__}: {error}")
        return Outcome(obligation, verdict, time.perf_counter() - start)


def outcomes_json(outcomes: Iterable[Outcome]) -> dict[str, object]:
    """The documented JSON document: ``{"obligations": [Outcome.as_json(), ...]}``."""
    return {"obligations": [outcome.as_json() for outcome in outcomes]}


def _listing(obligation: Obligation) -> dict[str, object]:
    return {
        "name": obligation.name,
        "rules": list(obligation.rules),
        "scope": obligation.scope,
        "expected": obligation.expected,
        "timeout": obligation.timeout,
        "rlimit": obligation.rlimit,
        "statement": obligation.statement,
    }


def _print_list(obligations: Sequence[Obligation]) -> None:
    console = _console()
    for obligation in obligations:
        console.print(
            f"[bold]{escape(obligation.name)}[/bold]  expected {obligation.expected}, "
            f"budget {obligation.rlimit:,} rlimit units, guard "
            f"{GUARD_FACTOR * obligation.timeout:g} s"
        )
        console.print(f"  scope: {escape(obligation.scope)}")
        console.print(f"  {escape(obligation.statement)}")
        console.print()
    console.print(f"{len(obligations)} obligations.")


def _console() -> Console:
    """stdout; 160 columns when it is not a terminal (piped tables stay readable)."""
    return Console(highlight=False, width=None if sys.stdout.isatty() else 160)


def _print_table(outcomes: Sequence[Outcome], *, detailed: bool) -> None:
    console = _console()
    table = Table(title="Proof obligations", caption="a negative control is expected to be refuted")
    table.add_column("obligation", no_wrap=True)
    table.add_column("scope", ratio=1)
    table.add_column("expected", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("seconds", justify="right")
    for outcome in outcomes:
        colour = "green" if outcome.passed else "red"
        mark = "pass" if outcome.passed else "FAIL"
        table.add_row(
            escape(outcome.obligation.name),
            escape(outcome.obligation.scope),
            outcome.obligation.expected,
            f"[{colour}]{outcome.verdict.verdict} ({mark})[/{colour}]",
            f"{outcome.seconds:.3f}",
        )
    console.print(table)
    for outcome in outcomes:
        if detailed or not outcome.passed:
            _print_details(console, outcome)
    passed = sum(outcome.passed for outcome in outcomes)
    colour = "green" if passed == len(outcomes) else "red"
    summary = f"{passed} of {len(outcomes)} obligations reached their expected verdict."
    console.print(f"[{colour}]{summary}[/{colour}]")


def _print_details(console: Console, outcome: Outcome) -> None:
    verdict = outcome.verdict
    console.print(f"[bold]{escape(outcome.obligation.name)}[/bold]: {verdict.verdict}")
    if verdict.reason:
        console.print(f"  {escape(verdict.reason)}")
    if verdict.counterexample is not None:
        console.print(escape(json.dumps(verdict.counterexample, indent=2)))
