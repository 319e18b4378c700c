/* SPDX-License-Identifier: ISC */
#ifndef LIBP256SIGN_PRIVATE_H
#define LIBP256SIGN_PRIVATE_H

/* The handle's layout and the functions the library's files share; nothing here is exported. */

#include <stdint.h>
#include <sys/types.h>
#include <sys/un.h>

#include "p256sign.h"
#include "proto.h"

/* A byte queue: bytes [head, len) of data are waiting. */
struct buf {
	uint8_t *data;
	size_t head;
	size_t len;
	size_t cap;
};

/* A request written (or queued) on the current connection and not answered yet. */
struct pending {
	uint32_t id;
	uint8_t op;		/* enum p256sign_op */
	uint8_t format;		/* SIGN, SIGN_MESSAGE: the format asked for */
	uint64_t start;		/* offset of its frame in the connection's outgoing stream */
	int64_t deadline;	/* CLOCK_MONOTONIC microseconds: a timeout never fires early */
};

struct p256sign {
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int fd;			/* -1 when not connected */
	unsigned long forks;	/* the process's fork count when fd was opened (conn.c) */
	int timeout_ms;
	uint32_t next_id;
	int retry_budget;	/* transparent reconnections left for the current submission */
	struct buf out;		/* frames not yet written */
	uint64_t written;	/* bytes written on this connection; out.head is stream offset `written` */
	struct buf in;		/* bytes read but not yet decoded */
	struct pending *pending; /* in submission order */
	size_t n_pending;
	size_t cap_pending;
	struct p256sign_result *ready; /* results not yet collected, oldest at ready_head */
	size_t ready_head;
	size_t n_ready;		/* index one past the newest */
	size_t cap_ready;
};

/*
 * The files below call only downwards: async.c (and blocking.c, submit.c) -> frames.c -> conn.c
 * -> queue.c, and submit.c -> tls.c. Each file's functions carry its name as prefix; none is
 * exported.
 */

/* ---- libp256sign-queue.c: buffers, pending requests, ready results ---- */

/* Makes sure b has room for `more` bytes after b->len. 0 or P256SIGN_E_NOMEM. */
int queue_buf_reserve(struct buf *b, size_t more);

/* Frees a buffer's bytes and zeroes it. */
void queue_buf_free(struct buf *b);

/* Queues a result; on allocation failure the result's json is freed and P256SIGN_E_NOMEM
 * returned. */
int queue_push_result(struct p256sign *h, struct p256sign_result *res);

/* Removes pending request i, keeping submission order. */
void queue_remove_pending(struct p256sign *h, size_t i);

/* Completes pending request i with an error result and removes it. */
int queue_fail_pending(struct p256sign *h, size_t i, int err);

/* ---- libp256sign-conn.c: the connection ---- */

/* CLOCK_MONOTONIC now, in microseconds. */
int64_t conn_now_us(void);

/*
 * Makes the handle usable by the calling process: in a forked child it drops the parent's
 * connection (closing the inherited descriptor without writing) and every request and result.
 */
void conn_fork_check(struct p256sign *h);

/* Connects when the handle has no connection. 0, P256SIGN_E_CONNECT or P256SIGN_E_IO (errno
 * kept). */
int conn_ensure_connected(struct p256sign *h);

/* Closes the connection (if any) and empties the buffers; pending requests are left to the
 * caller. */
void conn_disconnect(struct p256sign *h);

/*
 * The connection broke or must be abandoned: requests already (partly) written fail with err;
 * those not written at all are sent on a new connection when `may_retry` and the retry budget
 * allow, else fail with err too.
 */
void conn_failed(struct p256sign *h, int err, int may_retry);

/* ---- libp256sign-frames.c: writing requests, reading responses ---- */

/* Writes queued bytes until the socket would block; failures become failed results. */
int frames_flush(struct p256sign *h);

/* Reads and decodes every response available without blocking; failures become failed results. */
int frames_read(struct p256sign *h);

/* Fails every outstanding request whose deadline has passed (closing the connection). */
int frames_expire(struct p256sign *h);

/* Encodes req (its header id and version set here) as a new pending request and starts
 * writing it. */
int frames_submit(struct p256sign *h, struct proto_request *req, uint32_t *id);

/* ---- libp256sign-tls.c: TLS handshake parts ---- */

/* The wire form of a handshake's parts, checked as the daemon will check it. 0 or
 * P256SIGN_E_INVALID. */
int tls_to_proto(struct proto_tls *t, const struct p256sign_tls *tls);

/* ---- libp256sign-async.c: waiting ---- */

/* p256sign_wait for a caller that has just made the fork check (a blocking call's submit). */
int async_wait_checked(struct p256sign *h, uint32_t id, struct p256sign_result *res);

#endif
