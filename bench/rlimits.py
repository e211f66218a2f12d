"""Measure the resource count each proof obligation spends, to calibrate its budget.

Each obligation is discharged with no budget (``rlimit`` 0) and its wall-clock
guard, and what it spent of Z3's resource count (``rlimit count``) is printed
as one JSON line as soon as it is known::

    python bench/rlimits.py [--shard I/N] [NAME ...] > measured.jsonl
    python bench/rlimits.py --table measured.jsonl   # the RLIMITS of proofs/rlimits.py

``--shard I/N`` takes every N-th obligation from the I-th (0-based), so that
shards can run side by side.  Each obligation is discharged alone, in a fresh
interpreter (:func:`akita.proofs.obligation.discharge_alone`, as ``akita
prove`` and the tests discharge it), so a shard's figures are those of a
whole run: the count does not depend on what ran before.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from akita.proofs import manifest
from akita.proofs.obligation import discharge_alone
from akita.proofs.rlimits import MARGIN


def budget(used: int) -> int:
    """:data:`MARGIN` times *used*, rounded up to two significant digits (at least 10,000)."""
    raw = max(10_000, MARGIN * used)
    scale = 10 ** max(0, int(math.log10(raw)) - 1)
    return -(-raw // scale) * scale


def measure(names: list[str], shard: tuple[int, int]) -> None:
    index, count = shard
    chosen = [o for o in manifest.load() if not names or o.name in names][index::count]
    for obligation in chosen:
        outcome = discharge_alone(obligation, rlimit=0)
        print(json.dumps({"name": obligation.name, "verdict": outcome.verdict.verdict,
                          "expected": obligation.expected, "seconds": round(outcome.seconds, 3),
                          "rlimit_used": outcome.rlimit_used, "reason": outcome.verdict.reason}),
              flush=True)


def table(paths: list[str]) -> None:
    rows = {}
    for path in paths:
        with open(path, encoding="utf-8") as stream:
            for line in stream:
                row = json.loads(line)
                rows[row["name"]] = row
    order = [o.name for o in manifest.load()]
    print("RLIMITS: dict[str, int] = {")
    for name in order:
        row = rows.get(name)
        if row is not None and row["verdict"] == row["expected"]:
            print(f'    "{name}": {budget(row["rlimit_used"]):_},'
                  f'  # spent {row["rlimit_used"]:,}')
    print("}")
    # A run that did not reach its expected verdict (e.g. stopped by the wall-clock guard)
    # spent less than the obligation needs: it calibrates nothing.
    for name in order:
        row = rows.get(name)
        if row is not None and row["verdict"] != row["expected"]:
            print(f"# not calibrated: {name} ({row['verdict']}: {row['reason']})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--shard", default="0/1")
    parser.add_argument("--table", action="store_true",
                        help="read the NAMEs as files of measured lines; print RLIMITS")
    args = parser.parse_args()
    if args.table:
        table(args.names)
        return
    index, count = (int(part) for part in args.shard.split("/"))
    measure(args.names, (index, count))


if __name__ == "__main__":
    sys.exit(main())
