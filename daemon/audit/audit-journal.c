/* SPDX-License-Identifier: ISC */
/* Audit records to the journal, one structured entry each (audit-journal.h). */
#include "audit-journal.h"

#include <endian.h>
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "audit-fields.h"
#include "clock.h"
#include "log.h"

#define PREFIX "P256SIGN_"
#define NAME_MAX_LEN 64		/* journald's limit on a field name */
#define SNDBUF 4194304		/* room for bursts of records in flight (capped at wmem_max) */
#define SEND_CHUNK 64		/* entries a sendmmsg call is given */
/* How soon records waiting for journald are offered again (it drains its queue in well under). */
#define RETRY_MS 2

/*
 * Why not sd_journal_sendv (systemd 252, src/libsystemd/sd-journal/journal-send.c):
 * - it returns 0 when /run/systemd/journal/socket does not exist ("fail silently if the journal
 *   is not available"): a record lost without a word, where the audit must fail closed;
 * - its socket is blocking (SOCK_DGRAM | SOCK_CLOEXEC, sendmsg with MSG_NOSIGNAL only): when
 *   journald stops reading (stopped, or stuck on a full disk) and its receive queue is full
 *   (net.unix.max_dgram_qlen datagrams, or the 8 MiB send buffer it asks for), sendmsg waits
 *   for ever, and with it the daemon's whole event loop;
 * - an entry that does not fit a datagram goes in a memfd, a system call the parent's
 *   seccomp filter does not allow (the process would be killed);
 * - one sendmsg per entry, to the socket's path: each call looks the path up again.
 * The native protocol is small (systemd.io JOURNAL_NATIVE_PROTOCOL), so it is spoken here
 * with a non-blocking connected socket, a batch of entries to a sendmmsg call: a full queue is
 * EAGAIN at once, for the caller to decide.
 */

struct out {
	struct audit_sink sink;		/* first: a sink is its out */
	char object[NAME_MAX_LEN];	/* "P256SIGN_", and the open object's name and "_" */
};

static int journal_fd = -1;	/* the parent is one thread: one socket, connected on first use */

static void put(struct out *o, const void *s, size_t n)
{
	audit_put(&o->sink, s, n);
}

/* NAME=value and a newline; a value holding a newline as NAME, a newline, its length (u64
 * little-endian), the value and a newline. */
static void put_field(struct out *o, const char *name, size_t name_len, const char *value,
	size_t len)
{
	uint64_t le = htole64((uint64_t)len);

	put(o, name, name_len);
	if (memchr(value, '\n', len) != NULL) {
		put(o, "\n", 1);
		put(o, &le, sizeof(le));
	} else {
		put(o, "=", 1);
	}
	put(o, value, len);
	put(o, "\n", 1);
}

/* prefix (upper case already), then name in upper case (ours: lowercase ASCII and '_'), into
 * out; its length, or 0 when it does not fit. Copied by hand: snprintf took a tenth of the
 * parent's time at 64 connections. */
static size_t upper_name(char out[NAME_MAX_LEN], const char *prefix, const char *name)
{
	size_t p = strlen(prefix), n = strlen(name);

	if (p + n >= NAME_MAX_LEN)
		return 0;
	memcpy(out, prefix, p);
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		out[p + i] = (char)(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
	}
	out[p + n] = '\0';
	return p + n;
}

static void journal_member(struct audit_sink *s, const char *name, enum audit_value kind,
	const char *value, size_t len)
{
	struct out *o = (struct out *)s;
	char field[NAME_MAX_LEN];
	size_t n = upper_name(field, o->object, name);

	(void)kind;	/* a field is bytes: strings go unescaped, numbers as their digits */
	if (n == 0) {
		s->full = 1;
		return;
	}
	put_field(o, field, n, value, len);
}

static void journal_object(struct audit_sink *s, const char *name)
{
	struct out *o = (struct out *)s;
	size_t n;

	if (name == NULL) {
		memcpy(o->object, PREFIX, sizeof(PREFIX));
		return;
	}
	n = upper_name(o->object, PREFIX, name);
	if (n == 0 || n + 1 >= sizeof(o->object)) {
		s->full = 1;
		return;
	}
	o->object[n] = '_';
	o->object[n + 1] = '\0';
}

static void put_text(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* The line people read: "audit request SEQ OP[ key=KEY] RESULT", or "audit TYPE SEQ". None of
 * its parts holds a newline (key names are [A-Za-z0-9._-], docs/config.md). */
static void put_message(struct out *o, const struct audit_entry *e, uint64_t seq)
{
	const struct audit_request_entry *q = &e->u.req;
	char digits[AUDIT_DIGITS_MAX], *end = digits + sizeof(digits), *d = audit_decimal(seq, end);

	put_text(o, "MESSAGE=audit ");
	put_text(o, audit_type_name(e->type));
	put_text(o, " ");
	put(o, d, (size_t)(end - d));
	if (e->type == AUDIT_REQUEST) {
		put_text(o, " ");
		put_text(o, q->op);
		if (q->key[0] != '\0') {
			put_text(o, " key=");
			put_text(o, q->key);
		}
		put_text(o, " ");
		put_text(o, q->error == 0 ? "ok" : proto_error_tag(q->error));
	}
	put_text(o, "\n");
}

size_t audit_journal_entry(const struct audit_entry *e, uint64_t seq, const uint8_t prev[32],
	char *out, size_t cap)
{
	struct out o = { .sink = { .member = journal_member, .object = journal_object, .p = out,
		.cap = cap }, .object = PREFIX };

	if (audit_fields(e, seq, prev, &o.sink) != 0)
		return 0;
	put_message(&o, e, seq);
	put_field(&o, "PRIORITY", 8, "6", 1);
	put_field(&o, "SYSLOG_IDENTIFIER", 17, "p256signd", 9);
	return o.sink.full ? 0 : o.sink.len;
}

/* 0, or an errno: no journal listens (ENOENT, ECONNREFUSED), or the socket could not be made. */
static int journal_connect(void)
{
	static const struct sockaddr_un sa = { .sun_family = AF_UNIX,
		.sun_path = AUDIT_JOURNAL_SOCKET };
	int size = SNDBUF, fd, err;

	if (journal_fd >= 0)
		return 0;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return errno;
	/* Best effort, as journald's own clients do: the default fits ~100 records in flight. */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	if (connect(fd, (const struct sockaddr *)&sa, sizeof(sa)) != 0) {
		err = errno;
		close(fd);
		return err;
	}
	journal_fd = fd;
	return 0;
}

/* A connected datagram socket whose peer closed (journald restarted): ECONNREFUSED on the first
 * send, ENOTCONN after it. */
static int peer_gone(int err)
{
	return err == ECONNREFUSED || err == ENOTCONN || err == ECONNRESET;
}

size_t audit_journal_send(const char *buf, const size_t *ends, size_t n, int *err)
{
	struct mmsghdr mm[SEND_CHUNK];
	struct iovec iov[SEND_CHUNK];
	size_t sent = 0;
	int reconnected = 0, r;

	*err = 0;
	while (sent < n) {
		unsigned k = n - sent < SEND_CHUNK ? (unsigned)(n - sent) : SEND_CHUNK;

		if ((*err = journal_connect()) != 0)
			break;
		for (unsigned i = 0; i < k; i++) {
			size_t start = sent + i > 0 ? ends[sent + i - 1] : 0;

			iov[i] = (struct iovec){ (void *)(buf + start), ends[sent + i] - start };
			mm[i] = (struct mmsghdr){
				.msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
		}
		if ((r = sendmmsg(journal_fd, mm, k, MSG_NOSIGNAL | MSG_DONTWAIT)) > 0) {
			sent += (size_t)r;
			continue;
		}
		*err = r == 0 ? EAGAIN : errno;
		if (!peer_gone(*err) || reconnected)
			break;
		close(journal_fd);	/* once a call: a journald that restarted listens anew */
		journal_fd = -1;
		reconnected = 1;
	}
	return sent;
}

void audit_journal_init(struct audit_journal *j)
{
	memset(j, 0, sizeof(*j));
	j->step = AUDIT_JOURNAL_CHUNK;
}

static void retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct audit_journal *j = arg;

	j->again(j->arg);
}

static void room_cb(evutil_socket_t fd, short what, void *arg)
{
	struct audit_journal *j = arg;

	j->full = 0;
	j->again(j->arg);
}

int audit_journal_start(struct audit_journal *j, struct event_base *base, void (*again)(void *),
	void *arg)
{
	j->base = base;
	j->again = again;
	j->arg = arg;
	j->retry = evtimer_new(base, retry_cb, j);
	return j->retry != NULL ? 0 : -1;
}

size_t audit_journal_step(const struct audit_journal *j)
{
	return j->full ? 0 : j->step;
}

size_t audit_journal_offer(struct audit_journal *j, const struct audit_entry *e, size_t n,
	uint64_t seq, const uint8_t prev[32], const uint8_t (*hashes)[32], int *err)
{
	size_t ends[AUDIT_JOURNAL_CHUNK], made, fill = 0, sent = 0;
	int why = ENOMEM, send_err = 0;	/* why entry `made` could not be made */

	if (n > AUDIT_JOURNAL_CHUNK)
		n = AUDIT_JOURNAL_CHUNK;
	for (made = 0; made < n; made++) {
		size_t len;

		if (audit_grow(&j->buf, &j->cap, fill) != 0)
			break;
		len = audit_journal_entry(&e[made], seq + made, made ? hashes[made - 1] : prev,
		    j->buf + fill, AUDIT_RECORD_MAX);
		if (len == 0) {
			why = E2BIG;
			break;
		}
		fill += len;
		ends[made] = fill;
	}
	if (made > 0)
		sent = audit_journal_send(j->buf, ends, made, &send_err);
	*err = sent < made ? send_err : made < n ? why : 0;
	j->step = sent < n ? (sent > 0 ? sent : 1) :
	    j->step < AUDIT_JOURNAL_CHUNK / 2 ? 2 * j->step : AUDIT_JOURNAL_CHUNK;
	return sent;
}

/*
 * journald had no room: until its socket polls writable (a connected datagram socket polls so
 * when its peer's queue has room), nothing is offered to it, so that records are not made again
 * on every loop turn only to be refused. Without the event (out of memory), they are offered on
 * every retry as before.
 */
static void wait_for_room(struct audit_journal *j)
{
	if (journal_fd < 0 || j->base == NULL || j->full)
		return;
	if (j->room != NULL && event_get_fd(j->room) != journal_fd) {
		event_free(j->room);	/* reconnected since */
		j->room = NULL;
	}
	if (j->room == NULL &&
	    (j->room = event_new(j->base, journal_fd, EV_WRITE, room_cb, j)) == NULL)
		return;
	if (event_add(j->room, NULL) == 0)
		j->full = 1;
}

static void retry_soon(struct audit_journal *j)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = RETRY_MS * 1000 };

	if (j->retry != NULL && !evtimer_pending(j->retry, NULL) && evtimer_add(j->retry, &tv) != 0)
		log_error("audit: cannot arm the journal's retry (the next record retries)");
}

size_t audit_journal_hold(struct audit_journal *j, int err, size_t ready, size_t done,
	size_t waiting)
{
	uint64_t now = clock_now_us();

	if (err != EAGAIN || done != ready || waiting > AUDIT_JOURNAL_WAIT_MAX) {
		j->busy_us = 0;
		return 0;
	}
	if (j->busy_us == 0 || ready > 0)
		j->busy_us = now;	/* the bound is on time without progress */
	if (now - j->busy_us > AUDIT_JOURNAL_BUSY_MS * 1000ULL) {
		j->busy_us = 0;
		return 0;
	}
	if (waiting > 0) {
		wait_for_room(j);
		retry_soon(j);
	}
	return waiting;
}

void audit_journal_free(struct audit_journal *j)
{
	if (j->retry != NULL)
		event_free(j->retry);
	if (j->room != NULL)
		event_free(j->room);
	free(j->buf);
	memset(j, 0, sizeof(*j));
}
