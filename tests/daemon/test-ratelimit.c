/* SPDX-License-Identifier: ISC */
/*
 * Unit test of the per-uid token buckets (daemon/ratelimit.c): a uid gets its rate and no more,
 * another uid is unaffected, a bucket refills with time and never beyond one second's worth,
 * a full table gives the least recently seen uid's place to a newcomer, and the largest rate
 * cannot overflow after a long idle time.
 */
#include <string.h>

#include "testutil.h"
#include "ratelimit.h"

#define SECOND 1000000ull

/* How many of count requests at now_us uid gets through. */
static unsigned takes(struct ratelimit *rl, uint32_t uid, uint64_t now_us, unsigned count)
{
	unsigned ok = 0;

	for (unsigned i = 0; i < count; i++)
		ok += ratelimit_take(rl, uid, now_us) == 0;
	return ok;
}

int main(void)
{
	static struct ratelimit rl;
	uint64_t t = 5 * SECOND;

	test_case = "no limit";
	ratelimit_init(&rl, 0);
	CHECK_INT(takes(&rl, 1000, t, 100000), 100000);

	test_case = "burst, then refused";
	ratelimit_init(&rl, 10);
	CHECK_INT(takes(&rl, 1000, t, 15), 10);
	CHECK_INT(ratelimit_take(&rl, 1000, t), -1);

	test_case = "another uid is unaffected";
	CHECK_INT(takes(&rl, 33, t, 10), 10);
	CHECK_INT(ratelimit_take(&rl, 33, t), -1);

	test_case = "refill: one token per 1/rate second";
	CHECK_INT(ratelimit_take(&rl, 1000, t + 99999), -1);
	CHECK_INT(ratelimit_take(&rl, 1000, t + 100000 + 99999), 0);	/* 1.99999 tokens by now */
	CHECK_INT(ratelimit_take(&rl, 1000, t + 200000), 0);
	CHECK_INT(ratelimit_take(&rl, 1000, t + 200000), -1);

	test_case = "refill stops at one second's worth";
	t += 100 * SECOND;
	CHECK_INT(takes(&rl, 1000, t, 50), 10);

	test_case = "a clock that goes back refills nothing";
	CHECK_INT(ratelimit_take(&rl, 1000, t - SECOND), -1);

	test_case = "full table: the least recently seen uid makes room";
	ratelimit_init(&rl, 2);
	for (uint32_t uid = 0; uid < RATELIMIT_UIDS; uid++)
		CHECK_INT(takes(&rl, uid, t + uid, 2), 2);
	CHECK_INT(rl.n, RATELIMIT_UIDS);
	/* uid 1 is seen again, so uid 0 is the least recently seen one and gives way to 500. */
	CHECK_INT(ratelimit_take(&rl, 1, t + 1000), -1);
	CHECK_INT(takes(&rl, 500, t + 1001, 3), 2);
	CHECK_INT(rl.n, RATELIMIT_UIDS);
	/* uid 1 kept its empty bucket; uid 0 returns to a fresh one, in place of uid 2. */
	CHECK_INT(ratelimit_take(&rl, 1, t + 1002), -1);
	CHECK_INT(takes(&rl, 0, t + 1003, 3), 2);
	CHECK_INT(ratelimit_take(&rl, 2, t + 1004), 0);

	test_case = "the largest rate, after a long idle time";
	ratelimit_init(&rl, 1000000);
	CHECK_INT(takes(&rl, 7, t, 1000001), 1000000);
	CHECK_INT(takes(&rl, 7, t + 1000 * 86400 * SECOND, 1000001), 1000000);
	CHECK_INT(takes(&rl, 7, t + 1000 * 86400 * SECOND + 1, 2), 1);
	return test_done("ratelimit");
}
