/* akita_vcpu: one vCPU's workload as a real task (akita.linux.workloads).
 *
 * The run's start T0 and end END (CLOCK_MONOTONIC, ns) are read from stdin ("T0 END"),
 * written by the controller once every task has started, so that a slow start-up on a
 * loaded machine cannot eat into the run.
 *
 * Replays the jobs the simulator gives the vCPU (akita.reference.workloads.arrivals):
 * a binary file of little-endian int64 pairs (arrival_ns, demand_ns), arrivals counted
 * from the run's start T0 (CLOCK_MONOTONIC).  Each job waits for its arrival (an absolute
 * clock_nanosleep, timer slack 1 ns), then burns `demand` ns of this thread's own CPU time
 * (CLOCK_THREAD_CPUTIME_ID): demand is CPU time, as in the simulator, not a calibrated
 * loop count.  Jobs run in arrival order; a late job starts as soon as the one before it
 * is done (the backlog of a lookbusy that fell behind).  Each finished job's response time
 * (completion - arrival, ns) is written to OUT as a little-endian int64.
 *
 * After its last job, and after END, the task sleeps until END + LINGER_NS (an idle vCPU
 * stays a task, and its CPU time can still be read after the end).
 * With JOBS = "-" the task is CPU-bound: it waits for T0 + START and spins until END.
 *
 * usage: akita_vcpu JOBS OUT START_NS LINGER_NS   (stdin: T0_NS END_NS)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>

static int64_t now(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until(int64_t t) {
    struct timespec ts = {.tv_sec = t / 1000000000LL, .tv_nsec = t % 1000000000LL};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
    }
}

/* Burn `demand` ns of this thread's CPU time, or stop at `end`; 1 if the demand was met. */
static int burn(int64_t demand, int64_t end) {
    int64_t start = now(CLOCK_THREAD_CPUTIME_ID);
    for (unsigned n = 0;; n++) {
        if (now(CLOCK_THREAD_CPUTIME_ID) - start >= demand) return 1;
        if ((n & 63) == 0 && now(CLOCK_MONOTONIC) >= end) return 0;
    }
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: akita_vcpu JOBS OUT START_NS LINGER_NS (stdin: T0_NS END_NS)\n");
        return 2;
    }
    int64_t start = atoll(argv[3]), linger = atoll(argv[4]);
    long long t0_, end_;
    FILE *jobs = NULL, *out = NULL;
    if (strcmp(argv[1], "-") != 0) {
        jobs = fopen(argv[1], "rb");
        out = fopen(argv[2], "wb");
        if (!jobs || !out) {
            perror("akita_vcpu: open");
            return 2;
        }
    }
    if (scanf("%lld %lld", &t0_, &end_) != 2) {
        fprintf(stderr, "akita_vcpu: no T0 END on stdin\n");
        return 2;
    }
    int64_t t0 = t0_, end = end_;
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    if (jobs == NULL) {
        sleep_until(t0 + start);
        burn(INT64_MAX, end);
        sleep_until(end + linger);
        return 0;
    }
    int64_t job[2];
    while (fread(job, sizeof job[0], 2, jobs) == 2) {
        int64_t arrival = t0 + job[0];
        if (arrival >= end) break;
        if (now(CLOCK_MONOTONIC) < arrival) sleep_until(arrival);
        if (!burn(job[1], end)) break;
        int64_t response = now(CLOCK_MONOTONIC) - arrival;
        fwrite(&response, sizeof response, 1, out);
        fflush(out); /* kept even if the task is killed at the end */
    }
    fclose(out);
    sleep_until(end + linger); /* no jobs left: the vCPU idles */
    return 0;
}
