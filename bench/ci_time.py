"""Where a test run's time goes: each test's wall and CPU time, on which worker.

Loaded into pytest as a plugin, it writes one line per event to
``$CI_TIME_DIR/<worker>.tsv`` (``gw0``, ``gw1`` under pytest-xdist, ``main``
without it): each test's start and end (wall clock and the process's CPU
time, its reaped children's included), and each proof obligation discharged
(its verdict, its Z3 budget and what it spent, which depend on what ran
before in the same process)::

    PYTHONPATH=bench CI_TIME_DIR=out pytest -p ci_time -n 2 ...
    python bench/ci_time.py out          # per worker, per module, slowest tests

The wall time is what a loaded machine stretches; the CPU time and the
resource counts are what compare across loads.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import time
from pathlib import Path
from typing import IO, Any

_stream: IO[str] | None = None


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime


def _write(*fields: object) -> None:
    global _stream
    if _stream is None:
        folder = Path(os.environ.get("CI_TIME_DIR", "ci-time"))
        folder.mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        _stream = open(folder / f"{worker}.tsv", "a", encoding="utf-8", buffering=1)
    _stream.write("\t".join(str(f) for f in fields) + "\n")


def pytest_configure(config: Any) -> None:
    """Wrap :func:`akita.proofs.obligation.discharge` to log each obligation's count."""
    from akita.proofs import obligation as module

    real = module.discharge
    if getattr(real, "logged", False):
        return

    def discharge(obligation: Any, **options: Any) -> Any:
        outcome = real(obligation, **options)
        _write("discharge", f"{time.time():.3f}", obligation.name, outcome.verdict.verdict,
               outcome.rlimit, outcome.rlimit_used, f"{outcome.seconds:.3f}")
        return outcome

    discharge.logged = True  # type: ignore[attr-defined]
    module.discharge = discharge


def pytest_sessionstart(session: Any) -> None:
    _write("session", f"{time.time():.3f}", "-", f"{_cpu():.3f}")


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    _write("start", f"{time.time():.3f}", nodeid, f"{_cpu():.3f}")


def pytest_runtest_logfinish(nodeid: str, location: Any) -> None:
    _write("end", f"{time.time():.3f}", nodeid, f"{_cpu():.3f}")


def summarize(folder: Path, slowest: int) -> None:
    """Print each worker's span and busy time, the time per module and the slowest tests."""
    tests: dict[str, tuple[float, float, str]] = {}
    spans = []
    for path in sorted(folder.glob("gw*.tsv")) or sorted(folder.glob("main.tsv")):
        rows = [line.rstrip("\n").split("\t") for line in path.open(encoding="utf-8")]
        begin = min(float(r[1]) for r in rows if r[0] == "session")
        started = {r[2]: (float(r[1]), float(r[3])) for r in rows if r[0] == "start"}
        ended = [r for r in rows if r[0] == "end"]
        for r in ended:
            wall, cpu = started[r[2]]
            tests[r[2]] = (float(r[1]) - wall, float(r[3]) - cpu, path.stem)
        last = max((float(r[1]) for r in ended), default=begin)
        mine = [t for t in tests.values() if t[2] == path.stem]
        spans.append((begin, last))
        print(f"{path.stem}: {len(mine)} tests, last ends {last - begin:.0f} s after its start; "
              f"busy {sum(t[0] for t in mine):.0f} s wall, {sum(t[1] for t in mine):.0f} s CPU")
    print(f"first start to last end: {max(e for _, e in spans) - min(b for b, _ in spans):.0f} s")
    modules: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    for nodeid, (wall, cpu, _) in tests.items():
        entry = modules[nodeid.split("::")[0]]
        entry[0] += wall
        entry[1] += cpu
        entry[2] += 1
    print("\nwall s   CPU s  tests  module")
    for name, (wall, cpu, count) in sorted(modules.items(), key=lambda m: -m[1][0])[:slowest]:
        print(f"{wall:6.0f}  {cpu:6.0f}  {count:5.0f}  {name}")
    print("\nwall s   CPU s  worker  test")
    for nodeid, (wall, cpu, worker) in sorted(tests.items(), key=lambda t: -t[1][0])[:slowest]:
        print(f"{wall:6.1f}  {cpu:6.1f}  {worker:6}  {nodeid}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--slowest", type=int, default=20)
    args = parser.parse_args()
    summarize(args.folder, args.slowest)


if __name__ == "__main__":
    main()
