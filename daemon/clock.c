/* SPDX-License-Identifier: ISC */
/* The daemon's one clock (clock.h). */
#include "clock.h"

#include <time.h>

uint64_t clock_now_us(void)
{
	struct timespec ts;

	/* Fails only for an unknown clock or a bad pointer (clock_gettime(2)): neither is possible
	 * here. */
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}
