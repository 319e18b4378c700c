/* SPDX-License-Identifier: ISC */
/* Audit records to the journal, one structured entry each (audit-journal.h). */
#include "audit-journal.h"

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#define FIELDS_MAX 40		/* a record has fewer members, nested ones counted (docs/audit.md) */
#define NAME_MAX_LEN 64		/* journald's limit on a field name */
#define VALUE_MAX 256		/* the longest member is 64 hex digits; a longer MESSAGE is cut */
#define SNDBUF 4194304		/* room for bursts of records in flight (capped at wmem_max) */

/*
 * Why not sd_journal_sendv (systemd 252, src/libsystemd/sd-journal/journal-send.c):
 * - it returns 0 when /run/systemd/journal/socket does not exist ("fail silently if the journal
 *   is not available"): a record lost without a word, where the audit must fail closed;
 * - its socket is blocking (SOCK_DGRAM | SOCK_CLOEXEC, sendmsg with MSG_NOSIGNAL only): when
 *   journald stops reading (stopped, or stuck on a full disk) and its receive queue is full
 *   (net.unix.max_dgram_qlen datagrams, or the 8 MiB send buffer it asks for), sendmsg waits
 *   for ever, and with it the daemon's whole event loop;
 * - an entry that does not fit a datagram goes in a memfd, a system call the parent's
 *   seccomp filter does not allow (the process would be killed).
 * The native protocol is small (systemd.io JOURNAL_NATIVE_PROTOCOL), so it is spoken here
 * with a non-blocking socket: a full queue is -EAGAIN at once, for the caller to decide.
 */

struct field {
	char name[NAME_MAX_LEN + 1];
	char value[VALUE_MAX];
	size_t name_len, value_len;
	uint64_t le_len;	/* the binary form's length, little-endian */
};

struct entry {
	struct field f[FIELDS_MAX];
	size_t n;
	/* Per field at most: name, "\n", length, value, "\n" (a value with a newline in it). */
	struct iovec iov[5 * FIELDS_MAX];
};

static int journal_fd = -1;	/* the parent is one thread: one socket, opened on first use */

/* A field: name from prefix and key in upper case, '-' as '_'; -E2BIG when it does not fit. */
static struct field *new_field(struct entry *e, const char *prefix, const char *key)
{
	struct field *f;
	int n;

	if (e->n == FIELDS_MAX)
		return NULL;
	f = &e->f[e->n];
	n = key != NULL ? snprintf(f->name, sizeof(f->name), "%s_%s", prefix, key) :
	    snprintf(f->name, sizeof(f->name), "%s", prefix);
	if (n < 0 || (size_t)n >= sizeof(f->name))
		return NULL;
	for (char *c = f->name; *c != '\0'; c++)
		*c = *c == '-' ? '_' : (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
	f->name_len = (size_t)n;
	e->n++;
	return f;
}

/* A member's value whole or -E2BIG; cut, the line people read (cut is 1). */
static int set_value(struct field *f, const char *value, int cut)
{
	size_t len = strlen(value);

	if (len > sizeof(f->value) && !cut)
		return -E2BIG;
	len = len > sizeof(f->value) ? sizeof(f->value) : len;
	memcpy(f->value, value, len);
	f->value_len = len;
	return 0;
}

static int add_text(struct entry *e, const char *name, const char *value)
{
	struct field *f = new_field(e, name, NULL);

	return f == NULL ? -E2BIG : set_value(f, value, 1);
}

/* Appends PREFIX_KEY=value; -E2BIG when the record has more fields or longer values than fit. */
static int add(struct entry *e, const char *prefix, const char *key, const json_t *value)
{
	struct field *f = new_field(e, prefix, key);
	char number[32];

	if (f == NULL)
		return -E2BIG;
	if (json_is_string(value))
		return set_value(f, json_string_value(value), 0);
	if (!json_is_integer(value))
		return -EINVAL;
	snprintf(number, sizeof(number), "%" JSON_INTEGER_FORMAT, json_integer_value(value));
	return set_value(f, number, 0);
}

/* Adds the members of obj under prefix, one level of nesting deep (the format has no more). */
static int add_object(struct entry *e, const char *prefix, const json_t *obj, int depth)
{
	const char *key;
	json_t *value;
	char inner[NAME_MAX_LEN + 1];
	int r = 0;

	json_object_foreach((json_t *)obj, key, value) {
		if (json_is_object(value) && depth == 0) {
			if (snprintf(inner, sizeof(inner), "%s_%s", prefix, key) >= (int)sizeof(inner))
				return -E2BIG;
			r = add_object(e, inner, value, 1);
		} else {
			r = add(e, prefix, key, value);
		}
		if (r != 0)
			return r;
	}
	return 0;
}

/* The native protocol: NAME=value and a newline; a value holding a newline as NAME, a newline,
 * its length (u64 little-endian), the value and a newline. Returns the iovec count. */
static int frame_entry(struct entry *e)
{
	static char newline[] = "\n", equals[] = "=";
	int j = 0;

	for (size_t i = 0; i < e->n; i++) {
		struct field *f = &e->f[i];
		int binary = memchr(f->value, '\n', f->value_len) != NULL;

		e->iov[j++] = (struct iovec){ f->name, f->name_len };
		if (binary) {
			f->le_len = htole64((uint64_t)f->value_len);
			e->iov[j++] = (struct iovec){ newline, 1 };
			e->iov[j++] = (struct iovec){ &f->le_len, sizeof(f->le_len) };
		} else {
			e->iov[j++] = (struct iovec){ equals, 1 };
		}
		e->iov[j++] = (struct iovec){ f->value, f->value_len };
		e->iov[j++] = (struct iovec){ newline, 1 };
	}
	return j;
}

static int journal_socket(void)
{
	int size = SNDBUF;

	if (journal_fd >= 0)
		return 0;
	journal_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (journal_fd < 0)
		return -errno;
	/* Best effort, as journald's own clients do: the default fits ~100 records in flight. */
	(void)setsockopt(journal_fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	return 0;
}

int audit_journal_send(const json_t *record, const char *message)
{
	static struct entry e;	/* 17 KiB: kept off the stack, the parent is one thread */
	static const struct sockaddr_un sa = { .sun_family = AF_UNIX,
		.sun_path = AUDIT_JOURNAL_SOCKET };
	struct msghdr mh = { .msg_name = (void *)&sa, .msg_namelen = sizeof(sa) };
	int r;

	e.n = 0;
	if ((r = add_object(&e, "P256SIGN", record, 0)) != 0 ||
	    (r = add_text(&e, "MESSAGE", message)) != 0 ||
	    (r = add_text(&e, "PRIORITY", "6")) != 0 ||
	    (r = add_text(&e, "SYSLOG_IDENTIFIER", "p256signd")) != 0 ||
	    (r = journal_socket()) != 0)
		return r;
	mh.msg_iov = e.iov;
	mh.msg_iovlen = (size_t)frame_entry(&e);
	/* ENOENT or ECONNREFUSED: no journal listens; EAGAIN: its queue is full. */
	if (sendmsg(journal_fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		return -errno;
	return 0;
}
