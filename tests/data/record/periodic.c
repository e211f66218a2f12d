/*
 * periodic: a SCHED_DEADLINE task that runs a job of WORK_US microseconds of
 * CPU at the start of every period and sleeps until the next one (absolute
 * CLOCK_MONOTONIC deadlines, so its CBS deadlines fall on its own period grid).
 *
 *   periodic NAME RUNTIME_US DEADLINE_US PERIOD_US WORK_US JOBS START_NS
 *
 * Its first period starts at START_NS on CLOCK_MONOTONIC (the clock the
 * recording script sets as the trace clock, "mono"), so every task of a
 * recording starts in phase at a known instant.
 * Used by record_sched_deadline.sh to record the SCHED_DEADLINE capture of
 * tests/data (see tests/data/README.md).  Linux only; needs CAP_SYS_NICE.
 *
 * Two optional environment variables (unset: the behaviour above):
 *   DL_FLAGS     sched_flags for sched_setattr, e.g. 2 (SCHED_FLAG_RECLAIM: GRUB)
 *   DL_SPORADIC  if 1, a sporadic task: job k+1 is released a period plus
 *                (k mod 3) half periods after job k (0, T/2 or T late)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../linux/cpu_time.h"

struct sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

int main(int argc, char **argv)
{
	if (argc != 8) {
		fprintf(stderr, "usage: %s NAME RUNTIME_US DEADLINE_US PERIOD_US WORK_US JOBS "
			"START_NS\n", argv[0]);
		return 2;
	}
	prctl(PR_SET_NAME, argv[1], 0, 0, 0);
	uint64_t runtime = strtoull(argv[2], NULL, 10) * 1000;
	uint64_t deadline = strtoull(argv[3], NULL, 10) * 1000;
	uint64_t period = strtoull(argv[4], NULL, 10) * 1000;
	uint64_t work = strtoull(argv[5], NULL, 10) * 1000;
	long jobs = strtol(argv[6], NULL, 10);
	uint64_t next = strtoull(argv[7], NULL, 10);
	const char *flags = getenv("DL_FLAGS");
	const char *sporadic = getenv("DL_SPORADIC");
	int late = sporadic != NULL && strcmp(sporadic, "1") == 0;
	struct sched_attr attr = {
		.size = sizeof(attr), .sched_policy = SCHED_DEADLINE,
		.sched_flags = flags != NULL ? strtoull(flags, NULL, 0) : 0,
		.sched_runtime = runtime, .sched_deadline = deadline, .sched_period = period,
	};
	if (syscall(SYS_sched_setattr, 0, &attr, 0) != 0) {
		fprintf(stderr, "%s: sched_setattr: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (long k = 0; k <= jobs; k++) {
		struct timespec ts = { .tv_sec = next / 1000000000ull,
				       .tv_nsec = next % 1000000000ull };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (k == jobs)
			break;
		burn(work);
		next += period + (late ? (uint64_t)(k % 3) * (period / 2) : 0);
	}
	return 0;
}
