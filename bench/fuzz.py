"""Coverage-guided fuzzing (atheris, libFuzzer) of the host-file and trace readers.

    pip install -e '.[fuzz]'                  # atheris (a wheel for CPython 3.11 on x86_64 Linux)
    python bench/fuzz.py [--seconds 120] [--targets host,jsonl,ftrace] [--out /tmp/akita-fuzz]

Each target runs in a process of its own for ``--seconds`` of wall time
(libFuzzer's ``-max_total_time``; ``-timeout=10`` s per input, ``-rss_limit_mb=2048``,
``-max_len=8192``), starting from a seed corpus and a dictionary of the
format's tokens (``-dict``: keys, units, edge values), and prints libFuzzer's
figures (inputs executed, ``cov`` edges and ``ft`` features) and the findings:

``host``
    bytes -> UTF-8 -> :func:`akita.model.loads_host` -> :func:`akita.model.first_fit`
    -> the admission JSON (``Placement.as_json`` and ``json.dumps``) -- what
    ``akita admit --json`` does.  Seeds: ``examples/*.toml``.
``jsonl``
    bytes -> text (undecodable bytes replaced) -> :func:`akita.oracle.read_jsonl`,
    read to the end.  Seeds: a short simulated trace of ``examples/fig5.toml``
    (``akita simulate --duration 20ms --trace``) and cuts of it.
``ftrace``
    bytes -> text -> :func:`akita.oracle.read_ftrace` with a fixed map, read to
    the end.  Seeds: a few lines of ``sched_switch``/``sched_wakeup`` text.

``--cli`` runs the structure-aware campaign through the command line instead
(:mod:`fuzz_cli`: fleet, sweep and disk files, trace.dat and xentrace captures;
``--runs`` inputs per format; no atheris needed).

A target's inputs, libFuzzer's log and the findings are under ``--out/TARGET/``;
``--out/summary.json`` has the figures.

The documented errors are :class:`~akita.model.ModelError` and its subclasses
(``HostFileError``, ``DurationError``, ``TraceError``, ``FtraceError``): the
command line prints them as one line, exit 2.  Any other exception that
escapes is a **finding**: it is recorded (deduplicated by type and the
innermost frame of the project, with the input that gave it under
``--out/TARGET/findings/``) and fuzzing goes on.  A per-input timeout or an
out-of-memory stop is libFuzzer's own artifact (``timeout-*``, ``oom-*``) in
the same folder, and is a finding too.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
TARGETS = ("host", "jsonl", "ftrace")

FTRACE_SEED = """\
# tracer: nop
#
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
          <idle>-0       [000] d..2.  100.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=qemu-web next_pid=4242 next_prio=120
        qemu-web-4242    [000] d..2.  100.002000: sched_switch: prev_comm=qemu-web prev_pid=4242 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
          <idle>-0       [000] dNh2.  100.010000: sched_wakeup: comm=qemu-web pid=4242 prio=120 target_cpu=000
          <idle>-0       [000] d..2.  100.010001: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=qemu-web next_pid=4242 next_prio=120
"""


# --------------------------------------------------------------------------- the child: one target


def _child(target: str, out: Path, argv: list[str]) -> None:
    import atheris

    with atheris.instrument_imports(include=["akita", "tomllib"]):
        from akita.model import ModelError, first_fit, loads_host
        from akita.oracle import read_ftrace, read_jsonl

    findings = out / "findings"
    findings.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()

    def record(data: bytes, error: BaseException) -> None:
        frames = [f for f in traceback.extract_tb(error.__traceback__) if "akita" in f.filename
                  or "/model/" in f.filename or "/oracle/" in f.filename
                  or "/reference/" in f.filename]
        where = frames[-1] if frames else traceback.extract_tb(error.__traceback__)[-1]
        key = f"{type(error).__name__} at {Path(where.filename).name}:{where.lineno} ({where.name})"
        if key in seen:
            return
        seen.add(key)
        digest = hashlib.sha1(data).hexdigest()[:12]
        (findings / f"{digest}.input").write_bytes(data)
        with open(findings / "findings.txt", "a", encoding="utf-8") as log:
            log.write(f"{key}: {str(error)[:200]!r} [input {digest}.input]\n")
        print(f"FINDING {key}: {str(error)[:200]!r}", file=sys.stderr, flush=True)

    ftrace_map = {"4242": "web/0", "qemu-web": "web/0"}

    def host(data: bytes) -> None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return  # load_host's documented HostFileError
        parsed = loads_host(text, path="fuzz.toml", base=str(out))
        json.dumps(first_fit(parsed).as_json(parsed.options))

    def jsonl(data: bytes) -> None:
        header, events = read_jsonl(data.decode("utf-8", "replace").splitlines(True), "fuzz")
        for _ in events:
            pass

    def ftrace(data: bytes) -> None:
        for _ in read_ftrace(data.decode("utf-8", "replace").splitlines(True), ftrace_map,
                             path="fuzz"):
            pass

    body = {"host": host, "jsonl": jsonl, "ftrace": ftrace}[target]

    def one_input(data: bytes) -> None:
        try:
            body(data)
        except ModelError:
            pass  # documented: one line, exit 2
        except (MemoryError, RecursionError) as error:
            record(data, error)
        except Exception as error:  # noqa: BLE001 -- anything else is a finding
            record(data, error)

    atheris.Setup(argv, one_input)
    atheris.Fuzz()


# --------------------------------------------------------------------------- the parent: seeds, runs


def _seeds(target: str, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    if target == "host":
        for path in sorted(EXAMPLES.glob("*.toml")):
            (folder / path.name).write_bytes(path.read_bytes())
        # small hosts, so that a mutation of one value is a large part of the input
        (folder / "tiny.toml").write_text("[host]\npcpus = 1\n", encoding="utf-8")
        (folder / "one-vm.toml").write_text(
            '[host]\npcpus = 2\n[[vm]]\nname = "w"\ntype = "Type1"\nvcpus = 2\n'
            'workload = { kind = "poisson", rate = "100", service = "1ms" }\n'
            '[trace_map]\n"42" = "w/1"\n', encoding="utf-8")
    elif target == "jsonl":
        with tempfile.TemporaryDirectory() as tmp:
            trace = Path(tmp) / "t.jsonl"
            subprocess.run([sys.executable, "-m", "akita", "simulate", str(EXAMPLES / "fig5.toml"),
                            "--duration", "20ms", "--trace", str(trace), "--json"],
                           check=True, stdout=subprocess.DEVNULL)
            lines = trace.read_bytes().splitlines(True)
        (folder / "fig5-20ms.jsonl").write_bytes(b"".join(lines))
        (folder / "fig5-head.jsonl").write_bytes(b"".join(lines[:40]))
        (folder / "fig5-header.jsonl").write_bytes(lines[0])
    else:
        (folder / "switch.txt").write_text(FTRACE_SEED, encoding="utf-8")


def _dictionary(target: str, path: Path) -> None:
    """libFuzzer's ``-dict``: the tokens a mutation may insert (keys, units, edge values)."""
    tokens = ["0", "1", "-1", "9223372036854775807", "18446744073709551616", "1e400", "1e-400",
              "9" * 64, "\\x00", "\\xef\\xbb\\xbf", "[[[[", "{a={b={", "\\\"", "'''", "\\x0a"]
    if target == "host":
        from akita.model import ADMISSION_TESTS, KINDS, PRESETS
        from akita.model.host_file import _HOST_KEYS, _VM_KEYS, _WORKLOAD_KEYS

        tokens += [*_HOST_KEYS, *_VM_KEYS, *_WORKLOAD_KEYS, *ADMISSION_TESTS, *KINDS, *PRESETS,
                   "[host]", "[[vm]]", "[trace_map]", "[vm.workload]", "ms", "us", "ns", "s",
                   "\\xc2\\xb5s", "%", "/", "HI", "LO", "true", "false", "4242", "web/0", "../",
                   "/etc/"]
    elif target == "jsonl":
        tokens += ['\\"version\\"', '\\"t\\"', '\\"cpu\\"', '\\"event\\"', '\\"vcpu\\"',
                   '\\"host\\"', '\\"mode\\"', "null", "dispatch", "release", "complete", "idle",
                   "mode_switch", "{}", "[]"]
    else:
        tokens += ["sched_switch:", "sched_wakeup:", "sched_wakeup_new:", "prev_comm=",
                   "prev_pid=", "next_comm=", "next_pid=", "prev_state=R", "==>", "target_cpu=",
                   "[000]", "[LOST 3 EVENTS]", "qemu-web-4242", "<idle>-0", "100.000001:"]
    path.write_text("".join(f'"{token}"\n' for token in tokens), encoding="utf-8")


_STATS = re.compile(r"#(\d+)\s+(?:DONE|pulse|NEW|REDUCE|INITED)\s+cov: (\d+) ft: (\d+)")


def _run(target: str, seconds: int, out: Path) -> dict:
    folder = out / target
    corpus = folder / "corpus"
    seeds = folder / "seeds"
    _seeds(target, seeds)
    corpus.mkdir(parents=True, exist_ok=True)
    _dictionary(target, folder / "tokens.dict")
    command = [sys.executable, __file__, "--child", target, "--out", str(out), "--",
               f"-dict={folder / 'tokens.dict'}", f"-max_total_time={seconds}", "-timeout=10", "-rss_limit_mb=2048",
               f"-artifact_prefix={folder}/", "-print_final_stats=1", "-max_len=8192",
               str(corpus), str(seeds)]
    print("$", " ".join(command), flush=True)
    done = subprocess.run(command, stderr=subprocess.PIPE, text=True, errors="replace")
    log = done.stderr
    (folder / "libfuzzer.log").write_text(log, encoding="utf-8")
    stats = _STATS.findall(log)
    runs = re.search(r"stat::number_of_executed_units:\s*(\d+)", log)
    last = stats[-1] if stats else ("0", "0", "0")
    findings_file = folder / "findings" / "findings.txt"
    findings = findings_file.read_text(encoding="utf-8").splitlines() if findings_file.exists() else []
    artifacts = sorted(p.name for p in folder.iterdir()
                       if p.name.startswith(("crash-", "timeout-", "oom-", "leak-")))
    return {"target": target, "seconds": seconds, "status": done.returncode,
            "inputs": int(runs.group(1)) if runs else int(last[0]), "cov": int(last[1]),
            "ft": int(last[2]), "corpus": len(list(corpus.iterdir())), "findings": findings,
            "artifacts": artifacts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=120, help="budget per target (s)")
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "akita-fuzz"))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--cli", action="store_true",
                        help="the command-line campaign (fuzz_cli.py) instead of libFuzzer's")
    parser.add_argument("--formats", default="fleet,sweep,disk,tracedat,xentrace")
    parser.add_argument("--runs", type=int, default=1000, help="--cli: inputs per format")
    parser.add_argument("--limit", type=float, default=10.0, help="--cli: seconds per input")
    parser.add_argument("--seed", type=int, default=1, help="--cli: seed of the mutations")
    args, rest = parser.parse_known_args()
    out = Path(args.out)
    if args.cli:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import fuzz_cli

        fuzz_cli.main(args.formats.split(","), args.runs, args.seed, args.limit, out)
        return
    if args.child:
        _child(args.child, out / args.child, [sys.argv[0], *[a for a in rest if a != "--"]])
        return
    print(f"Python {sys.version.split()[0]}; load average {os.getloadavg()}", flush=True)
    results = [_run(target, args.seconds, out) for target in args.targets.split(",")]
    for r in results:
        print(f"{r['target']:7s} {r['seconds']} s: {r['inputs']} inputs, cov {r['cov']}, "
              f"ft {r['ft']}, corpus {r['corpus']}, {len(r['findings'])} findings, "
              f"artifacts {r['artifacts'] or 'none'} (libFuzzer exit {r['status']})")
        for finding in r["findings"]:
            print("    ", finding)
    (out / "summary.json").write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
