/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_LOG_H
#define P256SIGND_LOG_H

#include <stdint.h>
#include <sys/socket.h>

/*
 * Logging to stderr, which systemd sends to the journal, without ever waiting for its reader:
 * every line goes into one bounded buffer (64 KiB) and is written as far as stderr takes it
 * without blocking; the rest waits for stderr to be writable (log_attach). When the buffer is
 * full the line is dropped and counted (log_dropped), and once the reader has caught up the
 * log says "p256signd: N log lines dropped". Daemon messages are written at once; request
 * lines (one per request) are collected and written in batches (log_flush), so that logging
 * costs one write per batch rather than per request. Order is kept: one buffer for both.
 */

struct event_base;

/*
 * Makes descriptor 2 non-blocking without touching a description shared with others (a pipe,
 * FIFO or terminal is opened again through /proc; a socket, the journal's stream, is the
 * service's own); a regular file stays as it is. Once, at start-up, before any role is forked
 * and while files may still be opened. 0 or -1.
 */
int log_init(void);

/* Writes what is left when stderr becomes writable, from base's loop. 0 or -1. */
int log_attach(struct event_base *base);

/* Frees what log_attach made (before base goes). */
void log_detach(void);

/* Lines dropped because stderr did not take them fast enough, since start-up. */
uint64_t log_dropped(void);

/* A daemon message: "p256signd: error: ..." and a newline. */
__attribute__((format(printf, 1, 2))) void log_error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void log_info(const char *fmt, ...);

/* What is logged about one request. */
struct log_request {
	const struct ucred *peer;	/* SO_PEERCRED of the connection, taken at accept */
	const char *comm;		/* its process name, "" when unknown (peer.h) */
	const char *unit;		/* its systemd unit, "" when none */
	unsigned long conn;		/* connection number, counted from 1 */
	uint32_t id;			/* the client's request id */
	const char *type;		/* "sign", "ping", ... */
	const char *key;		/* key name, or "-" */
	const char *result;		/* "ok" or the error tag */
	unsigned long long us;		/* from the frame's arrival to the response */
};

/*
 * Queues one request line: "req pid=P uid=U gid=G comm=N unit=S conn=C id=I type=T key=K
 * result=R us=N"; comm and unit "-" when unknown, other bytes than printable ASCII as '?'.
 * Returns 1 when the buffer was empty before (the caller should arrange a log_flush soon),
 * else 0. Writes by itself when the buffer fills.
 */
int log_request(const struct log_request *r);

/* Writes what stderr takes now of the buffered lines, without blocking. */
void log_flush(void);

#endif
