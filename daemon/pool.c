/* SPDX-License-Identifier: ISC */
/* Workers seen from the parent (pool.h). */
#include "pool.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cursor.h"
#include "evio.h"
#include "ipc.h"
#include "log.h"
#include "proto.h"
#include "selftest.h"
#include "worker.h"

/* A request sent to a worker and not yet answered, oldest first in the worker's ring. */
struct pending {
	uint64_t id;
	uint16_t type;			/* the IPC type sent */
	uint64_t sent_ms;
	void *ctx;			/* IPC_SIGN: the caller's request; NULL once answered */
};

struct worker {
	struct pool *pool;
	pid_t pid;
	int fd;				/* -1 once closed */
	struct event *rev, *wev;	/* readable; writable (only while requests are stuck) */
	struct evbuffer *in, *out;
	int alive;
	int ping_outstanding;
	struct pending *ring;
	size_t cap, head, count;
};

/* Request ages and the close deadline are in milliseconds. */
static uint64_t now_ms(void)
{
	return clock_now_us() / 1000;
}

int pool_spawn(struct pool *p, unsigned n, size_t max_inflight, unsigned poll_us,
	struct keytab *kt)
{
	memset(p, 0, sizeof(*p));
	p->max_inflight = max_inflight;
	p->next_id = 1;
	if ((p->w = calloc(n, sizeof(*p->w))) == NULL) {
		log_error("out of memory");
		return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		struct worker *w = &p->w[i];
		int sv[2];

		p->n = i + 1;
		w->pool = p;
		w->fd = -1;
		/* One slot each for a self-test and a ping besides the signing requests. */
		w->cap = max_inflight + 2;
		if ((w->ring = calloc(w->cap, sizeof(*w->ring))) == NULL) {
			log_error("out of memory");
			goto fail;
		}
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
			log_error("socketpair: %s", strerror(errno));
			goto fail;
		}
		log_flush();
		if ((w->pid = fork()) < 0) {
			log_error("fork: %s", strerror(errno));
			close(sv[0]);
			close(sv[1]);
			goto fail;
		}
		if (w->pid == 0)
			worker_main(sv[1], kt, poll_us);
		close(sv[1]);
		w->fd = sv[0];
		w->alive = 1;
		p->alive++;
	}
	return 0;
fail:
	pool_close(p);
	return -1;
}

/* Closes the parent's end of the socketpair and frees its events and buffers. */
static void worker_close(struct worker *w)
{
	if (w->rev != NULL)
		event_free(w->rev);
	if (w->wev != NULL)
		event_free(w->wev);
	if (w->in != NULL)
		evbuffer_free(w->in);
	if (w->out != NULL)
		evbuffer_free(w->out);
	w->rev = w->wev = NULL;
	w->in = w->out = NULL;
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

/* Stops using a worker: kills it if it still runs and fails every request it had. */
static void worker_fail(struct worker *w, const char *why)
{
	struct pool *p = w->pool;

	if (!w->alive)
		return;
	log_error("worker %d: %s; %zu request(s) in flight fail", (int)w->pid, why, w->count);
	w->alive = 0;
	p->alive--;
	if (w->pid > 0)
		kill(w->pid, SIGKILL);
	worker_close(w);
	for (; w->count > 0; w->count--, w->head = (w->head + 1) % w->cap) {
		struct pending *pe = &w->ring[w->head];

		if (pe->type == IPC_SELFTEST) {
			p->selftest_failed = 1;
			p->selftest_left--;
			if (p->selftest_left == 0)
				p->cb->selftest_cb(p->arg, 0);
		} else if (pe->type == IPC_SIGN) {
			p->inflight--;
			if (pe->ctx != NULL)
				p->cb->signed_cb(pe->ctx, PROTO_E_INTERNAL, NULL);
		}
	}
	p->cb->changed_cb(p->arg);
}

/* Queues one message to w and records it; 0 or -1. */
static int send_msg(struct worker *w, uint16_t type, uint32_t key, const void *body, void *ctx)
{
	uint8_t buf[IPC_MSG_MAX];
	size_t len = 0;
	struct pending *pe;
	uint64_t id = w->pool->next_id++;

	if (w->count == w->cap || ipc_put(buf, sizeof(buf), &len, type, key, id, body) != 0)
		return -1;
	/* Written by flush_cb at the end of this loop turn, with whatever else is queued by then. */
	if (evbuffer_get_length(w->out) == 0 && !event_pending(w->wev, EV_WRITE, NULL))
		event_active(w->pool->flush_ev, EV_TIMEOUT, 0);
	if (evbuffer_add(w->out, buf, len) != 0)
		return -1;
	pe = &w->ring[(w->head + w->count) % w->cap];
	*pe = (struct pending){ .id = id, .type = type, .sent_ms = now_ms(), .ctx = ctx };
	w->count++;
	return 0;
}

/* Matches one reply with the oldest request sent to w; -1 when it does not belong there. */
static int take_reply(struct worker *w, const struct ipc_header *h, const uint8_t *body)
{
	struct pool *p = w->pool;
	struct pending pe;
	struct ipc_signature s;
	struct cursor c;
	static const uint16_t reply_to[] = {
		[IPC_SIGNATURE] = IPC_SIGN, [IPC_SELFTEST_RESULT] = IPC_SELFTEST, [IPC_PONG] = IPC_PING,
	};

	memset(&s, 0, sizeof(s));
	cursor_init(&c, body, h->len);
	if (w->count == 0 || w->ring[w->head].id != h->id ||
	    w->ring[w->head].type != reply_to[h->type] ||
	    (h->type != IPC_PONG && cursor_copy(&c, &s, sizeof(s)) != 0))
		return -1;
	pe = w->ring[w->head];
	w->head = (w->head + 1) % w->cap;
	w->count--;
	switch (h->type) {
	case IPC_SIGNATURE:
		p->inflight--;
		if (pe.ctx != NULL)
			p->cb->signed_cb(pe.ctx, s.result == 0 ? 0 : s.result == P256_ERR_FAULT ?
			    PROTO_E_SIGN_FAILED : PROTO_E_INTERNAL, s.sig);
		break;
	case IPC_SELFTEST_RESULT:
		if (s.result != 0 || !selftest_kat_matches(s.sig)) {
			log_error("worker %d failed its self-test: %s", (int)w->pid,
			    s.result != 0 ? p256_err_tag(s.result) : "wrong known-answer signature");
			p->selftest_failed = 1;
		}
		if (--p->selftest_left == 0)
			p->cb->selftest_cb(p->arg, !p->selftest_failed);
		break;
	case IPC_PONG:
		w->ping_outstanding = 0;
		break;
	}
	return 0;
}

/* Writes what the socket takes of w's queued requests; waits for writability for the rest. */
static void worker_flush(struct worker *w)
{
	if (!w->alive || evbuffer_get_length(w->out) == 0)
		return;
	if (evbuffer_write(w->out, w->fd) < 0 && errno != EAGAIN && errno != EINTR) {
		worker_fail(w, "socket error");
		return;
	}
	if (evbuffer_get_length(w->out) == 0)
		event_del(w->wev);
	else if (event_add(w->wev, NULL) != 0)
		worker_fail(w, "cannot wait for its socket to drain");
}

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pool *p = arg;

	for (unsigned i = 0; i < p->n; i++)
		worker_flush(&p->w[i]);
}

static void worker_write_cb(evutil_socket_t fd, short what, void *arg)
{
	worker_flush(arg);
}

static void worker_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker *w = arg;
	size_t len, off = 0, used;
	const uint8_t *buf;
	struct ipc_header h;
	const uint8_t *body;
	ssize_t n = evio_read(w->in, w->fd, 65536);
	int r;

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		worker_fail(w, n == 0 ? "closed its socket" : "socket error");
		return;
	}
	if ((len = evbuffer_get_length(w->in)) == 0)
		return;
	if ((buf = evbuffer_pullup(w->in, -1)) == NULL) {
		worker_fail(w, "out of memory");
		return;
	}
	while ((r = ipc_next(buf + off, len - off, IPC_TO_PARENT, &h, &body, &used)) == 0) {
		if (take_reply(w, &h, body) != 0) {
			worker_fail(w, "sent a reply that matches no request");
			return;
		}
		off += used;
	}
	if (r < 0) {
		worker_fail(w, "sent a malformed message");
		return;
	}
	evbuffer_drain(w->in, off);
}

int pool_attach(struct pool *p, struct event_base *base, const struct pool_callbacks *cb,
	void *arg)
{
	p->cb = cb;
	p->arg = arg;
	if ((p->flush_ev = evtimer_new(base, flush_cb, p)) == NULL) {
		log_error("cannot create the worker flush event");
		return -1;
	}
	for (unsigned i = 0; i < p->n; i++) {
		struct worker *w = &p->w[i];

		if (evutil_make_socket_nonblocking(w->fd) != 0 ||
		    (w->rev = event_new(base, w->fd, EV_READ | EV_PERSIST, worker_read_cb, w)) == NULL ||
		    (w->wev = event_new(base, w->fd, EV_WRITE | EV_PERSIST, worker_write_cb, w)) == NULL ||
		    (w->in = evbuffer_new()) == NULL || (w->out = evbuffer_new()) == NULL ||
		    event_add(w->rev, NULL) != 0) {
			log_error("cannot watch worker %d", (int)w->pid);
			return -1;
		}
	}
	return 0;
}

int pool_sign(struct pool *p, uint32_t key, const uint8_t digest[P256_DIGEST_LEN], void *ctx)
{
	struct worker *best = NULL;
	struct ipc_sign body;

	if (p->inflight >= p->max_inflight)
		return -PROTO_E_OVERLOADED;
	for (unsigned i = 0; i < p->n; i++)
		if (p->w[i].alive && (best == NULL || p->w[i].count < best->count))
			best = &p->w[i];
	if (best == NULL)
		return -PROTO_E_INTERNAL;
	memcpy(body.digest, digest, sizeof(body.digest));
	if (send_msg(best, IPC_SIGN, key, &body, ctx) != 0)
		return -PROTO_E_INTERNAL;
	p->inflight++;
	return 0;
}

void pool_selftest(struct pool *p)
{
	p->selftest_left = p->n;
	for (unsigned i = 0; i < p->n; i++) {
		struct worker *w = &p->w[i];

		if (!w->alive || send_msg(w, IPC_SELFTEST, 0, NULL, NULL) != 0) {
			p->selftest_failed = 1;
			p->selftest_left--;
		}
	}
	if (p->selftest_left == 0)
		p->cb->selftest_cb(p->arg, 0);
}

int pool_watchdog(struct pool *p)
{
	int ok = p->alive == p->n;

	for (unsigned i = 0; i < p->n; i++) {
		struct worker *w = &p->w[i];

		if (!w->alive)
			continue;
		if (w->ping_outstanding) {
			ok = 0;
			continue;
		}
		if (send_msg(w, IPC_PING, 0, NULL, NULL) == 0)
			w->ping_outstanding = 1;
	}
	return ok;
}

void pool_expire(struct pool *p, unsigned timeout_ms)
{
	uint64_t now = now_ms();

	for (unsigned i = 0; i < p->n; i++) {
		struct worker *w = &p->w[i];

		/* The ring is in sending order: stop at the first request that is young enough. */
		for (size_t k = 0; w->alive && k < w->count; k++) {
			struct pending *pe = &w->ring[(w->head + k) % w->cap];

			if (now - pe->sent_ms < timeout_ms)
				break;
			if (pe->type == IPC_SIGN && pe->ctx != NULL) {
				void *ctx = pe->ctx;

				pe->ctx = NULL;
				p->cb->signed_cb(ctx, PROTO_E_TIMEOUT, NULL);
			}
		}
	}
}

void pool_cancel(struct pool *p, uint16_t error)
{
	for (unsigned i = 0; i < p->n; i++) {
		struct worker *w = &p->w[i];

		for (size_t k = 0; k < w->count; k++) {
			struct pending *pe = &w->ring[(w->head + k) % w->cap];

			if (pe->type == IPC_SIGN && pe->ctx != NULL) {
				void *ctx = pe->ctx;

				pe->ctx = NULL;
				p->cb->signed_cb(ctx, error, NULL);
			}
		}
	}
}

void pool_reap(struct pool *p)
{
	pid_t pid;
	int status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (unsigned i = 0; i < p->n; i++) {
			if (p->w[i].pid != pid)
				continue;
			p->w[i].pid = -1;
			if (p->w[i].alive) {
				char why[64];

				if (WIFSIGNALED(status))
					snprintf(why, sizeof(why), "killed by signal %d", WTERMSIG(status));
				else
					snprintf(why, sizeof(why), "exited with status %d",
					    WEXITSTATUS(status));
				worker_fail(&p->w[i], why);
			}
		}
	}
}

/* Waits up to CLOSE_WAIT_MS for the workers to exit, then kills those still there (a stopped
 * or hung worker must not keep the daemon from exiting). */
#define CLOSE_WAIT_MS 2000

void pool_close(struct pool *p)
{
	uint64_t deadline = now_ms() + CLOSE_WAIT_MS;
	unsigned left = 0;

	for (unsigned i = 0; i < p->n; i++) {
		worker_close(&p->w[i]);
		left += p->w[i].pid > 0;
	}
	if (p->flush_ev != NULL)
		event_free(p->flush_ev);
	while (left > 0) {
		const struct timespec tick = { 0, 10 * 1000 * 1000 };
		int late = now_ms() >= deadline;

		for (unsigned i = 0; i < p->n; i++) {
			struct worker *w = &p->w[i];

			if (w->pid <= 0)
				continue;
			if (late)
				kill(w->pid, SIGKILL);
			pid_t r = waitpid(w->pid, NULL, late ? 0 : WNOHANG);

			if (r == w->pid || (r < 0 && errno == ECHILD)) {
				w->pid = -1;
				left--;
			}
		}
		if (left > 0)
			nanosleep(&tick, NULL);
	}
	for (unsigned i = 0; i < p->n; i++)
		free(p->w[i].ring);
	free(p->w);
	memset(p, 0, sizeof(*p));
}
