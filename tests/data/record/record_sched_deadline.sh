#!/usr/bin/env bash
# Record the SCHED_DEADLINE capture of tests/data (tests/data/README.md).
#
#   sudo tests/data/record/record_sched_deadline.sh OUT_FILE [DL_C_WORK_US]
#
# Three periodic SCHED_DEADLINE tasks (periodic.c) in a cpuset of their own on
# CPU 1, an exclusive root domain, so that Linux's deadline scheduler
# partitions them onto one CPU (Documentation/scheduler/sched-deadline.rst,
# section 5, "Tasks CPU affinity").  dl_c runs jobs of DL_C_WORK_US (default
# 4000) on a 5 ms runtime: with 6000, CBS throttles it every period.  Recorded through tracefs (sched_switch, sched_wakeup,
# sched_wakeup_new, sched_migrate_task; CPU 1 only) into OUT_FILE, the
# kernel's own `trace` text.  Needs root, tracefs, cgroup v1 cpuset and gcc.
set -euo pipefail
out="${1:?usage: $0 OUT_FILE [DL_C_WORK_US]}"
work_c="${2:-4000}"
here="$(cd "$(dirname "$0")" && pwd)"
bin="$(mktemp -d)/periodic"
gcc -O2 -Wall -o "$bin" "$here/periodic.c"
tr=/sys/kernel/tracing
cs=/sys/fs/cgroup/cpuset
mountpoint -q "$tr" || mount -t tracefs nodev "$tr"
events="sched_switch sched_wakeup sched_wakeup_new sched_migrate_task"
mkdir -p "$cs/akita_dl" "$cs/akita_rest"
echo 0 > "$cs/akita_rest/cpuset.cpus"; echo 0 > "$cs/akita_rest/cpuset.mems"
echo 1 > "$cs/akita_dl/cpuset.cpus"; echo 0 > "$cs/akita_dl/cpuset.mems"
echo 1 > "$cs/akita_dl/cpuset.cpu_exclusive"
echo 0 > "$cs/cpuset.sched_load_balance"
mask="$(cat "$tr/tracing_cpumask")"
clock="$(sed -e 's/.*\[\(.*\)\].*/\1/' "$tr/trace_clock")"
restore() {
  echo 0 > "$tr/tracing_on"
  for e in $events; do echo 0 > "$tr/events/sched/$e/enable"; done
  echo "$mask" > "$tr/tracing_cpumask"
  echo "$clock" > "$tr/trace_clock"
  echo 1 > "$cs/cpuset.sched_load_balance"
  rmdir "$cs/akita_dl" "$cs/akita_rest" 2>/dev/null || true
}
trap restore EXIT
echo 0 > "$tr/tracing_on"
echo > "$tr/trace"
echo 2 > "$tr/tracing_cpumask"
echo mono > "$tr/trace_clock"
echo 4096 > "$tr/buffer_size_kb"
for e in $events; do echo 1 > "$tr/events/sched/$e/enable"; done
run() {  # NAME RUNTIME DEADLINE PERIOD WORK JOBS (us), inside the cpuset
  sh -c "echo \$\$ > $cs/akita_dl/tasks; exec $bin $*" &
}
start="$(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC) + 200_000_000)')"
run dl_a 2000 10000 10000 1500 40 "$start"
run dl_b 3000 20000 20000 2500 20 "$start"
run dl_c 5000 40000 40000 "$work_c" 10 "$start"
sleep 0.1  # the tasks are SCHED_DEADLINE by now, asleep until T0
echo 1 > "$tr/tracing_on"
wait
echo 0 > "$tr/tracing_on"
t0="$((start / 1000000000)).$(printf %09d $((start % 1000000000)))"
{ echo "# $(uname -sr), recorded $(date -u +%Y-%m-%dT%H:%MZ) by $(basename "$0"); T0 = $t0"
  cat "$tr/trace"; } > "$out"
