/* SPDX-License-Identifier: ISC */
/* stderr logging (log.h). */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LINE_MAX 512

__attribute__((format(printf, 2, 0)))
static void message(const char *level, const char *fmt, va_list ap)
{
	char line[LINE_MAX];
	int n, m;

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
