/* SPDX-License-Identifier: ISC */
/* Polling for a moment before sleeping, when it pays (busypoll.h). */
#include "busypoll.h"

#include <errno.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"

/* The average's weight of a new gap: 1/4, so a change of pattern shows within a few gaps. */
#define GAP_SHIFT 2

void busypoll_init(struct busypoll *bp, unsigned poll_us)
{
	bp->poll_us = poll_us;
	bp->gap_us = 2 * (uint64_t)poll_us;
	bp->idle_since_us = 0;
}

void busypoll_idle(struct busypoll *bp, uint64_t now)
{
	bp->idle_since_us = now;
}

void busypoll_woke(struct busypoll *bp, uint64_t now)
{
	uint64_t cap = 2 * (uint64_t)bp->poll_us, gap;

	if (bp->idle_since_us == 0)
		return;
	/* A long gap counts as twice the poll: one idle second must not hide the next burst. */
	gap = now - bp->idle_since_us < cap ? now - bp->idle_since_us : cap;
	bp->gap_us = bp->gap_us - (bp->gap_us >> GAP_SHIFT) + (gap >> GAP_SHIFT);
	bp->idle_since_us = 0;
}

int busypoll_pays(const struct busypoll *bp)
{
	return bp->poll_us > 0 && bp->gap_us <= bp->poll_us;
}

static int stopped(struct event_base *base)
{
	return event_base_got_exit(base) || event_base_got_break(base);
}

/* Whether the parent polls after its last work at now: an answer due within the poll from
 * signers not saturated, or clients whose idle gaps are within it. Going idle with no answer due
 * begins a client gap. */
static int parent_polls(struct busypoll *bp, const struct busypoll_hooks *h, uint64_t now)
{
	uint64_t wait;

	h->worked(h->arg);
	wait = h->due(h->arg, now);
	if (wait != UINT64_MAX)
		return bp->poll_us > 0 && wait <= bp->poll_us && !h->saturated(h->arg);
	busypoll_idle(bp, now);
	return busypoll_pays(bp);
}

int busypoll_loop(struct event_base *base, unsigned poll_us, const uint64_t *activity,
	const struct busypoll_hooks *hooks)
{
	struct busypoll bp;

	busypoll_init(&bp, poll_us);
	for (;;) {
		uint64_t seen = *activity, since;
		int r = event_base_loop(base, EVLOOP_ONCE);

		if (r != 0)
			return r < 0 ? -1 : 0;	/* 1: no events left to wait for */
		if (stopped(base))
			return 0;
		if (*activity == seen)
			continue;
		seen = *activity;
		since = clock_now_us();
		busypoll_woke(&bp, since);
		if (!parent_polls(&bp, hooks, since))
			continue;
		/*
		 * One look per pass, a yield only after a look that found nothing. NONBLOCK alone
		 * would look a second time after running what it found: an epoll_wait for nothing
		 * when the polling ends there, as at a light load after each reply.
		 */
		for (int found = 0; clock_now_us() - since < poll_us;) {
			if (!found)
				(void)sched_yield();	/* always succeeds on Linux */
			if (event_base_loop(base, EVLOOP_NONBLOCK | EVLOOP_ONCE) < 0)
				return -1;
			if (stopped(base))
				return 0;
			found = *activity != seen;
			if (found) {
				seen = *activity;
				since = clock_now_us();
				busypoll_woke(&bp, since);
				if (!parent_polls(&bp, hooks, since))
					break;
			}
		}
	}
}

ssize_t busypoll_read(int fd, void *buf, size_t len, struct busypoll *bp)
{
	uint64_t since = clock_now_us();
	ssize_t n;

	while (busypoll_pays(bp) && clock_now_us() - since < bp->poll_us) {
		n = recv(fd, buf, len, MSG_DONTWAIT);
		if (n >= 0 || (errno != EAGAIN && errno != EINTR))
			goto out;
		(void)sched_yield();
	}
	n = read(fd, buf, len);
out:
	busypoll_woke(bp, clock_now_us());
	return n;
}
