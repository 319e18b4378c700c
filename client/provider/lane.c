/* SPDX-License-Identifier: ISC */
/*
 * Lanes (lane.h): the daemon connection that the ASYNC jobs of one thread share (a server thread
 * of haproxy's ssl-mode-async or openssl s_server -async), their requests in flight on it at
 * once: the protocol matches answers to requests by id.
 *
 * Who reads the answers: each lane has a reader thread, which polls the connection (and the
 * earliest deadline of its requests, so a daemon that stops answering still wakes the jobs, with
 * the timeout) and hands each answer to its waiter, writing the waiter's eventfd. The
 * connection's descriptor cannot be a job's wait descriptor itself: see async.c.
 *
 * A thread's exit ends its lanes' connections and readers (lane_stop), but a lane's memory lives
 * on while a request of it is still held by a job's state (refs): a job paused when its thread
 * exited is failed, and the wait context the server frees later still finds the lane to
 * withdraw from.
 *
 * Fork: a child has no reader thread and its parent's lane may have been mid-update when it
 * forked, so a lane of another pid is left alone (not even freed) and the child starts its own.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lane.h"

struct lane {
	char path[P256SIGN_KEYREF_SOCKET_MAX + 1];	/* "": libp256sign's default */
	pid_t pid;
	pthread_mutex_t lock;		/* everything below */
	unsigned refs;			/* 1 while its thread lives, and 1 per waiter */
	struct p256sign *h;
	struct waiter *waiters;
	int wake;			/* eventfd: the reader looks at the connection again */
	int stop;
	pthread_t reader;
};

static void signal_fd(int fd)
{
	uint64_t one = 1;

	(void)!write(fd, &one, sizeof(one));
}

void lane_drain_fd(int fd)
{
	uint64_t n;

	(void)!read(fd, &n, sizeof(n));
}

/* Under the lock: reads what the daemon sent and hands each answer to its waiter. */
static void deliver(struct lane *l)
{
	struct p256sign_result res;
	struct waiter *w;

	if (l->h == NULL || p256sign_process(l->h) < 0)
		return;
	while (p256sign_next_result(l->h, &res) == 0) {
		for (w = l->waiters; w != NULL && w->id != res.id; w = w->next)
			;
		if (w == NULL) {	/* withdrawn: its TLS connection is gone */
			p256sign_result_clear(&res);
			continue;
		}
		w->res = res;
		w->done = 1;
		signal_fd(w->efd);
	}
}

static void *reader(void *arg)
{
	struct lane *l = arg;
	struct pollfd p[2];
	int timeout, n;

	for (;;) {
		pthread_mutex_lock(&l->lock);
		if (l->stop) {
			pthread_mutex_unlock(&l->lock);
			return NULL;
		}
		p[0] = (struct pollfd){ .fd = l->wake, .events = POLLIN };
		n = 1;
		timeout = -1;
		if (l->h != NULL && p256sign_fd(l->h) >= 0) {
			p[n++] = (struct pollfd){ .fd = p256sign_fd(l->h),
				.events = POLLIN | (p256sign_want_write(l->h) ? POLLOUT : 0) };
			timeout = p256sign_next_timeout(l->h);
		}
		pthread_mutex_unlock(&l->lock);
		if (poll(p, (nfds_t)n, timeout) < 0 && errno != EINTR)
			return NULL;
		if (p[0].revents & POLLIN)
			lane_drain_fd(l->wake);
		pthread_mutex_lock(&l->lock);
		deliver(l);
		pthread_mutex_unlock(&l->lock);
	}
}

void lane_unref(struct lane *l)
{
	unsigned left;

	pthread_mutex_lock(&l->lock);
	left = --l->refs;
	pthread_mutex_unlock(&l->lock);
	if (left > 0)
		return;
	pthread_mutex_destroy(&l->lock);
	free(l);
}

void lane_stop(struct lane *l)
{
	struct waiter *w;

	pthread_mutex_lock(&l->lock);
	l->stop = 1;
	pthread_mutex_unlock(&l->lock);
	signal_fd(l->wake);
	pthread_join(l->reader, NULL);
	pthread_mutex_lock(&l->lock);
	for (w = l->waiters; w != NULL; w = w->next)
		if (!w->done) {
			w->res = (struct p256sign_result){ .id = w->id, .error = P256SIGN_E_CLOSED };
			w->done = 1;
			signal_fd(w->efd);
		}
	p256sign_close(l->h);
	l->h = NULL;
	close(l->wake);
	l->wake = -1;
	pthread_mutex_unlock(&l->lock);
	lane_unref(l);
}

pid_t lane_pid(const struct lane *l)
{
	return l->pid;
}

struct lane *lane_start(const char *path)
{
	struct lane *l;

	if (strlen(path) >= sizeof(l->path) || (l = calloc(1, sizeof(*l))) == NULL)
		return NULL;
	memcpy(l->path, path, strlen(path) + 1);
	l->pid = getpid();
	l->refs = 1;
	if ((l->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
		goto fail;
	if (pthread_mutex_init(&l->lock, NULL) != 0)
		goto fail_wake;
	if (pthread_create(&l->reader, NULL, reader, l) != 0)
		goto fail_lock;
	return l;
fail_lock:
	pthread_mutex_destroy(&l->lock);
fail_wake:
	close(l->wake);
fail:
	free(l);
	return NULL;
}

/* Under the lock: takes w off the lane's list. */
static void unlink_waiter(struct lane *l, struct waiter *w)
{
	struct waiter **pp;

	for (pp = &l->waiters; *pp != NULL; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			return;
		}
}

/* Queues the request for in on h (SIGN or SIGN_TLS, DER). 0 or a P256SIGN_E_* code. */
static int sign_submit(struct p256sign *h, const struct p256sign_key *sel,
	const struct sign_input *in, uint32_t *id)
{
	return in->tls != NULL ? p256sign_submit_sign_tls(h, sel, in->tls, P256SIGN_DER, id) :
	    p256sign_submit_sign(h, sel, in->digest, P256SIGN_DER, id);
}

int lane_submit(struct lane *l, struct waiter *w, const struct p256sign_key *sel,
	const struct sign_input *in, int timeout_ms)
{
	int r = 0;

	lane_drain_fd(w->efd);	/* a wake-up left from an earlier request */
	pthread_mutex_lock(&l->lock);
	if (l->h == NULL)
		r = p256sign_connect(&l->h, l->path[0] != '\0' ? l->path : NULL);
	if (r == 0)
		r = p256sign_set_timeout(l->h, timeout_ms);
	if (r == 0)
		r = sign_submit(l->h, sel, in, &w->id);
	if (r == 0) {
		w->next = l->waiters;
		l->waiters = w;
		l->refs++;
	}
	pthread_mutex_unlock(&l->lock);
	if (r == 0)
		signal_fd(l->wake);	/* the reader polls this request's connection and deadline */
	return r;
}

int lane_take(struct lane *l, struct waiter *w)
{
	int done;

	pthread_mutex_lock(&l->lock);
	if ((done = w->done))
		unlink_waiter(l, w);
	pthread_mutex_unlock(&l->lock);
	return done;
}

void lane_withdraw(struct lane *l, struct waiter *w)
{
	pthread_mutex_lock(&l->lock);
	unlink_waiter(l, w);
	pthread_mutex_unlock(&l->lock);
}
