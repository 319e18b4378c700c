/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_LOG_H
#define P256SIGND_LOG_H

#include <stdint.h>
#include <sys/socket.h>

/*
 * Logging to stderr, which systemd sends to the journal. Daemon messages are written at once;
 * request lines (one per request) are collected and written in batches, so that logging costs
 * one write per batch rather than per request. Messages flush pending request lines first, so
 * the order is kept.
 */

/* A daemon message: "p256signd: error: ..." and a newline. */
__attribute__((format(printf, 1, 2))) void log_error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void log_info(const char *fmt, ...);

/* What is logged about one request. */
struct log_request {
	const struct ucred *peer;	/* SO_PEERCRED of the connection, taken at accept */
	unsigned long conn;		/* connection number, counted from 1 */
	uint32_t id;			/* the client's request id */
	const char *type;		/* "sign", "ping", ... */
	const char *key;		/* key name, or "-" */
	const char *result;		/* "ok" or the error tag */
	unsigned long long us;		/* from the frame's arrival to the response */
};

/*
 * Queues one request line: "req pid=P uid=U gid=G conn=C id=I type=T key=K result=R us=N".
 * Returns 1 when the queue was empty before (the caller should arrange a log_flush soon),
 * else 0. Flushes by itself when the queue fills.
 */
int log_request(const struct log_request *r);

/* Writes the queued request lines. */
void log_flush(void);

#endif
