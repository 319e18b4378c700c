/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_BUSYPOLL_H
#define P256SIGND_BUSYPOLL_H

#include <event2/event.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Polling for a moment before sleeping (config "busy_poll_us"). Waking a process that sleeps
 * costs a task switch and, when its CPU has gone idle, an inter-processor interrupt; on a virtual
 * machine also the hypervisor's resumption of that vCPU, tens of microseconds
 * (docs/performance.md). A process that keeps polling for a short while after its last piece of
 * work finds the next one without being woken. Every poll yields the CPU first (sched_yield), so
 * another runnable process on the same CPU is not held up by the polling one. poll_us = 0 sleeps
 * at once.
 */

/*
 * The parent's event loop: runs base until event_base_loopexit or event_base_loopbreak; after
 * each turn in which *activity changed (the callbacks count their work there), runs non-blocking
 * turns for up to poll_us before sleeping in the next blocking one. Returns 0, or -1 when
 * libevent fails.
 */
int busypoll_loop(struct event_base *base, unsigned poll_us, const uint64_t *activity);

/* A signer's read(2) of fd (a blocking socket): polls it for up to poll_us, then blocks. */
ssize_t busypoll_read(int fd, void *buf, size_t len, unsigned poll_us);

#endif
