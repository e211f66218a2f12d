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
tmp="$(mktemp -d)"
bin="$tmp/periodic"
gcc -O2 -Wall -o "$bin" "$here/periodic.c"
tr=/sys/kernel/tracing
cs=/sys/fs/cgroup/cpuset
mountpoint -q "$tr" || mount -t tracefs nodev "$tr"
name="akita_dl_$$"
inst="$tr/instances/$name"
events="sched_switch sched_wakeup sched_wakeup_new sched_migrate_task"
balance="$(cat "$cs/cpuset.sched_load_balance")"
restore() {
  [ -d "$inst" ] && { echo 0 > "$inst/tracing_on"; rmdir "$inst"; }
  echo "$balance" > "$cs/cpuset.sched_load_balance"
  rmdir "$cs/${name}_dl" "$cs/${name}_rest" 2>/dev/null || true
  rm -rf "$tmp"
}
trap restore EXIT
mkdir "$inst" "$cs/${name}_dl" "$cs/${name}_rest"
echo 0 > "$cs/${name}_rest/cpuset.cpus"; echo 0 > "$cs/${name}_rest/cpuset.mems"
echo 1 > "$cs/${name}_dl/cpuset.cpus"; echo 0 > "$cs/${name}_dl/cpuset.mems"
echo 1 > "$cs/${name}_dl/cpuset.cpu_exclusive"
echo 0 > "$cs/cpuset.sched_load_balance"
echo 0 > "$inst/tracing_on"
echo 2 > "$inst/tracing_cpumask"
echo mono > "$inst/trace_clock"
echo 4096 > "$inst/buffer_size_kb"
for e in $events; do echo 1 > "$inst/events/sched/$e/enable"; done
run() {  # ENV NAME RUNTIME DEADLINE PERIOD WORK JOBS (us), inside the cpuset
  local env="$1"; shift
  timeout 20 sh -c "echo \$\$ > $cs/${name}_dl/tasks; exec env $env $bin $*" &
}
start="$(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC) + 200_000_000)')"
run "" dl_a 2000 10000 10000 1500 40 "$start"
run "" dl_b 3000 20000 20000 2500 20 "$start"
run "$c_env" dl_c 5000 40000 40000 "$c_work" 10 "$start"
sleep 0.1  # the tasks are SCHED_DEADLINE by now, asleep until T0
echo 1 > "$inst/tracing_on"
wait
echo 0 > "$inst/tracing_on"
t0="$((start / 1000000000)).$(printf %09d $((start % 1000000000)))"
{ echo "# $(uname -sr), recorded $(date -u +%Y-%m-%dT%H:%MZ) by $(basename "$0") $scenario; T0 = $t0"
  cat "$inst/trace"; } > "$out"
