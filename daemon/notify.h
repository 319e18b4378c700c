/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_NOTIFY_H
#define P256SIGND_NOTIFY_H

#include <stdint.h>

/* The systemd notification protocol (sd_notify; a no-op without $NOTIFY_SOCKET). */

/* READY=1 and a first STATUS=. */
void notify_ready(const char *status);

/* STATUS=text. */
void notify_status(const char *status);

/* RELOADING=1 (READY=1 follows when the reload is done or refused). */
void notify_reloading(void);

/* STOPPING=1. */
void notify_stopping(void);

/* WATCHDOG=1. */
void notify_watchdog(void);

/* The watchdog period in microseconds when systemd asked for keep-alives for this process
 * ($WATCHDOG_USEC, $WATCHDOG_PID), else 0. */
uint64_t notify_watchdog_usec(void);

/* 1 when a notification socket is configured. */
int notify_enabled(void);

#endif
