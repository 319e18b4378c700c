/* SPDX-License-Identifier: ISC */
/* stderr logging that never blocks: one bounded buffer, written when stderr takes it (log.h). */
#include "log.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUF_MAX 65536		/* a pipe's own buffer as much again: ~1,300 request lines in all */
#define LOG_LINE_MAX 512

static char buf[BUF_MAX];
static size_t buffered;
static uint64_t dropped;	/* in all, for STATUS */
static uint64_t unreported;	/* since the last "N log lines dropped" line */
static struct event *writable;	/* stderr can take more: set by log_attach */

/* A forked role starts with nothing to write: what its parent had buffered is the parent's. */
static void forget(void)
{
	buffered = 0;
	unreported = 0;
	writable = NULL;	/* the parent's event base is not the child's */
}

int log_init(void)
{
	struct stat st;
	char path[32];
	int fd, flags;

	if (pthread_atfork(NULL, NULL, forget) != 0 || fstat(STDERR_FILENO, &st) != 0)
		return -1;
	/* A write to a regular file waits for the disk, never for a reader. */
	if (S_ISREG(st.st_mode))
		return 0;
	/*
	 * O_NONBLOCK belongs to the open file description, which stderr shares with whoever
	 * started the daemon (a shell's terminal, a pipe): setting it there would make their
	 * writes fail with EAGAIN. A pipe, FIFO or terminal opened again through /proc is a
	 * description of the daemon's own, and it replaces descriptor 2 (inherited by every role).
	 */
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", STDERR_FILENO);
		fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0) {
			flags = dup2(fd, STDERR_FILENO);
			close(fd);
			return flags == STDERR_FILENO ? 0 : -1;
		}
	}
	/*
	 * A socket cannot be opened again. The one stderr is under systemd (the journal's stream)
	 * is the service's own, shared by nobody else, so its description is set non-blocking;
	 * so is a pipe whose reader is gone (the open above fails with ENXIO), where writes fail
	 * anyway.
	 */
	if ((flags = fcntl(STDERR_FILENO, F_GETFL)) < 0 ||
	    fcntl(STDERR_FILENO, F_SETFL, flags | O_NONBLOCK) != 0)
		return -1;
	return 0;
}

static int write_some(void);

/* Appends one line (with its newline) whole, making room by writing what stderr takes now;
 * when it takes too little, drops the line and counts it. */
static void append(const char *line, size_t len)
{
	if (BUF_MAX - buffered < len)
		write_some();
	if (BUF_MAX - buffered < len) {
		dropped++;
		unreported++;
		return;
	}
	memcpy(buf + buffered, line, len);
	buffered += len;
}

/* Writes what stderr takes now; 1 when lines are left for later, 0 when all went. */
static int write_some(void)
{
	size_t off = 0;
	int left = 0;

	while (off < buffered) {
		ssize_t n = write(STDERR_FILENO, buf + off, buffered - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			left = 1;
			break;
		}
		if (n <= 0) {
			off = buffered;	/* nowhere to log to (closed, /dev/full): drop */
			break;
		}
		off += (size_t)n;
	}
	memmove(buf, buf + off, buffered - off);
	buffered -= off;
	return left;
}

void log_flush(void)
{
	int saved = errno;
	char line[64];
	int n;

	if (write_some() == 0 && unreported > 0) {
		/* The reader caught up: say what it missed, once. */
		n = snprintf(line, sizeof(line), "p256signd: %llu log lines dropped\n",
		    (unsigned long long)unreported);
		unreported = 0;
		append(line, (size_t)n);
		write_some();
	}
	/* Without the event (no loop yet, or a regular file epoll cannot watch), the next line
	 * or the next log_flush writes the rest. */
	if (buffered > 0 && writable != NULL && !event_pending(writable, EV_WRITE, NULL))
		event_add(writable, NULL);
	errno = saved;
}

static void writable_cb(evutil_socket_t fd, short what, void *arg)
{
	log_flush();
}

int log_attach(struct event_base *base)
{
	struct stat st;

	if (fstat(STDERR_FILENO, &st) != 0)
		return -1;
	if (S_ISREG(st.st_mode))
		return 0;	/* always writable, and epoll refuses regular files */
	if ((writable = event_new(base, STDERR_FILENO, EV_WRITE, writable_cb, NULL)) == NULL)
		return -1;
	return 0;
}

void log_detach(void)
{
	if (writable != NULL)
		event_free(writable);
	writable = NULL;
}

void log_lines(const char *lines, size_t len)
{
	size_t off = 0;

	while (off < len) {
		const char *nl = memchr(lines + off, '\n', len - off);
		size_t n = nl != NULL ? (size_t)(nl - lines) + 1 - off : len - off;

		append(lines + off, n);
		off += n;
	}
	log_flush();
}

uint64_t log_dropped(void)
{
	return dropped;
}

__attribute__((format(printf, 2, 0)))
static void message(const char *level, const char *fmt, va_list ap)
{
	char line[LOG_LINE_MAX];
	int n, m;

	n = snprintf(line, sizeof(line), "p256signd: %s", level);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (m < 0)
		return;
	n = n + m > (int)sizeof(line) - 2 ? (int)sizeof(line) - 2 : n + m;
	line[n++] = '\n';
	append(line, (size_t)n);
	log_flush();
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
