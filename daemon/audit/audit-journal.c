/* SPDX-License-Identifier: ISC */
/* Audit records to the journal, one structured entry each (audit-journal.h). */
#include "audit-journal.h"

#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "audit-fields.h"

#define PREFIX "P256SIGN_"
#define NAME_MAX_LEN 64		/* journald's limit on a field name */
#define SNDBUF 4194304		/* room for bursts of records in flight (capped at wmem_max) */
#define SEND_CHUNK 64		/* entries a sendmmsg call is given */

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

int audit_journal_socket(void)
{
	return journal_fd;
}
