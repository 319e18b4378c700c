/* SPDX-License-Identifier: ISC */
/* The connection: socket path, connect, close, fork detection and transparent reconnection. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "libp256sign-private.h"

int64_t conn_now_us(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC cannot fail with a valid pointer. */
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* path, else $P256SIGN_SOCKET (not trusted in set-uid programs: secure_getenv), else the
 * default. */
static const char *socket_path(const char *path)
{
	const char *env;

	if (path != NULL)
		return path;
	env = secure_getenv(P256SIGN_SOCKET_ENV);
	return env != NULL && env[0] != '\0' ? env : P256SIGN_SOCKET_DEFAULT;
}

/*
 * Forks of this process, counted by a pthread_atfork handler in the child: a handle remembers the
 * count it connected under, and every call compares it, instead of calling getpid, which glibc no
 * longer caches (a system call on every submit, process and next_result). A child made without
 * fork(3), by clone(2) or _Fork(3), runs no atfork handler and must not use its parent's handles
 * (p256sign.h).
 */
static unsigned long forks;
static pthread_once_t forks_once = PTHREAD_ONCE_INIT;
static int forks_counted;

static void count_fork(void)
{
	forks++;
}

static void count_forks(void)
{
	forks_counted = pthread_atfork(NULL, NULL, count_fork) == 0;
}

int p256sign_connect(struct p256sign **out, const char *path)
{
	struct p256sign *h = NULL;
	const char *p;
	int r = P256SIGN_E_INVALID;

	if (out == NULL)
		return P256SIGN_E_INVALID;
	*out = NULL;
	if (pthread_once(&forks_once, count_forks) != 0 || !forks_counted)
		return P256SIGN_E_NOMEM;	/* pthread_atfork's only failure */
	p = socket_path(path);
	if (p[0] == '\0' || strlen(p) >= sizeof(h->path))
		goto out;
	r = P256SIGN_E_NOMEM;
	if ((h = calloc(1, sizeof(*h))) == NULL)
		goto out;
	memcpy(h->path, p, strlen(p) + 1);
	h->fd = -1;
	h->forks = forks;
	h->timeout_ms = P256SIGN_TIMEOUT_DEFAULT;
	h->next_id = 1;
	if ((r = conn_ensure_connected(h)) != 0)
		goto out;
	*out = h;
	h = NULL;
	r = 0;
out:
	if (h != NULL) {
		int saved = errno;

		p256sign_close(h);
		errno = saved;
	}
	return r;
}

/*
 * A blocking connect waits while the daemon's backlog is full, but no longer than timeout_ms in
 * all: a signal that interrupts the wait leaves a Unix socket unconnected, so it is tried again
 * for the time left.
 */
static int connect_within(int fd, const struct sockaddr_un *sa, int timeout_ms)
{
	int64_t deadline = conn_now_us() + (int64_t)timeout_ms * 1000;

	for (;;) {
		int64_t left = deadline - conn_now_us();
		struct timeval tv = { .tv_sec = left / 1000000, .tv_usec = left % 1000000 };

		if (left < 1) {
			errno = ETIMEDOUT;
			return P256SIGN_E_CONNECT;
		}
		if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0)
			return P256SIGN_E_IO;
		if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
			return 0;
		if (errno != EINTR)
			return P256SIGN_E_CONNECT;
	}
}

int conn_ensure_connected(struct p256sign *h)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = -1, flags, saved, r = P256SIGN_E_IO;

	if (h->fd >= 0)
		return 0;
	memcpy(sa.sun_path, h->path, strlen(h->path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    (r = connect_within(fd, &sa, h->timeout_ms)) != 0)
		goto out;
	if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
		r = P256SIGN_E_IO;
		goto out;
	}
	h->fd = fd;
	h->forks = forks;
	h->written = 0;
	fd = -1;
	r = 0;
out:
	if (fd >= 0) {
		saved = errno;
		close(fd);
		errno = saved;
	}
	return r;
}

void conn_disconnect(struct p256sign *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	h->written = 0;
	h->out.head = h->out.len = 0;
	h->in.head = h->in.len = 0;
}

/* Drops every result not yet collected. */
static void drop_results(struct p256sign *h)
{
	for (size_t i = h->ready_head; i < h->n_ready; i++)
		p256sign_result_clear(&h->ready[i]);
	h->ready_head = h->n_ready = 0;
}

void conn_fork_check(struct p256sign *h)
{
	if (h->forks == forks)
		return;
	/* The parent owns the connection and its requests: close our copy without a word. */
	conn_disconnect(h);
	h->n_pending = 0;
	drop_results(h);
	h->forks = forks;
}

void conn_failed(struct p256sign *h, int err, int may_retry)
{
	size_t i = 0;
	uint64_t base;

	/* Requests with bytes already on the broken connection cannot be re-sent safely. */
	while (i < h->n_pending) {
		if (h->pending[i].start < h->written || !may_retry || h->retry_budget <= 0)
			(void)queue_fail_pending(h, i, err);
		else
			i++;
	}
	if (h->n_pending == 0) {
		conn_disconnect(h);
		return;
	}
	/* The rest are whole frames at the end of out, starting at pending[0].start. */
	h->retry_budget--;
	base = h->pending[0].start;
	h->out.head += (size_t)(base - h->written);
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	h->in.head = h->in.len = 0;
	for (i = 0; i < h->n_pending; i++)
		h->pending[i].start -= base;
	if (conn_ensure_connected(h) != 0) {
		while (h->n_pending > 0)
			(void)queue_fail_pending(h, 0, P256SIGN_E_CONNECT);
		conn_disconnect(h);
	}
}

void p256sign_close(struct p256sign *h)
{
	if (h == NULL)
		return;
	conn_disconnect(h);
	drop_results(h);
	queue_buf_free(&h->out);
	queue_buf_free(&h->in);
	free(h->pending);
	free(h->ready);
	free(h);
}

int p256sign_set_timeout(struct p256sign *h, int timeout_ms)
{
	if (h == NULL || timeout_ms < 1)
		return P256SIGN_E_INVALID;
	h->timeout_ms = timeout_ms;
	return 0;
}

const char *p256sign_socket_path(const struct p256sign *h)
{
	return h->path;
}
