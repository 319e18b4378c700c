/* SPDX-License-Identifier: ISC */
/* A non-blocking socket with its events and buffers (chan.h). */
#include "chan.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <string.h>
#include <unistd.h>


int chan_open(struct chan *c, struct event_base *base, int fd, event_callback_fn read_cb,
	event_callback_fn write_cb, void *arg)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	if (evutil_make_socket_nonblocking(fd) != 0 ||
	    (c->rev = event_new(base, fd, EV_READ | EV_PERSIST, read_cb, arg)) == NULL ||
	    (c->wev = event_new(base, fd, EV_WRITE | EV_PERSIST, write_cb, arg)) == NULL ||
	    (c->in = evbuffer_new()) == NULL || (c->out = evbuffer_new()) == NULL ||
	    event_add(c->rev, NULL) != 0) {
		chan_close(c);
		return -1;
	}
	c->fd = fd;
	return 0;
}

ssize_t chan_read(struct chan *c, size_t max)
{
	struct evbuffer_iovec v;
	ssize_t n;

	/* Not evbuffer_read, which asks the kernel for FIONREAD first: an ioctl per request. */
	if (evbuffer_reserve_space(c->in, (ev_ssize_t)max, &v, 1) != 1) {
		errno = ENOMEM;
		return -1;
	}
	n = read(c->fd, v.iov_base, max);
	v.iov_len = n > 0 ? (size_t)n : 0;
	if (evbuffer_commit_space(c->in, &v, 1) != 0) {
		errno = ENOMEM;
		return -1;
	}
	return n;
}

ssize_t chan_flush(struct chan *c)
{
	size_t left = evbuffer_get_length(c->out);

	if (left == 0)
		return 0;
	if (evbuffer_write(c->out, c->fd) < 0 && errno != EAGAIN && errno != EINTR)
		return -1;
	if ((left = evbuffer_get_length(c->out)) == 0)
		event_del(c->wev);
	else if (event_add(c->wev, NULL) != 0)
		return -1;
	return (ssize_t)left;
}

int chan_pause(struct chan *c)
{
	return event_del(c->rev);
}

int chan_resume(struct chan *c)
{
	return event_add(c->rev, NULL);
}

void chan_close_socket(struct chan *c)
{
	if (c->rev != NULL)
		event_free(c->rev);
	if (c->wev != NULL)
		event_free(c->wev);
	c->rev = c->wev = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

void chan_close(struct chan *c)
{
	chan_close_socket(c);
	if (c->in != NULL)
		evbuffer_free(c->in);
	if (c->out != NULL)
		evbuffer_free(c->out);
	c->in = c->out = NULL;
}
