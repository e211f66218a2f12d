# Sourced (not run) by record_sched_deadline.sh, record_dl_scenario.sh and
# record_instance_tracedat.sh: the
# setup both record under (tests/data/README.md).
#
# Before sourcing, the script sets `here` (its folder), `name` (a unique name:
# the tracefs instance's and its cpusets' prefix) and `buffer_kb` (the
# instance's buffer per CPU).  This builds periodic.c into `$bin` (in `$tmp`);
# makes a tracefs instance `$inst` (sched_switch, sched_wakeup,
# sched_wakeup_new, sched_migrate_task; CPU 1 only; clock mono; tracing off),
# never the top buffer; an exclusive cpuset `${name}_dl` on CPU 1 and
# `${name}_rest` on CPU 0, with the root's load balancing off, so that Linux's
# deadline scheduler partitions the tasks onto CPU 1; and removes all of it,
# and restores the load balancing, on every exit path (`trap restore EXIT`).
# `run_at_t0` starts the trace, waits for the tasks the script started, and
# stops it; `t0_text START_NS` prints T0 in seconds.
tmp="$(mktemp -d)"
bin="$tmp/periodic"
gcc -O2 -Wall -o "$bin" "$here/periodic.c"
tr=/sys/kernel/tracing
cs=/sys/fs/cgroup/cpuset
mountpoint -q "$tr" || mount -t tracefs nodev "$tr"
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
echo "$buffer_kb" > "$inst/buffer_size_kb"
for e in $events; do echo 1 > "$inst/events/sched/$e/enable"; done

run_at_t0() {
  sleep 0.1  # the tasks are SCHED_DEADLINE by now, asleep until T0
  echo 1 > "$inst/tracing_on"
  wait
  echo 0 > "$inst/tracing_on"
}

t0_text() {
  echo "$(($1 / 1000000000)).$(printf %09d $(($1 % 1000000000)))"
}
