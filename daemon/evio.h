/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_EVIO_H
#define P256SIGND_EVIO_H

#include <stddef.h>
#include <sys/types.h>

struct evbuffer;

/*
 * One read(2) of at most max bytes from fd, appended to buf. Unlike evbuffer_read it asks the
 * kernel nothing else (no FIONREAD ioctl), which matters at one read per request. Returns the
 * bytes read, 0 at end of file, or -1 with errno (EAGAIN when there was nothing to read).
 */
ssize_t evio_read(struct evbuffer *buf, int fd, size_t max);

#endif
