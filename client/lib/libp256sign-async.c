/* SPDX-License-Identifier: ISC */
/*
 * The non-blocking API's event-loop side, p256sign_poll_result, and p256sign_wait on which the
 * blocking calls rest.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <string.h>

#include "libp256sign-private.h"

int p256sign_fd(const struct p256sign *h)
{
	return h->fd;
}

int p256sign_want_write(const struct p256sign *h)
{
	return h->fd >= 0 && h->out.head < h->out.len;
}

int p256sign_next_timeout(const struct p256sign *h)
{
	int64_t first, now;

	if (h->n_pending == 0)
		return -1;
	first = h->pending[0].deadline;
	for (size_t i = 1; i < h->n_pending; i++)
		if (h->pending[i].deadline < first)
			first = h->pending[i].deadline;
	now = conn_now_us();
	if (first <= now)
		return 0;
	/* Rounded up, so that a poll for this long never wakes before the deadline. */
	return (first - now + 999) / 1000 > INT_MAX ? INT_MAX : (int)((first - now + 999) / 1000);
}

/* p256sign_process without the fork check (done once per public call). */
static int process(struct p256sign *h)
{
	int r;

	if ((r = frames_flush(h)) != 0 || (r = frames_read(h)) != 0 ||
	    (r = frames_expire(h)) != 0)
		return r;
	return (int)(h->n_ready - h->ready_head);
}

int p256sign_process(struct p256sign *h)
{
	conn_fork_check(h);
	return process(h);
}

int p256sign_next_result(struct p256sign *h, struct p256sign_result *res)
{
	conn_fork_check(h);
	if (h->ready_head == h->n_ready)
		return P256SIGN_E_AGAIN;
	*res = h->ready[h->ready_head++];
	if (h->ready_head == h->n_ready)
		h->ready_head = h->n_ready = 0;
	return 0;
}

/* Moves the ready result of request id into *res: 1 when found, else 0. */
static int take_result(struct p256sign *h, uint32_t id, struct p256sign_result *res)
{
	for (size_t i = h->ready_head; i < h->n_ready; i++) {
		if (h->ready[i].id != id)
			continue;
		*res = h->ready[i];
		memmove(h->ready + i, h->ready + i + 1, (h->n_ready - i - 1) * sizeof(*h->ready));
		h->n_ready--;
		if (h->ready_head == h->n_ready)
			h->ready_head = h->n_ready = 0;
		return 1;
	}
	return 0;
}

static int is_pending(const struct p256sign *h, uint32_t id)
{
	for (size_t i = 0; i < h->n_pending; i++)
		if (h->pending[i].id == id)
			return 1;
	return 0;
}

int p256sign_poll_result(struct p256sign *h, uint32_t id, struct p256sign_result *res)
{
	int r;

	conn_fork_check(h);
	memset(res, 0, sizeof(*res));
	if ((r = process(h)) < 0)
		return r;
	if (take_result(h, id, res))
		return res->error;
	return is_pending(h, id) ? P256SIGN_E_AGAIN : P256SIGN_E_INVALID;
}

int p256sign_wait(struct p256sign *h, uint32_t id, struct p256sign_result *res)
{
	conn_fork_check(h);
	return async_wait_checked(h, id, res);
}

int async_wait_checked(struct p256sign *h, uint32_t id, struct p256sign_result *res)
{
	struct pollfd pfd;
	int r;

	memset(res, 0, sizeof(*res));
	for (;;) {
		if (take_result(h, id, res))
			return res->error;
		if (!is_pending(h, id))
			return P256SIGN_E_INVALID;
		if (h->fd < 0)	/* cannot happen: a lost connection fails its requests */
			return P256SIGN_E_CLOSED;
		/* Wait first: the request was just written, or the last pass read all there was. */
		pfd = (struct pollfd){ .fd = h->fd, .events = POLLIN };
		if (p256sign_want_write(h))
			pfd.events |= POLLOUT;
		if (poll(&pfd, 1, p256sign_next_timeout(h)) < 0 && errno != EINTR)
			return P256SIGN_E_IO;
		if ((r = process(h)) < 0)
			return r;
	}
}
