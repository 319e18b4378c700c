/* SPDX-License-Identifier: ISC */
/*
 * Connections to p256signd: one per (process, thread, socket path), opened on first use and kept
 * in thread-specific data. Threads never share a handle, so no lock is taken on the signing path;
 * a forked child finds its parent's handle and libp256sign notices the new pid itself (it closes
 * the inherited descriptor without writing and connects again), so no atfork handler is needed.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "provider.h"

struct conn {
	struct conn *next;
	struct p256sign *h;
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

static struct conn *find(struct conn *c, const char *path)
{
	for (; c != NULL; c = c->next)
		if (strcmp(p256sign_socket_path(c->h), path) == 0)
			return c;
	return NULL;
}

int conn_get(const char *path, int timeout_ms, struct p256sign **h)
{
	struct conn *head, *c = NULL;
	struct p256sign *fresh = NULL;
	int r;

	if (pthread_once(&conn_once, make_key) != 0 || !conn_key_ok)
		return P256SIGN_E_NOMEM;
	head = pthread_getspecific(conn_key);
	if (path != NULL)
		c = find(head, path);
	if (c == NULL) {
		if ((r = p256sign_connect(&fresh, path)) != 0)
			return r;
		/* A default path is known only now: it may name a connection we have. */
		if ((c = find(head, p256sign_socket_path(fresh))) != NULL) {
			p256sign_close(fresh);
		} else {
			if ((c = calloc(1, sizeof(*c))) == NULL ||
			    pthread_setspecific(conn_key, c) != 0) {
				free(c);
				p256sign_close(fresh);
				return P256SIGN_E_NOMEM;
			}
			c->h = fresh;
			c->next = head;
		}
	}
	*h = c->h;
	return p256sign_set_timeout(c->h, timeout_ms);
}

void conn_release_thread(void)
{
	if (!conn_key_ok)
		return;
	close_all(pthread_getspecific(conn_key));
	(void)pthread_setspecific(conn_key, NULL);
}
