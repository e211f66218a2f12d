"""A JSON Lines trace rendered as the Linux ftrace text a kernel would write.

Shared by the command-line tests of ``akita conform`` and the trace fuzz tests.
It writes the events in the trace's own order; where a vCPU blocks and is
woken again at one instant before its pCPU decides, a kernel's order differs
(``tests/kernel_render.py``, whose ``render_ftrace_text`` puts the trace in
kernel order first and is the one to use on arbitrary hosts).
"""

import json


def render_ftrace(lines: list[str] | tuple[str, ...], origin: int = 1000 * 10**9
                  ) -> tuple[list[str], list[str]]:
    """The sched_switch / sched_wakeup lines of the trace *lines* (header first), and the
    ``--map`` options that name their tasks."""
    pids: dict[str, int] = {}
    current: dict[int, str | None] = {}
    blocked: dict[int, bool] = {}
    out = ["# tracer: nop", "#"]

    def task(name: str | None) -> tuple[str, int]:
        if name is None:
            return "swapper", 0
        return name.replace("/", "-"), pids.setdefault(name, 4000 + len(pids))

    def stamp(t: int) -> str:
        t += origin
        return f"{t // 10**9}.{t % 10**9:09d}"

    for line in lines[1:]:
        e = json.loads(line)
        cpu = e["cpu"]
        if e["event"] == "block":
            blocked[cpu] = True
        elif e["event"] == "wake":
            comm, pid = task(e["vcpu"])
            out.append(f"          <idle>-0       [{cpu:03d}] dNh4.  {stamp(e['t'])}: "
                       f"sched_wakeup: comm={comm} pid={pid} prio=120 target_cpu={cpu:03d}")
        elif e["event"] in ("dispatch", "idle"):
            (pc, pp), (nc, np) = task(current.get(cpu)), task(e.get("vcpu"))
            state = "S" if blocked.pop(cpu, False) else "R"
            out.append(f"{pc:>16}-{pp:<7} [{cpu:03d}] d..2.  {stamp(e['t'])}: sched_switch: "
                       f"prev_comm={pc} prev_pid={pp} prev_prio=120 prev_state={state} ==> "
                       f"next_comm={nc} next_pid={np} next_prio=120")
            current[cpu] = e.get("vcpu")
    return out, [f"--map={pid}={name}" for name, pid in pids.items()]
