/* SPDX-License-Identifier: ISC */
/* Signers seen from the parent (signers.h). */
#include "signers.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chan.h"
#include "clock.h"
#include "cursor.h"
#include "ipc.h"
#include "log.h"
#include "proto.h"
#include "selftest.h"

/*
 * More signing requests out than this many per signer, and the signers are saturated
 * (signers_saturated): each has over 100 us of signing queued, longer than the default poll.
 * Measured on two vCPUs (docs/performance.md, "Polling at 64 connections"): with 1 per signer
 * 4 connections lost a fifth of their rate; with 4, 64 connections gained and 4 did not lose.
 */
#define SATURATED_PER_SIGNER 4

/* Failed starts in a row that end the daemon, and how long it may go without a signer. */
#define FAILED_STARTS_MAX 5
#define NONE_ALIVE_MAX_US (5 * 1000 * 1000)
/* While the set has work, a signer that has been idle this long is pinged, so that a stopped one
 * is found before it gets work; an idle set pings none (no wake-up while nothing happens). */
#define PING_EVERY_US (1000 * 1000)
/* The longest round trip the average of signing round trips counts (busy polling's hint). */
#define ROUND_TRIP_MAX_US 10000

/*
 * A client's signing request, from its submission until every copy of it is answered or
 * dropped: it may be at several signers at once (sent again when the one holding it fell under
 * suspicion), and its first answer is the one the client receives.
 */
struct request {
	void *ctx;			/* the caller's; NULL once answered (or timed out) */
	uint64_t first_us;		/* submitted: its deadline counts from here */
	uint16_t type;			/* IPC_SIGN or IPC_SIGN_TLS */
	uint32_t generation;		/* of the key index below */
	unsigned copies;		/* in signers' rings */
	int waiting;			/* in the backlog */
	int sent;			/* has been at a signer: it goes again only to a fresh one */
	int covered;			/* tick_cb: a copy is at a signer not under suspicion */
	union {				/* both begin with the key index */
		struct ipc_sign sign;
		struct ipc_sign_tls tls;
	} req;
};

/* A message sent to a signer, in its ring until answered. */
struct pending {
	uint64_t id;
	uint64_t sent_us;		/* when it was queued: the answer's round trip counts from here */
	uint16_t type;			/* the IPC type sent */
	struct request *rq;		/* a signing request's, or NULL (self-test, ping) */
};

struct signer {
	struct signers *set;		/* the set it belongs to */
	struct chan ch;			/* ch.fd -1: a free slot */
	uint32_t id;
	pid_t pid;
	uint32_t generation;
	int passed;			/* answered its self-test */
	int draining;			/* of an older generation: closes once its ring is empty */
	uint64_t progress_us;		/* its last answer, or when it last went from idle to busy */
	uint64_t answer_us;		/* its last answer, or 0 */
	uint64_t read_us;		/* the read being handled: its replies' time */
	struct ipc_peer peer;		/* its replies and their handlers */
	struct pending *ring;		/* oldest first */
	size_t head, count;
};

static size_t ring_cap(const struct signers *p)
{
	/* The signing requests, a second copy of each (one sent again may come back to a signer
	 * that still holds the first), plus a self-test and a ping. */
	return 2 * p->max_inflight + 2;
}

static int in_use(const struct signer *w)
{
	return w->ch.fd >= 0;
}

/* How long w has had work outstanding without answering (now may predate its last answer). */
static uint64_t silent_us(const struct signer *w, uint64_t now)
{
	return w->count == 0 || now <= w->progress_us ? 0 : now - w->progress_us;
}

/* Under suspicion of hanging: silent for a quarter of the timeout with work outstanding. */
static int suspected(const struct signer *w, uint64_t now)
{
	return silent_us(w, now) >= (uint64_t)w->set->timeout_ms * 1000 / 4;
}

/* Takes new requests: in use, of the current generation, not draining, not suspected. */
static int usable(const struct signer *w, uint64_t now)
{
	return in_use(w) && !w->draining && w->generation == w->set->generation &&
	    !suspected(w, now);
}

/*
 * Takes a request sent before: usable, passed its self-test, and known to be answering (idle,
 * or an answer within the last twentieth of the timeout), so that a request taken from a signer
 * that stopped does not wait a second time on one that stopped too and is not yet suspected.
 */
static int fresh(const struct signer *w, uint64_t now)
{
	uint64_t window = (uint64_t)w->set->timeout_ms * 1000 / 20;

	return usable(w, now) && w->passed &&
	    (w->count == 0 || (now >= w->answer_us && now - w->answer_us < window));
}

/* The request leaves the set once it is answered and no copy of it is left anywhere. */
static void release_if_done(struct signers *p, struct request *rq)
{
	if (rq->ctx != NULL || rq->copies > 0 || rq->waiting)
		return;
	p->free_slots[p->nfree++] = (size_t)(rq - p->requests);
	p->inflight--;
}

/* Answers rq's client with error (and no signature), once. */
static void finish(struct signers *p, struct request *rq, uint16_t error)
{
	void *ctx = rq->ctx;

	if (ctx == NULL)
		return;
	rq->ctx = NULL;
	p->cb->signed_cb(ctx, error, NULL, 0);
}

static void arm_tick(struct signers *p);

static void backlog_push(struct signers *p, struct request *rq)
{
	/* Cannot overflow: a request is in the backlog at most once, and there are max_inflight. */
	p->backlog[(p->bl_head + p->bl_count) % p->max_inflight] = rq;
	p->bl_count++;
	rq->waiting = 1;
	arm_tick(p);
}

static int older(const void *a, const void *b)
{
	const struct request *x = *(struct request *const *)a, *y = *(struct request *const *)b;

	return x->first_us < y->first_us ? -1 : x->first_us > y->first_us;
}

/* The backlog in submission order, oldest first: a request sent again goes before newer ones. */
static void backlog_sort(struct signers *p)
{
	struct request **tmp = p->backlog_tmp;

	for (size_t k = 0; k < p->bl_count; k++)
		tmp[k] = p->backlog[(p->bl_head + k) % p->max_inflight];
	qsort(tmp, p->bl_count, sizeof(*tmp), older);
	memcpy(p->backlog, tmp, p->bl_count * sizeof(*tmp));
	p->bl_head = 0;
}

/* rq, taken from a signer that failed or fell under suspicion, waits for a fresh one. */
static void resend(struct signers *p, struct request *rq)
{
	p->stats.resent++;
	backlog_push(p, rq);
}

static void dispatch(struct signers *p);

/* The tick has something to watch: a signer with work outstanding (hung-signer test, pings of the
 * idle ones meanwhile), requests waiting for a signer, or none alive (the fail-fast clock). */
static int needs_tick(const struct signers *p)
{
	if (p->bl_count > 0 || (p->generation != 0 && p->alive == 0))
		return 1;
	for (size_t i = 0; i < p->nslots; i++)
		if (in_use(&p->s[i]) && p->s[i].count > 0)
			return 1;
	return 0;
}

/* Arms the tick when it has something to watch and is not armed: an idle set has no timer. */
static void arm_tick(struct signers *p)
{
	struct timeval tv = { .tv_sec = p->tick_ms / 1000, .tv_usec = p->tick_ms % 1000 * 1000 };

	if (p->tick_ev == NULL || evtimer_pending(p->tick_ev, NULL) || !needs_tick(p))
		return;
	if (evtimer_add(p->tick_ev, &tv) != 0)
		log_error("cannot arm the signers' timer: hung signers go unnoticed");
}

/* Drops a signer: closes its channel, sends its unanswered requests again elsewhere. */
static void signer_fail(struct signer *w, const char *why, int kill_it)
{
	struct signers *p = w->set;

	if (!in_use(w))
		return;
	log_error("signer %d: %s; %zu request(s) in flight go to another signer", (int)w->pid, why,
	    w->count);
	chan_close(&w->ch);
	if (!w->draining && w->generation == p->generation)
		p->alive--;
	if (!w->passed && ++p->failed_starts >= FAILED_STARTS_MAX) {
		p->cb->fatal_cb(p->arg, "signers keep failing at start");
		return;
	}
	for (; w->count > 0; w->count--, w->head = (w->head + 1) % ring_cap(p)) {
		struct request *rq = w->ring[w->head].rq;

		if (rq == NULL)
			continue;
		rq->copies--;
		/* Sent again unless answered, or waiting already, or at another signer (which
		 * tick_cb watches in turn). */
		if (rq->ctx != NULL && rq->copies == 0 && !rq->waiting)
			resend(p, rq);
		else
			release_if_done(p, rq);
	}
	backlog_sort(p);
	if (kill_it)
		p->cb->restart_cb(p->arg, w->id);
	p->cb->changed_cb(p->arg);
	dispatch(p);
	arm_tick(p);	/* none alive, or requests waiting */
}

/* Queues one message to w, a signing request's when rq is not NULL, and records it (now: the
 * caller's clock reading); 0 or -1. */
static int send_msg(struct signer *w, uint16_t type, struct request *rq, uint64_t now)
{
	struct signers *p = w->set;
	struct pending pe = { .id = p->next_id++, .sent_us = now, .type = type, .rq = rq };
	uint8_t buf[IPC_SIGNER_REQ_MAX];
	size_t len = 0, body = type == IPC_SIGN ? sizeof(rq->req.sign) :
	    type == IPC_SIGN_TLS ? sizeof(rq->req.tls) : 0;

	if (w->count == ring_cap(p) ||
	    ipc_put(buf, sizeof(buf), &len, type, pe.id, rq != NULL ? (void *)&rq->req : NULL,
	    body) != 0)
		return -1;
	/* Written by flush_cb at the end of this loop turn, with whatever else is queued by then. */
	if (evbuffer_get_length(w->ch.out) == 0 && !event_pending(w->ch.wev, EV_WRITE, NULL))
		event_active(p->flush_ev, EV_TIMEOUT, 0);
	if (evbuffer_add(w->ch.out, buf, len) != 0)
		return -1;
	if (w->count == 0)
		w->progress_us = now;
	w->ring[(w->head + w->count) % ring_cap(p)] = pe;
	if (++w->count == 1)
		arm_tick(p);	/* work outstanding: the hung-signer test */
	if (rq != NULL) {
		rq->copies++;
		rq->sent = 1;
	}
	return 0;
}

static int send_control(struct signer *w, uint16_t type)
{
	return send_msg(w, type, NULL, clock_now_us());
}

/*
 * The least busy signer at time now that may take rq (a new request: usable; one sent before:
 * fresh), or NULL. The callers read the clock once for all the requests they send in one go (a
 * request is a few microseconds; the hung-signer test counts in fractions of a second), not
 * once per request.
 */
static struct signer *pick(struct signers *p, const struct request *rq, uint64_t now)
{
	struct signer *best = NULL;

	for (size_t i = 0; i < p->nslots; i++)
		if ((rq->sent ? fresh(&p->s[i], now) : usable(&p->s[i], now)) &&
		    (best == NULL || p->s[i].count < best->count))
			best = &p->s[i];
	return best;
}

/* rq's key index in the generation in use: 0, or -1 when its key has gone (then answered). */
static int remap(struct signers *p, struct request *rq)
{
	int k;

	if (rq->generation == p->generation)
		return 0;
	if ((k = p->cb->remap_cb(p->arg, rq->generation, rq->req.sign.key, p->generation)) < 0) {
		finish(p, rq, PROTO_E_INTERNAL);
		return -1;
	}
	rq->req.sign.key = (uint32_t)k;
	rq->generation = p->generation;
	return 0;
}

/* Sends the waiting requests, oldest first, to signers that may take them; a request that no
 * signer may take yet stops the round (the ones behind it are newer). */
static void dispatch(struct signers *p)
{
	uint64_t now = clock_now_us();
	struct signer *w = NULL;

	while (p->bl_count > 0) {
		struct request *rq = p->backlog[p->bl_head];

		if (rq->ctx != NULL && (w = pick(p, rq, now)) == NULL)
			return;
		p->bl_head = (p->bl_head + 1) % p->max_inflight;
		p->bl_count--;
		rq->waiting = 0;
		if (rq->ctx == NULL || remap(p, rq) != 0) {
			release_if_done(p, rq);	/* answered (timed out) while it waited */
			continue;
		}
		if (send_msg(w, rq->type, rq, now) != 0) {
			backlog_push(p, rq);
			backlog_sort(p);
			signer_fail(w, "cannot queue a request", 1);
			return;
		}
	}
}

/* A signing request's round trip joins the moving average (weight 1/8) that says when the next
 * answers are due (signers_answer_due_us); one of over ROUND_TRIP_MAX_US counts as that. */
static void note_round_trip(struct signers *p, uint64_t us)
{
	us = us < ROUND_TRIP_MAX_US ? us : ROUND_TRIP_MAX_US;
	p->round_trip_us = p->round_trip_us - p->round_trip_us / 8 + us / 8;
}

/*
 * The oldest request sent to w, which the reply m must answer (its id and the type the table
 * expects), taken off the ring, with the signature m carries when it has one. 0, IPC_ERR_REPLY
 * when m answers no request, or IPC_ERR_FIELD when a field of its signature is out of range.
 */
static int take_reply(struct signer *w, const struct ipc_msg *m, struct pending *pe,
	struct ipc_signature *s)
{
	struct cursor c;

	memset(s, 0, sizeof(*s));
	cursor_init(&c, m->body, m->h.len);
	if (w->count == 0 || w->ring[w->head].id != m->h.id ||
	    ipc_reply_type(w->ring[w->head].type) != m->h.type)
		return IPC_ERR_REPLY;
	if (m->h.len > 0 && (cursor_copy(&c, s, sizeof(*s)) != 0 || ipc_signature_check(s) != 0))
		return IPC_ERR_FIELD;
	*pe = w->ring[w->head];
	w->head = (w->head + 1) % ring_cap(w->set);
	w->count--;
	w->progress_us = w->answer_us = w->read_us;
	if (pe->rq != NULL)
		note_round_trip(w->set, w->read_us - pe->sent_us);
	return 0;
}

static int on_signature(void *ctx, struct ipc_msg *m)
{
	struct signer *w = ctx;
	struct signers *p = w->set;
	struct pending pe;
	struct ipc_signature s;
	struct request *rq;
	void *client;
	int r;

	if ((r = take_reply(w, m, &pe, &s)) != 0)
		return r;
	rq = pe.rq;		/* a SIGNATURE answers a signing request: never NULL */
	rq->copies--;
	if ((client = rq->ctx) != NULL) {
		rq->ctx = NULL;	/* the first answer is the one; a copy's later one is dropped */
		p->cb->signed_cb(client, s.result == 0 ? 0 : s.result == P256_ERR_FAULT ?
		    PROTO_E_SIGN_FAILED : PROTO_E_INTERNAL, s.sig, (int)s.from_pool);
	}
	release_if_done(p, rq);
	return 0;
}

static int on_selftest_result(void *ctx, struct ipc_msg *m)
{
	struct signer *w = ctx;
	struct signers *p = w->set;
	struct pending pe;
	struct ipc_signature s;
	int r;

	if ((r = take_reply(w, m, &pe, &s)) != 0)
		return r;
	if (s.result != 0 || !selftest_kat_matches(s.sig)) {
		log_error("signer %d failed its self-test: %s", (int)w->pid,
		    s.result != 0 ? p256_err_tag(s.result) : "wrong known-answer signature");
		return IPC_ERR_CONTENT;
	}
	w->passed = 1;
	p->failed_starts = 0;
	if (p->starting == w->generation && ++p->started == p->want) {
		p->starting = 0;
		p->cb->ready_cb(p->arg, w->generation);
	}
	return 0;
}

static int on_pong(void *ctx, struct ipc_msg *m)
{
	struct pending pe;
	struct ipc_signature s;

	return take_reply(ctx, m, &pe, &s);
}

/* The parent's handlers of a signer's replies. */
static const ipc_handler reply_handlers[IPC_TYPE_MAX] = {
	[IPC_SIGNATURE] = on_signature,
	[IPC_SELFTEST_RESULT] = on_selftest_result,
	[IPC_PONG] = on_pong,
};

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	struct signers *p = arg;

	for (size_t i = 0; i < p->nslots; i++)
		if (in_use(&p->s[i]) && chan_flush(&p->s[i].ch) < 0)
			signer_fail(&p->s[i], "socket error", 1);
}

static void signer_write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct signer *w = arg;

	if (chan_flush(&w->ch) < 0)
		signer_fail(w, "socket error", 1);
}

static void signer_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct signer *w = arg;
	size_t len, used;
	const uint8_t *buf;
	ssize_t n = chan_read(&w->ch, 65536);
	int r;

	w->read_us = clock_now_us();

	/* A signer that dies with bytes unread leaves ECONNRESET rather than end of file. */
	if (n == 0 || (n < 0 && errno == ECONNRESET)) {
		signer_fail(w, "closed its channel", 0);
		return;
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR) {
		signer_fail(w, "socket error", 1);
		return;
	}
	if ((len = evbuffer_get_length(w->ch.in)) == 0)
		return;
	if ((buf = evbuffer_pullup(w->ch.in, -1)) == NULL) {
		signer_fail(w, "out of memory", 1);
		return;
	}
	if ((r = ipc_dispatch(&w->peer, buf, len, SIZE_MAX, NULL, &used)) != 0) {
		signer_fail(w, ipc_err_text(r), 1);
		return;
	}
	evbuffer_drain(w->ch.in, used);
	if (w->draining && w->count == 0)
		chan_close(&w->ch);	/* its generation has gone: it exits at end of file */
	else
		dispatch(w->set);
}

/*
 * The requests at signers under suspicion (silent for a quarter of the timeout) that no other
 * signer holds a copy of are sent again, to a fresh signer or the first replacement: overlapping
 * hangs then cost a request about a quarter of the timeout per signer it met, not a timeout
 * each. Signing is idempotent; the first answer wins.
 */
static void resend_suspected(struct signers *p, uint64_t now)
{
	size_t before = p->stats.resent;

	for (size_t i = 0; i < p->max_inflight; i++)
		p->requests[i].covered = 0;
	for (size_t i = 0; i < p->nslots; i++) {
		struct signer *w = &p->s[i];

		for (size_t k = 0; in_use(w) && !suspected(w, now) && k < w->count; k++)
			if (w->ring[(w->head + k) % ring_cap(p)].rq != NULL)
				w->ring[(w->head + k) % ring_cap(p)].rq->covered = 1;
	}
	for (size_t i = 0; i < p->nslots; i++) {
		struct signer *w = &p->s[i];

		for (size_t k = 0; in_use(w) && suspected(w, now) && k < w->count; k++) {
			struct request *rq = w->ring[(w->head + k) % ring_cap(p)].rq;

			if (rq != NULL && rq->ctx != NULL && !rq->covered && !rq->waiting)
				resend(p, rq);
		}
	}
	if (p->stats.resent != before) {
		backlog_sort(p);
		dispatch(p);
	}
}

/* Hung signers, pings of idle ones, and the end when no signer is coming back; armed again only
 * while there is something to watch (arm_tick). */
static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct signers *p = arg;
	uint64_t now = clock_now_us();

	for (size_t i = 0; i < p->nslots; i++) {
		struct signer *w = &p->s[i];

		if (!in_use(w))
			continue;
		if (silent_us(w, now) >= (uint64_t)p->timeout_ms * 1000) {
			p->stats.hung++;
			signer_fail(w, "stopped answering", 1);
		} else if (w->count == 0 && now - w->answer_us >= PING_EVERY_US &&
		    send_control(w, IPC_PING) != 0)
			signer_fail(w, "cannot queue a ping", 1);
	}
	resend_suspected(p, now);
	if (p->generation == 0 || p->alive > 0)
		p->none_since_us = 0;
	else if (p->none_since_us == 0)
		p->none_since_us = now;
	else if (now - p->none_since_us >= NONE_ALIVE_MAX_US) {
		p->cb->fatal_cb(p->arg, "no signer has come back");
		return;
	}
	arm_tick(p);
}

int signers_init(struct signers *p, struct event_base *base, unsigned want, size_t max_inflight,
	unsigned timeout_ms, const struct signers_callbacks *cb, void *arg)
{
	/* Often enough that a hung signer is dropped within a tenth of its timeout, or 100 ms. */
	unsigned every_ms = timeout_ms / 10 < 100 ? (timeout_ms / 10 ? timeout_ms / 10 : 1) : 100;

	memset(p, 0, sizeof(*p));
	p->tick_ms = every_ms;
	p->round_trip_us = ROUND_TRIP_MAX_US;	/* none measured: not due soon */
	p->base = base;
	p->want = want;
	p->max_inflight = max_inflight;
	p->timeout_ms = timeout_ms;
	p->next_id = 1;
	p->cb = cb;
	p->arg = arg;
	p->nslots = 2 * (size_t)want;
	if ((p->s = calloc(p->nslots, sizeof(*p->s))) == NULL)
		goto fail;
	for (size_t i = 0; i < p->nslots; i++) {
		p->s[i].set = p;
		p->s[i].ch.fd = -1;
		if ((p->s[i].ring = calloc(ring_cap(p), sizeof(*p->s[i].ring))) == NULL)
			goto fail;
	}
	if ((p->requests = calloc(max_inflight, sizeof(*p->requests))) == NULL ||
	    (p->free_slots = calloc(max_inflight, sizeof(*p->free_slots))) == NULL ||
	    (p->backlog_tmp = calloc(max_inflight, sizeof(*p->backlog_tmp))) == NULL ||
	    (p->backlog = calloc(max_inflight, sizeof(*p->backlog))) == NULL ||
	    (p->flush_ev = evtimer_new(base, flush_cb, p)) == NULL ||
	    (p->tick_ev = evtimer_new(base, tick_cb, p)) == NULL)
		goto fail;
	for (size_t i = 0; i < max_inflight; i++)
		p->free_slots[i] = max_inflight - 1 - i;
	p->nfree = max_inflight;
	return 0;
fail:
	log_error("cannot set up the signers");
	return -1;
}

void signers_expect(struct signers *p, uint32_t gen)
{
	p->starting = gen;
	p->started = 0;
}

/* A free slot, or NULL. There are 2 x want: the current generation and one being replaced by a
 * reload (signers_switch); a replacement takes the slot its dead signer left. */
static struct signer *free_slot(struct signers *p)
{
	for (size_t i = 0; i < p->nslots; i++)
		if (!in_use(&p->s[i]))
			return &p->s[i];
	return NULL;
}

int signers_add(struct signers *p, uint32_t gen, uint32_t id, pid_t pid, int fd)
{
	struct signer *w = free_slot(p);

	if (w == NULL || chan_open(&w->ch, p->base, fd, signer_read_cb, signer_write_cb, w) != 0) {
		log_error("signer %d: %s", (int)pid, w == NULL ? "no free slot" : "cannot watch it");
		close(fd);
		return -1;
	}
	w->id = id;
	w->pid = pid;
	w->generation = gen;
	w->passed = 0;
	w->draining = 0;
	w->head = w->count = 0;
	ipc_peer_init(&w->peer, PROC_SIGNER, PROC_PARENT, reply_handlers, w);
	if (gen == p->generation) {
		p->alive++;
		if (p->starting != gen)
			p->stats.replaced++;
	}
	if (send_control(w, IPC_SELFTEST) != 0) {
		signer_fail(w, "cannot queue its self-test", 1);
		return -1;
	}
	p->cb->changed_cb(p->arg);
	dispatch(p);
	return 0;
}

void signers_exited(struct signers *p, uint32_t id, int status)
{
	char why[64];

	if (WIFSIGNALED(status))
		snprintf(why, sizeof(why), "killed by signal %d", WTERMSIG(status));
	else
		snprintf(why, sizeof(why), "exited with status %d", WEXITSTATUS(status));
	for (size_t i = 0; i < p->nslots; i++) {
		if (p->s[i].id != id)
			continue;
		if (in_use(&p->s[i]))
			signer_fail(&p->s[i], why, 0);
		else
			log_info("signer %d %s", (int)p->s[i].pid, why);
		return;
	}
}

void signers_switch(struct signers *p, uint32_t gen)
{
	p->generation = gen;
	p->alive = 0;
	for (size_t i = 0; i < p->nslots; i++) {
		struct signer *w = &p->s[i];

		if (!in_use(w))
			continue;
		if (w->generation == gen) {
			p->alive++;
			continue;
		}
		w->draining = 1;
		if (w->count == 0)
			chan_close(&w->ch);
	}
	p->cb->changed_cb(p->arg);
	dispatch(p);
}

/* Takes a request slot for a signature of `type` by key index `key`, and sends it to the least
 * busy signer, or keeps it until one can take it. The caller fills in the rest of req. */
static struct request *submit_new(struct signers *p, uint16_t type, uint32_t key, void *ctx)
{
	struct request *rq;

	if (p->nfree == 0)
		return NULL;
	rq = &p->requests[p->free_slots[--p->nfree]];
	p->inflight++;
	*rq = (struct request){ .ctx = ctx, .type = type, .generation = p->generation };
	rq->req.sign.key = key;
	return rq;
}

static void submit_send(struct signers *p, struct request *rq)
{
	uint64_t now = clock_now_us();
	struct signer *w;

	rq->first_us = now;
	if ((w = pick(p, rq, now)) == NULL) {
		backlog_push(p, rq);	/* until a signer is back */
		return;
	}
	if (send_msg(w, rq->type, rq, now) != 0) {
		backlog_push(p, rq);
		signer_fail(w, "cannot queue a request", 1);
	}
}

int signers_sign(struct signers *p, uint32_t key, const uint8_t digest[P256_DIGEST_LEN], void *ctx)
{
	struct request *rq = submit_new(p, IPC_SIGN, key, ctx);

	if (rq == NULL)
		return -PROTO_E_OVERLOADED;
	memcpy(rq->req.sign.digest, digest, sizeof(rq->req.sign.digest));
	submit_send(p, rq);
	return 0;
}

int signers_sign_tls(struct signers *p, uint32_t key, const struct proto_tls *tls, void *ctx)
{
	struct request *rq = submit_new(p, IPC_SIGN_TLS, key, ctx);

	if (rq == NULL)
		return -PROTO_E_OVERLOADED;
	rq->req.tls.tls = *tls;
	submit_send(p, rq);
	return 0;
}

uint64_t signers_answer_due_us(const struct signers *p, uint64_t now)
{
	uint64_t due = UINT64_MAX;

	for (size_t i = 0; i < p->nslots; i++) {
		const struct signer *w = &p->s[i];
		uint64_t at;

		if (!in_use(w) || w->count == 0 || w->ring[w->head].rq == NULL)
			continue;
		at = w->ring[w->head].sent_us + p->round_trip_us;
		at = at > now ? at - now : 0;
		due = at < due ? at : due;
	}
	return due;
}

int signers_saturated(const struct signers *p)
{
	return p->alive > 0 && p->inflight > SATURATED_PER_SIGNER * (size_t)p->alive;
}

int signers_healthy(const struct signers *p)
{
	uint64_t now = clock_now_us();

	for (size_t i = 0; i < p->nslots; i++)
		if (usable(&p->s[i], now) && p->s[i].passed)
			return 1;
	return 0;
}

/* Answers with error every request not yet answered that was submitted before before_us (0:
 * all of them); their copies at the signers stay counted until answered or dropped. */
static void finish_before(struct signers *p, uint64_t before_us, uint16_t error)
{
	for (size_t i = 0; i < p->max_inflight; i++) {
		struct request *rq = &p->requests[i];

		if (rq->ctx != NULL && (before_us == 0 || rq->first_us < before_us)) {
			finish(p, rq, error);
			release_if_done(p, rq);
		}
	}
}

void signers_expire(struct signers *p, unsigned timeout_ms)
{
	uint64_t now = clock_now_us();

	if (now > (uint64_t)timeout_ms * 1000)
		finish_before(p, now - (uint64_t)timeout_ms * 1000, PROTO_E_TIMEOUT);
}

void signers_cancel(struct signers *p, uint16_t error)
{
	finish_before(p, 0, error);
}

void signers_close(struct signers *p)
{
	for (size_t i = 0; i < p->nslots; i++) {
		chan_close(&p->s[i].ch);
		free(p->s[i].ring);
	}
	if (p->flush_ev != NULL)
		event_free(p->flush_ev);
	if (p->tick_ev != NULL)
		event_free(p->tick_ev);
	free(p->s);
	free(p->requests);
	free(p->free_slots);
	free(p->backlog_tmp);
	free(p->backlog);
	memset(p, 0, sizeof(*p));
}

int signers_status_add(const struct signers *p, json_t *status)
{
	/* "workers": the signers, named as in the configuration. */
	if (json_object_set_new(status, "workers", json_integer(p->want)) != 0 ||
	    json_object_set_new(status, "workers_alive", json_integer(p->alive)) != 0 ||
	    json_object_set_new(status, "workers_replaced",
		json_integer((json_int_t)p->stats.replaced)) != 0 ||
	    json_object_set_new(status, "workers_hung", json_integer((json_int_t)p->stats.hung)) != 0 ||
	    json_object_set_new(status, "requests_resent",
		json_integer((json_int_t)p->stats.resent)) != 0 ||
	    json_object_set_new(status, "key_set", json_integer((json_int_t)p->generation)) != 0 ||
	    json_object_set_new(status, "at_workers", json_integer((json_int_t)p->inflight)) != 0)
		return -1;
	return 0;
}
