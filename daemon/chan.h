/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_CHAN_H
#define P256SIGND_CHAN_H

#include <event2/event.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * A non-blocking channel on the event loop: a socket with its readable event, its writable event
 * (armed only while output is stuck), and input and output evbuffers. Client connections, the
 * signers and the key-holder channel are all one of these. Reading and writing go straight to
 * the socket (one read per readiness, one writev per flush) rather than through a bufferevent,
 * which would add an ioctl per read and two epoll_ctl calls per reply.
 */

struct event_base;
struct event;
struct evbuffer;

struct chan {
	int fd;				/* -1 once closed */
	struct event *rev, *wev;
	struct evbuffer *in, *out;
};

/*
 * Makes fd non-blocking and sets c up around it: read_cb when readable (persistent, added now),
 * write_cb when writable (while chan_flush leaves bytes), both with arg. On failure c is left
 * closed but fd is not: the caller still owns it. 0 or -1.
 */
int chan_open(struct chan *c, struct event_base *base, int fd, event_callback_fn read_cb,
	event_callback_fn write_cb, void *arg);

/* One read(2) of at most max bytes into c->in: bytes read, 0 at end of file, -1 with errno. */
ssize_t chan_read(struct chan *c, size_t max);

/*
 * Writes what the socket takes of c->out; arms the write event for the rest, disarms it when
 * all is written. The bytes left, or -1 on a socket error or when the event cannot be armed.
 */
ssize_t chan_flush(struct chan *c);

/* Stops reading (the write event stays as it is). 0 or -1. */
int chan_pause(struct chan *c);

/* Reads again after chan_pause. 0 or -1. */
int chan_resume(struct chan *c);

/* Frees the events and closes the socket, keeping the buffers (a reply may still be queued to a
 * connection whose socket is gone); safe on a closed channel. */
void chan_close_socket(struct chan *c);

/* chan_close_socket, and frees the buffers; safe on a closed or zeroed channel. */
void chan_close(struct chan *c);

#endif
