#!/usr/bin/env bash
# Record the SCHED_DEADLINE capture of tests/data (tests/data/README.md).
#
#   sudo tests/data/record/record_sched_deadline.sh OUT_FILE [DL_C_WORK_US]
#
# Three periodic SCHED_DEADLINE tasks (periodic.c) in a cpuset of their own on
# CPU 1, an exclusive root domain, so that Linux's deadline scheduler
# partitions them onto one CPU (Documentation/scheduler/sched-deadline.rst,
# section 5, "Tasks CPU affinity").  dl_c runs jobs of DL_C_WORK_US (default
# 4000) on a 5 ms runtime: with 6000, CBS throttles it every period.  Recorded
# through a tracefs instance of a unique name (sched_switch, sched_wakeup,
# sched_wakeup_new, sched_migrate_task; CPU 1 only; clock mono), never the top
# buffer, into OUT_FILE as the instance's own `trace` text; the instance and
# the cpusets are removed on every exit path (instance_setup.sh).  Needs root,
# tracefs, cgroup v1 cpuset and gcc.
set -euo pipefail
out="${1:?usage: $0 OUT_FILE [DL_C_WORK_US]}"
work_c="${2:-4000}"
here="$(cd "$(dirname "$0")" && pwd)"
name="akita_dl_$$"
buffer_kb=4096
. "$here/instance_setup.sh"
run() {  # NAME RUNTIME DEADLINE PERIOD WORK JOBS (us), inside the cpuset
  timeout 20 sh -c "echo \$\$ > $cs/${name}_dl/tasks; exec $bin $*" &
}
start="$(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC) + 200_000_000)')"
run dl_a 2000 10000 10000 1500 40 "$start"
run dl_b 3000 20000 20000 2500 20 "$start"
run dl_c 5000 40000 40000 "$work_c" 10 "$start"
run_at_t0
t0="$(t0_text "$start")"
{ echo "# $(uname -sr), recorded $(date -u +%Y-%m-%dT%H:%MZ) by $(basename "$0"); T0 = $t0"
  cat "$inst/trace"; } > "$out"
