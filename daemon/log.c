/* SPDX-License-Identifier: ISC */
/* stderr logging with batched request lines (log.h). */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define QUEUE_MAX 16384
#define LINE_MAX 512

static char queue[QUEUE_MAX];
static size_t queued;

void log_flush(void)
{
	size_t off = 0;
	int saved = errno;

	while (off < queued) {
		ssize_t n = write(STDERR_FILENO, queue + off, queued - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;	/* nowhere to log to: drop the lines rather than block or fail */
		off += (size_t)n;
	}
	queued = 0;
	errno = saved;
}

__attribute__((format(printf, 2, 0)))
static void message(const char *level, const char *fmt, va_list ap)
{
	char line[LINE_MAX];
	int n, m;

	log_flush();
	n = snprintf(line, sizeof(line), "p256signd: %s", level);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (m < 0)
		return;
	n = n + m > (int)sizeof(line) - 2 ? (int)sizeof(line) - 2 : n + m;
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;	/* nowhere to log to */
}

void log_error(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	message("error: ", fmt, ap);
	va_end(ap);
	errno = saved;
}

void log_info(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	message("", fmt, ap);
	va_end(ap);
	errno = saved;
}

int log_request(const struct log_request *r)
{
	int was_empty = queued == 0;
	int n;

	if (QUEUE_MAX - queued < LINE_MAX)
		log_flush();
	n = snprintf(queue + queued, LINE_MAX,
	    "req pid=%d uid=%u gid=%u conn=%lu id=%u type=%s key=%s result=%s us=%llu\n",
	    (int)r->peer->pid, (unsigned)r->peer->uid, (unsigned)r->peer->gid, r->conn,
	    (unsigned)r->id, r->type, r->key, r->result, r->us);
	if (n > 0)
		queued += (size_t)n < LINE_MAX ? (size_t)n : LINE_MAX - 1;
	return was_empty && queued > 0;
}
