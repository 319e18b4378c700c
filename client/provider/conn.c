/* SPDX-License-Identifier: ISC */
/*
 * Connections to p256signd: one per (process, thread, socket path), opened on first use and kept
 * in thread-specific data. Threads never share a handle, so no lock is taken on the signing path;
 * a forked child finds its parent's handle and libp256sign notices the new pid itself (it closes
 * the inherited descriptor without writing and connects again), so no atfork handler is needed.
 *
 * A restarted daemon: a request none of whose bytes reached the old connection is sent again by
 * libp256sign on a new one. While the socket is gone (the daemon between stop and start), a call
 * that cannot connect is tried again with a growing pause, for up to RETRY_WINDOW_MS (or the
 * timeout if shorter), so a handshake in that gap waits rather than fails. A daemon that stays
 * away for a whole window is marked down: later calls try once and fail at once, until one
 * connects, so a server whose daemon is gone is not slowed down by every handshake.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "provider.h"

#define RETRY_WINDOW_MS 1000
#define RETRY_FIRST_MS 10
#define RETRY_MAX_MS 200

struct conn {
	struct conn *next;
	char path[P256SIGN_KEYREF_SOCKET_MAX + 1];	/* as asked for; "" is libp256sign's default */
	struct p256sign *h;			/* NULL until a connect succeeds */
	int down;				/* no connect for a whole window last time */
};

static pthread_key_t conn_key;
static pthread_once_t conn_once = PTHREAD_ONCE_INIT;
static int conn_key_ok;

/* A thread's exit closes its connections. */
static void close_all(void *head)
{
	struct conn *c = head, *next;

	for (; c != NULL; c = next) {
		next = c->next;
		p256sign_close(c->h);
		free(c);
	}
}

static void make_key(void)
{
	conn_key_ok = pthread_key_create(&conn_key, close_all) == 0;
}

/* The calling thread's entry for path, created empty on first use. NULL: out of memory. */
static struct conn *entry(const char *path)
{
	struct conn *head, *c;

	if (pthread_once(&conn_once, make_key) != 0 || !conn_key_ok)
		return NULL;
	head = pthread_getspecific(conn_key);
	for (c = head; c != NULL; c = c->next)
		if (strcmp(c->path, path) == 0)
			return c;
	if (strlen(path) >= sizeof(c->path) || (c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	memcpy(c->path, path, strlen(path) + 1);
	c->next = head;
	if (pthread_setspecific(conn_key, c) != 0) {
		free(c);
		return NULL;
	}
	return c;
}

/* One attempt: connect if needed, then the call. */
static int attempt(struct conn *c, int timeout_ms, conn_fn *fn, void *arg)
{
	int r;

	if (c->h == NULL && (r = p256sign_connect(&c->h, c->path[0] ? c->path : NULL)) != 0)
		return r;
	if ((r = p256sign_set_timeout(c->h, timeout_ms)) != 0)
		return r;
	return fn(c->h, arg);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int conn_call(const char *path, int timeout_ms, conn_fn *fn, void *arg)
{
	struct conn *c = entry(path != NULL ? path : "");
	int64_t end;
	int pause = RETRY_FIRST_MS, r;

	if (c == NULL)
		return P256SIGN_E_NOMEM;
	end = now_ms() + (timeout_ms < RETRY_WINDOW_MS ? timeout_ms : RETRY_WINDOW_MS);
	/* Only P256SIGN_E_CONNECT is tried again: no byte of the request was sent. */
	while ((r = attempt(c, timeout_ms, fn, arg)) == P256SIGN_E_CONNECT && !c->down &&
	       now_ms() + pause < end) {
		nanosleep(&(struct timespec){ .tv_nsec = pause * 1000000L }, NULL);
		pause = pause * 2 > RETRY_MAX_MS ? RETRY_MAX_MS : pause * 2;
	}
	c->down = r == P256SIGN_E_CONNECT;
	return r;
}

void conn_release_thread(void)
{
	if (!conn_key_ok)
		return;
	close_all(pthread_getspecific(conn_key));
	(void)pthread_setspecific(conn_key, NULL);
}
