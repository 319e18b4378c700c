/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_BUSYPOLL_H
#define P256SIGND_BUSYPOLL_H

#include <event2/event.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Polling for a moment before sleeping (config "busy_poll_us"), only when it pays. Waking a
 * process that sleeps costs a task switch and, when its CPU has gone idle, an inter-processor
 * interrupt; on a virtual machine also the hypervisor's resumption of that vCPU, tens of
 * microseconds (docs/performance.md). A process that keeps polling finds the next piece of work
 * without being woken, but polling costs CPU for as long as it lasts: it is worth it only when
 * the next piece comes within the poll. So each process learns how long it stays idle between
 * pieces of work (a moving average of its idle gaps, each counted at most twice poll_us) and
 * polls only while that average is within poll_us, or (the parent) while a signer's answer is
 * expected within it. At one request a millisecond it sleeps at once; under load, or with a
 * client that sends its next request as soon as it has the answer, it polls as before. Every
 * poll yields the CPU first (sched_yield), so another runnable process on the same CPU is not
 * held up by the polling one. poll_us = 0 sleeps at once.
 */

/* The idle gaps seen so far: what decides whether polling pays. */
struct busypoll {
	unsigned poll_us;
	uint64_t gap_us;		/* moving average of the idle gaps, in [0, 2 poll_us] */
	uint64_t idle_since_us;		/* when the idle gap being measured began, or 0 */
};

/* No gap seen yet: the first ones are slept through (poll_us 0: always). */
void busypoll_init(struct busypoll *bp, unsigned poll_us);

/* The process goes idle at now, with nothing else expected (the gap counts from here). */
void busypoll_idle(struct busypoll *bp, uint64_t now);

/* Work arrived at now: the gap since busypoll_idle, if one was begun, joins the average. */
void busypoll_woke(struct busypoll *bp, uint64_t now);

/* 1 when the idle gaps seen say the next work comes within poll_us. */
int busypoll_pays(const struct busypoll *bp);

/*
 * due: the microseconds until an answer the process waits for is expected (0: due already), or
 * UINT64_MAX when it waits for none: the parent's signers (signers_answer_due_us).
 * saturated: 1 when the processes that answer have more work than they can take at once
 * (signers_saturated): the answers then come without polling, and a poll would take a CPU from
 * them (docs/performance.md, "Polling at 64 connections").
 */
struct busypoll_hooks {
	uint64_t (*due)(void *arg, uint64_t now);
	int (*saturated)(void *arg);
	/* Called after each turn in which *activity changed (the parent's status updates). */
	void (*worked)(void *arg);
	void *arg;
};

/*
 * The parent's event loop: runs base until event_base_loopexit or event_base_loopbreak. After
 * each turn in which *activity changed (the callbacks count their work there), it runs
 * non-blocking turns for up to poll_us since the last such work, if an answer is due within
 * poll_us (hooks->due) and those who answer are not saturated (hooks->saturated), or the
 * clients' idle gaps say their next request comes within it; otherwise it sleeps in the next
 * blocking turn. Returns 0, or -1 when libevent fails.
 */
int busypoll_loop(struct event_base *base, unsigned poll_us, const uint64_t *activity,
	const struct busypoll_hooks *hooks);

/* A signer's read(2) of fd (a blocking socket): polls it for up to bp->poll_us first when its
 * idle gaps say the next request comes within that, then blocks. The caller says when it went
 * idle (busypoll_idle) after writing its answers. */
ssize_t busypoll_read(int fd, void *buf, size_t len, struct busypoll *bp);

#endif
