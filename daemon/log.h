/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_LOG_H
#define P256SIGND_LOG_H

#include <stddef.h>
#include <stdint.h>

/*
 * Logging to stderr, which systemd sends to the journal, without ever waiting for its reader:
 * every line goes into one bounded buffer (64 KiB) and is written as far as stderr takes it
 * without blocking; the rest waits for stderr to be writable (log_attach). When the buffer is
 * full the line is dropped and counted (log_dropped), and once the reader has caught up the
 * log says "p256signd: N log lines dropped". What each request did is the audit log's
 * (audit.h); with no audit configured and no journal, its records come here too (log_lines).
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

/* Queues whole lines (each ending in a newline) as they are, dropping and counting those that do
 * not fit, and writes what stderr takes now. */
void log_lines(const char *lines, size_t len);

/* Writes what stderr takes now of the buffered lines, without blocking. */
void log_flush(void);

#endif
