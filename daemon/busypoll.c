/* SPDX-License-Identifier: ISC */
/* Polling for a moment before sleeping (busypoll.h). */
#include "busypoll.h"

#include <errno.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"

static int stopped(struct event_base *base)
{
	return event_base_got_exit(base) || event_base_got_break(base);
}

int busypoll_loop(struct event_base *base, unsigned poll_us, const uint64_t *activity)
{
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
		while (clock_now_us() - since < poll_us) {
			(void)sched_yield();	/* always succeeds on Linux */
			if (event_base_loop(base, EVLOOP_NONBLOCK) < 0)
				return -1;
			if (stopped(base))
				return 0;
			if (*activity != seen) {
				seen = *activity;
				since = clock_now_us();
			}
		}
	}
}

ssize_t busypoll_read(int fd, void *buf, size_t len, unsigned poll_us)
{
	uint64_t since = clock_now_us();

	while (clock_now_us() - since < poll_us) {
		ssize_t n = recv(fd, buf, len, MSG_DONTWAIT);

		if (n >= 0 || (errno != EAGAIN && errno != EINTR))
			return n;
		(void)sched_yield();
	}
	return read(fd, buf, len);
}
