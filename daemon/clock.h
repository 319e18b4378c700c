/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_CLOCK_H
#define P256SIGND_CLOCK_H

#include <stdint.h>

/* Microseconds of CLOCK_MONOTONIC: timeouts, request latencies and uptime. */
uint64_t clock_now_us(void);

#endif
