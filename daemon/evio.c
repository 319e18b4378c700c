/* SPDX-License-Identifier: ISC */
/* Reading sockets into evbuffers (evio.h). */
#include "evio.h"

#include <errno.h>
#include <event2/buffer.h>
#include <unistd.h>

ssize_t evio_read(struct evbuffer *buf, int fd, size_t max)
{
	struct evbuffer_iovec v;
	ssize_t n;

	if (evbuffer_reserve_space(buf, (ev_ssize_t)max, &v, 1) != 1) {
		errno = ENOMEM;
		return -1;
	}
	n = read(fd, v.iov_base, max);
	v.iov_len = n > 0 ? (size_t)n : 0;
	if (evbuffer_commit_space(buf, &v, 1) != 0) {
		errno = ENOMEM;
		return -1;
	}
	return n;
}
