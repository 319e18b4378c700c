/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_POOL_H
#define P256SIGND_POOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "keys.h"

/*
 * The parent's side of the workers: spawning them, sending them signing requests (least
 * outstanding first), matching each reply to its request by id, start-up self-test, watchdog
 * pings, request timeouts and worker deaths. Requests to a worker go out in batches: they are
 * queued and written together (one writev) at the end of the event loop's turn.
 */

struct event_base;
struct event;
struct worker;

struct pool_callbacks {
	/* A signing request finished: error is 0 (sig holds r||s) or a PROTO_E_* code. */
	void (*signed_cb)(void *ctx, uint16_t error, const uint8_t sig[P256_SIG_LEN]);
	/* Every worker answered the self-test (ok = 1), or one failed it or died (ok = 0). */
	void (*selftest_cb)(void *arg, int ok);
	/* The number of workers alive changed, or a request was answered after the pool emptied. */
	void (*changed_cb)(void *arg);
};

struct pool {
	struct event *flush_ev;		/* writes the queued requests at the end of a loop turn */
	struct worker *w;
	unsigned n;			/* workers started */
	unsigned alive;
	size_t inflight;		/* signing requests sent and not yet answered */
	size_t max_inflight;
	uint64_t next_id;
	unsigned selftest_left;
	int selftest_failed;
	const struct pool_callbacks *cb;
	void *arg;
};

/*
 * Forks n workers, each with its own socketpair and a copy of kt (private keys included), before
 * the event loop exists. max_inflight bounds signing requests in flight over all workers.
 * Returns 0, or -1 (logged) after stopping any worker already started.
 */
int pool_spawn(struct pool *p, unsigned n, size_t max_inflight, unsigned poll_us,
	struct keytab *kt);

/* Puts the workers' sockets on the event loop; cb->... get arg (signed_cb gets each request's
 * ctx). Returns 0 or -1. */
int pool_attach(struct pool *p, struct event_base *base, const struct pool_callbacks *cb,
	void *arg);

/*
 * Queues a signature of digest by key index `key` on the least busy worker alive. ctx comes back
 * in signed_cb exactly once (with the signature, or an error such as a timeout). Returns 0,
 * -PROTO_E_OVERLOADED when max_inflight requests are in flight, -PROTO_E_INTERNAL when no worker
 * is alive.
 */
int pool_sign(struct pool *p, uint32_t key, const uint8_t digest[P256_DIGEST_LEN], void *ctx);

/* Sends every worker the start-up self-test; selftest_cb reports the outcome. */
void pool_selftest(struct pool *p);

/*
 * Watchdog tick: returns 1 when every worker started is alive and answered the previous tick's
 * ping, else 0; then pings every worker alive.
 */
int pool_watchdog(struct pool *p);

/* Answers, with PROTO_E_TIMEOUT, every request sent more than timeout_ms ago. */
void pool_expire(struct pool *p, unsigned timeout_ms);

/* Answers every signing request still in flight with `error` (at exit, when the stop timed out). */
void pool_cancel(struct pool *p, uint16_t error);

/* Collects exited workers (call on SIGCHLD); a worker that exits is handled as dead. */
void pool_reap(struct pool *p);

/* Closes every socketpair (workers exit on end of file), waits for the workers, frees p. */
void pool_close(struct pool *p);

#endif
