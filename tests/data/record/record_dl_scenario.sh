#!/usr/bin/env bash
# Record a SCHED_DEADLINE scenario of tests/data/sched_deadline (tests/data/README.md).
#
#   sudo tests/data/record/record_dl_scenario.sh OUT_FILE SCENARIO
#
# The three tasks of record_sched_deadline.sh (dl_a 2/10 ms, dl_b 3/20 ms, dl_c
# 5/40 ms; jobs of 1.5 and 2.5 ms) in an exclusive cpuset on CPU 1, with dl_c as
# SCENARIO says:
#   sporadic  jobs of 4 ms, released 0, T/2 or T later than periodic (DL_SPORADIC=1)
#   reclaim   jobs of 6 ms (an overrun) with SCHED_FLAG_RECLAIM (GRUB, DL_FLAGS=2)
# Recorded through a tracefs instance of a unique name (sched_switch,
# sched_wakeup, sched_wakeup_new, sched_migrate_task; CPU 1 only; clock mono),
# never the top buffer, into OUT_FILE as the instance's own `trace` text.  The
# instance and the cpusets are removed on every exit path.  Needs root, tracefs,
# cgroup v1 cpuset and gcc.
set -euo pipefail
out="${1:?usage: $0 OUT_FILE SCENARIO}"
scenario="${2:?usage: $0 OUT_FILE SCENARIO}"
case "$scenario" in
  sporadic) c_env="DL_SPORADIC=1"; c_work=4000 ;;
  reclaim) c_env="DL_FLAGS=2"; c_work=6000 ;;
  *) echo "unknown scenario $scenario (sporadic, reclaim)" >&2; exit 2 ;;
esac
here="$(cd "$(dirname "$0")" && pwd)"
name="akita_dl_$$"
buffer_kb=4096
. "$here/instance_setup.sh"
run() {  # ENV NAME RUNTIME DEADLINE PERIOD WORK JOBS (us), inside the cpuset
  local env="$1"; shift
  timeout 20 sh -c "echo \$\$ > $cs/${name}_dl/tasks; exec env $env $bin $*" &
}
start="$(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC) + 200_000_000)')"
run "" dl_a 2000 10000 10000 1500 40 "$start"
run "" dl_b 3000 20000 20000 2500 20 "$start"
run "$c_env" dl_c 5000 40000 40000 "$c_work" 10 "$start"
run_at_t0
t0="$(t0_text "$start")"
{ echo "# $(uname -sr), recorded $(date -u +%Y-%m-%dT%H:%MZ) by $(basename "$0") $scenario; T0 = $t0"
  cat "$inst/trace"; } > "$out"
