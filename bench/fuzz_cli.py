"""Structure-aware fuzzing of the command line: fleet, sweep and disk files, trace.dat and
xentrace captures, through ``akita`` itself.

    python bench/fuzz.py --cli [--runs 1000] [--formats fleet,sweep,disk,tracedat,xentrace]
                               [--limit 10] [--seed 1] [--out /tmp/akita-fuzz-cli]

Each input is a seed mutated once or a few times, then given to the command that reads
it, run in this process through :func:`akita.cli.run` (what the ``akita`` script runs)
with stdout and stderr captured:

``fleet``, ``sweep``, ``disk``
    A seed file (``tests/fleet/small.toml``, a small sweep, a short ``disk-mixed``) is
    parsed, one value somewhere in it is replaced -- by a table, a list, a string, a huge
    or negative integer, a float, a non-ASCII digit string, a long string -- or a key is
    removed or added, and the document is written back as TOML; then ``akita fleet
    FILE --no-plot --workers 0 --json``, ``akita sweep FILE --no-plot --workers 0 --json`` or
    ``akita disk FILE --json``.
``tracedat``, ``xentrace``
    A real capture (``tests/data/tracecmd_v6.dat``, ``tracecmd_v7.dat``, the xentrace
    excerpt) with bytes flipped, a 4- or 8-byte field set to an edge value, a cut or a
    repeated span; then ``akita conform HOST FILE --json --placement trace --map ...``
    with Fig. 5's VMs on 8 pCPUs mapped to four tasks of the capture.

What is counted, per format: **runs**; **tracebacks** (an exception that escapes
``run``: the command line would print a traceback); **hangs** (an input still running
after ``--limit`` seconds, stopped by ``SIGALRM``); **vacuous passes** (status 0 where
nothing was checked: a conformance report of 0 events, a sweep or fleet of 0 sets or
hosts); and **multi-line errors** (status 2 with more than one line on stderr).  Each
finding's input is kept under ``--out/FORMAT/``; ``--out/summary.json`` has the figures.
The mutations are drawn from ``--seed``: the same seed gives the same inputs.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import random
import signal
import tempfile
import time
import tomllib
import traceback
from pathlib import Path
from typing import Any, Callable, Iterator

import tomli_w

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ("fleet", "sweep", "disk", "tracedat", "xentrace")

SWEEP_SEED = """
[sweep]
seed = 1
sets = 10
utilizations = { start = 0.5, stop = 0.9, step = 0.2 }
tests = ["edf-vd", "edf"]

[sweep.generator]
kind = "uunifast"
vcpus = 6
periods = ["10ms", "100ms"]
granularity = "1ms"
criticality_factor = 2
p_hi = 0.5
"""


class Hang(BaseException):
    """An input ran past the limit (raised by ``SIGALRM``; a BaseException, so that no
    ``except Exception`` of the code under test takes it)."""


# ----------------------------------------------------------------------------- mutations

def _values(rng: random.Random) -> list[Any]:
    return [{"a": 1}, [1, 2], [], {}, "", "x" * rng.choice((1, 300, 5000)), 0, -1,
            2**63 - 1, -(2**63), 10**6, 1.5, float("1e300"), True, "\u0661\u0662",
            "1e400", "-5ms", "0s", "9999999999999h", "NaN", [[[]]], [{"type": "Type1"}]]


def _paths(document: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix] if prefix else []
    if isinstance(document, dict):
        for key, value in document.items():
            found += _paths(value, prefix + (key,))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found += _paths(value, prefix + (index,))
    return found


def mutate_toml(text: str, rng: random.Random) -> str:
    """*text* (a TOML document) with one to three values replaced, keys removed or added."""
    document = tomllib.loads(text)
    for _ in range(rng.choice((1, 1, 2, 3))):
        paths = _paths(document)
        if not paths:  # every key removed: the empty document is an input too
            break
        path = rng.choice(paths)
        parent: Any = document
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        roll = rng.random()
        if roll < 0.15 and isinstance(parent, dict):
            del parent[last]
        elif roll < 0.25 and isinstance(parent, dict):
            parent[f"unknown_{rng.randrange(3)}"] = rng.choice(_values(rng))
        else:
            parent[last] = rng.choice(_values(rng))
    return tomli_w.dumps(document)


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """*data* with bytes flipped, a field set to an edge value, cut, or a span repeated."""
    out = bytearray(data)
    for _ in range(rng.choice((1, 2, 4))):
        roll = rng.random()
        at = rng.randrange(max(1, len(out)))
        if roll < 0.35:
            out[at] ^= 1 << rng.randrange(8)
        elif roll < 0.7:
            width = rng.choice((4, 8))
            edge = rng.choice((0, 1, 0xFF, 2**(8 * width - 1) - 1, 2**(8 * width) - 1))
            out[at:at + width] = edge.to_bytes(width, "little")
        elif roll < 0.85:
            del out[at:]
        else:
            span = out[at:at + rng.randrange(1, 4096)]
            out[at:at] = span
    return bytes(out)


# ------------------------------------------------------------------------------- formats

def _seed_texts() -> dict[str, list[Any]]:
    disk = (ROOT / "examples" / "disk-mixed.toml").read_text().replace('duration = "5s"',
                                                                         'duration = "200ms"')
    xen = gzip.decompress((ROOT / "tests" / "data" / "xentrace-credit2-excerpt.bin.gz")
                          .read_bytes())
    return {
        "fleet": [(ROOT / "tests" / "fleet" / "small.toml").read_text()
              .replace('horizon = "3600s"', 'horizon = "600s"')
              .replace("[fleet.sample]\nhosts = 2", "[fleet.sample]\nhosts = 1")
              .replace('duration = "100ms"', 'duration = "10ms"')],
        "sweep": [SWEEP_SEED],
        "disk": [disk],
        "tracedat": [(ROOT / "tests" / "data" / name).read_bytes()
                     for name in ("tracecmd_v6.dat", "tracecmd_v7.dat")],
        "xentrace": [xen],
    }


def _command(fmt: str, path: Path, folder: Path) -> list[str]:
    if fmt == "fleet":
        return ["fleet", str(path), "--out", str(folder / "out"), "--no-plot", "--workers", "0",
                "--json"]
    if fmt == "sweep":
        return ["sweep", str(path), "--out", str(folder / "out"), "--no-plot", "--workers", "0",
                "--json"]
    if fmt == "disk":
        return ["disk", str(path), "--json"]
    host = folder / "host.toml"
    if not host.exists():  # Fig. 5's VMs on 8 pCPUs, phases fixed: what the captures need
        host.write_text((ROOT / "examples" / "fig5.toml").read_text()
                        .replace('phases = "seeded"', 'phases = "synchronous"')
                        .replace("pcpus = 1", "pcpus = 8"), encoding="utf-8")
    tasks = (("d14v0", "d0v0", "d0v2", "d0v6") if fmt == "xentrace"
             else ("7783", "7089", "7998", "8118"))
    maps = [f"--map={task}={vm}/0" for task, vm in
            zip(tasks, ("memcached", "lookbusy1", "lookbusy2", "lookbusy3"))]
    extra = ["--cpu-hz", "2400000000"] if fmt == "xentrace" else []
    return ["conform", str(host), str(path), "--json", "--placement", "trace", *maps, *extra]


def _vacuous(fmt: str, out: str) -> bool:
    """Status 0 with nothing checked (what each format's JSON says it counted)."""
    try:
        document = json.loads(out)
    except ValueError:
        return False
    if fmt in ("tracedat", "xentrace"):
        return not document.get("events")
    if fmt == "sweep":
        return not document.get("points") and not document.get("rows")
    if fmt == "fleet":
        return document.get("hosts") == 0
    return False


# ------------------------------------------------------------------------------ campaign

def _run_one(args: list[str], limit: float) -> tuple[str, int | None, str, str, str]:
    """(outcome, status, stdout, stderr, traceback): outcome is ok, traceback or hang."""
    from akita.cli import run

    out, err = io.StringIO(), io.StringIO()

    def alarm(signum: int, frame: object) -> None:
        raise Hang()

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = run(args)
        return "ok", status, out.getvalue(), err.getvalue(), ""
    except Hang:
        return "hang", None, out.getvalue(), err.getvalue(), ""
    except BaseException:  # noqa: BLE001 - what escapes run() is the finding
        return "traceback", None, out.getvalue(), err.getvalue(), traceback.format_exc()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def inputs(fmt: str, seed: int) -> Iterator[str | bytes]:
    """The inputs of *fmt* that *seed* draws, in order (input N of a campaign is the N-th,
    from 0: a finding can be made again without running the ones before it)."""
    rng = random.Random(f"{seed}:{fmt}")
    seeds = _seed_texts()[fmt]
    while True:
        base = rng.choice(seeds)
        yield mutate_toml(base, rng) if isinstance(base, str) else mutate_bytes(base, rng)


def input_of(fmt: str, seed: int, number: int) -> str | bytes:
    """Input *number* of the campaign of *fmt* under *seed*."""
    made = inputs(fmt, seed)
    for _ in range(number):
        next(made)
    return next(made)


def campaign(fmt: str, runs: int, seed: int, limit: float, out: Path,
             say: Callable[[str], None] = print) -> dict[str, Any]:
    """Fuzz *fmt* with *runs* inputs; the figures."""
    made = inputs(fmt, seed)
    folder = out / fmt
    folder.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Any] = {"format": fmt, "runs": 0, "tracebacks": 0, "hangs": 0,
                               "vacuous_passes": 0, "multi_line_errors": 0,
                               "statuses": {}, "findings": [], "seconds": 0.0}
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"akita-fuzz-{fmt}-") as scratch:
        work = Path(scratch)
        for number in range(runs):
            data = next(made)
            path = work / (f"input{number}.toml" if isinstance(data, str) else f"input{number}")
            if isinstance(data, str):
                path.write_text(data, encoding="utf-8")
            else:
                path.write_bytes(data)
            outcome, status, stdout, stderr, trace = _run_one(_command(fmt, path, work), limit)
            figures["runs"] += 1
            key = str(status) if outcome == "ok" else outcome
            figures["statuses"][key] = figures["statuses"].get(key, 0) + 1
            finding = None
            if outcome == "traceback":
                figures["tracebacks"] += 1
                finding = trace.strip().splitlines()[-1]
            elif outcome == "hang":
                figures["hangs"] += 1
                finding = f"hang past {limit:g} s"
            elif status == 0 and _vacuous(fmt, stdout):
                figures["vacuous_passes"] += 1
                finding = "vacuous pass"
            elif status == 2 and len(stderr.strip().splitlines()) > 1:
                figures["multi_line_errors"] += 1
                finding = "multi-line error: " + " / ".join(stderr.strip().splitlines()[:3])
            if finding is not None:
                kept = folder / f"finding-{number}{path.suffix}"
                kept.write_bytes(path.read_bytes())
                figures["findings"].append({"input": str(kept), "what": finding,
                                            "trace": trace[-2000:]})
                say(f"  {fmt} input {number}: {finding}")
            path.unlink()
            if (number + 1) % 1000 == 0:  # a bounded run still tells how far it got
                say(f"  {fmt}: {number + 1} runs in {time.perf_counter() - began:.1f} s, "
                    f"{figures['tracebacks']} tracebacks, {figures['hangs']} hangs, "
                    f"{figures['vacuous_passes']} vacuous passes, "
                    f"{figures['multi_line_errors']} multi-line errors, "
                    f"statuses {figures['statuses']}")
    figures["seconds"] = round(time.perf_counter() - began, 1)
    return figures


def main(formats: list[str], runs: int, seed: int, limit: float, out: Path) -> list[dict]:
    out.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()}", flush=True)
    results = []
    for fmt in formats:
        figures = campaign(fmt, runs, seed, limit, out)
        results.append(figures)
        print(f"{fmt:9s} {figures['runs']} runs in {figures['seconds']} s: "
              f"{figures['tracebacks']} tracebacks, {figures['hangs']} hangs, "
              f"{figures['vacuous_passes']} vacuous passes, {figures['multi_line_errors']} "
              f"multi-line errors; statuses {figures['statuses']}", flush=True)
        (out / "summary.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    return results
