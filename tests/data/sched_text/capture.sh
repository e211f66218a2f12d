#!/bin/sh
# One capture of the scheduler's events in four text forms: the kernel's `trace` file and
# trace-cmd 3.1.6's `report`, `report -N` and `report -R` of the same buffer (run as root,
# from this folder; it uses a tracefs instance of its own and removes it).  The files here
# (vcpus.*.txt) were made by it on Linux 6.18.44-fc-v1045 (2 CPUs), 2026-12-01.
set -e
I=/sys/kernel/tracing/instances/akftext
mkdir -p $I
for e in sched_switch sched_wakeup sched_wakeup_new sched_migrate_task; do
  echo 1 > $I/events/sched/$e/enable
done
echo 0 > $I/tracing_on
echo > $I/trace
python3 -S vcpus.py $I/tracing_on  # turns tracing on and off around its threads
cat $I/trace > vcpus.kernel.txt
trace-cmd extract -B akftext -o /tmp/vcpus.dat > /dev/null
trace-cmd report -i /tmp/vcpus.dat > vcpus.report.txt
trace-cmd report -N -i /tmp/vcpus.dat > vcpus.reportN.txt
trace-cmd report -R -i /tmp/vcpus.dat > vcpus.reportR.txt
[ -d $I ] && rmdir $I || true
