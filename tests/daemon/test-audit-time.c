/* SPDX-License-Identifier: ISC */
/*
 * Unit test of the audit records' time (daemon/audit/audit-time.c), which computes the date by
 * arithmetic: for the first and last second it can show, the days around leap days and century
 * years (2000 is a leap year, 2100 is not), and 100,000 times from a fixed-seed PRNG over
 * 1970-9999, it must write what gmtime_r and strftime write, with the microseconds; a time
 * before 1970, after 9999 or with nanoseconds out of range is refused.
 */
#include <string.h>

#include "audit-time.h"
#include "testutil.h"

#define LAST_SECOND 253402300799LL	/* 9999-12-31T23:59:59Z */

/* The time as gmtime_r and strftime write it. */
static void reference(const struct timespec *ts, char out[AUDIT_TIME_LEN + 1])
{
	char us[24];
	struct tm tm;

	if (gmtime_r(&ts->tv_sec, &tm) == NULL ||
	    strftime(out, AUDIT_TIME_LEN + 1, "%Y-%m-%dT%H:%M:%S", &tm) != 19)
		test_fatal("gmtime_r");
	snprintf(us, sizeof(us), "%06ld", ts->tv_nsec / 1000);
	memcpy(out + 19, ".", 1);
	memcpy(out + 20, us, 6);
	memcpy(out + 26, "Z", 2);
}

static void same(long long sec, long nsec)
{
	struct timespec ts = { .tv_sec = (time_t)sec, .tv_nsec = nsec };
	char want[AUDIT_TIME_LEN + 1], got[AUDIT_TIME_LEN];

	reference(&ts, want);
	CHECK_INT(audit_time_format(&ts, got), 0);
	if (memcmp(got, want, AUDIT_TIME_LEN) != 0) {
		fprintf(stderr, "%lld.%09ld: %.*s, want %s\n", sec, nsec, AUDIT_TIME_LEN, got, want);
		test_failures++;
	}
}

static void refused(long long sec, long nsec)
{
	struct timespec ts = { .tv_sec = (time_t)sec, .tv_nsec = nsec };
	char got[AUDIT_TIME_LEN];

	CHECK_INT(audit_time_format(&ts, got), -1);
}

int main(void)
{
	/* 1972-02-29, 2000-02-28 .. 03-01, 2100-02-28 .. 03-01, 2400-02-29 (days since 1970) */
	static const long long days[] = { 789, 11015, 11016, 11017, 47540, 47541, 157113 };
	struct prng g = { 0x7133 };
	char now[AUDIT_TIME_LEN];

	test_case = "edges";
	same(0, 0);
	same(LAST_SECOND, 999999999);
	same(951782400, 123456000);	/* 2000-02-29T00:00:00 */
	for (size_t i = 0; i < sizeof(days) / sizeof(days[0]); i++)
		for (long long s = -1; s <= 1; s++)
			same(days[i] * 86400 + s, 999);
	test_case = "random";
	for (int i = 0; i < 100000; i++)
		same((long long)(prng_u64(&g) % (LAST_SECOND + 1)), (long)(prng_u64(&g) % 1000000000));
	test_case = "refused";
	refused(-1, 0);
	refused(LAST_SECOND + 1, 0);
	refused(0, -1);
	refused(0, 1000000000);
	test_case = "now";
	CHECK_INT(audit_time_now(now), 0);
	CHECK(now[4] == '-' && now[10] == 'T' && now[26] == 'Z');
	return test_done("test-audit-time");
}
