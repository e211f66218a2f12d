/*
 * vcpu_thread: a stand-in for a QEMU/KVM guest as akita linux --attach meets
 * it on a KVM host: one process, a main thread (QEMU's main loop: it wakes
 * every millisecond and does almost nothing) and a vCPU thread named
 * "CPU 0/KVM", as QEMU names its vCPU threads, that runs standin.c's work.
 *
 *   vcpu_thread START_NS PERIOD_NS WORK_NS [HEAVY_NS HEAVY_PERIODS LIGHT_PERIODS]
 *
 * It prints the vCPU thread's id, then the main thread's, one a line, and
 * runs until killed.  Only the vCPU thread is given to the controller; the
 * main thread is the process's other thread that it must leave alone.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpu_time.h"

static uint64_t start, period, work, heavy, heavy_n, light_n = 1;
static long vcpu_tid;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;

static void *vcpu(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "CPU 0/KVM");
	pthread_mutex_lock(&lock);
	vcpu_tid = (long)syscall(SYS_gettid);
	pthread_cond_signal(&ready);
	pthread_mutex_unlock(&lock);
	for (uint64_t k = 0;; k++) {
		uint64_t s = start + k * period;
		struct timespec ts = { .tv_sec = s / 1000000000ull, .tv_nsec = s % 1000000000ull };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		burn(k % (heavy_n + light_n) < heavy_n ? heavy : work);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 7) {
		fprintf(stderr, "usage: %s START_NS PERIOD_NS WORK_NS "
			"[HEAVY_NS HEAVY_PERIODS LIGHT_PERIODS]\n", argv[0]);
		return 2;
	}
	start = strtoull(argv[1], NULL, 10);
	period = strtoull(argv[2], NULL, 10);
	work = heavy = strtoull(argv[3], NULL, 10);
	if (argc == 7) {
		heavy = strtoull(argv[4], NULL, 10);
		heavy_n = strtoull(argv[5], NULL, 10);
		light_n = strtoull(argv[6], NULL, 10);
	}
	pthread_t thread;
	if (pthread_create(&thread, NULL, vcpu, NULL) != 0)
		return 1;
	pthread_mutex_lock(&lock);
	while (vcpu_tid == 0)
		pthread_cond_wait(&ready, &lock);
	pthread_mutex_unlock(&lock);
	printf("%ld\n%ld\n", vcpu_tid, (long)syscall(SYS_gettid));
	fflush(stdout);
	for (;;) {
		struct timespec ms = { .tv_sec = 0, .tv_nsec = 1000000 };
		nanosleep(&ms, NULL);
	}
}
