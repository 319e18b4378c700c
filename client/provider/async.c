/* SPDX-License-Identifier: ISC */
/*
 * Signing inside an OpenSSL ASYNC job (a server that set SSL_MODE_ASYNC: haproxy's
 * ssl-mode-async, openssl s_server -async). The request is sent without blocking, the job
 * pauses (ASYNC_pause_job) with wait descriptors registered, the server runs other handshakes
 * until a descriptor is ready and resumes the job, which then collects the answer.
 *
 * The descriptors belong to the job's ASYNC_WAIT_CTX, i.e. to one TLS connection, for its whole
 * life: a connection to the daemon of its own, and a timerfd armed at the request's deadline so
 * that a daemon that stops answering still wakes the job (which then fails with the timeout).
 * Both are registered when the job first pauses, and closed by the wait context's cleanup when
 * the server frees the TLS connection. Descriptors may not pass from one TLS connection to
 * another: haproxy's poller takes each one over (fd_insert) when the job pauses, and releases
 * them (fd_delete) when it closes the TLS connection; a descriptor that another connection has
 * meanwhile trips its "fdtab[fd].owner" check, one it never saw a pause for its "fd_tgid" check.
 * So a signature that needs no pause (the answer was already there) registers nothing, and its
 * connection is closed after it.
 * The stack use is small (a job's stack is 32 KiB in OpenSSL 3.0): the state is on the heap.
 */
#include <openssl/async.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "provider.h"

/* The daemon connection of one wait context. */
struct wait_conn {
	struct p256sign *h;
	int fd;			/* the socket descriptor registered now */
	int timer;		/* timerfd: the deadline of the request in flight */
	int registered;		/* owned by the wait context (a pause happened) */
	char path[KEYREF_SOCKET_MAX + 1];
};

/* Keys of the wait descriptors (ASYNC_WAIT_CTX_set_wait_fd): addresses of our own. */
static const char socket_key, timer_key;

static void free_wait_conn(struct wait_conn *w)
{
	p256sign_close(w->h);
	if (w->timer >= 0)
		close(w->timer);
	free(w);
}

/* Called by ASYNC_WAIT_CTX_free for the socket's entry, which owns the state. */
static void cleanup(ASYNC_WAIT_CTX *ctx, const void *key, OSSL_ASYNC_FD fd, void *custom)
{
	free_wait_conn(custom);
}

/* The wait context's connection to path, or a new one not registered yet. */
static int get_wait_conn(ASYNC_WAIT_CTX *wctx, const char *path, struct wait_conn **out)
{
	OSSL_ASYNC_FD fd;
	void *custom = NULL;
	struct wait_conn *w;
	int r;

	if (ASYNC_WAIT_CTX_get_fd(wctx, &socket_key, &fd, &custom) && custom != NULL) {
		w = custom;
		*out = w;
		/* Another socket for the same TLS connection: rare, done the blocking way. */
		return strcmp(w->path, path) == 0 ? 0 : ASYNC_NOT_HERE;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return P256SIGN_E_NOMEM;
	memcpy(w->path, path, strlen(path) + 1);
	if ((w->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) < 0) {
		free(w);
		return P256SIGN_E_IO;
	}
	if ((r = p256sign_connect(&w->h, path)) != 0) {
		free_wait_conn(w);
		return r;
	}
	*out = w;
	return 0;
}

/*
 * Registers the descriptors before a pause: the first time (the wait context takes the state
 * over), or the socket's anew when libp256sign has connected again since.
 */
static int register_fds(ASYNC_WAIT_CTX *wctx, struct wait_conn *w)
{
	int fd = p256sign_fd(w->h);

	if (w->registered && fd == w->fd)
		return 0;
	if (w->registered)
		(void)ASYNC_WAIT_CTX_clear_fd(wctx, &socket_key);
	if (!ASYNC_WAIT_CTX_set_wait_fd(wctx, &socket_key, fd, w, cleanup)) {
		/* Out of memory: nothing stays registered, and the caller frees the state. */
		if (w->registered)
			(void)ASYNC_WAIT_CTX_clear_fd(wctx, &timer_key);
		w->registered = 0;
		return P256SIGN_E_NOMEM;
	}
	w->fd = fd;
	if (w->registered)
		return 0;
	w->registered = 1;
	/* The state is the socket entry's now; the timer entry only points to the timer. */
	return ASYNC_WAIT_CTX_set_wait_fd(wctx, &timer_key, w->timer, NULL, NULL) ? 0 :
		P256SIGN_E_NOMEM;
}

/* Arms (ms > 0) or disarms (0) the timer; disarming also consumes a fired expiry. */
static int arm(int timer, int ms)
{
	struct itimerspec t = { .it_value = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L } };
	uint64_t expirations;

	if (ms == 0)
		(void)read(timer, &expirations, sizeof(expirations));
	return timerfd_settime(timer, 0, &t, NULL) == 0 ? 0 : P256SIGN_E_IO;
}

/* Submits, then pauses the job until the answer (or the deadline) is there. */
static int sign_in_job(ASYNC_WAIT_CTX *wctx, struct wait_conn *w, const struct p256sign_key *sel,
	const struct sign_input *in, int timeout_ms, struct p256sign_result *res)
{
	uint32_t id;
	int r;

	if ((r = p256sign_set_timeout(w->h, timeout_ms)) != 0 ||
	    (r = sign_submit(w->h, sel, in, &id)) != 0 ||
	    (r = arm(w->timer, timeout_ms)) != 0)
		return r;
	while ((r = p256sign_poll_result(w->h, id, res)) == P256SIGN_E_AGAIN) {
		/* A request not yet written (a full socket buffer) waits in the blocking way. */
		if (p256sign_fd(w->h) < 0 || p256sign_want_write(w->h)) {
			r = p256sign_wait(w->h, id, res);
			break;
		}
		if ((r = register_fds(wctx, w)) != 0)
			break;
		if (!ASYNC_pause_job()) {
			r = P256SIGN_E_IO;
			break;
		}
	}
	(void)arm(w->timer, 0);
	return r;
}

int async_sign(const char *path, int timeout_ms, const struct p256sign_key *sel,
	const struct sign_input *in, uint8_t *sig, size_t cap, size_t *len)
{
	ASYNC_JOB *job = ASYNC_get_current_job();
	ASYNC_WAIT_CTX *wctx = job != NULL ? ASYNC_get_wait_ctx(job) : NULL;
	struct p256sign_result res;
	struct wait_conn *w;
	int r;

	if (wctx == NULL)
		return ASYNC_NOT_HERE;
	if ((r = get_wait_conn(wctx, path, &w)) != 0)
		return r;
	r = sign_in_job(wctx, w, sel, in, timeout_ms, &res);
	if (!w->registered)
		free_wait_conn(w);	/* no pause: the server never saw its descriptors */
	if (r != 0)
		return r;
	if (res.sig_len > cap)
		return P256SIGN_E_BUFFER;
	memcpy(sig, res.sig, res.sig_len);
	*len = res.sig_len;
	return 0;
}
