/* SPDX-License-Identifier: ISC */
/*
 * Signing inside an OpenSSL ASYNC job (a server that set SSL_MODE_ASYNC: haproxy's
 * ssl-mode-async, openssl s_server -async). The request is sent without blocking, the job
 * registers wait descriptors and pauses (ASYNC_pause_job), and the server runs other handshakes
 * until a descriptor is ready and it resumes the job, which then collects the answer.
 *
 * Each job in flight has a connection of its own, taken from the thread's idle ones (conn.c) and
 * given back when it is done: a server polls each job's descriptors as that job's, and may not
 * watch one descriptor for two jobs (haproxy's poller owns each fd once). Its second wait
 * descriptor is a timerfd armed at the request's deadline, so a daemon that stops answering
 * still wakes the job, which then fails with the timeout. The stack use is small (a job's stack
 * is 32 KiB in OpenSSL 3.0): the connections live on the heap.
 */
#include <openssl/async.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "provider.h"

/* Keys of the job's wait descriptors (ASYNC_WAIT_CTX_set_wait_fd): addresses of our own. */
static const char socket_key, timer_key;

/* Arms (ms > 0) or disarms (0) the timer. */
static int arm(int timer, int ms)
{
	struct itimerspec t = { .it_value = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L } };
	uint64_t expirations;

	if (ms == 0)
		(void)read(timer, &expirations, sizeof(expirations));	/* a fired one, if any */
	return timerfd_settime(timer, 0, &t, NULL) == 0 ? 0 : P256SIGN_E_IO;
}

/* Submits, then pauses the job until the answer (or the deadline) is there. */
static int sign_in_job(ASYNC_JOB *job, struct job_conn *j, const struct p256sign_key *sel,
	const uint8_t *digest, int timeout_ms, struct p256sign_result *res)
{
	ASYNC_WAIT_CTX *wctx = ASYNC_get_wait_ctx(job);
	uint32_t id;
	int r;

	if ((r = p256sign_set_timeout(j->h, timeout_ms)) != 0 ||
	    (r = p256sign_submit_sign(j->h, sel, digest, P256SIGN_DER, &id)) != 0 ||
	    (r = arm(j->timer, timeout_ms)) != 0)
		return r;
	while ((r = p256sign_poll_result(j->h, id, res)) == P256SIGN_E_AGAIN) {
		/* A request not yet written (a full socket buffer) waits in the blocking way. */
		if (wctx == NULL || p256sign_fd(j->h) < 0 || p256sign_want_write(j->h)) {
			r = p256sign_wait(j->h, id, res);
			break;
		}
		if (!ASYNC_WAIT_CTX_set_wait_fd(wctx, &socket_key, p256sign_fd(j->h), NULL, NULL) ||
		    !ASYNC_WAIT_CTX_set_wait_fd(wctx, &timer_key, j->timer, NULL, NULL))
			r = P256SIGN_E_NOMEM;
		else if (!ASYNC_pause_job())
			r = P256SIGN_E_IO;
		(void)ASYNC_WAIT_CTX_clear_fd(wctx, &socket_key);
		(void)ASYNC_WAIT_CTX_clear_fd(wctx, &timer_key);
		if (r != P256SIGN_E_AGAIN)
			break;
	}
	(void)arm(j->timer, 0);
	return r;
}

int async_sign(const char *path, int timeout_ms, const struct p256sign_key *sel,
	const uint8_t digest[P256SIGN_DIGEST_LEN], uint8_t *sig, size_t cap, size_t *len)
{
	ASYNC_JOB *job = ASYNC_get_current_job();
	struct p256sign_result res;
	struct job_conn *j;
	int r;

	if (job == NULL)
		return P256SIGN_E_INVALID;
	if ((r = conn_take_job(path, &j)) != 0)
		return r;
	r = sign_in_job(job, j, sel, digest, timeout_ms, &res);
	/* A broken connection is connected again by its next request. */
	conn_give_back(path, j);
	if (r != 0)
		return r;
	if (res.sig_len > cap)
		return P256SIGN_E_BUFFER;
	memcpy(sig, res.sig, res.sig_len);
	*len = res.sig_len;
	return 0;
}
