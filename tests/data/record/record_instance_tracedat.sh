#!/usr/bin/env bash
# Record the trace.dat of a tracefs instance of tests/data (tests/data/README.md).
#
#   sudo tests/data/record/record_instance_tracedat.sh OUT_PREFIX
#
# The three periodic SCHED_DEADLINE tasks of record_sched_deadline.sh (dl_a
# 2/10 ms, dl_b 3/20 ms, dl_c 5/40 ms; jobs of 1.5, 2.5 and 4 ms) in a cpuset of
# their own on CPU 1, recorded into a tracefs *instance* of a unique name
# (sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task; CPU 1
# only; clock mono), never the top buffer, then saved with
#   trace-cmd extract -B INSTANCE
# as OUT_PREFIX.v7.dat (file version 7, uncompressed) and OUT_PREFIX.v6.dat
# (file version 6, by trace-cmd convert): every record is in the instance's buffer.  The instance
# and the cpusets are removed on every exit path.  Needs root, tracefs,
# cgroup v1 cpuset, gcc and trace-cmd.
set -euo pipefail
out="${1:?usage: $0 OUT_PREFIX}"
here="$(cd "$(dirname "$0")" && pwd)"
name="akita_oracle_$$"
buffer_kb=1024
. "$here/instance_setup.sh"
run() {  # NAME RUNTIME DEADLINE PERIOD WORK JOBS (us), inside the cpuset
  timeout 10 sh -c "echo \$\$ > $cs/${name}_dl/tasks; exec $bin $*" &
}
start="$(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC) + 200_000_000)')"
run dl_a 2000 10000 10000 1500 20 "$start"
run dl_b 3000 20000 20000 2500 10 "$start"
run dl_c 5000 40000 40000 4000 5 "$start"
run_at_t0
t0="$(t0_text "$start")"
echo "$(uname -sr), recorded $(date -u +%Y-%m-%dT%H:%MZ) by $(basename "$0"); instance $name; T0 = $t0" > "$out.txt"
# To keep the file small, trace-cmd runs in a mount namespace of its own where
# kallsyms (5 MB) is empty and tracefs's events/ holds only the ftrace and
# sched systems' formats (all systems' take 2 MB); nothing else is changed.
mkdir -p "$tmp/events"
cp "$tr/events/header_page" "$tr/events/header_event" "$tmp/events/"
for system in ftrace sched; do
  for d in "$tr/events/$system"/*/; do
    mkdir -p "$tmp/events/$system/$(basename "$d")"
    cp "$d/format" "$tmp/events/$system/$(basename "$d")/" 2>/dev/null || true
  done
done
timeout 60 unshare -m sh -c "mount --bind /dev/null /proc/kallsyms &&
  mount --bind $tmp/events $tr/events &&
  trace-cmd extract -B $name --compression none -o $out.v7.dat" >/dev/null
timeout 60 trace-cmd convert -i "$out.v7.dat" --file-version 6 -o "$out.v6.dat" >/dev/null
