/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_BENCH_CLOCK_H
#define P256SIGN_BENCH_CLOCK_H

/* Wall-clock and CPU-time readings shared by the bench programs. */
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

/* Nanoseconds on CLOCK_MONOTONIC (which cannot fail on Linux with a valid pointer). */
static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Microseconds on CLOCK_MONOTONIC. */
static inline double mono_us(void)
{
	return (double)mono_ns() / 1e3;
}

/* Seconds on CLOCK_MONOTONIC. */
static inline double mono_s(void)
{
	return (double)mono_ns() / 1e9;
}

/* CPU seconds (user + system) of getrusage(who): RUSAGE_SELF or RUSAGE_CHILDREN; 0 on failure. */
static inline double rusage_cpu_s(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru) != 0)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

#endif
