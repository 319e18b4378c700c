/* SPDX-License-Identifier: ISC */
/*
 * Signing inside an OpenSSL ASYNC job (a server that set SSL_MODE_ASYNC: haproxy's
 * ssl-mode-async, openssl s_server -async). The jobs of one server thread share one daemon
 * connection (a "lane", per process, thread and socket path), their requests in flight on it at
 * once: the protocol matches answers to requests by id. A job submits its request, pauses
 * (ASYNC_pause_job) with an eventfd of its own as its wait descriptor, and collects its answer
 * when the server resumes it.
 *
 * Who reads the answers: each lane has a reader thread, which polls the connection (and the
 * earliest deadline of its requests, so a daemon that stops answering still wakes the jobs, with
 * the timeout) and hands each answer to its job, writing the job's eventfd. The connection's
 * descriptor cannot be a wait descriptor itself: haproxy's poller takes each wait descriptor
 * over for the TLS connection that paused (fd_insert) until it closes that connection
 * (fd_delete), so one descriptor shared by several TLS connections crashes haproxy 2.6
 * (`FATAL: bug condition "fdtab[fd].owner != ((void *)0)"`).
 *
 * The eventfd belongs to the job's ASYNC_WAIT_CTX, i.e. to one TLS connection, for its whole
 * life: registered at its first pause, closed by the wait context's cleanup when the server
 * frees the TLS connection, which also withdraws a request still waiting (a client gone
 * mid-handshake) so that the reader never writes to a closed descriptor. A signature that needs
 * no pause registers nothing (haproxy also trips over a descriptor it never saw a pause for:
 * `bug condition "fd_tgid(fd) != 1 && !thread_isolated()"`).
 *
 * A thread's exit ends its lanes' connections and readers, but a lane's memory lives on while a
 * request of it is still held by a job's state (refs): a job paused when its thread exited is
 * failed, and the wait context the server frees later still finds the lane to withdraw from.
 *
 * Fork: a child has no reader thread and its parent's lane may have been mid-update when it
 * forked, so a lane of another pid is left alone (not even freed) and the child starts its own.
 * The job's stack is 32 KiB in OpenSSL 3.0: the state is on the heap, the locals are small.
 */
#include <errno.h>
#include <openssl/async.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "provider.h"

/* A request in flight and the job waiting for it. */
struct waiter {
	struct waiter *next;
	uint32_t id;
	int done;
	struct p256sign_result res;
	int efd;		/* the job's eventfd */
};

/* One daemon connection shared by the jobs of one thread, and its reader thread. */
struct lane {
	struct lane *next;
	char path[P256SIGN_KEYREF_SOCKET_MAX + 1];
	pid_t pid;
	pthread_mutex_t lock;		/* everything below */
	unsigned refs;			/* 1 while its thread lives, and 1 per waiter */
	struct p256sign *h;
	struct waiter *waiters;
	int wake;			/* eventfd: the reader looks at the connection again */
	int stop;
	pthread_t reader;
};

/* The state of one wait context (one TLS connection), owned by its socket entry. */
struct job_state {
	int efd;
	struct lane *lane;
	struct waiter *w;		/* the request in flight, or NULL */
};

static pthread_key_t lane_key;
static pthread_once_t lane_once = PTHREAD_ONCE_INIT;
static int lane_key_ok;

/* The key of the wait descriptor (ASYNC_WAIT_CTX_set_wait_fd): an address of our own. */
static const char efd_key;

static void signal_fd(int fd)
{
	uint64_t one = 1;

	(void)!write(fd, &one, sizeof(one));
}

static void drain_fd(int fd)
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
			drain_fd(l->wake);
		pthread_mutex_lock(&l->lock);
		deliver(l);
		pthread_mutex_unlock(&l->lock);
	}
}

/* Drops one reference to l (the lock not held); the last frees it. */
static void lane_unref(struct lane *l)
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

/*
 * Its thread's exit (no job of the thread is running): stops the reader, closes the connection
 * and fails the requests still waiting, whose jobs' states free them (and drop their references)
 * when the server resumes those jobs or frees their wait contexts.
 */
static void lane_free(struct lane *l)
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

/* A thread's exit frees its lanes; those of a parent process are not ours to touch. */
static void free_lanes(void *head)
{
	struct lane *l = head, *next;

	for (; l != NULL; l = next) {
		next = l->next;
		if (l->pid == getpid())
			lane_free(l);
	}
}

static void make_key(void)
{
	lane_key_ok = pthread_key_create(&lane_key, free_lanes) == 0;
}

/* The calling thread's lane to path, started on first use. NULL: no memory or no thread. */
static struct lane *get_lane(const char *path)
{
	struct lane *head, *l;

	if (pthread_once(&lane_once, make_key) != 0 || !lane_key_ok)
		return NULL;
	head = pthread_getspecific(lane_key);
	for (l = head; l != NULL; l = l->next)
		if (l->pid == getpid() && strcmp(l->path, path) == 0)
			return l;
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
	/* A parent's lanes stay in the list, unused: see the top of the file. */
	l->next = head;
	if (pthread_setspecific(lane_key, l) == 0)
		return l;
	l->next = NULL;
	lane_free(l);
	return NULL;
fail_lock:
	pthread_mutex_destroy(&l->lock);
fail_wake:
	close(l->wake);
fail:
	free(l);
	return NULL;
}

void async_release_thread(void)
{
	if (!lane_key_ok)
		return;
	free_lanes(pthread_getspecific(lane_key));
	(void)pthread_setspecific(lane_key, NULL);
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

/* Frees s's waiter (taken off its lane already) and drops the lane reference it held. */
static void waiter_free(struct job_state *s)
{
	p256sign_result_clear(&s->w->res);
	free(s->w);
	s->w = NULL;
	lane_unref(s->lane);
}

/* Withdraws the request of s still waiting, if any: its answer will be dropped. */
static void withdraw(struct job_state *s)
{
	if (s->w == NULL)
		return;
	if (s->lane->pid != getpid()) {		/* a parent's: not ours to touch */
		s->w = NULL;
		return;
	}
	pthread_mutex_lock(&s->lane->lock);
	unlink_waiter(s->lane, s->w);
	pthread_mutex_unlock(&s->lane->lock);
	waiter_free(s);
}

/* Called by ASYNC_WAIT_CTX_free: withdraws a request still waiting, closes the eventfd. */
static void cleanup(ASYNC_WAIT_CTX *ctx, const void *key, OSSL_ASYNC_FD fd, void *custom)
{
	struct job_state *s = custom;

	withdraw(s);
	close(s->efd);
	free(s);
}

/* The wait context's state (registered), or a new one not registered yet. */
static int get_state(ASYNC_WAIT_CTX *wctx, struct job_state **out)
{
	OSSL_ASYNC_FD fd;
	void *custom = NULL;
	struct job_state *s;

	if (ASYNC_WAIT_CTX_get_fd(wctx, &efd_key, &fd, &custom) && custom != NULL) {
		*out = custom;
		return 0;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return P256SIGN_E_NOMEM;
	if ((s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		free(s);
		return P256SIGN_E_IO;
	}
	*out = s;
	return 0;
}

/* Queues the request on the lane; the waiter into s->w. */
static int submit(struct lane *l, struct job_state *s, const struct p256sign_key *sel,
	const struct sign_input *in, int timeout_ms)
{
	struct waiter *w;
	int r;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return P256SIGN_E_NOMEM;
	w->efd = s->efd;
	drain_fd(s->efd);	/* a wake-up left from an earlier request */
	pthread_mutex_lock(&l->lock);
	if (l->h == NULL)
		r = p256sign_connect(&l->h, l->path);
	else
		r = 0;
	if (r == 0)
		r = p256sign_set_timeout(l->h, timeout_ms);
	if (r == 0)
		r = sign_submit(l->h, sel, in, &w->id);
	if (r == 0) {
		w->next = l->waiters;
		l->waiters = w;
		l->refs++;
		s->w = w;
		s->lane = l;
	}
	pthread_mutex_unlock(&l->lock);
	if (r != 0) {
		free(w);
		return r;
	}
	signal_fd(l->wake);	/* the reader polls this request's connection and deadline */
	return 0;
}

/* Pauses the job until its waiter is done; its result into *res. */
static int wait_in_job(ASYNC_WAIT_CTX *wctx, struct job_state *s, int *registered,
	struct p256sign_result *res)
{
	struct lane *l = s->lane;
	int done;

	for (;;) {
		pthread_mutex_lock(&l->lock);
		if ((done = s->w->done))
			unlink_waiter(l, s->w);
		pthread_mutex_unlock(&l->lock);
		if (done)
			break;
		if (!*registered) {
			if (!ASYNC_WAIT_CTX_set_wait_fd(wctx, &efd_key, s->efd, s, cleanup)) {
				withdraw(s);
				return P256SIGN_E_NOMEM;
			}
			*registered = 1;
		}
		if (!ASYNC_pause_job()) {
			withdraw(s);
			return P256SIGN_E_IO;
		}
		drain_fd(s->efd);
	}
	*res = s->w->res;
	s->w->res = (struct p256sign_result){ 0 };	/* handed over to the caller */
	waiter_free(s);
	return res->error;
}

int async_sign(const char *path, int timeout_ms, const struct p256sign_key *sel,
	const struct sign_input *in, uint8_t *sig, size_t cap, size_t *len)
{
	ASYNC_JOB *job = ASYNC_get_current_job();
	ASYNC_WAIT_CTX *wctx = job != NULL ? ASYNC_get_wait_ctx(job) : NULL;
	struct p256sign_result res;
	struct job_state *s;
	struct lane *l;
	OSSL_ASYNC_FD fd;
	void *custom = NULL;
	int registered, r;

	if (wctx == NULL || (l = get_lane(path)) == NULL)
		return ASYNC_NOT_HERE;
	if ((r = get_state(wctx, &s)) != 0)
		return r;
	registered = ASYNC_WAIT_CTX_get_fd(wctx, &efd_key, &fd, &custom) && custom == s;
	if ((r = submit(l, s, sel, in, timeout_ms)) == 0)
		r = wait_in_job(wctx, s, &registered, &res);
	if (!registered)
		cleanup(wctx, &efd_key, s->efd, s);	/* no pause: never the server's */
	if (r != 0)
		return r;
	if (res.sig_len > cap)
		return P256SIGN_E_BUFFER;
	memcpy(sig, res.sig, res.sig_len);
	*len = res.sig_len;
	return 0;
}
