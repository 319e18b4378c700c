/* SPDX-License-Identifier: ISC */
/* Token buckets per uid, a fixed table per key (ratelimit.h). */
#include "ratelimit.h"

#include <string.h>

#define ONE 1000000u		/* a signature, in millionths */

void ratelimit_init(struct ratelimit *rl, uint32_t rate)
{
	memset(rl, 0, sizeof(*rl));
	rl->rate = rate;
}

/* uid's bucket, or a fresh full one in place of the least recently seen. */
static struct ratelimit_bucket *bucket(struct ratelimit *rl, uint32_t uid, uint64_t now_us)
{
	struct ratelimit_bucket *oldest = &rl->b[0];

	for (unsigned i = 0; i < rl->n; i++) {
		if (rl->b[i].uid == uid)
			return &rl->b[i];
		if (rl->b[i].seen_us < oldest->seen_us)
			oldest = &rl->b[i];
	}
	if (rl->n < RATELIMIT_UIDS)
		oldest = &rl->b[rl->n++];
	*oldest = (struct ratelimit_bucket){ .uid = uid, .tokens = (uint64_t)rl->rate * ONE,
		.seen_us = now_us };
	return oldest;
}

int ratelimit_take(struct ratelimit *rl, uint32_t uid, uint64_t now_us)
{
	struct ratelimit_bucket *b;
	uint64_t full = (uint64_t)rl->rate * ONE, elapsed;

	if (rl->rate == 0)
		return 0;
	b = bucket(rl, uid, now_us);
	/* A second refills the bucket whatever the rate: longer is the same, and cannot overflow. */
	elapsed = now_us > b->seen_us ? now_us - b->seen_us : 0;
	elapsed = elapsed > ONE ? ONE : elapsed;
	b->tokens += elapsed * rl->rate;	/* rate per second: rate millionths per microsecond */
	b->tokens = b->tokens > full ? full : b->tokens;
	b->seen_us = now_us > b->seen_us ? now_us : b->seen_us;
	if (b->tokens < ONE)
		return -1;
	b->tokens -= ONE;
	return 0;
}
