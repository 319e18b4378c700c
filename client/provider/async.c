/* SPDX-License-Identifier: ISC */
/*
 * Signing inside an OpenSSL ASYNC job (a server that set SSL_MODE_ASYNC: haproxy's
 * ssl-mode-async, openssl s_server -async). The jobs of one server thread share one daemon
 * connection, their thread's lane to the socket (lane.c, kept by the thread's session,
 * session.c). A job submits its request, pauses (ASYNC_pause_job) with an eventfd of its own as
 * its wait descriptor, and collects its answer when the server resumes it; the lane's reader
 * thread writes that eventfd when the answer comes.
 *
 * Why an eventfd of the job's own: the lane's connection descriptor cannot be a wait descriptor
 * itself: haproxy's poller takes each wait descriptor over for the TLS connection that paused
 * (fd_insert) until it closes that connection (fd_delete), so one descriptor shared by several
 * TLS connections crashes haproxy 2.6 (`FATAL: bug condition "fdtab[fd].owner != ((void *)0)"`).
 *
 * The eventfd belongs to the job's ASYNC_WAIT_CTX, i.e. to one TLS connection, for its whole
 * life: registered at its first pause, closed by the wait context's cleanup when the server
 * frees the TLS connection, which also withdraws a request still waiting (a client gone
 * mid-handshake) so that the reader never writes to a closed descriptor. A signature that needs
 * no pause registers nothing (haproxy also trips over a descriptor it never saw a pause for:
 * `bug condition "fd_tgid(fd) != 1 && !thread_isolated()"`).
 *
 * Fork: a job state whose lane is a parent's (lane_pid) leaves it alone.
 * The job's stack is 32 KiB in OpenSSL 3.0: the state is on the heap, the locals are small.
 */
#include <openssl/async.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "async.h"
#include "lane.h"
#include "session.h"

/* The state of one wait context (one TLS connection), owned by its socket entry. */
struct job_state {
	int efd;
	struct lane *lane;
	struct waiter *w;		/* the request in flight, or NULL */
};

/* The key of the wait descriptor (ASYNC_WAIT_CTX_set_wait_fd): an address of our own. */
static const char efd_key;

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
	if (lane_pid(s->lane) != getpid()) {	/* a parent's: not ours to touch */
		s->w = NULL;
		return;
	}
	lane_withdraw(s->lane, s->w);
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
	if ((r = lane_submit(l, w, sel, in, timeout_ms)) != 0) {
		free(w);
		return r;
	}
	s->w = w;
	s->lane = l;
	return 0;
}

/* Pauses the job until its waiter is done; its result into *res. */
static int wait_in_job(ASYNC_WAIT_CTX *wctx, struct job_state *s, int *registered,
	struct p256sign_result *res)
{
	while (!lane_take(s->lane, s->w)) {
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
		lane_drain_fd(s->efd);
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

	if (wctx == NULL || (l = session_lane(path)) == NULL)
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
