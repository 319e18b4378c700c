/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_PROVIDER_SESSION_H
#define P256SIGN_PROVIDER_SESSION_H

/*
 * Sessions (session.c): what a thread holds for one daemon socket, opened on first use and
 * closed when the thread exits. A session has a libp256sign handle for the blocking calls and a
 * lane (lane.h) for the requests of OpenSSL ASYNC jobs.
 */
#include "lane.h"
#include "p256sign.h"

/* A call on a session's handle: a libp256sign call, returning 0 or its P256SIGN_E_* code. */
typedef int session_fn(struct p256sign *h, void *arg);

/*
 * Runs fn on the calling thread's handle for the daemon at `path`, each request with timeout_ms.
 * NULL path: libp256sign's default ($P256SIGN_SOCKET or the built-in path). A daemon that cannot
 * be reached is tried again for a short while (session.c). 0 or a P256SIGN_E_* code.
 */
int session_call(const char *path, int timeout_ms, session_fn *fn, void *arg);

/* The calling thread's lane to the daemon at path, started on first use. NULL: no memory, or
 * no reader thread could be started. */
struct lane *session_lane(const char *path);

/* Ends the calling thread's sessions: handles closed, lanes stopped (provider teardown). */
void session_release_thread(void);

#endif
