/*
 * standin: a stand-in for a guest's vCPU, as a plain SCHED_OTHER thread that
 * the controller under test attaches to (akita linux --attach VM/0=TID).
 *
 *   standin NAME START_NS PERIOD_NS WORK_NS [HEAVY_NS HEAVY_PERIODS LIGHT_PERIODS]
 *
 * From START_NS on CLOCK_MONOTONIC, it wakes at every period start and burns
 * WORK_NS of its own CPU time, then sleeps until the next period start
 * (absolute deadlines, so its wakeups fall on its period grid).  With the
 * last three arguments the work alternates: HEAVY_NS for HEAVY_PERIODS
 * periods, then WORK_NS for LIGHT_PERIODS periods (a HI VM that sometimes
 * asks for its pessimistic budget and sometimes cools down).  WORK_NS >=
 * PERIOD_NS makes it a CPU hog that never sleeps.  It prints its thread id
 * and runs until killed.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpu_time.h"

int main(int argc, char **argv)
{
	if (argc != 5 && argc != 8) {
		fprintf(stderr, "usage: %s NAME START_NS PERIOD_NS WORK_NS "
			"[HEAVY_NS HEAVY_PERIODS LIGHT_PERIODS]\n", argv[0]);
		return 2;
	}
	prctl(PR_SET_NAME, argv[1]);
	uint64_t start = strtoull(argv[2], NULL, 10), period = strtoull(argv[3], NULL, 10);
	uint64_t work = strtoull(argv[4], NULL, 10), heavy = work;
	uint64_t heavy_n = 0, light_n = 1;
	if (argc == 8) {
		heavy = strtoull(argv[5], NULL, 10);
		heavy_n = strtoull(argv[6], NULL, 10);
		light_n = strtoull(argv[7], NULL, 10);
	}
	printf("%ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	if (work >= period)
		for (;;)
			burn(1000000000ull);
	for (uint64_t k = 0;; k++) {
		uint64_t s = start + k * period;
		struct timespec ts = { .tv_sec = s / 1000000000ull, .tv_nsec = s % 1000000000ull };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		burn(k % (heavy_n + light_n) < heavy_n ? heavy : work);
	}
}
