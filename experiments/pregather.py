"""Pregather: VMs sharing one disk under Linux's schedulers and Pregather.

Source: Ling, Ibrahim, Jin, Wu and Tao, "Exploiting spatial locality to
improve disk efficiency in virtualized environments" (slides; the seed
document ``003``).  Testbed: Xen 4.0.1, one 1 TB SATA disk, VMs with 12 GB
virtual disks, sysbench file I/O, Hadoop and TPC-H.  Pregather's
parameters: zones of 2,000 blocks, a 20 ms prediction window, the
threshold parameter 2, 200 ms slices.  Reported: vNavigator's waiting
success ratio, 90.3% for a VM with sequential applications and 80.4% for
one with only random ones; "Pregather for multiple VMs": 1.6x and 2.6x
over CFQ; disk utilisation for data-intensive applications, Pregather
65%, CFQ 53%, AS 36%, and 63% beside other applications; 916 KB of memory.

Here (:mod:`akita.disk`): the drive is a WD Caviar Black 1 TB; each VM
a 12 GB image; each process a sysbench-shaped thread of 16 KB synchronous
requests on a 2 GB file of its own, thinking 100 µs between requests.
The setups, each run under every scheduler for the same span and seed 1:

* ``patterns``: VMs with different access patterns -- ``seq`` (seqrd and
  seqwr), ``rnd`` (rndrd and rndwr), ``mix`` (seqrd beside rndwr);
* ``sequential``: four VMs with sequential applications (seqrd and seqwr
  each);
* ``sequential-128k``: the same with 128 KB requests, the guest kernel's
  largest read-ahead (2.6.18's ``VM_MAX_READAHEAD``) -- not a claim's setup:
  the evidence of how request size moves the ratio over CFQ;
* ``mixed``: four VMs with mixed applications (seqrd beside rndwr each);
* ``data-alone``: a data-intensive VM alone -- four sequential readers, as
  four map tasks reading their splits;
* ``data-beside``: the same VM beside a ``rnd`` and a ``seq`` VM.

The slides pair neither 1.6x nor 2.6x with a setup: 1.6x is compared with
``sequential`` and 2.6x with ``mixed`` (decision 80).  How a claim is
judged was fixed before any run (decision 80): a ratio of the paper holds
if ours reaches 1 plus half the paper's gain (1.3x, 1.8x); a percentage if
ours is within 10 points; an ordering if it holds; the memory if ours is at
most the paper's.  No parameter was tuned toward a claim.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

from akita.disk import SCHEDULERS, ProcessSpec, VMSpec, simulate
from akita.disk.schedulers.vnavigator import HORIZON, ZONE_SECTORS
from akita.disk.vdisk import IMAGE_SECTORS

from .experiment import Claim, Experiment, Outcome
from .plotting import STYLES, log_axis, pyplot, save

__all__ = ["Pregather", "SETUPS", "measure"]


def _vm(name: str, *patterns: str, sectors: int = 32) -> VMSpec:
    return VMSpec(name, tuple(ProcessSpec(f"{name}-{p}{i}", p, request_sectors=sectors)
                              for i, p in enumerate(patterns)))


_DATA = _vm("data", "seqrd", "seqrd", "seqrd", "seqrd")

#: setup -> its VMs.
SETUPS: dict[str, tuple[VMSpec, ...]] = {
    "patterns": (_vm("seq", "seqrd", "seqwr"), _vm("rnd", "rndrd", "rndwr"),
                 _vm("mix", "seqrd", "rndwr")),
    "sequential": tuple(_vm(f"vm{i}", "seqrd", "seqwr") for i in range(1, 5)),
    "sequential-128k": tuple(_vm(f"vm{i}", "seqrd", "seqwr", sectors=256)
                             for i in range(1, 5)),
    "mixed": tuple(_vm(f"vm{i}", "seqrd", "rndwr") for i in range(1, 5)),
    "data-alone": (_DATA,),
    "data-beside": (_DATA, _vm("rnd", "rndrd", "rndwr"), _vm("seq", "seqrd", "seqwr")),
}


def measure(duration: int, seed: int = 1,
            progress: Callable[[str], None] | None = None) -> dict[str, dict[str, Any]]:
    """setup -> scheduler -> the metrics JSON of one run."""
    out: dict[str, dict[str, Any]] = {}
    for setup, vms in SETUPS.items():
        out[setup] = {}
        for name in SCHEDULERS:
            if progress is not None:
                progress(f"{setup} {name}")
            out[setup][name] = simulate(vms, name, duration_ns=duration, seed=seed).as_json()
    return out


def _mbps(run: dict[str, Any]) -> float:
    return float(run["bytes_per_s"]) / 1e6


def _success(run: dict[str, Any], vm: str) -> tuple[int, int]:
    one = run["vms"][vm]
    return one["wait_successes"], one["waits"]


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "no waits"


def _plot(runs: dict[str, dict[str, Any]], out: Path) -> list[str]:
    fig, (left, right) = pyplot().subplots(1, 2, figsize=(9, 3.4), layout="constrained")
    fig.suptitle("Pregather beside Linux's schedulers: one 1 TB disk, 16 KB sync requests")
    setups = list(runs)
    width = 0.8 / len(SCHEDULERS)
    for i, name in enumerate(SCHEDULERS):
        xs = [j + (i - len(SCHEDULERS) / 2 + 0.5) * width for j in range(len(setups))]
        left.bar(xs, [_mbps(runs[s][name]) for s in setups], width, label=name)
        right.plot(range(len(setups)), [runs[s][name]["transfer_permille"] / 10
                                        for s in setups], marker=STYLES[i % 4][0],
                   linestyle=STYLES[i % 4][1], label=name, linewidth=2.2 - 0.3 * i)
    for ax, label, title in ((left, "throughput, all VMs (MB/s, log)", "throughput"),
                             (right, "disk utilisation (% of time transferring)",
                              "utilisation")):
        ax.set_xticks(range(len(setups)), setups, fontsize=7, rotation=25, ha="right")
        ax.set_ylabel(label)
        ax.set_title(title, fontsize=9)
    log_axis(left)  # 2-70 MB/s: plain numbers at 1, 2, 5 of each decade
    fig.legend(*left.get_legend_handles_labels(), loc="outside lower center", ncols=5,
               fontsize=7)
    return save(fig, out, "pregather-setups")


def _ratio(runs: dict[str, Any]) -> Fraction:
    return Fraction(runs["pregather"]["bytes_per_s"], runs["cfq"]["bytes_per_s"])


def _ratio_claim(text: str, paper: float, runs: dict[str, Any], setup: str) -> Claim:
    ratio = _ratio(runs[setup])
    holds = ratio >= 1 + (Fraction(str(paper)) - 1) / 2
    ours = (f"{float(ratio):.1f}x ({_mbps(runs[setup]['pregather']):.1f} vs "
            f"{_mbps(runs[setup]['cfq']):.1f} MB/s, '{setup}')")
    why = _ratio_why(ratio, Fraction(str(paper)), runs[setup])
    if why and setup == "sequential":
        why += f"; with 128 KB requests the ratio is {float(_ratio(runs['sequential-128k'])):.1f}x"
    return Claim(text, f"{paper}x", ours, holds, why)


def _ratio_why(ratio: Fraction, paper: Fraction, runs: dict[str, Any]) -> str:
    cfq, pre = runs["cfq"], runs["pregather"]
    seeks = (f"mean seek {cfq['mean_seek_sectors']} sectors under CFQ, "
             f"{pre['mean_seek_sectors']} under Pregather")
    if ratio > paper * Fraction(5, 4):
        return (f"larger than the paper's: {seeks}. In dom0 CFQ sees one queue per VM and "
                "serves a VM's two processes alternately, each 16 KB request paying a seek "
                "and half a turn; the real guests' read-ahead makes larger requests (see "
                "'sequential-128k') and the drive's 32 MB cache holds read-ahead for "
                "interleaved streams; the model has neither")
    if ratio < 1 + (paper - 1) / 2:
        return f"smaller than the paper's: {seeks}"
    return ""


def _success_claim(text: str, paper: float, run: dict[str, Any], vm: str) -> Claim:
    ok, waits = _success(run, vm)
    holds = bool(waits) and abs(Fraction(100 * ok, waits) - Fraction(str(paper))) <= 10
    why = ""
    if waits < 20:
        why = (f"Pregather waited {waits} time(s) for this VM: its random requests rarely "
               "fall in or beside a zone just served within the prediction horizon, so "
               "vNavigator has no access interval to predict from (no fine wait), and with "
               "two processes it almost always has a request pending (no coarse wait)")
    elif not holds or Fraction(100 * ok, waits) > Fraction(str(paper)) + 5:
        why = (f"{ok} of {waits} waits succeeded: a guest process here issues its next "
               "request exactly its think time after a completion, so a predicted interval is "
               "rarely wrong; the real guests' think times vary (page cache, the guest kernel, "
               "vCPU scheduling), which the model does not draw")
    return Claim(text, f"{paper}%", f"{_pct(ok, waits)} ({ok} of {waits} waits)", holds, why)


def claims(runs: dict[str, dict[str, Any]]) -> list[Claim]:
    patterns = runs["patterns"]["pregather"]
    alone = {n: runs["data-alone"][n]["transfer_permille"] for n in SCHEDULERS}
    beside = {n: runs["data-beside"][n]["transfer_permille"] for n in SCHEDULERS}
    memory = max(r["peak_memory_bytes"] for setup in runs.values()
                 for r in [setup["pregather"]])
    seq_ok, seq_n = _success(patterns, "seq")
    rnd_ok, rnd_n = _success(patterns, "rnd")
    order_alone = alone["pregather"] > alone["cfq"] > alone["as"]
    return [
        _success_claim("vNavigator's waiting success, VM with sequential applications", 90.3,
                       patterns, "seq"),
        _success_claim("vNavigator's waiting success, VM with only random applications", 80.4,
                       patterns, "rnd"),
        Claim("Sequential applications show clearer sub-regional locality than random ones "
              "(higher success)", "90.3% > 80.4%",
              f"{_pct(seq_ok, seq_n)} vs {_pct(rnd_ok, rnd_n)}",
              bool(seq_n and rnd_n) and seq_ok * rnd_n > rnd_ok * seq_n,
              f"the random VM's ratio rests on {rnd_n} wait(s), and with think times that never "
              "vary every wait that starts succeeds: the model cannot tell the two apart by "
              "this ratio"),
        _ratio_claim("Pregather over CFQ, multiple VMs with sequential applications", 1.6, runs,
                     "sequential"),
        _ratio_claim("Pregather over CFQ, multiple VMs with mixed applications", 2.6, runs,
                     "mixed"),
        Claim("Disk utilisation, data-intensive applications alone: Pregather > CFQ > AS",
              "65% > 53% > 36%", " > ".join(f"{n} {alone[n] / 10:.1f}%"
                                              for n in ("pregather", "cfq", "as")),
              order_alone, "" if order_alone else _order_why(runs["data-alone"])),
        Claim("Disk utilisation, data-intensive applications beside others: Pregather about "
              "63%, above CFQ", "63%", f"pregather {beside['pregather'] / 10:.1f}%, cfq "
              f"{beside['cfq'] / 10:.1f}%",
              abs(beside["pregather"] - 630) <= 100 and beside["pregather"] > beside["cfq"],
              _beside_why(runs["data-beside"])),
        Claim("Pregather's memory overhead is small", "916 KB",
              f"{memory / 1024:.1f} KB at most (peak over the setups, decision 86's count)",
              memory <= 916 * 1024,
              "smaller than the paper's: vNavigator here keeps only the zones touched in the "
              f"last {HORIZON} prediction windows; a table of every zone of four 12 GB images "
              f"({4 * -(-IMAGE_SECTORS // ZONE_SECTORS)} zones) would take 916 KB at about "
              "18 bytes a zone"),
    ]


def _order_why(runs: dict[str, Any]) -> str:
    waits = ", ".join(f"{n} {runs[n]['waits']}" for n in ("pregather", "cfq", "as"))
    return ("in dom0 CFQ and AS see the data VM as one process, which always has a "
            "request pending (four synchronous readers): neither idles nor anticipates, and "
            "both alternate among the four files nearest first, as noop does, so they tie; "
            f"waits: {waits}. The source's CFQ (53%) and AS (36%) differ, so its data VM "
            "showed them something this setup does not: Hadoop's own mix of reads and writes, "
            "and the guest's page cache, are not modelled")


def _beside_why(runs: dict[str, Any]) -> str:
    pre, cfq = runs["pregather"], runs["cfq"]
    if abs(pre["transfer_permille"] - 630) <= 100 and pre["transfer_permille"] > \
            cfq["transfer_permille"]:
        return ""
    rnd = pre["vms"]["rnd"]["bytes_per_s"] / 1e6
    return (f"ours {pre['transfer_permille'] / 10:.1f}%: Pregather gives each VM an equal "
            f"200 ms slice, and the rnd VM's slices (a third of the time) move {rnd:.1f} MB/s "
            "of 16 KB random requests, the drive seeking most of them; the paper's neighbours "
            "(TPC-H queries, sort) were not random-only, and a lone synchronous stream of "
            "16 KB requests with 100 µs think time keeps the drive transferring at most 61% "
            "of its time")


def _row(setup: str, name: str, run: dict[str, Any]) -> list[str]:
    lat = [v["latency_ns"]["p50"] for v in run["vms"].values() if v["latency_ns"]["p50"]]
    p99 = [v["latency_ns"]["p99"] for v in run["vms"].values() if v["latency_ns"]["p99"]]
    per_vm = ", ".join(f"{vm} {v['bytes_per_s'] / 1e6:.1f}" for vm, v in run["vms"].items())
    return [setup, name, f"{_mbps(run):.1f}", per_vm, f"{run['transfer_permille'] / 10:.1f}%",
            str(run["mean_seek_sectors"]),
            f"{max(lat) / 1e6:.2f} / {max(p99) / 1e6:.1f} ms" if lat else "-",
            _pct(run["wait_successes"], run["waits"]), f"{run['peak_memory_bytes'] / 1024:.1f}"]


class Pregather(Experiment):
    name = "pregather"
    title = "Pregather: spatial-locality-aware disk scheduling, beside noop, deadline, CFQ, AS"
    source = "Ling et al., Pregather slides (seed 003), Performance Evaluation"
    #: simulated seconds of each run
    seconds = (1, 20)

    def run(self, out: Path, *, quick: bool = False,
            progress: Callable[[str], None] | None = None) -> Outcome:
        duration = self.duration(quick)
        runs = measure(duration, progress=progress)
        rows = [_row(setup, name, run) for setup, by in runs.items() for name, run in by.items()]
        return Outcome(self.name, self.title, self.source,
                       ["setup", "scheduler", "MB/s", "MB/s per VM", "utilisation",
                        "mean seek (sectors)", "latency p50 / p99 (worst VM)",
                        "wait success", "memory (KB)"],
                       rows, claims(runs), {"duration_ns": duration, "seed": 1, "runs": runs},
                       _plot(runs, out))
