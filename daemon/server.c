/* SPDX-License-Identifier: ISC */
/* Connections, frames, limits, timeouts and the orderly stop (server.h). */
#include "server.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <unistd.h>

#include "chan.h"
#include "clock.h"
#include "log.h"
#include "proto.h"

#define READ_MAX 16384			/* bytes per read from a client */
#define OUTPUT_HIGH 65536		/* stop taking requests while more replies are unread */
#define OUTPUT_LOW 16384		/* and resume below this */
#define FRAMES_PER_TURN 64		/* then let other connections have a turn */
#define RETRY_ACCEPT_MS 100
#define REFUSAL_LOG_MS 1000

struct conn {
	struct server *srv;
	struct chan ch;			/* ch.fd -1 once the socket is closed */
	struct event *timer;		/* idle or mid-frame timeout */
	struct ucred peer;		/* SO_PEERCRED, taken at accept */
	struct peer_identity identity;	/* its process name and unit, taken at accept */
	gid_t *groups;			/* SO_PEERGROUPS, taken at accept */
	size_t ngroups;
	unsigned long number;		/* counted from 1, for the log */
	unsigned inflight;		/* requests sent to a signer and not yet answered */
	int closing;			/* write what is queued, then close */
	int eof;			/* the client shut down its side: answer, then close */
	int paused;			/* reading stopped until the client reads its replies */
	int frame_timing;		/* the mid-frame timeout is armed */
	int busy;			/* its frames are being taken: closing must not free it */
	int more;			/* frames left for its next turn */
	int queued;			/* on the server's list of connections with replies to write */
	TAILQ_ENTRY(conn) link;
	TAILQ_ENTRY(conn) flush_link;
};

struct server {
	struct event_base *base;
	struct server_callbacks cb;
	const struct config *cfg;
	struct evconnlistener *listener;
	struct event *stop_ev;		/* bounds the orderly stop */
	struct event *retry_ev;		/* resumes accepting after running out of descriptors */
	struct event *flush_ev;		/* writes queued replies at the end of a loop turn */
	struct event *refusal_ev;	/* the once-a-second summary of refused connections */
	uint64_t refused[2];		/* since then: over max_connections, over the per-uid limit */
	TAILQ_HEAD(, conn) conns;
	TAILQ_HEAD(, conn) to_flush;
	unsigned nconns;
	uint64_t connections;		/* accepted in all */
	size_t inflight;		/* over all connections */
	int stopping;
	uint64_t activity;		/* client bytes read and replies queued (busypoll.h) */
};

static struct timeval ms_tv(unsigned ms)
{
	return (struct timeval){ .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
}

static void maybe_finish_stop(struct server *s)
{
	if (s->stopping && s->nconns == 0 && s->inflight == 0)
		event_base_loopexit(s->base, NULL);
}

static void conn_free(struct conn *c)
{
	if (c->timer != NULL)
		event_free(c->timer);
	chan_close(&c->ch);
	free(c->groups);
	free(c);
}

/* Closes the socket; the struct stays until the last request sent to a signer on its behalf
 * comes back, and while its frames are being taken. */
static void conn_close(struct conn *c)
{
	struct server *s = c->srv;

	if (c->ch.fd < 0)
		return;
	event_del(c->timer);
	chan_close_socket(&c->ch);	/* the buffers stay until the struct goes */
	if (c->queued) {
		TAILQ_REMOVE(&s->to_flush, c, flush_link);
		c->queued = 0;
	}
	TAILQ_REMOVE(&s->conns, c, link);
	s->nconns--;
	if (c->inflight == 0 && !c->busy)
		conn_free(c);
	maybe_finish_stop(s);
}

/* Idle while nothing is buffered or in flight; mid-frame while part of a frame is buffered. */
static void conn_update_timer(struct conn *c)
{
	const struct config_limits *l = &c->srv->cfg->limits;
	struct timeval tv;

	if (evbuffer_get_length(c->ch.in) > 0) {
		if (c->frame_timing)
			return;
		c->frame_timing = 1;
		tv = ms_tv(l->frame_timeout_ms);
	} else {
		c->frame_timing = 0;
		if (c->inflight > 0 || c->srv->stopping) {
			event_del(c->timer);
			return;
		}
		tv = ms_tv(l->idle_timeout_ms);
	}
	/* A connection without its timer could be held open for ever: close it instead. */
	if (event_add(c->timer, &tv) != 0) {
		log_error("conn %lu: cannot arm its timer", c->number);
		conn_close(c);
	}
}

void server_conn_keep(struct conn *c)
{
	c->inflight++;
	c->srv->inflight++;
}

int server_conn_hold(struct conn *c)
{
	if (c->inflight >= c->srv->cfg->limits.max_inflight_per_connection)
		return -1;
	server_conn_keep(c);
	return 0;
}

const struct ucred *server_conn_peer(const struct conn *c)
{
	return &c->peer;
}

struct policy_peer server_conn_policy_peer(const struct conn *c)
{
	return (struct policy_peer){ .uid = c->peer.uid, .gid = c->peer.gid, .groups = c->groups,
		.ngroups = c->ngroups };
}

const struct peer_identity *server_conn_identity(const struct conn *c)
{
	return &c->identity;
}

unsigned long server_conn_number(const struct conn *c)
{
	return c->number;
}

int server_conn_open(const struct conn *c)
{
	return c->ch.fd >= 0;
}

void server_conn_release(struct conn *c)
{
	struct server *s = c->srv;

	c->inflight--;
	s->inflight--;
	if (c->ch.fd < 0 && c->inflight == 0 && !c->busy)
		conn_free(c);
	else if (c->ch.fd >= 0 && c->inflight == 0)
		conn_update_timer(c);	/* idle from now: the timer stopped while this was out */
	maybe_finish_stop(s);
}

static void conn_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	log_info("conn %lu: closed after %s", c->number,
	    c->frame_timing ? "a frame stalled" : "being idle");
	conn_close(c);
}

/* Queues c for the flush at the end of this loop turn. */
void server_conn_wake(struct conn *c)
{
	struct server *s = c->srv;

	if (c->queued || c->ch.fd < 0)
		return;
	/* The flush runs after the callbacks already due in this turn: their replies join it. */
	if (TAILQ_EMPTY(&s->to_flush))
		event_active(s->flush_ev, EV_TIMEOUT, 0);
	c->queued = 1;
	TAILQ_INSERT_TAIL(&s->to_flush, c, flush_link);
}

void server_conn_close_after_write(struct conn *c)
{
	c->closing = 1;
	chan_pause(&c->ch);
	if (evbuffer_get_length(c->ch.out) == 0)
		conn_close(c);
	else
		server_conn_wake(c);
}

int server_conn_send(struct conn *c, const uint8_t *bytes, size_t len)
{
	if (c->ch.fd < 0)
		return 0;
	c->srv->activity++;
	if (evbuffer_add(c->ch.out, bytes, len) != 0) {
		log_error("conn %lu: out of memory", c->number);
		conn_close(c);
		return -1;
	}
	server_conn_wake(c);
	return 0;
}

void server_conn_close(struct conn *c)
{
	conn_close(c);
}

static void conn_process(struct conn *c);

/* Writes what it can of c's replies; waits for the socket to be writable for the rest. Then
 * closes c if it was to close, or resumes reading once the client caught up. */
static void conn_flush(struct conn *c)
{
	ssize_t left = chan_flush(&c->ch);

	if (left < 0) {
		conn_close(c);
		return;
	}
	if (left == 0 && (c->closing || ((c->srv->stopping || c->eof) && c->inflight == 0))) {
		conn_close(c);
		return;
	}
	if (c->paused && !c->closing && left <= OUTPUT_LOW) {
		c->paused = 0;
		if (chan_resume(&c->ch) != 0) {
			log_error("conn %lu: cannot resume reading", c->number);
			conn_close(c);
			return;
		}
		conn_process(c);
	}
}

/* Record first, then release: the turn's audit records are written (and the signatures held
 * for them released) before any reply of the turn is. The second write takes the records of the
 * audit-unavailable answers that replaced signatures whose record could not be written. */
static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server *s = arg;
	struct conn *c;

	s->cb.before_write(s->cb.arg);
	while ((c = TAILQ_FIRST(&s->to_flush)) != NULL) {
		TAILQ_REMOVE(&s->to_flush, c, flush_link);
		c->queued = 0;
		conn_flush(c);
	}
}

static void conn_write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	/* The socket drained: what is queued for it may include replies of this turn, whose records
	 * go first. Releasing held replies cannot free c meanwhile. */
	c->busy = 1;
	c->srv->cb.before_write(c->srv->cb.arg);
	c->busy = 0;
	if (c->ch.fd < 0) {
		if (c->inflight == 0)
			conn_free(c);
		return;
	}
	conn_flush(c);
}

static void conn_take_frames(struct conn *c);

/* Takes the complete frames in c's input; c may be closed, and then freed, on return. */
static void conn_process(struct conn *c)
{
	c->busy = 1;
	conn_take_frames(c);
	c->busy = 0;
	if (c->ch.fd < 0 && c->inflight == 0)
		conn_free(c);
}

/* What take_frame did with c's input. */
enum take {
	TAKEN,		/* one frame handed to the frame callback */
	WAIT,		/* no complete frame, or the client must read its replies first */
	FAULT,		/* a bad length prefix: answered, c closes after the answer */
	GONE,		/* c closed */
};

/* Hands the next complete frame of c's input to the frame callback. */
static enum take take_frame(struct conn *c)
{
	struct server *s = c->srv;
	uint8_t prefix[PROTO_LEN_PREFIX];
	size_t have = evbuffer_get_length(c->ch.in);
	uint32_t len = 0;
	const uint8_t *frame;
	int r;

	if (evbuffer_get_length(c->ch.out) > OUTPUT_HIGH) {
		c->paused = 1;
		chan_pause(&c->ch);
		return WAIT;
	}
	if (have < PROTO_LEN_PREFIX)
		return WAIT;
	evbuffer_copyout(c->ch.in, prefix, sizeof(prefix));
	/* Decided on the prefix alone: an oversize frame's body is never waited for. */
	r = proto_frame_length(prefix, &len);
	if (r == 0 && len > s->cfg->limits.max_frame_bytes)
		r = -PROTO_E_FRAME_TOO_LARGE;
	if (r != 0) {
		s->cb.frame_fault(s->cb.arg, c, (uint16_t)-r, clock_now_us());
		if (c->ch.fd >= 0)
			server_conn_close_after_write(c);
		return FAULT;
	}
	if (have - PROTO_LEN_PREFIX < len)
		return WAIT;
	if ((frame = evbuffer_pullup(c->ch.in, PROTO_LEN_PREFIX + (ssize_t)len)) == NULL) {
		log_error("conn %lu: out of memory", c->number);
		conn_close(c);
		return GONE;
	}
	c->frame_timing = 0;	/* progress: a stalled frame is timed from here */
	s->cb.frame(s->cb.arg, c, frame + PROTO_LEN_PREFIX, len, clock_now_us());
	if (c->ch.fd < 0)
		return GONE;
	evbuffer_drain(c->ch.in, PROTO_LEN_PREFIX + len);
	return TAKEN;
}

/* At most FRAMES_PER_TURN frames, then the other connections get their turn. */
static void conn_take_frames(struct conn *c)
{
	struct server *s = c->srv;
	enum take t = TAKEN;
	int n;

	for (n = 0; n < FRAMES_PER_TURN && c->ch.fd >= 0 && !c->closing; n++)
		if ((t = take_frame(c)) != TAKEN)
			break;
	if (t == GONE || c->ch.fd < 0)
		return;
	if (c->inflight == 0 && (s->stopping || (c->eof && n < FRAMES_PER_TURN))) {
		server_conn_close_after_write(c);
		return;
	}
	/* Frames left over: come back after the connections already waiting had their turn. */
	if (n == FRAMES_PER_TURN) {
		c->more = 1;
		event_active(c->ch.rev, EV_READ, 0);
	}
	conn_update_timer(c);
}

/* Reads what the socket has, up to a whole frame's worth beyond what is buffered. */
static void conn_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	size_t limit = PROTO_LEN_PREFIX + c->srv->cfg->limits.max_frame_bytes;
	size_t have = evbuffer_get_length(c->ch.in);

	c->srv->activity++;
	if (c->more)
		c->more = 0;	/* a turn for buffered frames; the socket is read next time */
	else if (have < limit) {
		ssize_t n = chan_read(&c->ch, limit - have < READ_MAX ? limit - have : READ_MAX);

		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			conn_close(c);
			return;
		}
		/* A client may shut down its sending side and still read: its complete frames are
		 * answered, and the connection closes after the last reply (a partial frame left
		 * over is dropped with it). */
		if (n == 0) {
			c->eof = 1;
			chan_pause(&c->ch);
		}
	}
	conn_process(c);
}

/* The one unrequested frame of the protocol, to a connection beyond max_connections or
 * max_connections_per_uid: too-many-connections with id 0, then close. Best effort: the socket
 * is new, so its buffer has room for one small frame. */
static void refuse(int fd)
{
	struct proto_response resp;
	uint8_t buf[PROTO_LEN_PREFIX + PROTO_HEADER_LEN + 4 + PROTO_TEXT_MAX];
	size_t len;

	proto_error_response(&resp, 0, PROTO_E_TOO_MANY_CONNECTIONS);
	if (proto_encode_response(&resp, buf, sizeof(buf), &len) == 0 &&
	    send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		log_error("refusing a connection: %s", strerror(errno));
	close(fd);
}

/* Connections open for uid. */
static unsigned conns_of(const struct server *s, uid_t uid)
{
	const struct conn *c;
	unsigned n = 0;

	TAILQ_FOREACH(c, &s->conns, link)
		n += c->peer.uid == uid;
	return n;
}

/* The peer's supplementary groups (SO_PEERGROUPS), into c->groups. 0 or -1. */
static int take_groups(struct conn *c, int fd)
{
	socklen_t len = 16 * sizeof(gid_t);

	for (;;) {
		gid_t *g = realloc(c->groups, len ? len : sizeof(gid_t));

		if (g == NULL)
			return -1;
		c->groups = g;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, c->groups, &len) == 0) {
			c->ngroups = len / sizeof(gid_t);
			return 0;
		}
		if (errno != ERANGE)	/* len now says how much is needed */
			return -1;
	}
}

/* One log line a second sums up the refused connections, however many there were. */
static void refused(struct server *s, int per_uid)
{
	struct timeval tv = ms_tv(REFUSAL_LOG_MS);

	s->cb.refused(s->cb.arg);
	s->refused[per_uid]++;
	if (!event_pending(s->refusal_ev, EV_TIMEOUT, NULL) && event_add(s->refusal_ev, &tv) != 0)
		log_error("cannot arm the refusal log timer");
}

static void refusal_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server *s = arg;

	log_info("refused %llu connection(s) over max_connections (%u) and %llu over "
	    "max_connections_per_uid (%u) in the last %u ms", (unsigned long long)s->refused[0],
	    s->cfg->limits.max_connections, (unsigned long long)s->refused[1],
	    s->cfg->limits.max_connections_per_uid, REFUSAL_LOG_MS);
	s->refused[0] = s->refused[1] = 0;
}

static void accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
	int salen, void *arg)
{
	struct server *s = arg;
	struct conn *c = NULL;
	socklen_t credlen = sizeof(c->peer);

	if (s->stopping) {
		close(fd);
		return;
	}
	if (s->nconns >= s->cfg->limits.max_connections) {
		refused(s, 0);
		refuse(fd);
		return;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL)
		goto fail;
	c->srv = s;
	c->ch.fd = -1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c->peer, &credlen) != 0 ||
	    take_groups(c, fd) != 0) {
		log_error("peer credentials: %s", strerror(errno));
		goto fail;
	}
	/* Unknown (the peer is gone, or in another pid namespace) is no reason to refuse it. */
	(void)peer_identity_take(c->peer.pid, &c->identity);
	if (conns_of(s, c->peer.uid) >= s->cfg->limits.max_connections_per_uid) {
		refused(s, 1);
		refuse(fd);
		free(c->groups);
		free(c);
		return;
	}
	if ((c->timer = evtimer_new(s->base, conn_timer_cb, c)) == NULL ||
	    chan_open(&c->ch, s->base, fd, conn_read_cb, conn_write_cb, c) != 0)
		goto fail;
	c->number = ++s->connections;
	TAILQ_INSERT_TAIL(&s->conns, c, link);
	s->nconns++;
	conn_update_timer(c);
	return;
fail:
	log_error("cannot take a connection");
	if (c != NULL)
		conn_free(c);
	close(fd);
}

static void retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server *s = arg;

	if (!s->stopping)
		evconnlistener_enable(s->listener);
}

/* accept failed: out of descriptors or memory. Pause accepting rather than spin. */
static void accept_error_cb(struct evconnlistener *l, void *arg)
{
	struct server *s = arg;
	struct timeval tv = ms_tv(RETRY_ACCEPT_MS);

	log_error("accept: %s", strerror(errno));
	evconnlistener_disable(l);
	if (event_add(s->retry_ev, &tv) != 0)
		log_error("cannot arm the accept retry timer: no new connections");
}

static void stop_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server *s = arg;

	log_error("stopping with %zu request(s) unanswered after %u ms", s->inflight,
	    s->cfg->limits.shutdown_timeout_ms);
	event_base_loopexit(s->base, NULL);
}

/* The server's events, or -1 (logged). */
static int server_events(struct server *s, int fd)
{
	/* accept runs until EAGAIN, so the socket (ours or systemd's) must not block. */
	if (evutil_make_socket_nonblocking(fd) != 0) {
		close(fd);
		log_error("cannot make the listening socket non-blocking");
		return -1;
	}
	s->listener = evconnlistener_new(s->base, accept_cb, s,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC | LEV_OPT_DISABLED, 0, fd);
	if (s->listener == NULL) {
		close(fd);
		log_error("cannot listen");
		return -1;
	}
	evconnlistener_set_error_cb(s->listener, accept_error_cb);
	s->stop_ev = evtimer_new(s->base, stop_cb, s);
	s->retry_ev = evtimer_new(s->base, retry_cb, s);
	s->flush_ev = evtimer_new(s->base, flush_cb, s);
	s->refusal_ev = evtimer_new(s->base, refusal_cb, s);
	if (s->stop_ev == NULL || s->retry_ev == NULL || s->flush_ev == NULL ||
	    s->refusal_ev == NULL || log_attach(s->base) != 0) {
		log_error("cannot create timers");
		return -1;
	}
	return 0;
}

struct server *server_new(struct event_base *base, const struct config *cfg, int fd,
	const struct server_callbacks *cb)
{
	struct server *s = calloc(1, sizeof(*s));
	struct peer_identity self;

	if (s == NULL) {
		close(fd);
		log_error("out of memory");
		return NULL;
	}
	/* libsystemd finds the cgroup layout (statfs) on its first unit lookup and keeps it: done
	 * now, before the sandbox, which allows reading /proc but not statfs. */
	(void)peer_identity_take(getpid(), &self);
	s->base = base;
	s->cb = *cb;
	s->cfg = cfg;
	TAILQ_INIT(&s->conns);
	TAILQ_INIT(&s->to_flush);
	if (server_events(s, fd) != 0) {
		server_free(s);
		return NULL;
	}
	return s;
}

int server_accept(struct server *s)
{
	if (evconnlistener_enable(s->listener) != 0) {
		log_error("cannot accept connections");
		return -1;
	}
	return 0;
}

void server_stop(struct server *s)
{
	struct timeval tv = ms_tv(s->cfg->limits.shutdown_timeout_ms);
	struct conn *c, *next;

	if (s->stopping)
		return;
	s->stopping = 1;
	evconnlistener_free(s->listener);
	s->listener = NULL;
	event_del(s->retry_ev);
	if (event_add(s->stop_ev, &tv) != 0)
		log_error("cannot arm the stop timeout: waiting for every request in flight");
	log_info("stopping: %zu request(s) in flight on %u connection(s)", s->inflight, s->nconns);
	/* Connections with nothing in flight go once their replies are written. */
	for (c = TAILQ_FIRST(&s->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, link);
		event_del(c->timer);
		if (c->inflight == 0)
			server_conn_close_after_write(c);
	}
	maybe_finish_stop(s);
}

void server_free(struct server *s)
{
	struct conn *c;

	if (s == NULL)
		return;
	while ((c = TAILQ_FIRST(&s->conns)) != NULL)
		conn_close(c);
	if (s->listener != NULL)
		evconnlistener_free(s->listener);
	if (s->stop_ev != NULL)
		event_free(s->stop_ev);
	if (s->retry_ev != NULL)
		event_free(s->retry_ev);
	if (s->flush_ev != NULL)
		event_free(s->flush_ev);
	if (s->refusal_ev != NULL)
		event_free(s->refusal_ev);
	log_flush();
	log_detach();
	free(s);
}

int server_stopping(const struct server *s)
{
	return s->stopping;
}

const uint64_t *server_activity(const struct server *s)
{
	return &s->activity;
}

int server_status_add(const struct server *s, json_t *status)
{
	if (json_object_set_new(status, "connections", json_integer((json_int_t)s->nconns)) != 0 ||
	    json_object_set_new(status, "connections_total",
		json_integer((json_int_t)s->connections)) != 0 ||
	    json_object_set_new(status, "inflight", json_integer((json_int_t)s->inflight)) != 0 ||
	    json_object_set_new(status, "stopping", json_boolean(s->stopping)) != 0)
		return -1;
	return 0;
}
