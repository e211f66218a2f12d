/*
 * cpu_time.h: the clock reading and the CPU burning of the test programs
 * (standin.c, vcpu_thread.c and tests/data/record/periodic.c), in one place.
 */
#ifndef AKITA_CPU_TIME_H
#define AKITA_CPU_TIME_H

#include <stdint.h>
#include <time.h>

/* CLOCK's reading in ns. */
static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Burn NS of this thread's own CPU time, so that preemption does not shorten the work. */
static void burn(uint64_t ns)
{
	uint64_t start = now_ns(CLOCK_THREAD_CPUTIME_ID);
	while (now_ns(CLOCK_THREAD_CPUTIME_ID) - start < ns)
		;
}

#endif
