/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_LOG_H
#define P256SIGND_LOG_H

/*
 * Logging to stderr, which systemd sends to the journal: daemon messages, written at once. What
 * each request did is the audit log's (audit.h).
 */

/* A daemon message: "p256signd: error: ..." and a newline. */
__attribute__((format(printf, 1, 2))) void log_error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void log_info(const char *fmt, ...);

#endif
