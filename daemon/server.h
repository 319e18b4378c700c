/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_SERVER_H
#define P256SIGND_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include "config.h"
#include "keys.h"
#include "pool.h"
#include "proto.h"

/*
 * The parent's event loop side: the listening socket, client connections and their frames,
 * limits and timeouts, replies with their log lines, and the orderly stop. Each complete frame
 * goes to request_handle (request.h), the one function every request passes through.
 */

struct event_base;
struct event;
struct evbuffer;
struct evconnlistener;

/*
 * A client connection. Its socket is read and written directly (one read per readiness, one
 * writev per loop turn for all the replies queued to it) rather than through a bufferevent,
 * which would add an ioctl per read and two epoll_ctl calls per reply.
 */
struct conn {
	struct server *srv;
	int fd;				/* -1 once the socket is closed */
	struct event *rev, *wev;	/* readable; writable (only while replies are stuck) */
	struct evbuffer *in, *out;
	struct event *timer;		/* idle or mid-frame timeout */
	struct ucred peer;		/* SO_PEERCRED, taken at accept */
	unsigned long number;		/* counted from 1, for the log */
	unsigned inflight;		/* requests sent to a worker and not yet answered */
	int closing;			/* write what is queued, then close */
	int eof;			/* the client shut down its side: answer, then close */
	int paused;			/* reading stopped until the client reads its replies */
	int frame_timing;		/* the mid-frame timeout is armed */
	int busy;			/* its frames are being taken: closing must not free it */
	int more;			/* frames left for its next turn */
	int queued;			/* on the server's list of connections with replies to write */
	TAILQ_ENTRY(conn) link;
	TAILQ_ENTRY(conn) flush_link;
};

struct server_stats {
	uint64_t started_ms;		/* CLOCK_MONOTONIC */
	uint64_t requests;		/* replies sent, errors included */
	uint64_t signatures;		/* signatures released */
	uint64_t errors[PROTO_E_MAX + 1];
	uint64_t connections;		/* accepted in all */
};

struct server {
	struct event_base *base;
	const struct config *cfg;
	struct keytab *kt;
	struct pool *pool;
	struct evconnlistener *listener;
	struct event *expire_ev;	/* request timeouts */
	struct event *log_ev;		/* flushes batched log lines */
	struct event *stop_ev;		/* bounds the orderly stop */
	struct event *retry_ev;		/* resumes accepting after running out of descriptors */
	struct event *flush_ev;		/* writes queued replies at the end of a loop turn */
	TAILQ_HEAD(, conn) conns;
	TAILQ_HEAD(, conn) to_flush;
	unsigned nconns;
	size_t inflight;		/* over all connections */
	int stopping;
	uint64_t activity;		/* client bytes read and replies queued (busypoll.h) */
	struct server_stats stats;
};

/* Who a reply goes to and what the log line says about it. */
struct reply_to {
	struct conn *conn;
	uint32_t id;
	uint8_t type;			/* the request's type (for the log) */
	const char *key;		/* key name for the log, or NULL */
	uint64_t start_us;		/* when the frame was taken, CLOCK_MONOTONIC */
};

/*
 * Sets up the server on base around a listening socket fd (already listening; the server owns it
 * from now on). Accepting starts with server_accept. Returns 0 or -1 (logged).
 */
int server_init(struct server *s, struct event_base *base, const struct config *cfg,
	struct keytab *kt, struct pool *pool, int fd);

/* Starts accepting connections (after the workers passed their self-test). */
int server_accept(struct server *s);

/*
 * The orderly stop: stops accepting, answers new requests with shutting-down, waits for the
 * requests in flight and their replies to be written, then ends the event loop; at most
 * limits.shutdown_timeout_ms.
 */
void server_stop(struct server *s);

/* Closes every connection and frees what server_init made. */
void server_free(struct server *s);

/* Encodes and queues a reply (unless the connection is gone), counts it and logs it; an error
 * that ends the connection closes it once written. */
void server_reply(struct server *s, const struct reply_to *to, const struct proto_response *resp);

/* server_reply of the standard ERROR response with code. */
void server_reply_error(struct server *s, const struct reply_to *to, uint16_t code);

/* A request sent to a worker on behalf of c finished: drops the connection's hold on it. */
void server_request_done(struct server *s, struct conn *c);

#endif
