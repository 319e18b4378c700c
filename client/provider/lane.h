/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_PROVIDER_LANE_H
#define P256SIGN_PROVIDER_LANE_H

/*
 * A lane: one daemon connection that the OpenSSL ASYNC jobs of one thread share, with a reader
 * thread that hands each answer to the job waiting for it (lane.c). Opened by the thread's
 * session (session.c), used by the jobs (async.c).
 */
#include <stdint.h>
#include <sys/types.h>

#include "p256sign.h"
#include "sign-input.h"

/* A request in flight and the job waiting for it. */
struct waiter {
	struct waiter *next;
	uint32_t id;
	int done;			/* res is set; under the lane's lock */
	struct p256sign_result res;
	int efd;			/* the job's eventfd, written when done */
};

struct lane;

/* A new lane to the socket at path ("" for libp256sign's default) and its reader thread, with
 * one reference, its thread's. NULL: no memory, no eventfd or no thread. */
struct lane *lane_start(const char *path);

/*
 * Its thread's exit (no job of the thread is running): stops the reader, closes the connection
 * and fails the requests still waiting, then drops the thread's reference.
 */
void lane_stop(struct lane *l);

/* Drops one reference to l (the lock not held); the last frees it. */
void lane_unref(struct lane *l);

/* The process that started l: a lane of another one (a parent's, after fork) is not ours. */
pid_t lane_pid(const struct lane *l);

/*
 * Queues the request for `in` (SIGN or SIGN_TLS, DER) on the lane, connecting first if need be;
 * w (its efd set) then waits on the lane's list and holds a reference to the lane. 0 or a
 * P256SIGN_E_* code.
 */
int lane_submit(struct lane *l, struct waiter *w, const struct p256sign_key *sel,
	const struct sign_input *in, int timeout_ms);

/* 1 when w's answer has come (w is then off the lane's list), else 0. */
int lane_take(struct lane *l, struct waiter *w);

/* Takes w off the lane's list: an answer that comes later is dropped. */
void lane_withdraw(struct lane *l, struct waiter *w);

/* Consumes the wake-ups written to an eventfd. */
void lane_drain_fd(int fd);

#endif
