/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_RATELIMIT_H
#define P256SIGND_RATELIMIT_H

#include <stdint.h>

/*
 * A key's "max_signatures_per_second", per uid: a token bucket for each uid that signs with
 * the key, holding at most one second's worth (rate tokens) and refilled continuously. Pure
 * functions over a clock value the caller passes in (microseconds, monotonic).
 *
 * Memory is bounded: one table of RATELIMIT_UIDS buckets per key. A uid not in a full table
 * takes the place of the least recently seen one. A bucket left alone for a second is full
 * again, just what a fresh one is, so evicting it loses nothing; only when more than
 * RATELIMIT_UIDS uids sign with one key within a second can an evicted uid come back to a
 * full bucket early, gaining at most one second's worth. Refusing newcomers instead would let
 * RATELIMIT_UIDS busy uids lock every other uid out of the key.
 */

#define RATELIMIT_UIDS 64

struct ratelimit_bucket {
	uint32_t uid;
	uint64_t tokens;		/* millionths of a signature */
	uint64_t seen_us;		/* the last request: refilled up to here */
};

struct ratelimit {
	uint32_t rate;			/* signatures per second; 0: no limit */
	unsigned n;			/* buckets in use */
	struct ratelimit_bucket b[RATELIMIT_UIDS];
};

/* An empty table for rate signatures per second per uid (0: unlimited). */
void ratelimit_init(struct ratelimit *rl, uint32_t rate);

/* Takes one signature for uid at now_us: 0 when within the rate, -1 when over it. */
int ratelimit_take(struct ratelimit *rl, uint32_t uid, uint64_t now_us);

#endif
