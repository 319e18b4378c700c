/* SPDX-License-Identifier: ISC */
/*
 * Sessions (session.h): the one per-thread cache of the provider, a session per (thread, socket
 * path), opened on first use and kept in thread-specific data; a thread's exit ends them.
 *
 * The blocking calls: threads never share a handle, so no lock is taken on the signing path; a
 * forked child finds its parent's handle and libp256sign notices the new pid itself (it closes
 * the inherited descriptor without writing and connects again), so no atfork handler is needed.
 * The lane of ASYNC jobs: a forked child finds its parent's lane, leaves it alone (lane.c) and
 * starts its own.
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
#include <unistd.h>

#include "session.h"

#define RETRY_WINDOW_MS 1000
#define RETRY_FIRST_MS 10
#define RETRY_MAX_MS 200

struct session {
	struct session *next;
	char path[P256SIGN_KEYREF_SOCKET_MAX + 1];	/* as asked for; "" is libp256sign's default */
	struct p256sign *h;			/* blocking calls; NULL until a connect succeeds */
	int down;				/* no connect for a whole window last time */
	struct lane *lane;			/* ASYNC jobs' requests; NULL until the first */
};

static pthread_key_t session_key;
static pthread_once_t session_once = PTHREAD_ONCE_INIT;
static int session_key_ok;

/* A thread's exit ends its sessions; a parent's lane is not ours to stop. */
static void end_sessions(void *head)
{
	struct session *s = head, *next;

	for (; s != NULL; s = next) {
		next = s->next;
		p256sign_close(s->h);
		if (s->lane != NULL && lane_pid(s->lane) == getpid())
			lane_stop(s->lane);
		free(s);
	}
}

static void make_key(void)
{
	session_key_ok = pthread_key_create(&session_key, end_sessions) == 0;
}

/* The calling thread's session for path, created empty on first use. NULL: out of memory. */
static struct session *find_session(const char *path)
{
	struct session *head, *s;

	if (pthread_once(&session_once, make_key) != 0 || !session_key_ok)
		return NULL;
	head = pthread_getspecific(session_key);
	for (s = head; s != NULL; s = s->next)
		if (strcmp(s->path, path) == 0)
			return s;
	if (strlen(path) >= sizeof(s->path) || (s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	memcpy(s->path, path, strlen(path) + 1);
	s->next = head;
	if (pthread_setspecific(session_key, s) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* One attempt: connect if needed, then the call. */
static int attempt(struct session *s, int timeout_ms, session_fn *fn, void *arg)
{
	int r;

	if (s->h == NULL && (r = p256sign_connect(&s->h, s->path[0] ? s->path : NULL)) != 0)
		return r;
	if ((r = p256sign_set_timeout(s->h, timeout_ms)) != 0)
		return r;
	return fn(s->h, arg);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int session_call(const char *path, int timeout_ms, session_fn *fn, void *arg)
{
	struct session *s = find_session(path != NULL ? path : "");
	int64_t end;
	int pause = RETRY_FIRST_MS, r;

	if (s == NULL)
		return P256SIGN_E_NOMEM;
	end = now_ms() + (timeout_ms < RETRY_WINDOW_MS ? timeout_ms : RETRY_WINDOW_MS);
	/* Only P256SIGN_E_CONNECT is tried again: no byte of the request was sent. */
	while ((r = attempt(s, timeout_ms, fn, arg)) == P256SIGN_E_CONNECT && !s->down &&
	       now_ms() + pause < end) {
		nanosleep(&(struct timespec){ .tv_nsec = pause * 1000000L }, NULL);
		pause = pause * 2 > RETRY_MAX_MS ? RETRY_MAX_MS : pause * 2;
	}
	s->down = r == P256SIGN_E_CONNECT;
	return r;
}

struct lane *session_lane(const char *path)
{
	struct session *s = find_session(path);

	if (s == NULL)
		return NULL;
	if (s->lane != NULL && lane_pid(s->lane) != getpid())
		s->lane = NULL;		/* a parent's, left alone (lane.c) */
	if (s->lane == NULL)
		s->lane = lane_start(path);
	return s->lane;
}

void session_release_thread(void)
{
	if (!session_key_ok)
		return;
	end_sessions(pthread_getspecific(session_key));
	(void)pthread_setspecific(session_key, NULL);
}
