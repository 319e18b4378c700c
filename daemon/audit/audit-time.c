/* SPDX-License-Identifier: ISC */
/* An audit record's time by arithmetic, without gmtime_r (audit-time.h). */
#include "audit-time.h"

#include <stdint.h>

/* The proleptic Gregorian date of day z since 1970-01-01, z >= 0 (H. Hinnant, "chrono-Compatible
 * Low-Level Date Algorithms", civil_from_days: years counted from March, in eras of 400 years). */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;				/* days since 0000-03-01 */
	int64_t era = z / 146097;
	unsigned doe = (unsigned)(z - era * 146097);			/* [0, 146096] */
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;	/* [0, 399] */
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);		/* [0, 365] */
	unsigned mp = (5 * doy + 2) / 153;					/* [0, 11], March = 0 */

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* n as width decimal digits ending at out[end - 1]. */
static void digits(char *out, int end, int width, uint64_t n)
{
	for (int i = end - 1; i >= end - width; i--, n /= 10)
		out[i] = (char)('0' + n % 10);
}

int audit_time_format(const struct timespec *ts, char out[AUDIT_TIME_LEN])
{
	static const char form[AUDIT_TIME_LEN + 1] = "0000-00-00T00:00:00.000000Z";
	int64_t year;
	unsigned month, day;
	uint64_t secs;

	if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000)
		return -1;
	secs = (uint64_t)ts->tv_sec;
	civil_from_days((int64_t)(secs / 86400), &year, &month, &day);
	if (year > 9999)
		return -1;
	for (int i = 0; i < AUDIT_TIME_LEN; i++)
		out[i] = form[i];
	digits(out, 4, 4, (uint64_t)year);
	digits(out, 7, 2, month);
	digits(out, 10, 2, day);
	digits(out, 13, 2, secs % 86400 / 3600);
	digits(out, 16, 2, secs % 3600 / 60);
	digits(out, 19, 2, secs % 60);
	digits(out, 26, 6, (uint64_t)ts->tv_nsec / 1000);
	return 0;
}

int audit_time_now(char out[AUDIT_TIME_LEN])
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return -1;
	return audit_time_format(&ts, out);
}
