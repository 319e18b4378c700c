/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_SIGNERS_H
#define P256SIGND_SIGNERS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "p256.h"
#include "tls.h"

/*
 * The parent's side of the signers: their channels (handed over by the key-holder), sending them
 * signing requests (least outstanding first), matching each reply to its request by id, the
 * self-test of every new signer, and the healing: a signer that dies, breaks the protocol or
 * stops answering is dropped at once, its unanswered requests are sent again, and the key-holder
 * is asked for a replacement; one silent with work for a quarter of the timeout has its requests
 * sent again at once, keeping its copies. A request sent again goes only to a fresh signer (one
 * known to answer) or waits, oldest first, for the first that is; the first answer of its copies
 * is the client's (signing is idempotent: the client receives one valid signature) and the
 * others are dropped. Requests to a signer go out in batches: queued, then written together (one
 * writev) at the end of the event loop's turn. Signers belong to a generation of the key set (1
 * at start, one more per reload); requests go to the current generation only.
 */

struct event_base;
struct signer;
struct request;

struct signers_callbacks {
	/* A signing request finished: error is 0 (sig holds r||s) or a PROTO_E_* code; from_pool
	 * is 1 when the signer took a precomputed nonce from the key's pool, else 0. */
	void (*signed_cb)(void *ctx, uint16_t error, const uint8_t sig[P256_SIG_LEN], int from_pool);
	/* Every signer of `generation` (signers_expect) has passed its self-test. */
	void (*ready_cb)(void *arg, uint32_t generation);
	/* Signers alive changed (for STATUS= and the log). */
	void (*changed_cb)(void *arg);
	/* Signer `id` must be killed and replaced (it hung or broke the protocol). */
	void (*restart_cb)(void *arg, uint32_t id);
	/* Healing is impossible (no signer for too long, or too many failed starts). */
	void (*fatal_cb)(void *arg, const char *why);
	/* The index in `to`'s key table of key `key` of generation `from`, or -1 when gone. */
	int (*remap_cb)(void *arg, uint32_t from, uint32_t key, uint32_t to);
};

struct signers_stats {
	uint64_t replaced;		/* signers that took a dead one's place */
	uint64_t resent;		/* requests sent again after their signer died */
	uint64_t hung;			/* signers dropped for not answering */
};

struct signers {
	struct event_base *base;
	struct event *flush_ev;		/* writes the queued requests at the end of a loop turn */
	struct event *tick_ev;		/* hung signers, pings, fail-fast: armed only while needed */
	unsigned tick_ms;		/* its period while armed */
	uint64_t round_trip_us;		/* moving average of the signing requests' round trips */
	struct signer *s;		/* slots; a free one has no channel */
	size_t nslots;
	unsigned want;			/* signers per generation */
	uint32_t generation;		/* requests go to this one; 0 before the first is ready */
	uint32_t starting;		/* a generation whose self-tests are being counted, or 0 */
	unsigned started;		/* its signers that passed */
	unsigned alive;			/* signers of the current generation */
	size_t inflight;		/* signing requests not yet answered, or with a copy still at
					 * a signer */
	size_t max_inflight;
	struct request *requests;	/* max_inflight slots */
	size_t *free_slots, nfree;	/* the free ones, a stack of indices */
	struct request **backlog;	/* requests waiting for a signer (none alive, or resent) */
	struct request **backlog_tmp;	/* backlog_sort's */
	size_t bl_head, bl_count;
	uint64_t next_id;
	unsigned timeout_ms;		/* worker_timeout_ms */
	unsigned failed_starts;		/* signers in a row that died before their self-test */
	uint64_t none_since_us;		/* since when no signer is alive, or 0 */
	struct signers_stats stats;
	const struct signers_callbacks *cb;
	void *arg;
};

/*
 * Sets up an empty signer set on base: `want` signers per generation, at most max_inflight signing
 * requests in flight, a signer silent for timeout_ms with requests outstanding is replaced.
 * 0 or -1 (logged).
 */
int signers_init(struct signers *p, struct event_base *base, unsigned want, size_t max_inflight,
	unsigned timeout_ms, const struct signers_callbacks *cb, void *arg);

/* Counts the self-tests of generation gen's signers; ready_cb when `want` have passed. */
void signers_expect(struct signers *p, uint32_t gen);

/* Takes a signer's channel fd (the set owns it from now) and sends it the self-test. 0, or -1
 * (logged; fd closed). */
int signers_add(struct signers *p, uint32_t gen, uint32_t id, pid_t pid, int fd);

/* The key-holder reaped signer `id`: if it was still in use, it is dropped as dead. */
void signers_exited(struct signers *p, uint32_t id, int status);

/* New requests go to generation gen; the older signers finish what they have, then close. */
void signers_switch(struct signers *p, uint32_t gen);

/*
 * Queues a signature of digest by key index `key` (of the current generation) on the least busy
 * signer; when none can take it, it waits for one. ctx comes back in signed_cb exactly once.
 * Returns 0, or -PROTO_E_OVERLOADED when max_inflight requests are in flight.
 */
int signers_sign(struct signers *p, uint32_t key, const uint8_t digest[P256_DIGEST_LEN], void *ctx);

/* signers_sign of a TLS handshake signature, whose content the signer builds (proto/tls.h). */
int signers_sign_tls(struct signers *p, uint32_t key, const struct proto_tls *tls, void *ctx);

/*
 * The microseconds until the next signing answer is expected (the oldest request at each signer
 * plus the average round trip; 0 when overdue), or UINT64_MAX when none is out: when the parent's
 * busy polling pays (busypoll.h).
 */
uint64_t signers_answer_due_us(const struct signers *p, uint64_t now);

/*
 * 1 when more than SATURATED_PER_SIGNER (4) signing requests per signer are out: every signer
 * has its next requests waiting, so answers come without the parent polling for them, and a
 * polling parent would only take a CPU from a signer (busypoll.h).
 */
int signers_saturated(const struct signers *p);

/* 1 while at least one signer of the current generation answers, else 0 (for WATCHDOG=1). */
int signers_healthy(const struct signers *p);

/* Answers, with PROTO_E_TIMEOUT, every request sent more than timeout_ms ago. */
void signers_expire(struct signers *p, unsigned timeout_ms);

/* Answers every signing request still in flight with `error` (at exit, when the stop timed out). */
void signers_cancel(struct signers *p, uint16_t error);

/* Adds the signers' part of STATUS: workers (the configured number of signer processes),
 * workers_alive, workers_replaced, workers_hung, requests_resent, key_set and at_workers (the
 * signing requests out at signers). 0 or -1 (out of memory). */
int signers_status_add(const struct signers *p, json_t *status);

/* Closes every channel (signers exit at end of file) and frees p. */
void signers_close(struct signers *p);

#endif
